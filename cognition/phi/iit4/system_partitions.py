"""System partitions of IIT 4.0: directed set partitions (PyPhi 2.0 ``DIRECTED_SET_PARTITION``).

A system partition theta (Albantakis et al. 2023, S1 Text) splits the k units
into m >= 2 parts and gives every part a direction: "cause" severs the part's inputs from
the rest of the system, "effect" severs its outputs to the rest, "bidirectional" both.
The induced cut matrix X (k x k, X[a][b] = 1 severs a -> b) is what acts on the system.
PyPhi enumerates set partitions in its ``combinatorics.set_partitions`` order (skipping
the one-part partition), directions in ``itertools.product((cause, effect,
bidirectional), repeat=m)`` order, and drops a partition whose cut matrix was already
produced (``unique_everseen``), keeping the first. A single unit gets the complete cut
(its self-loop severed), normalization 1.

The normalization used to select the MIP (Eqs. 21-22) is 1 / n_cut, with n_cut (Eq. 24)
the number of severed directed connections among the k units -- counted in X, whether
or not cm has those edges.

Partitions are encoded per target unit b as the bitmask of severed sources (``sources[:,
b]``), which is all the system computation needs.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product

import numpy as np

from .cause_effect import unit_namer

DIRECTION_NAMES = ("cause", "effect", "bidirectional")


def set_partitions(items: list) -> list[list[list]]:
    """All set partitions of ``items`` in PyPhi 2.0's ``_set_partitions`` order."""
    if not items:
        return []
    if len(items) == 1:
        return [[list(items)]]
    first = items[0]
    out = []
    for smaller in set_partitions(items[1:]):
        for n, subset in enumerate(smaller):
            out.append([*smaller[:n], [first, *subset], *smaller[n + 1:]])
        out.append([[first], *smaller])
    return out


@dataclass(frozen=True)
class PartitionTable:
    """All distinct system partitions of k units, in PyPhi's enumeration order.

    Attributes:
        k: number of units.
        sources: (P, k) int64, sources[p, b] = bitmask of units whose edge to unit b is cut.
        n_cut: (P,) number of severed directed connections (Eq. 24; the MIP normalization is 1/n_cut).
        blocks: per partition, the parts as tuples of positions (first occurrence).
        directions: per partition, each part's direction index into DIRECTION_NAMES.
    """

    k: int
    sources: np.ndarray
    n_cut: np.ndarray
    blocks: tuple
    directions: tuple

    def __len__(self) -> int:
        return self.sources.shape[0]

    def cut_matrix(self, p: int) -> np.ndarray:
        """(k, k) 0/1 cut matrix of partition p."""
        return (self.sources[p][None, :] >> np.arange(self.k)[:, None]) & 1

    def lex_key(self, p: int) -> tuple[int, ...]:
        """PyPhi's PARTITION_LEX order: the row-major cut matrix, compared lexicographically."""
        return tuple(int(v) for v in self.cut_matrix(p).reshape(-1))


@lru_cache(maxsize=None)
def partition_table(k: int) -> PartitionTable:
    """Directed set partitions of k units (k >= 1), deduplicated by cut matrix."""
    if k < 1:
        raise ValueError(f"k: got {k}; allowed: k >= 1 units")
    full = (1 << k) - 1
    if k == 1:
        return PartitionTable(1, np.array([[1]], dtype=np.int64), np.array([1]), (((0,),),), ((2,),))
    keys: list[np.ndarray] = []
    srcs: list[np.ndarray] = []
    meta: list[tuple[tuple, np.ndarray]] = []
    for part in set_partitions(list(range(k)))[1:]:
        m = len(part)
        block_mask = np.array([sum(1 << a for a in blk) for blk in part], dtype=np.int64)
        owner = np.empty(k, dtype=np.int64)
        for bi, blk in enumerate(part):
            owner[blk] = bi
        dirs = np.array(list(product(range(3), repeat=m)), dtype=np.int64)  # (3^m, m)
        cuts_in = dirs != 1  # cause or bidirectional: inputs from outside severed
        cuts_out = dirs != 0  # effect or bidirectional: outputs to outside severed
        out_masks = np.where(cuts_out, block_mask[None, :], 0)  # (3^m, m)
        total_out = np.bitwise_or.reduce(out_masks, axis=1)
        src = np.empty((dirs.shape[0], k), dtype=np.int64)
        for b in range(k):
            bi = owner[b]
            other_out = total_out & ~block_mask[bi]
            src[:, b] = np.where(cuts_in[:, bi], full & ~block_mask[bi], 0) | other_out
        key = np.zeros(dirs.shape[0], dtype=np.int64)
        for b in range(k):
            key |= src[:, b] << (k * b)
        keys.append(key)
        srcs.append(src)
        meta.append((tuple(tuple(blk) for blk in part), dirs))
    all_keys = np.concatenate(keys)
    all_src = np.concatenate(srcs)
    _, first = np.unique(all_keys, return_index=True)
    first = np.sort(first)
    sources = np.ascontiguousarray(all_src[first])
    n_cut = np.zeros(len(first), dtype=np.int64)
    for b in range(k):
        n_cut += _popcount(sources[:, b])
    # metadata of the kept entries
    offsets = np.cumsum([0] + [d.shape[0] for _, d in meta])
    which = np.searchsorted(offsets, first, side="right") - 1
    blocks = tuple(meta[w][0] for w in which)
    directions = tuple(tuple(int(x) for x in meta[w][1][i - offsets[w]]) for w, i in zip(which, first))
    return PartitionTable(k, sources, n_cut, blocks, directions)


