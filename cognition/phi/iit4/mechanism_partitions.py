"""Mechanism partitions of IIT 4.0 (Albantakis et al. 2023, the disintegrating partitions
Theta(M, Z), Eq. 38 as PyPhi cites it), as PyPhi 2.0 enumerates them.

A partition theta of a mechanism M over a purview Z is a list of parts (M_i, Z_i): the M_i
partition M (one extra part with empty M_i is always allowed), the Z_i partition Z with
empty Z_i allowed, and the part holding the whole mechanism must not keep any purview unit
(so the only partition with an unsplit mechanism is the "complete" one M/{} x {}/Z).
This is PyPhi 2.0's JOINT_PARTITION_ALL scheme (`pyphi.partition.all_joint_partitions`): for
each set partition {B_1..B_r} of M, append the empty block B_{r+1}; for each k = 1..min(|Z|,
r+1) and each set partition of Z into k blocks, give the k purview blocks to k distinct
mechanism blocks (every distinct arrangement), the other blocks getting the empty purview.
The set of partitions is PyPhi's (identical sets for |M|, |Z| <= 4 when this was written; the
tests compare the counts for |M|, |Z| <= 5); the order in which they are produced is this
module's own, so when several partitions tie as the MIP a different one may be "first".

The number of connections a partition cuts (PyPhi's `num_connections_cut`, the paper's |theta|
used to normalise phi) counts every pair (m, z), m in M_i, z in Z \\ Z_i:

    |theta| = sum_i |M_i| * |Z \\ Z_i|       (independent of the connectivity matrix)

For the computation of phi only two things about a partition matter, and `partition_template`
returns them as integer arrays over *positions* (index of a node in the sorted mechanism or
purview), for all partitions at once:

- effect side: for each purview position j, the bitmask (over mechanism positions) of the
  mechanism part whose purview part holds j; the partitioned forward effect probability is
  prod_j p(z_j | m_{part(j)});
- cause side: for each mechanism position k, the bitmask (over purview positions) of the
  purview part paired with k's mechanism part; the partitioned forward cause probability is
  prod_k p(m_k | z_{part(k)}).

In one direction, partitions that agree on that direction's array (|theta| then agrees too:
|theta| = |M| |Z| - sum of the part sizes over the positions) give the same phi, so
`partition_template(n_mech, n_purview, direction)` lists each distinct one once (48001 of
PyPhi's 68272 partitions for |M| = |Z| = 5), generated directly rather than by enumeration.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator, Sequence

import numpy as np

from .system_partitions import set_partitions

__all__ = [
    "JointPartition",
    "PartitionTemplate",
    "joint_partitions",
    "num_connections_cut",
    "partition_images",
    "partition_template",
]

#: A part: (mechanism nodes, purview nodes), each a sorted tuple.
Part = tuple[tuple[int, ...], tuple[int, ...]]
#: A partition: a tuple of parts (vacuous {}/{} parts included, as PyPhi yields them).
JointPartition = tuple[Part, ...]


def _k_block_partitions(items: Sequence[int], k: int) -> Iterator[list[list[int]]]:
    for p in set_partitions(list(items)):
        if len(p) == k:
            yield p


def _arrangements(n_slots: int, k: int) -> Iterator[tuple[int, ...]]:
    """Injective maps of k labelled blocks into n_slots slots (block b goes to slot out[b])."""
    def rec(prefix: tuple[int, ...]):
        if len(prefix) == k:
            yield prefix
            return
        for s in range(n_slots):
            if s not in prefix:
                yield from rec(prefix + (s,))
    yield from rec(())


def joint_partitions(mechanism: Sequence[int], purview: Sequence[int]) -> Iterator[JointPartition]:
    """All mechanism partitions of `mechanism` over `purview` (PyPhi's JOINT_PARTITION_ALL set).

    Each partition is a tuple of (M_i, Z_i) parts with the mechanism blocks in a fixed order and
    a trailing block with empty M_i; vacuous {}/{} parts are kept.
    """
    mechanism = tuple(int(i) for i in mechanism)
    purview = tuple(int(i) for i in purview)
    if not mechanism or not purview:
        return
    for mech_blocks in set_partitions(list(mechanism)):
        blocks = [tuple(b) for b in mech_blocks] + [()]
        n_blocks = len(blocks)
        for k in range(1, min(len(purview), n_blocks) + 1):
            for pur_blocks in _k_block_partitions(purview, k):
                pur_blocks = [tuple(b) for b in pur_blocks]
                for slots in _arrangements(n_blocks, k):
                    assigned = [()] * n_blocks
                    for b, s in enumerate(slots):
                        assigned[s] = pur_blocks[b]
                    if blocks[0] == mechanism and assigned[0]:
                        continue  # the unsplit mechanism must not keep purview units
                    yield tuple((blocks[i], tuple(sorted(assigned[i]))) for i in range(n_blocks))


def num_connections_cut(partition: JointPartition) -> int:
    """|theta| = sum_i |M_i| * |Z \\ Z_i| (PyPhi's `JointPartition.num_connections_cut`)."""
    purview = set()
    for _, z in partition:
        purview.update(z)
    return sum(len(m) * len(purview - set(z)) for m, z in partition)


@dataclass(frozen=True)
class PartitionTemplate:
    """The distinct partitions of a mechanism over a purview, as one direction sees them.

    Positions: mechanism positions 0..n_mech-1 and purview positions 0..n_purview-1 (indices
    into the sorted mechanism and purview).

    Attributes (P = number of distinct partitions for this direction):
        direction: "cause" or "effect".
        masks: effect: (P, n_purview), for purview position j the bitmask over mechanism
            positions of the mechanism part paired with j's part; cause: (P, n_mech), for
            mechanism position k the bitmask over purview positions of the purview part paired
            with k's part.
        n_cut: (P,) |theta| of each partition (>= 1); equals n_mech*n_purview - masks' popcounts.
    """

    direction: str
    n_mech: int
    n_purview: int
    masks: np.ndarray
    n_cut: np.ndarray


#: popcount of 0..2^12-1 (masks here are over at most 12 positions)
_POPCOUNT = np.array([bin(x).count("1") for x in range(1 << 12)], dtype=np.int64)


def _labelings(n_items: int, n_other: int) -> np.ndarray:
    """Every map item -> bitmask over n_other positions whose non-empty values are pairwise
    equal or disjoint (the empty mask may be used by any number of items), each once:
    (count, n_items) int64, built position by position (a label is valid for the next item
    when it is empty, equal to a label already used, or disjoint from all used ones)."""
    labels = np.arange(1 << n_other, dtype=np.int64)
    rows = np.zeros((1, 0), dtype=np.int64)
    used = np.zeros(1, dtype=np.int64)
    for j in range(n_items):
        ok = (labels[None, :] & used[:, None]) == 0
        if j:
            ok |= (rows[:, :, None] == labels[None, None, :]).any(axis=1)
        r, c = np.nonzero(ok)
        rows = np.concatenate([rows[r], labels[c][:, None]], axis=1)
        used = used[r] | labels[c]
    return rows


@lru_cache(maxsize=None)
def partition_template(n_mech: int, n_purview: int, direction: str) -> PartitionTemplate:
    """The distinct partitions (for `direction`) of n_mech mechanism positions over n_purview
    purview positions; cached.

    Effect: the maps j -> M(j) (purview position to mechanism part) with non-empty parts pairwise
    disjoint and M(j) != M; cause: the maps k -> Z(k) (mechanism position to purview part) with
    non-empty parts pairwise disjoint, except all k sharing one non-empty part. These are exactly
    the distinct images of PyPhi's partitions (checked against `joint_partitions` in the tests);
    |theta| = n_mech * n_purview - sum of the parts' sizes over the positions.
    """
    if direction not in ("cause", "effect"):
        raise ValueError(f"direction: must be 'cause' or 'effect', got {direction!r}")
    if n_mech < 1 or n_purview < 1:
        raise ValueError(
            f"n_mech, n_purview: must both be >= 1, got n_mech={n_mech}, n_purview={n_purview}"
        )
    if direction == "effect":
        masks = _labelings(n_purview, n_mech)
        masks = masks[~(masks == (1 << n_mech) - 1).any(axis=1)]
    else:
        masks = _labelings(n_mech, n_purview)
        masks = masks[~((masks[:, 0] != 0) & (masks == masks[:, :1]).all(axis=1))]
    masks = np.ascontiguousarray(masks)
    n_cut = n_mech * n_purview - _POPCOUNT[masks].sum(axis=1)
    return PartitionTemplate(direction, n_mech, n_purview, masks, n_cut)


def partition_images(partition: JointPartition, mechanism: Sequence[int], purview: Sequence[int]):
    """(effect masks, cause masks, |theta|) of an explicit partition, over positions."""
    mpos = {int(m): k for k, m in enumerate(mechanism)}
    zpos = {int(z): j for j, z in enumerate(purview)}
    e = [0] * len(zpos)
    c = [0] * len(mpos)
    for m_part, z_part in partition:
        m_mask = sum(1 << mpos[m] for m in m_part)
        z_mask = sum(1 << zpos[z] for z in z_part)
        for z in z_part:
            e[zpos[z]] = m_mask
        for m in m_part:
            c[mpos[m]] = z_mask
    return tuple(e), tuple(c), num_connections_cut(partition)
