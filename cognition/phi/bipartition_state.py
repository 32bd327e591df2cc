"""Bipartitions that nodes move across, with Phi_WMS and K kept up to date.

The MIB criterion needs, per part M, log det of its past (P), present (Q) and joint
(J = [M_{t-tau}, M_t]) covariance. The three are stacked into one block-diagonal
(4n, 4n) matrix blockdiag(J, P, Q) (node i owns variables i, n+i of J, 2n+i of P and
3n+i of Q; ``stacked_blocks``). ``BipartitionState`` keeps one ``VariableSet`` per part
over it, so moving a node costs O(n^2) and the criterion after every possible single
move is read off in O(n): the local search of ``local_search.py`` runs on it. The
module-level helpers are shared with Queyranne's oracle.
"""
from __future__ import annotations

import numpy as np

from cognition.phi.gaussian import NATS_TO_BITS, entropy_from_logdet, logdet, masked_logdets
from cognition.phi.incremental import VariableSet


def stacked_blocks(cov: np.ndarray) -> np.ndarray:
    """blockdiag(J, P, Q) (..., 4n, 4n) from the joint covariance (..., 2n, 2n)."""
    n = cov.shape[-1] // 2
    stacked = np.zeros(cov.shape[:-2] + (4 * n, 4 * n))
    stacked[..., :2 * n, :2 * n] = cov
    stacked[..., 2 * n:3 * n, 2 * n:3 * n] = cov[..., :n, :n]
    stacked[..., 3 * n:, 3 * n:] = cov[..., n:, n:]
    return stacked


def node_variables(nodes: np.ndarray, n: int) -> np.ndarray:
    """Node masks (R, n) -> variable masks (R, 4n); node indices (R, g) -> (R, 4g) ordered
    [J past, J present, P, Q] blocks of g (the layout of ``stacked_blocks``)."""
    if nodes.dtype == bool:
        return np.concatenate([nodes] * 4, axis=1)
    return np.concatenate([nodes + k * n for k in range(4)], axis=1)


def criterion_rows(ld: dict, size_a, n: int, normalise: np.ndarray, tdmi) -> np.ndarray:
    """Stack (..., 3) of (criterion, Phi_WMS, K) from log dets ld[(side, block)] (nats).

    ld[("A" | "B", "J" | "P" | "Q")]: log det of each part's joint, past and present
    covariance. All arguments broadcast against each other (``normalise`` and ``tdmi``
    aligned with the leading axis). The criterion is Phi_WMS / K where ``normalise``.
    """
    mi = {s: 0.5 * (ld[s, "P"] + ld[s, "Q"] - ld[s, "J"]) * NATS_TO_BITS for s in "AB"}
    phi = tdmi - mi["A"] - mi["B"]
    k_norm = np.minimum(entropy_from_logdet(size_a, ld["A", "Q"]), entropy_from_logdet(n - size_a, ld["B", "Q"]))
    norm = normalise.reshape(normalise.shape + (1,) * (phi.ndim - normalise.ndim))
    safe = np.where(norm & (k_norm > 0), k_norm, 1.0)
    return np.stack([np.where(norm, phi / safe, phi), phi, k_norm], axis=-1)


def split_blocks(logdiag: np.ndarray) -> dict[str, np.ndarray]:
    """Per-variable log terms (..., 4g) of groups ordered [J past, J present, P, Q] -> block sums."""
    g = logdiag.shape[-1] // 4
    return {"J": logdiag[..., :2 * g].sum(-1), "P": logdiag[..., 2 * g:3 * g].sum(-1), "Q": logdiag[..., 3 * g:].sum(-1)}


def node_dets(diag: np.ndarray, off: np.ndarray, n: int) -> dict[str, np.ndarray]:
    """Per node i, det of its J block (2x2 at [i, n+i]), P entry (2n+i) and Q entry (3n+i).

    diag: (..., 4n) diagonal of a stacked matrix; off: (..., n) its entries [i, n+i].
    """
    return {"J": diag[..., :n] * diag[..., n:2 * n] - off * off, "P": diag[..., 2 * n:3 * n], "Q": diag[..., 3 * n:]}


