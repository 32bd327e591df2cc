"""Cause repertoires of a mechanism over every purview at once, for bounds and pruning.

`CauseTables.table(S, inputs)` holds the cause repertoire of mechanism S over every
purview Q of the (cut) system in one array, the "3^k layout": blocks for Q = 0, 1, ...,
2^k - 1 in bitmask order, block Q holding Q's 2^|Q| states little-endian. The cause
repertoire (Oizumi et al. 2014; PyPhi 1.2 `Subsystem.cause_repertoire`) is
prod_{m in S} P(m_t = its state | x_Q), other past nodes averaged uniformly, normalised
over Q's states; empty Q gives [1.0], empty S the uniform distribution, and a block with
zero mass stays zero (the state is unreachable from Q). From those tables, one gather
gives the partitioned repertoire of every partition (M0/Q) x (M1/P\\Q) of a purview P.

The tables are summed in numpy's order, not PyPhi's, so they can differ from PyPhi's
repertoires in the last bits. They only bound and prune: every bound built on them is
widened by a rounding margin robust to such differences
(`fastemd.quantization_margins(..., robust=True)`), and every EMD that decides a small
phi is recomputed on PyPhi's exact arrays (`Repertoires.cause`).
"""
from __future__ import annotations

from functools import cache

import numpy as np

from .partitions import bipartitions
from .repertoires import Repertoires, bits_of, subindex


@cache
def _layout(k: int) -> tuple[np.ndarray, np.ndarray]:
    """(offset, size) of each purview's block in the 3^k layout, purviews in bitmask order."""
    sizes = np.array([1 << bin(q).count("1") for q in range(1 << k)], dtype=np.intp)
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes


@cache
def _compress(n: int, mask: int) -> np.ndarray:
    """For each of the 2^n states x: the bits of x at the positions in `mask`, packed."""
    x = np.arange(1 << n)
    out = np.zeros(1 << n, dtype=np.intp)
    for j, b in enumerate(bits_of(mask)):
        out |= ((x >> b) & 1) << j
    return out


@cache
def gather_indices(purview: int, k: int) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """(idx0, idx1, parts): for each local subset q of the purview (row) and purview
    state x (column), the positions in the 3^k layout of x restricted to q (idx0) and to
    the rest of the purview (idx1); parts[q] is q as a system bitmask."""
    offset, _ = _layout(k)
    nodes = bits_of(purview)
    n = len(nodes)
    full = (1 << n) - 1
    parts = tuple(sum(1 << nodes[j] for j in bits_of(q)) for q in range(1 << n))
    idx0 = np.array([offset[parts[q]] + _compress(n, q) for q in range(1 << n)])
    idx1 = np.array([offset[purview ^ parts[q]] + _compress(n, full ^ q) for q in range(1 << n)])
    return idx0, idx1, parts


@cache
def _bipartition_rows(mechanism: int, purview: int) -> tuple[tuple[int, int, np.ndarray], ...]:
    """(M0, M1, local purview subsets going with M0) for every mechanism bipartition; all
    2^|P| subsets, except the empty one when M0 is empty (PyPhi drops a part that has
    neither mechanism nor purview nodes). Together: PyPhi's 'BI' partitions."""
    n = bin(purview).count("1")
    every = np.arange(1 << n)
    return tuple((m0, m1, every if m0 else every[1:]) for m0, m1 in bipartitions(mechanism))


