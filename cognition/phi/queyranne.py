"""Queyranne's algorithm for the minimum-information bipartition of large systems.

Queyranne (1998, Math. Program. 82:3-12) minimises a symmetric submodular set function
f(S) = f(V \\ S) over non-empty proper subsets with O(n^3) evaluations: n-1 phases, each
building an ordering of the current groups (start anywhere; repeatedly append the group u
minimising f(W + u) - f(u), W the groups ordered so far), recording the last group u as a
candidate cut, and merging the last two ("pendent pair"). Kitazono, Kanai & Oizumi
(2018, Entropy 20:173) showed that this finds the exact or a near-exact minimum
information partition for Gaussian Phi measures, which are not guaranteed submodular;
docs/phi.md reports the agreement we measured against exhaustive search.

``GaussianPhiOracle`` evaluates f for all candidate groups of one ordering step with
O(n^2) work (partial Cholesky factorisations grown with W), instead of factorising every
candidate's covariance from scratch.
"""
from __future__ import annotations

import numpy as np

from cognition.phi.bipartition_state import criterion_rows, node_dets, node_variables, split_blocks, stacked_blocks
from cognition.phi.gaussian import NATS_TO_BITS, cholesky, log_diagonal
from cognition.phi.incremental import GrowingCondition


def queyranne(n: int, oracle) -> dict[str, np.ndarray]:
    """Run Queyranne's algorithm on n elements; return its candidate cuts and orderings.

    ``oracle`` has ``reset()`` (W := empty), ``add(group)`` (W := W + group) and
    ``scores(groups) -> (m,) or (m, c)`` giving f(W + u) for each group u (column 0 when
    2-D; other columns are carried along for the caller). Returns a dict of
    "cut_masks" (n-1, n) and "cut_rows": the n-1 candidate cuts (the last group of each
    phase) and their scores; "prefix_masks" and "prefix_rows": every prefix W + u of every
    ordering (nested sets of all sizes, useful starting points for other criteria).
    Masks are True on the part holding element 0. The minimiser of f among the cuts is
    the global minimiser when f is symmetric submodular.
    """
    groups = [np.array([i]) for i in range(n)]
    out = {"cut_masks": [], "cut_rows": [], "prefix_masks": [], "prefix_rows": []}

    def record(kind, mask, row):
        out[kind + "_masks"].append(mask if mask[0] else ~mask)
        out[kind + "_rows"].append(row)

    while len(groups) > 1:
        oracle.reset()
        single = np.asarray(oracle.scores(groups))
        f_single = single if single.ndim == 1 else single[:, 0]
        remaining = list(range(1, len(groups)))
        w = np.zeros(n, dtype=bool)
        w[groups[0]] = True
        oracle.add(groups[0])
        last_added = 0
        while len(remaining) > 1:
            s = np.asarray(oracle.scores([groups[j] for j in remaining]))
            pick = int(np.argmin((s if s.ndim == 1 else s[:, 0]) - f_single[remaining]))
            last_added = remaining.pop(pick)
            w[groups[last_added]] = True
            record("prefix", w.copy(), s[pick])
            oracle.add(groups[last_added])
        last = remaining[0]
        cut = np.zeros(n, dtype=bool)
        cut[groups[last]] = True
        record("cut", cut, single[last])
        groups[last_added] = np.concatenate([groups[last_added], groups[last]])
        del groups[last]
    return {k: np.array(v) for k, v in out.items()}


class SetFunctionOracle:
    """Oracle for any set function given as ``f(masks (P, n) bool) -> (P,)`` (reference path)."""

    def __init__(self, f, n: int):
        self.f, self.n = f, n
        self.reset()

    def reset(self) -> None:
        self.w = np.zeros(self.n, dtype=bool)

    def add(self, group) -> None:
        self.w[group] = True

    def scores(self, groups) -> np.ndarray:
        masks = np.repeat(self.w[None], len(groups), axis=0)
        for row, g in zip(masks, groups):
            row[g] = True
        return np.asarray(self.f(masks), dtype=float)


class GaussianPhiOracle:
    """f(S) = Phi_WMS(S | V\\S) (or Phi_WMS / K) from a joint covariance (2n, 2n).

    ``scores`` returns (m, 3) rows (f, Phi_WMS in bits, K in bits). Part A is W, part B
    the rest R. Conditioning the stacked covariance blockdiag(J, P, Q) on W gives, for a
    candidate group u, log det S_{W+u} = log det S_W + log det [S | W]_uu; conditioning
    its inverse on W gives S_R^-1, and log det S_{R-u} = log det S_R + log det [S_R^-1]_uu.
    Both are partial Cholesky factorisations grown one group at a time
    (``incremental.GrowingCondition``), so a step costs O(n^2), not O(n^4).
    """

    def __init__(self, cov: np.ndarray, normalise: bool):
        n = cov.shape[-1] // 2
        self.n, self.normalise = n, np.array([normalise])
        stacked = stacked_blocks(cov)
        self._ld_whole = split_blocks(2.0 * log_diagonal(cholesky(stacked, "joint covariance")))
        self.tdmi = 0.5 * (self._ld_whole["P"] + self._ld_whole["Q"] - self._ld_whole["J"]) * NATS_TO_BITS
        # one stack: the covariance (part A = W grows) and its inverse (part B = R shrinks)
        self._start = GrowingCondition(np.stack([stacked, np.linalg.inv(stacked)]), n)
        self.reset()

    def reset(self) -> None:
        self.cond = self._start.copy()
        self.ld = {**{("A", k): 0.0 for k in "JPQ"}, **{("B", k): v for k, v in self._ld_whole.items()}}
        self.size_a = 0

    def add(self, group) -> None:
        var = node_variables(np.asarray(group)[None, :], self.n)[0]
        logdiag = self.cond.add(var)
        for s, side in enumerate("AB"):
            for key, v in split_blocks(logdiag[s]).items():
                self.ld[side, key] += v
        self.size_a += len(group)

    def scores(self, groups) -> np.ndarray:
        n = self.n
        sizes = np.array([len(g) for g in groups])
        ld = {key: np.empty(len(groups)) for key in self.ld}
        for size in np.unique(sizes):
            which = np.flatnonzero(sizes == size)
            nodes = np.stack([groups[i] for i in which])
            if size == 1:
                vals = {k: np.log(v[:, nodes[:, 0]]) for k, v in node_dets(self.cond.diag, self.cond.off, n).items()}
            else:
                vals = split_blocks(self.cond.block_logdiag(node_variables(nodes, n)))
            for key, v in vals.items():
                for s, side in enumerate("AB"):
                    ld[side, key][which] = self.ld[side, key] + v[s]
        return criterion_rows(ld, self.size_a + sizes, n, self.normalise, self.tdmi)
