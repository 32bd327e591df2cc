"""Exact earth mover's distances for IIT 3.0 (PyPhi 1.2's MEASURE = 'EMD'), and the
`ExactEMD` engine that `iit3(..., emd="exact")` uses (`fastemd.PyPhiEMD` is the default).

- `hamming_emd_diffs`, `hamming_emd_factored`: EMD between distributions over binary
  states with the Hamming ground metric. Exact: a product with the Lipschitz-polytope
  vertices for <= 4 nodes, a sum over node blocks when both distributions factor over
  them, the hypercube network simplex otherwise.
- `bernoulli_product_emd`: the same EMD when both distributions are products of
  independent nodes (effect repertoires): the sum over nodes of |P_1(ON) - P_2(ON)|
  (PyPhi's `effect_emd`; exact, because the Hamming cost is a sum over nodes and the
  product of per-node optimal couplings attains the sum of per-node lower bounds).
- `transport_emd`: EMD between two histograms under a general cost matrix (the extended
  EMD between cause-effect structures), as a linear program solved by HiGHS.
- Lower bounds (`marginal_lower_bounds`, `strong_lower_bound`) prune MIP searches.

Units: the Hamming EMD is in "bits flipped" (expected number of nodes that differ), as
in PyPhi; no logarithms are involved.
"""
from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np

from .hypercube import MAX_EXACT_DUAL_BITS, lipschitz_vertices, tree_transport_matrices
from .network_simplex import PivotLimitError, hamming_emd_simplex
from .repertoires import marginal, merge_overlapping


def _n_bits(size: int) -> int:
    k = size.bit_length() - 1
    if size != 1 << k:
        raise ValueError(f"distribution length {size} is not a power of 2")
    return k


def _lp_hamming_emd(d: np.ndarray, k: int) -> float:
    """Fallback when the simplex hits its pivot budget: the same flow LP via HiGHS."""
    from scipy import sparse
    from scipy.optimize import linprog

    from .hypercube import hypercube_edges

    edges = hypercube_edges(k)
    m = len(edges)
    inc = sparse.csr_matrix(
        (np.r_[np.ones(m), -np.ones(m)], (np.r_[edges[:, 0], edges[:, 1]], np.r_[np.arange(m), np.arange(m)])),
        shape=(1 << k, m),
    )
    res = linprog(np.ones(2 * m), A_eq=sparse.hstack([inc, -inc]).tocsc(), b_eq=d, bounds=(0, None), method="highs")
    return float(res.fun)


@cache
def _vertices_t(k: int) -> np.ndarray:
    return np.ascontiguousarray(lipschitz_vertices(k).T)  # a transposed view is 10x slower


def hamming_emd_diffs(diffs: np.ndarray) -> np.ndarray:
    """Exact Hamming EMD for each row of `diffs` = p - q, shape (B, 2^k) -> (B,)."""
    diffs = np.atleast_2d(np.asarray(diffs, dtype=float))
    k = _n_bits(diffs.shape[1])
    if k <= MAX_EXACT_DUAL_BITS:
        return (diffs @ _vertices_t(k)).max(axis=1) if k else np.zeros(len(diffs))
    out = np.empty(len(diffs))
    for i, d in enumerate(diffs):
        try:
            out[i] = hamming_emd_simplex(d, k)
        except PivotLimitError:
            out[i] = _lp_hamming_emd(d, k)
    return out


def hamming_emd_upper_bounds(diffs: np.ndarray) -> np.ndarray:
    """Per row of `diffs` (B, 2^k): the exact Hamming EMD for k <= 4, else the cost of
    the cheapest of k binomial spanning-tree transports (a feasible plan, so >= the EMD)."""
    diffs = np.atleast_2d(diffs)
    k = _n_bits(diffs.shape[1])
    if k <= MAX_EXACT_DUAL_BITS:
        return hamming_emd_diffs(diffs)
    return np.abs(np.einsum("tij,bj->bti", tree_transport_matrices(k), diffs)).sum(-1).min(-1)


@cache
def _bits_table(k: int) -> np.ndarray:
    return ((np.arange(1 << k)[:, None] >> np.arange(k)) & 1).astype(float)


def marginal_lower_bounds(diffs: np.ndarray) -> np.ndarray:
    """Per row of `diffs` (B, 2^k): sum over nodes of |P_1(ON) - P_2(ON)| <= the EMD.

    Every coupling must flip each node at least that often (the Hamming cost adds
    over nodes).
    """
    diffs = np.atleast_2d(diffs)
    k = _n_bits(diffs.shape[1])
    return np.abs(diffs @ _bits_table(k)).sum(axis=1)


