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


class _Tree:
    """Spanning-tree basis: parent, orientation (+1: flow child -> parent), flow on the
    arc to the parent, node potentials and depths. Arcs cost 1, except arcs into the
    sink node (if any: the last node), which cost 0."""

    def __init__(self, parent: list[int], orient: list[int], flow: list[float], sink: int = -1):
        n = len(parent)
        self.parent, self.orient, self.flow, self.sink = parent, orient, flow, sink
        self.children: list[list[int]] = [[] for _ in range(n)]
        for x in range(1, n):
            self.children[parent[x]].append(x)
        self.pi = [0] * n
        self.depth = [0] * n
        self.relabel(0)

    def relabel(self, root: int) -> None:
        """Recompute potentials and depths below `root` (pi[a] - pi[b] = 1 on a -> b)."""
        stack = [root]
        while stack:
            u = stack.pop()
            for c in self.children[u]:
                cost = 0 if self.sink in (c, u) else 1
                self.pi[c] = self.pi[u] + self.orient[c] * cost
                self.depth[c] = self.depth[u] + 1
                stack.append(c)

    def entering_arc(self, edges: tuple[np.ndarray, np.ndarray]) -> tuple[int, int]:
        """The arc a -> b with the most negative reduced cost (1 - (pi[a] - pi[b]) on the
        hypercube, pi[sink] - pi[a] into the sink), or (-1, -1) when none is negative."""
        pi = np.array(self.pi)
        diff = pi[edges[0]] - pi[edges[1]]
        j = int(np.argmax(np.abs(diff)))
        best = abs(int(diff[j])) - 1  # the violation: minus the reduced cost
        a, b = (int(edges[0][j]), int(edges[1][j])) if diff[j] > 0 else (int(edges[1][j]), int(edges[0][j]))
        if self.sink >= 0:
            rise = pi[:self.sink] - pi[self.sink]
            x = int(np.argmax(rise))
            if rise[x] > best:
                best, a, b = int(rise[x]), x, self.sink
        return (a, b) if best > 0 else (-1, -1)

    def pivot(self, a: int, b: int) -> None:
        """Push flow around the cycle a -> b -> (tree) -> a and swap the blocking arc out."""
        parent, orient, flow, depth = self.parent, self.orient, self.flow, self.depth
        a_side, b_side = [], []
        x, y = a, b
        while x != y:  # tree paths from a and from b up to their join
            if depth[x] >= depth[y]:
                a_side.append(x)
                x = parent[x]
            else:
                b_side.append(y)
                y = parent[y]
        theta, leave = float("inf"), -1
        for z in reversed(a_side):  # traversed parent -> z: arcs z -> parent lose flow
            if orient[z] == 1 and flow[z] <= theta:
                theta, leave = flow[z], z
        for z in b_side:  # traversed z -> parent: arcs parent -> z lose flow
            if orient[z] == -1 and flow[z] <= theta:
                theta, leave = flow[z], z
        for z in a_side:
            flow[z] += -theta if orient[z] == 1 else theta
        for z in b_side:
            flow[z] += theta if orient[z] == 1 else -theta
        if leave in a_side:  # the entering arc a -> b hangs a's subtree under b
            other, c_orient, path = b, 1, a_side
        else:
            other, c_orient, path = a, -1, b_side
        self._rehang(path[: path.index(leave) + 1], other, c_orient, theta)
        self.relabel(other)

    def _rehang(self, chain: list[int], other: int, c_orient: int, theta: float) -> None:
        """Reverse the tree path chain[0] ... chain[-1] (whose arc to its parent leaves)
        and hang chain[0] under `other` by the entering arc."""
        parent, orient, flow, children = self.parent, self.orient, self.flow, self.children
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
    tree = _Tree(parent, orient, flow, sink)
    edges = _edge_arrays(k)
    for _ in range(_MAX_PIVOTS_PER_NODE * n):
        a, b = tree.entering_arc(edges)
        if a < 0:
            return float(sum(f for x, f in enumerate(tree.flow[1:], 1) if sink not in (x, tree.parent[x])))
        tree.pivot(a, b)
    raise PivotLimitError(f"network simplex exceeded {_MAX_PIVOTS_PER_NODE * n} pivots on Q_{k}")
