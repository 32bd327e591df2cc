"""The binary hypercube {0,1}^k with the Hamming metric: the geometry behind IIT 3.0's EMD.

States are indexed little-endian (node 0 is bit 0), as in PyPhi. The earth mover's
distance with Hamming ground metric between two distributions p, q on {0,1}^k is a
min-cost flow on the hypercube graph Q_k with unit edge costs. Its LP dual is

    EMD(p, q) = max { <phi, p - q> : |phi(x) - phi(y)| <= 1 for every edge x ~ y },

and because the edge-node incidence matrix is totally unimodular the maximum is reached
at an integer vertex of that Lipschitz polytope (with phi(0) = 0 fixing the constant).
A point is a vertex exactly when its tight edges (|phi(x) - phi(y)| = 1) connect all
2^k states. For k <= 4 the vertices are few (2, 6, 38, 990) and the EMD is one matrix
product followed by a max: exact, and vectorised over any batch of distributions.
For larger k, transport along spanning trees of Q_k gives feasible starting points.
"""
from __future__ import annotations

from functools import cache

import numpy as np

#: Largest k whose Lipschitz-polytope vertices are enumerated (990 vertices at k = 4).
MAX_EXACT_DUAL_BITS = 4


def hypercube_edges(k: int) -> np.ndarray:
    """Edges of Q_k as an (k 2^(k-1), 2) int array of state pairs (x, x | 1<<i)."""
    return np.array(
        [(x, x | (1 << i)) for x in range(1 << k) for i in range(k) if not x >> i & 1],
        dtype=np.int64,
    ).reshape(-1, 2)


@cache
def lipschitz_vertices(k: int) -> np.ndarray:
    """All vertices of {phi : phi(0) = 0, 1-Lipschitz on Q_k}, shape (V, 2^k), float64.

    Built by extending integer 1-Lipschitz functions one state at a time (each new state
    has an earlier neighbour, so at most 3 values are possible), then keeping those whose
    tight edges form a connected spanning graph.
    """
    if k > MAX_EXACT_DUAL_BITS:
        raise ValueError(f"k={k}: vertex enumeration is only done for k <= {MAX_EXACT_DUAL_BITS}")
    n_states = 1 << k
    funcs = np.zeros((1, 1), dtype=np.int8)
    for x in range(1, n_states):
        earlier = [x ^ (1 << i) for i in range(k) if x >> i & 1]
        base = funcs[:, earlier[0]]
        pieces = []
        for step in (-1, 0, 1):
            value = base + step
            ok = np.ones(len(funcs), dtype=bool)
            for y in earlier[1:]:
                ok &= np.abs(value - funcs[:, y]) <= 1
            pieces.append(np.column_stack([funcs[ok], value[ok]]))
        funcs = np.concatenate(pieces).astype(np.int8)
    if k == 0:
        return np.zeros((1, 1))
    edges = hypercube_edges(k)
    tight = np.abs(funcs[:, edges[:, 0]].astype(np.int16) - funcs[:, edges[:, 1]]) == 1
    # Necessary first: every state touches a tight edge (cheap, removes most candidates).
    touched = np.zeros(funcs.shape, dtype=bool)
    for e, (u, v) in enumerate(edges):
        touched[:, u] |= tight[:, e]
        touched[:, v] |= tight[:, e]
    keep = touched.all(axis=1)
    funcs, tight = funcs[keep], tight[keep]
    reached = np.zeros(funcs.shape, dtype=bool)
    reached[:, 0] = True
    for _ in range(n_states):
        before = reached.copy()
        for e, (u, v) in enumerate(edges):
            reached[:, v] |= reached[:, u] & tight[:, e]
            reached[:, u] |= reached[:, v] & tight[:, e]
        if np.array_equal(before, reached):
            break
    return funcs[reached.all(axis=1)].astype(np.float64)


@cache
def tree_transport_matrices(k: int) -> np.ndarray:
    """Subtree indicators of k binomial spanning trees of Q_k, shape (k, 2^k - 1, 2^k).

    In tree t the parent of state x clears the first set bit of x in the cyclic order
    t, t+1, ...; moving mass along a spanning tree is a feasible transport whose cost is
    sum over tree edges of |mass of the subtree below|, an upper bound of the EMD.
    """
    n_states = 1 << k
    mats = np.zeros((k, n_states - 1, n_states))
    for t in range(k):
        order = [(t + j) % k for j in range(k)]
        parent = np.zeros(n_states, dtype=np.int64)
        for x in range(1, n_states):
            bit = next(b for b in order if x >> b & 1)
            parent[x] = x ^ (1 << bit)
        for x in range(1, n_states):
            y = x
            while y != 0:  # x lies in the subtree of every ancestor edge (y -> parent[y])
                mats[t, y - 1, x] = 1.0
                y = parent[y]
    return mats