@cache
def _subset_marginals(k: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For every set S of `size` of the k nodes (combinations order): the matrix taking a
    vector over the k-node states to its marginals on each S, side by side, shape
    (2^k, C * 2^size); and which nodes each S leaves out, shape (C, k)."""
    states = np.arange(1 << k)
    subsets = list(combinations(range(k), size))
    to_marginals = np.zeros((1 << k, len(subsets) << size))
    left_out = np.zeros((len(subsets), k))
    for s, sub in enumerate(subsets):
        local = sum(((states >> b) & 1) << j for j, b in enumerate(sub))
        to_marginals[states, (s << size) + local] = 1.0
        left_out[s] = [i not in sub for i in range(k)]
    return to_marginals, left_out


def strong_lower_bounds(diffs: np.ndarray, size: int = MAX_EXACT_DUAL_BITS) -> np.ndarray:
    """Per row of `diffs` (B, 2^k), k >= size: a lower bound of the Hamming EMD.

    For any `size` nodes S (at most 4), the EMD is at least the exact EMD of the
    marginals on S plus the marginal differences of the other nodes (the Hamming cost
    adds over node blocks). Smaller sets: weaker, and cheaper (38 vertices at 3 nodes,
    990 at 4).
    """
    diffs = np.atleast_2d(diffs)
    k = _n_bits(diffs.shape[1])
    to_marginals, left_out = _subset_marginals(k, size)
    marginals = (diffs @ to_marginals).reshape(len(diffs), len(left_out), 1 << size)
    exact = (marginals @ _vertices_t(size)).max(axis=2)  # (B, C)
    singles = np.abs(diffs @ _bits_table(k))  # (B, k)
    return (exact + singles @ left_out.T).max(axis=1)


def strong_lower_bound(diff: np.ndarray) -> float:
    """`strong_lower_bounds` of one difference vector over 2^k states, k >= 4."""
    return float(strong_lower_bounds(diff[None, :])[0])


def hamming_emd_factored(
    p: np.ndarray, p_blocks: tuple[int, ...], q: np.ndarray, q_blocks: tuple[int, ...], purview: int
) -> float:
    """Exact Hamming EMD of p, q over `purview` that factor over the given node blocks.

    Blocks are bitmasks partitioning `purview`. Both distributions factor over the join
    of the two block partitions, so the EMD is the sum of the EMDs of their marginals on
    each joint block (Hamming cost adds over nodes; product couplings are optimal).
    """
    joint = merge_overlapping((*p_blocks, *q_blocks))
    if len(joint) == 1:
        return float(hamming_emd_diffs((p - q)[None, :])[0])
    total = 0.0
    for j in joint:
        pj, qj = marginal(p, purview, j), marginal(q, purview, j)
        total += float(hamming_emd_diffs((pj - qj)[None, :])[0])
    return total


def bernoulli_product_emd(on_1: np.ndarray, on_2: np.ndarray) -> float:
    """EMD between two products of independent binary nodes given P(ON) per node."""
    return float(np.abs(np.asarray(on_1) - np.asarray(on_2)).sum())


def transport_emd(first: np.ndarray, second: np.ndarray, cost: np.ndarray) -> float:
    """Min-cost transport of histogram `first` onto `second` (equal totals) under `cost`.

    Shapes (n,), (n,), (n, n). Solved as an LP with HiGHS at tight tolerances.
    """
    from scipy import sparse
    from scipy.optimize import linprog

    first, second = np.asarray(first, float), np.asarray(second, float)
    n = len(first)
    rows = sparse.kron(sparse.eye(n), np.ones((1, n)))
    cols = sparse.kron(np.ones((1, n)), sparse.eye(n))
    res = linprog(
        np.asarray(cost, float).ravel(),
        A_eq=sparse.vstack([rows, cols]).tocsc(),
        b_eq=np.r_[first, second],
        bounds=(0, None),
        method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    )
    if res.status != 0:
        raise RuntimeError(f"transport LP failed: {res.message}")
    return float(res.fun)


class ExactEMD:
    """EMD engine with the mathematically exact Hamming EMD and transport LP."""

    name = "exact"

    def mip_distance(self, whole: np.ndarray, parts: np.ndarray, part_blocks, whole_blocks, purview) -> float:
        """min over rows of `parts` of the exact Hamming EMD(whole, part)."""
        diffs = whole[None, :] - parts
        bounds = marginal_lower_bounds(diffs)
        best = np.inf
        for j in np.argsort(bounds, kind="stable"):
            if bounds[j] >= best:
                break
            if diffs.shape[1] > 1 << MAX_EXACT_DUAL_BITS and strong_lower_bound(diffs[j]) >= best:
                continue
            best = min(best, hamming_emd_factored(whole, whole_blocks, parts[j], part_blocks[j], purview))
        return best

    def upper_bounds(self, wholes: np.ndarray, parts: np.ndarray) -> np.ndarray:
        """Per whole (B, 2^k), an upper bound of `mip_distance` from its rows (B, R, 2^k)
        (+ 1e-12: the arrays may be off by float noise, see `cause.CauseTables`)."""
        b, r, n = parts.shape
        upper = hamming_emd_upper_bounds((wholes[:, None, :] - parts).reshape(b * r, n))
        return upper.reshape(b, r).min(axis=1) + 1e-12

    def hamming(self, p: np.ndarray, p_blocks, q: np.ndarray, q_blocks, purview: int) -> float:
        return hamming_emd_factored(p, p_blocks, q, q_blocks, purview)

    def transport(self, first: np.ndarray, second: np.ndarray, cost: np.ndarray) -> float:
        first, second = np.array(first, float), np.array(second, float)
        # PyPhi may put a negative surplus on one side's null concept: it belongs to the other.
        for a, b in ((first, second), (second, first)):
            neg = a < 0
            b[neg] -= a[neg]
            a[neg] = 0.0
        return transport_emd(first, second, cost)