class CauseTables:
    """Cause repertoire tables of one system, cached per mechanism and (cut) inputs."""

    def __init__(self, reps: Repertoires):
        self.reps = reps
        self.k = reps.k
        self._node: dict[tuple[int, int], np.ndarray] = {}
        self._raw: dict[tuple, np.ndarray] = {}
        self._table: dict[tuple, np.ndarray] = {}

    def _node_table(self, m: int, inputs_m: int) -> np.ndarray:
        """P(m_t = its state | x_Q) for every purview Q, in the 3^k layout."""
        key = (m, inputs_m)
        hit = self._node.get(key)
        if hit is None:
            k, full = self.k, (1 << self.k) - 1
            scope, arr = self.reps.cause_factor(m, inputs_m, inputs_m)
            cube = arr[subindex(full, scope)].reshape((2,) * k, order="F") if k else arr
            blocks = []
            for q in range(1 << k):
                other = tuple(i for i in range(k) if not q >> i & 1)
                blocks.append(np.atleast_1d(cube.mean(axis=other) if other else cube).ravel(order="F"))
            hit = self._node[key] = np.concatenate(blocks)
        return hit

    def _raw_table(self, mechanism: int, inputs) -> np.ndarray:
        key = (mechanism, tuple(inputs[m] for m in bits_of(mechanism)))
        hit = self._raw.get(key)
        if hit is None:
            if not mechanism:
                hit = np.ones(int(_layout(self.k)[1].sum()))
            else:
                top = bits_of(mechanism)[-1]
                hit = self._raw_table(mechanism & ~(1 << top), inputs) * self._node_table(top, inputs[top])
            self._raw[key] = hit
        return hit

    def table(self, mechanism: int, inputs) -> np.ndarray:
        """Normalised cause repertoires of `mechanism` over every purview (3^k layout)."""
        key = (mechanism, tuple(inputs[m] for m in bits_of(mechanism)))
        hit = self._table.get(key)
        if hit is None:
            offset, size = _layout(self.k)
            raw = self._raw_table(mechanism, inputs)
            sums = np.add.reduceat(raw, offset)
            hit = raw / np.repeat(np.where(sums > 0, sums, 1.0), size)
            hit[0] = 1.0  # the empty purview
            self._table[key] = hit
        return hit

    def rows(self, purview: int, inputs, m0: int, m1: int, subsets) -> np.ndarray:
        """Partitioned repertoires (M0 / q) x (M1 / purview - q) over the purview's states,
        one row per local subset q in `subsets`."""
        idx0, idx1, _ = gather_indices(purview, self.k)
        return self.table(m0, inputs)[idx0[subsets]] * self.table(m1, inputs)[idx1[subsets]]

    def whole(self, mechanism: int, purview: int, inputs) -> np.ndarray:
        """The (unpartitioned) cause repertoire over the purview's states."""
        idx0, _, _ = gather_indices(purview, self.k)
        return self.table(mechanism, inputs)[idx0[-1]]

    def partition_rows(self, mechanism: int, purview: int, inputs) -> tuple[np.ndarray, list]:
        """Every 'BI' partition's repertoire (rows) and the partitions, as
        (M0, P0, M1, P1) system bitmasks in the same order."""
        _, _, parts = gather_indices(purview, self.k)
        rows, partitions = [], []
        for m0, m1, subsets in _bipartition_rows(mechanism, purview):
            rows.append(self.rows(purview, inputs, m0, m1, subsets))
            partitions.extend((m0, parts[q], m1, purview ^ parts[q]) for q in subsets)
        return np.concatenate(rows), partitions

    def single_cut_rows(self, mechanism: int, purviews, inputs) -> tuple[np.ndarray, np.ndarray]:
        """For purviews of one size n: their repertoires (B, 2^n) and, per purview, the
        repertoires of the partitions that cut one purview node off (with no mechanism)
        or one mechanism node off (with no purview), shape (B, R, 2^n)."""
        whole_idx, lone0, lone1 = _single_cut_indices(tuple(purviews), self.k)
        table = self.table(mechanism, inputs)
        rows = [table[lone0] * self.table(0, inputs)[lone1]]  # (B, n, 2^n)
        if bin(mechanism).count("1") > 1:
            rows += [self.table(mechanism & ~(1 << m), inputs)[whole_idx][:, None, :] for m in bits_of(mechanism)]
        return table[whole_idx], np.concatenate(rows, axis=1)


@cache
def _single_cut_indices(purviews: tuple[int, ...], k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gather indices for `CauseTables.single_cut_rows` (purviews of one size n): the
    whole repertoires (B, 2^n), and for each purview node cut off, its complement's
    part (B, n, 2^n) and the node's own part (B, n, 2^n)."""
    n = bin(purviews[0]).count("1")
    full = (1 << n) - 1
    idx = [gather_indices(p, k) for p in purviews]
    lone = np.array([full ^ (1 << j) for j in range(n)])
    return (np.array([i0[full] for i0, _, _ in idx]), np.array([i0[lone] for i0, _, _ in idx]),
            np.array([i1[lone] for _, i1, _ in idx]))
