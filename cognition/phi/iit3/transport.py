"""Exact min-cost transport for small integer problems (transportation simplex).

Solves  min sum_ij C[i, j] f[i, j]  s.t.  sum_j f[i, j] <= a[i], sum_i f[i, j] = b[j],
f >= 0, with integer a, b, C and sum(a) >= sum(b): the heavier side may leave its
excess anywhere for free (the "extra mass" of Pele & Werman's EMD-hat with penalty 0).
The excess goes to a dummy sink with zero cost, which balances the problem; the
transportation simplex (Dantzig 1951; the MODI method) then pivots on a spanning-tree
basis until every reduced cost is >= 0. All quantities stay integers held exactly in
float64 (below 2^53), so the optimum is exact.
"""
from __future__ import annotations

import numpy as np

_MAX_PIVOTS = 5000


def _least_cost_basis(a: list[float], b: list[float], cost: np.ndarray) -> dict[tuple[int, int], float]:
    """Initial basic solution by the least-cost rule, completed to a spanning tree.

    Cells are filled in order of increasing cost, each exhausting a row or a column, so
    no cycle forms; zero-flow cells then join the remaining components (degeneracy).
    """
    a, b = a[:], b[:]
    m, n = len(a), len(b)
    flow: dict[tuple[int, int], float] = {}
    parent = list(range(m + n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for idx in np.argsort(cost, axis=None, kind="stable"):
        i, j = divmod(int(idx), n)
        if a[i] > 0 and b[j] > 0:
            x = min(a[i], b[j])
            flow[(i, j)] = x
            a[i] -= x
            b[j] -= x
            parent[find(i)] = find(m + j)
    for idx in np.argsort(cost, axis=None, kind="stable"):
        if len(flow) == m + n - 1:
            break
        i, j = divmod(int(idx), n)
        if find(i) != find(m + j):
            flow[(i, j)] = 0.0
            parent[find(i)] = find(m + j)
    return flow


def _potentials(flow, cost: list[list[float]], m: int, n: int):
    """Dual potentials u_i + v_j = C_ij on the basis tree (rows 0..m-1, columns m..);
    `cost` as nested lists (scalar lookups in numpy are slow).

    Returns (u, v, parent) with `parent` the tree rooted at row 0 (-1 at the root).
    """
    adj: list[list[int]] = [[] for _ in range(m + n)]
    for i, j in flow:
        adj[i].append(m + j)
        adj[m + j].append(i)
    pot = [None] * (m + n)
    pot[0] = 0.0
    parent = [-1] * (m + n)
    stack = [0]
    while stack:
        x = stack.pop()
        for y in adj[x]:
            if pot[y] is None:
                parent[y] = x
                pot[y] = cost[x][y - m] - pot[x] if x < m else cost[y][x - m] - pot[x]
                stack.append(y)
    return np.array(pot[:m]), np.array(pot[m:]), parent


def _cycle_cells(parent: list[int], row: int, col_node: int, m: int) -> list[tuple[int, int]]:
    """Basic cells on the tree path from `row` to column node `col_node`, in order."""
    def depth(z: int) -> int:
        d = 0
        while parent[z] != -1:
            d, z = d + 1, parent[z]
        return d

    x, y = row, col_node
    dx, dy = depth(x), depth(y)
    path_a, path_b = [], []
    while x != y:
        if dx >= dy:
            path_a.append(x)
            x, dx = parent[x], dx - 1
        else:
            path_b.append(y)
            y, dy = parent[y], dy - 1
    nodes = path_a + [x] + path_b[::-1]
    return [(p, q - m) if p < m else (q, p - m) for p, q in zip(nodes, nodes[1:], strict=False)]


def min_cost_transport(a: np.ndarray, b: np.ndarray, cost: np.ndarray, flows: dict | None = None,
                       basis: dict | None = None) -> float:
    """Optimal value (exact, integer data) of transporting `a` onto `b` with free excess.

    a: (m,) supplies, b: (n,) demands, sum(a) >= sum(b); cost: (m, n) integers. If
    `flows` is a dict, it receives {(i, j): amount} for the cells carrying flow. If
    `basis` is a dict, its "cells" (the optimal basis of an earlier problem with the
    same a and b) start the simplex, and the final basis is stored back there: a warm
    start when only costs changed.
    """
    a = [float(x) for x in a]
    b = [float(x) for x in b]
    excess = sum(a) - sum(b)
    n_real = len(b)
    if excess < 0:
        raise ValueError("min_cost_transport: supplies must be at least the demands")
    cost = np.asarray(cost, dtype=float)
    if excess > 0:
        b.append(excess)
        cost = np.column_stack([cost, np.zeros(len(a))])
    m, n = len(a), len(b)
    if m == 0 or n == 0:
        return 0.0
    start = basis.get("cells") if basis is not None else None
    flow = dict(start) if start is not None else _least_cost_basis(a, b, cost)
    cost_rows = cost.tolist()
    for _ in range(_MAX_PIVOTS):
        u, v, parent = _potentials(flow, cost_rows, m, n)
        reduced = cost - u[:, None] - v[None, :]
        idx = int(np.argmin(reduced))
        if reduced.flat[idx] >= 0:
            if flows is not None:
                flows.update({(i, j): x for (i, j), x in flow.items() if x > 0 and j < n_real})
            if basis is not None:
                basis["cells"] = dict(flow)
            return float(sum(cost_rows[i][j] * x for (i, j), x in flow.items()))
        ei, ej = divmod(idx, n)
        # The entering cell (ei, ej) closes a cycle with the tree path from row ei to
        # column ej, whose basic cells alternate -theta, +theta, ... from row ei.
        cells = _cycle_cells(parent, ei, m + ej, m)
        minus, plus = cells[0::2], cells[1::2]
        theta = min(flow[c] for c in minus)
        leave = next(c for c in minus if flow[c] == theta)
        for c in minus:
            flow[c] -= theta
        for c in plus:
            flow[c] += theta
        del flow[leave]
        flow[(ei, ej)] = theta
    raise RuntimeError("min_cost_transport: pivot limit reached")
