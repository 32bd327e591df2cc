"""Exact Hamming EMD on {0,1}^k for k >= 5: network simplex on the hypercube graph.

The EMD with Hamming ground metric is the min-cost flow on Q_k with unit cost per edge
in either direction (a shortest path between states is a walk along edges). The network
simplex (Ahuja, Magnanti & Orlin 1993, ch. 11) keeps a spanning tree of basic arcs,
integer node potentials pi with pi[a] - pi[b] = 1 on every basic arc a -> b, and pivots
on an arc with pi[a] - pi[b] > 1 until none is left; the final potentials are a
1-Lipschitz dual with the same value, which proves optimality. It starts from the best
of k binomial spanning trees, whose tree transport is already near-optimal.

With an excess (pyemd's EMD-hat with extra-mass penalty 0: the heavier histogram may
leave mass anywhere for free), a sink node joins, with a cost-0 arc x -> sink from every
state; its potential then bounds the others' (pi[x] <= pi[sink] at the optimum).
"""
from __future__ import annotations

from functools import cache

import numpy as np

from .hypercube import hypercube_edges, tree_transport_matrices

_MAX_PIVOTS_PER_NODE = 40


class PivotLimitError(RuntimeError):
    """The simplex did not finish within its pivot budget (degenerate cycling)."""


@cache
def _tree_parents(k: int, t: int) -> tuple[int, ...]:
    order = [(t + j) % k for j in range(k)]
    parent = [0] * (1 << k)
    for x in range(1, 1 << k):
        bit = next(b for b in order if x >> b & 1)
        parent[x] = x ^ (1 << bit)
    return tuple(parent)


@cache
def _bits(k: int) -> np.ndarray:
    return ((np.arange(1 << k)[:, None] >> np.arange(k)) & 1).astype(float)


@cache
def _edge_arrays(k: int) -> tuple[np.ndarray, np.ndarray]:
    edges = hypercube_edges(k)
    return edges[:, 0].copy(), edges[:, 1].copy()


def _initial_tree(d: np.ndarray, k: int):
    subtree = tree_transport_matrices(k) @ d  # (k, 2^k - 1): net supply below each tree edge
    t = int(np.argmin(np.abs(subtree).sum(axis=1)))
    n = 1 << k
    parent = list(_tree_parents(k, t))
    s = subtree[t].tolist()
    orient = [1] * n
    flow = [0.0] * n
    for x in range(1, n):
        v = s[x - 1]
        orient[x] = 1 if v >= 0 else -1
        flow[x] = abs(v)
    return parent, orient, flow


def _potentials(parent: list[int], orient: list[int], sink: int) -> tuple[list[int], list[list[int]]]:
    """(potentials, children) of a spanning tree rooted at 0: pi[a] - pi[b] = cost on every
    tree arc a -> b (orient[x] = +1: the arc runs x -> parent[x]); arcs touching the sink
    cost 0, the others 1."""
    children: list[list[int]] = [[] for _ in parent]
    for x in range(1, len(parent)):
        children[parent[x]].append(x)
    pi = [0] * len(parent)
    stack = [0]
    while stack:
        u = stack.pop()
        for c in children[u]:
            pi[c] = pi[u] + (0 if sink in (c, u) else orient[c])
            stack.append(c)
    return pi, children


def _violated_arcs(pi: list[int], edges: tuple[np.ndarray, np.ndarray], sink: int) -> list[tuple[int, int, int]]:
    """(violation, a, b) for every arc a -> b of negative reduced cost (its violation: minus
    the reduced cost, 1 - (pi[a] - pi[b]) on the hypercube, pi[sink] - pi[a] into the
    sink), sorted so that pop() gives the most violated (Dantzig's rule)."""
    arr = np.array(pi)
    diff = arr[edges[0]] - arr[edges[1]]
    viol = np.abs(diff) - 1
    out = [(int(viol[j]), int(edges[0][j]), int(edges[1][j])) if diff[j] > 0
           else (int(viol[j]), int(edges[1][j]), int(edges[0][j])) for j in np.flatnonzero(viol > 0)]
    if sink >= 0:
        rise = arr[:sink] - pi[sink]
        out += [(int(rise[x]), int(x), sink) for x in np.flatnonzero(rise > 0)]
    out.sort()
    return out