def _popcount(values: np.ndarray) -> np.ndarray:
    v = values.astype(np.int64).copy()
    count = np.zeros_like(v)
    while np.any(v):
        count += v & 1
        v >>= 1
    return count


@dataclass(frozen=True)
class SystemPartition:
    """A readable system partition over network units.

    Attributes:
        parts: the parts, as tuples of network indices.
        directions: each part's direction: "cause", "effect" or "bidirectional".
        cut_edges: severed directed connections (source, target) in network indices.
        cut_matrix: (k, k) 0/1 over the system's units in ascending order.
        normalization: 1 / len(cut_edges) (Eqs. 21-22).
    """

    parts: tuple[tuple[int, ...], ...]
    directions: tuple[str, ...]
    cut_edges: tuple[tuple[int, int], ...]
    cut_matrix: np.ndarray

    @property
    def normalization(self) -> float:
        return 1.0 / len(self.cut_edges) if self.cut_edges else 1.0

    def __str__(self) -> str:
        return f"{len(self.parts)} parts: {self.labelled()}" if len(self.parts) > 1 else self.labelled()

    def labelled(self, labels=None) -> str:
        """The parts with their directions, "{0}-> | {1,2}<-", each unit as ``labels[i]`` (default its index)."""
        name = unit_namer(labels, [i for part in self.parts for i in part])
        if len(self.parts) == 1:
            return f"complete cut of {{{','.join(map(name, self.parts[0]))}}}"
        arrows = {"cause": "<-", "effect": "->", "bidirectional": "<->"}
        return " | ".join(f"{{{','.join(map(name, part))}}}{arrows[d]}" for part, d in zip(self.parts, self.directions))

    def __repr__(self) -> str:
        return f"SystemPartition({self})"

    def to_dict(self, labels=None) -> dict:
        """JSON-able: ``parts``, ``directions``, ``cut_edges`` (network indices, or ``labels[i]``) and ``text``."""
        name = unit_namer(labels, [i for part in self.parts for i in part], text=False)
        return {"parts": [[name(i) for i in part] for part in self.parts], "directions": list(self.directions),
                "cut_edges": [[name(a), name(b)] for a, b in self.cut_edges], "text": self.labelled(labels)}

    def __eq__(self, other) -> bool:
        if not isinstance(other, SystemPartition):
            return NotImplemented
        return self.parts == other.parts and self.directions == other.directions and self.cut_edges == other.cut_edges

    def __hash__(self) -> int:
        return hash((self.parts, self.directions, self.cut_edges))


def describe(table: PartitionTable, p: int, nodes: tuple[int, ...]) -> SystemPartition:
    """Readable form of partition p of ``table`` for the system ``nodes``."""
    mat = table.cut_matrix(p)
    parts = tuple(tuple(nodes[a] for a in blk) for blk in table.blocks[p])
    dirs = tuple(DIRECTION_NAMES[d] for d in table.directions[p])
    edges = tuple((nodes[a], nodes[b]) for a, b in np.argwhere(mat == 1))
    return SystemPartition(parts, dirs, edges, mat)
