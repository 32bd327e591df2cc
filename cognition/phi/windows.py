"""``estimate_windows``: Phi over sliding windows of a run, all windows in one batch."""
from __future__ import annotations

import dataclasses

import numpy as np

from cognition.phi.covariance import ledoit_wolf_intensity, shrink
from cognition.phi.partitions import mask_to_mib
from cognition.phi.search import phi_at_mib, resolve_search
from cognition.phi.validation import check_options, check_series

_CHUNK_ENTRIES = 2**24  # stacked window data per batch, float64 entries (~128 MiB)


@dataclasses.dataclass(frozen=True)
class WindowedPhi:
    """Measures at each window's own MIB; arrays of shape (windows,), bits.

    ``starts[w]`` is the first time index of window w (it covers [start, start + window)).
    ``masks`` (windows, n) is True on the part holding node 0.
    """

    starts: np.ndarray
    tdmi: np.ndarray
    phi_wms: np.ndarray
    phi_r: np.ndarray
    stochastic_interaction: np.ndarray
    masks: np.ndarray
    n_samples: int
    method: dict[str, str]

    def mib(self, w: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The MIB of window w as ((part holding node 0), (other part))."""
        return mask_to_mib(self.masks[w])


def estimate_windows(X, window: int, step: int = 1, lag: int = 1, shrinkage=None, search: str = "auto",
                     device=None) -> WindowedPhi:
    """Phi in every window [s, s + window) of X, s = 0, step, 2 step, ... (batched).

    X: (T, n) or (agents, T, n); within a window, lagged pairs are formed per agent and
    pooled, exactly as ``estimate`` does for its whole input (each window has
    agents * (window - lag) samples, centred on the window's own mean). shrinkage: None,
    'ledoit-wolf' (per window) or a float in [0, 1]. All windows' MIB searches run as one
    batch (on torch when ``device`` is given).
    """
    check_options(search, shrinkage, 0, 0, 0.5)
    covs, starts, samples = window_covariances(X, window, step, lag, shrinkage)
    row = phi_at_mib(covs, search, device)
    method = {"search": resolve_search(search, covs.shape[-1] // 2),
              "covariance": "sample covariance per window" + ("" if shrinkage is None else f", shrinkage {shrinkage}")}
    return WindowedPhi(starts=starts, tdmi=row["tdmi"], phi_wms=row["phi_wms"], phi_r=row["phi_r"],
                       stochastic_interaction=row["stochastic_interaction"], masks=row["masks"],
                       n_samples=samples, method=method)


def window_covariances(X, window: int, step: int = 1, lag: int = 1, shrinkage=None) -> tuple[np.ndarray, np.ndarray, int]:
    """(covariances (W, 2n, 2n), starts (W,), samples per window) of :func:`estimate_windows`' windows, so
    that callers with many series (a band's resamples) search every window of all of them in one batch."""
    X = check_series(X, lag)
    agents, T, n = X.shape
    for name, value in (("window", window), ("step", step)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    if window > T:
        raise ValueError(f"window={window} is longer than the series (T={T})")
    check_series(X[:, :window], lag)  # enough samples per window
    pairs = np.concatenate([X[:, :-lag], X[:, lag:]], axis=-1)          # (agents, T - lag, 2n)
    per_window = window - lag
    starts = np.arange(0, T - window + 1, step)
    covs = []
    chunk = max(1, _CHUNK_ENTRIES // (agents * per_window * 2 * n))
    for c in range(0, len(starts), chunk):
        s = starts[c:c + chunk]
        seg = pairs[:, s[:, None] + np.arange(per_window)[None, :]]      # (agents, W, L, 2n)
        seg = np.moveaxis(seg, 1, 0).reshape(len(s), agents * per_window, 2 * n)
        seg = seg - seg.mean(axis=1, keepdims=True)
        outer = np.matmul(np.swapaxes(seg, 1, 2), seg)
        n_pairs = np.full(len(s), float(seg.shape[1]))
        if shrinkage == "ledoit-wolf":
            lam = ledoit_wolf_intensity(outer, (np.einsum("wnp,wnp->wn", seg, seg) ** 2).sum(1), n_pairs)
        else:
            lam = np.full(len(s), float(shrinkage or 0.0))
        covs.append(shrink(outer / (n_pairs - 1)[:, None, None], lam))
    return np.concatenate(covs), starts, agents * per_window