def _pivot(a: int, b: int, violation: int, parent: list[int], orient: list[int], flow: list[float],
           children: list[list[int]], pi: list[int]) -> None:
    """Push flow around the cycle a -> b -> (tree) -> a, swap the blocking arc out for
    a -> b, and shift the potentials of the subtree that moved (by the violation)."""
    ancestors = {a}
    x = a
    while x:
        x = parent[x]
        ancestors.add(x)
    b_side = []  # tree path from b up to the join, then from a
    y = b
    while y not in ancestors:
        b_side.append(y)
        y = parent[y]
    a_side = []
    x = a
    while x != y:
        a_side.append(x)
        x = parent[x]
    theta, leave, leave_on_a = float("inf"), -1, False
    for z in reversed(a_side):  # traversed parent -> z: arcs z -> parent lose flow
        if orient[z] == 1 and flow[z] <= theta:
            theta, leave, leave_on_a = flow[z], z, True
    for z in b_side:  # traversed z -> parent: arcs parent -> z lose flow
        if orient[z] == -1 and flow[z] <= theta:
            theta, leave, leave_on_a = flow[z], z, False
    for z in a_side:
        flow[z] += -theta if orient[z] == 1 else theta
    for z in b_side:
        flow[z] += theta if orient[z] == 1 else -theta
    if leave_on_a:  # a's subtree hangs under b: pi[a] drops to pi[b] + cost
        other, c_orient, path, shift = b, 1, a_side, -violation
    else:  # b's subtree hangs under a
        other, c_orient, path, shift = a, -1, b_side, violation
    # Reverse the tree path from the entering arc's end to the leaving arc.
    chain = path[: path.index(leave) + 1]
    children[parent[chain[-1]]].remove(chain[-1])
    for i in range(len(chain) - 1, 0, -1):
        lower, upper = chain[i - 1], chain[i]
        children[upper].remove(lower)
        children[lower].append(upper)
        orient[upper] = -orient[lower]
        flow[upper] = flow[lower]
        parent[upper] = lower
    c = chain[0]
    parent[c], orient[c], flow[c] = other, c_orient, theta
    children[other].append(c)
    stack = [c]
    while stack:
        u = stack.pop()
        pi[u] += shift
        stack.extend(children[u])


def hamming_emd_simplex(d: np.ndarray, k: int, free_excess: bool = False) -> float:
    """Exact EMD for one difference vector d = p - q of shape (2^k,), sum(d) = 0. With
    `free_excess` and sum(d) > 0 the excess is left behind for free (EMD-hat with
    extra-mass penalty 0): the cheapest way to cover q's mass from p's."""
    n = 1 << k
    excess = float(d.sum())
    parent, orient, flow = _initial_tree(d, k)
    if excess == 0:
        # Every plan flips each node at least |net mass moving across it| times: when the
        # starting tree's cost meets that bound, it is optimal (common for products).
        moved = float(sum(flow))
        if moved == float(np.abs(d @ _bits(k)).sum()):
            return moved
    sink = -1
    if free_excess and excess > 0:  # the root's surplus goes to the sink over the arc 0 -> sink
        sink = n
        parent, orient, flow = parent + [0], orient + [-1], flow + [excess]
    pi, children = _potentials(parent, orient, sink)
    edges = _edge_arrays(k)
    # Arcs are priced in batches: one scan lists the violated arcs, which are pivoted in
    # order of violation (rechecked, as potentials move); optimal when a scan finds none.
    candidates: list[tuple[int, int, int]] = []
    for _ in range(_MAX_PIVOTS_PER_NODE * n):
        while True:
            if not candidates:
                candidates = _violated_arcs(pi, edges, sink)
                if not candidates:
                    return float(sum(f for x, f in enumerate(flow[1:], 1) if sink not in (x, parent[x])))
            _, a, b = candidates.pop()
            violation = pi[a] - pi[b] - (0 if b == sink else 1)
            if violation > 0:
                break
        _pivot(a, b, violation, parent, orient, flow, children, pi)
    raise PivotLimitError(f"network simplex exceeded {_MAX_PIVOTS_PER_NODE * n} pivots on Q_{k}")