class BipartitionState:
    """R bipartitions of n nodes of the joint covariance(s) cov ((R,) 2n, 2n) of (X_{t-tau}, X_t).

    masks: (R, n) bool, True on part A (may be empty or full while building orderings).
    normalise: (R,) bool; the criterion is Phi_WMS / K where True, else Phi_WMS.
    """

    def __init__(self, cov: np.ndarray, masks: np.ndarray, normalise):
        masks = np.asarray(masks, dtype=bool)
        R, n = masks.shape
        self.n = n
        cov = np.asarray(cov, dtype=float)
        stacked = stacked_blocks(cov)
        lds = [logdet(b, "joint covariance") for b in (cov, cov[..., :n, :n], cov[..., n:, n:])]
        self.tdmi = np.broadcast_to(0.5 * (lds[1] + lds[2] - lds[0]) * NATS_TO_BITS, (R,))
        self.normalise = np.broadcast_to(np.asarray(normalise, dtype=bool), (R,)).copy()
        blocks = [(0, 2 * n), (2 * n, 3 * n), (3 * n, 4 * n)]
        self.sides = {"A": VariableSet(stacked, node_variables(masks, n), blocks),
                      "B": VariableSet(stacked, node_variables(~masks, n), blocks)}
        self.ld = {}  # (side, block) -> (R,) log det of that part's block, nats
        for side, m in (("A", masks), ("B", ~masks)):
            for key, block, vars_ in (("J", cov, np.concatenate([m, m], 1)),
                                      ("P", cov[..., :n, :n], m), ("Q", cov[..., n:, n:], m)):
                self.ld[side, key] = np.array(np.broadcast_to(masked_logdets(block, vars_, "covariance of a part"), (R,)))

    @property
    def masks(self) -> np.ndarray:
        """(R, n) bool, True on part A."""
        return self.sides["A"].members[:, :self.n]

    def current(self) -> np.ndarray:
        """(R, 3): (criterion, Phi_WMS, K) of the current bipartitions."""
        return criterion_rows(self.ld, self.masks.sum(1), self.n, self.normalise, self.tdmi)

    def move(self, idx: np.ndarray, to_a: np.ndarray, states: np.ndarray | None = None) -> None:
        """Move node group idx[k] (k, g) to part A where to_a[k], else to part B.

        states: (k,) the states to move (default: all R, in order).
        """
        states = np.arange(len(self.normalise)) if states is None else np.asarray(states)
        for dest, pick in (("A", to_a), ("B", ~to_a)):
            if not pick.any():
                continue
            rows, var = states[pick], node_variables(idx[pick], self.n)
            for side, op in ((dest, "add"), ("B" if dest == "A" else "A", "remove")):
                change = split_blocks(self.sides[side].update(rows, op, var))
                for key in "JPQ":
                    self.ld[side, key][rows] += change[key]

    def flip_scores(self, states: np.ndarray) -> np.ndarray:
        """(k, n, 3): (criterion, Phi_WMS, K) of states[k] after moving node i across the cut.

        Moves that would empty a part get criterion +inf.
        """
        n = self.n
        in_a = self.masks[states]
        dets = {}
        for side in "AB":
            for name in ("prec", "cond"):
                mat = getattr(self.sides[side], name)
                diag = np.diagonal(mat, axis1=1, axis2=2)[states]
                off = np.diagonal(mat[:, :n, n:2 * n], axis1=1, axis2=2)[states]
                dets[side, name] = node_dets(diag, off, n)
        ld = {}
        for key in "JPQ":
            # node i in A: A loses it (precision block), B gains it (conditional block)
            ld["A", key] = self.ld["A", key][states, None] + np.log(
                np.where(in_a, dets["A", "prec"][key], dets["A", "cond"][key]))
            ld["B", key] = self.ld["B", key][states, None] + np.log(
                np.where(in_a, dets["B", "cond"][key], dets["B", "prec"][key]))
        size_a = in_a.sum(1, keepdims=True) - np.where(in_a, 1, -1)
        out = criterion_rows(ld, size_a, n, self.normalise[states], self.tdmi[states, None])
        out[..., 0] = np.where((size_a == 0) | (size_a == n), np.inf, out[..., 0])
        return out
