"""Local search over bipartitions: move single nodes while the MIB criterion improves.

Queyranne's algorithm is near-exact for the unnormalised Phi_WMS (Kitazono, Kanai &
Oizumi 2018, Entropy 20:173), but the normalised criterion Phi_WMS / K favours balanced
bipartitions that its candidate cuts rarely are. ``polish`` starts from several
candidates and repeatedly applies the best single-node move (steepest descent, all R
starts in lock-step, each step O(n^2) per start via ``BipartitionState``) until no move
lowers the criterion. docs/phi.md reports how often this reaches the exhaustive MIB.
"""
from __future__ import annotations

import numpy as np

from cognition.phi.bipartition_state import BipartitionState
from cognition.phi.partitions import TIE_ATOL, TIE_RTOL


def polish(cov: np.ndarray, starts: np.ndarray, normalise: bool, max_moves: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Steepest-descent single-node moves from each start; cov (2n, 2n), starts (R, n) bool.

    Returns the local minima: masks (R, n) (True on the part holding node 0) and rows
    (R, 3) of (criterion, Phi_WMS, K) in bits. At most ``max_moves`` moves per start
    (default 4 n).
    """
    n = starts.shape[1]
    state = BipartitionState(cov, starts, np.full(len(starts), normalise))
    rows = state.current()
    active = np.arange(len(starts))
    for _ in range(4 * n if max_moves is None else max_moves):
        flips = state.flip_scores(active)
        best = np.argmin(flips[..., 0], axis=1)
        new = flips[np.arange(len(active)), best]
        now = rows[active, 0]
        better = new[:, 0] < now - (TIE_ATOL + TIE_RTOL * np.abs(now))
        if not better.any():
            break
        active, best, new = active[better], best[better], new[better]
        state.move(best[:, None], ~state.masks[active, best], active)
        rows[active] = new
    masks = state.masks
    return np.where(masks[:, :1], masks, ~masks), rows
