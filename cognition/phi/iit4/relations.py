"""IIT 4.0 relations among distinctions, in closed form (Albantakis et al. 2023, "Relations").

A *unit* is a (node, state) pair. The *purview union* U(d) of a distinction d is the set of
units specified by its cause or its effect: {(i, z_i) : i in Z_c} | {(i, z'_i) : i in Z_e}
(a node whose cause and effect states differ contributes two units).

Relations (the paper's section on relations, as PyPhi 2.0 evaluates them):

- a relation among k >= 2 distinctions d_1..d_k exists when the congruent overlap
  O = U(d_1) & ... & U(d_k) is non-empty; its integrated information is

      phi_r = |O| * min_i phi_d(d_i) / |U(d_i)|                          (bits)

  (each distinction contributes phi_d per unique purview unit; the relation "takes" the
  smallest share on every overlapping unit);
- a self-relation of one distinction d relates its own cause and effect: O = units common to
  its cause and effect (same node, same state), phi_r = |O| * phi_d / |U(d)|; it counts only
  when phi_r > 0.

Closed form of the sum (PyPhi's ANALYTICAL relations; the paper's sum over all relations):
for every unit u let D_u = {d : u in U(d)}, v_d = phi_d / |U(d)|. Each relation R contributes
|O(R)| * min_{d in R} v_d = sum over u in O(R) of min_{d in R} v_d, so

      sum_R phi_r = sum_u  sum_{S subset D_u, |S| >= 2} min_{d in S} v_d  + sum_self phi_r,

and with v sorted ascending (v_(0) <= ... <= v_(n-1)), v_(i) is the minimum of exactly
2^(n-1-i) - 1 subsets of size >= 2 in which it is the smallest member:

      sum_{S, |S|>=2} min v = sum_i v_(i) * (2^(n-1-i) - 1).

The number of relations is counted by inclusion-exclusion over sets T of units:
#{S : |S| >= 2, intersection of U(d), d in S, non-empty} =
sum_{T != {}} (-1)^(|T|-1) (2^n_T - n_T - 1), n_T = #{d : T subset U(d)}, plus the number of
self-relations with phi_r > 0.

`relations_by_enumeration` lists every relation explicitly (exponential in the number of
distinctions); the tests check the closed form against it on small structures.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Protocol, Sequence

import numpy as np

__all__ = [
    "RelationsSummary",
    "purview_units",
    "relations_summary",
    "relations_by_enumeration",
    "sum_of_minima_over_subsets",
]

#: PyPhi's phi comparisons: two values are equal within 10**-13 (relative or absolute);
#: a self-relation counts when its phi_r is positive beyond that.
PHI_PRECISION = 1e-13


class _DistinctionLike(Protocol):
    phi_d: float
    cause_purview: tuple[int, ...]
    cause_state: tuple[int, ...]
    effect_purview: tuple[int, ...]
    effect_state: tuple[int, ...]


def purview_units(purview: Sequence[int], state: Sequence[int]) -> frozenset[tuple[int, int]]:
    """The units {(node, state)} of a purview in its specified state."""
    return frozenset(zip((int(i) for i in purview), (int(s) for s in state)))


def _unit_sets(d: _DistinctionLike) -> tuple[frozenset, frozenset]:
    return purview_units(d.cause_purview, d.cause_state), purview_units(d.effect_purview, d.effect_state)


def sum_of_minima_over_subsets(values: Iterable[float]) -> float:
    """sum over all subsets S of `values` with |S| >= 2 of min(S), in O(n log n).

    With v sorted ascending, v_(i) is the minimum of 2^(n-1-i) - 1 such subsets.
    """
    v = np.sort(np.asarray(list(values), dtype=float))
    n = v.size
    if n < 2:
        return 0.0
    counts = np.exp2(np.arange(n - 1, -1, -1, dtype=float)) - 1.0
    return float(np.sum(v * counts))


def _is_positive(x: float) -> bool:
    return x > 0 and not abs(x) <= PHI_PRECISION


@dataclass(frozen=True)
class RelationsSummary:
    """Closed-form totals of the relations of a set of distinctions.

    Attributes:
        sum_phi: sum of phi_r over all relations, self-relations included (bits).
        n_relations: number of relations (k >= 2 with non-empty congruent overlap, plus
            self-relations with phi_r > 0).
        sum_phi_self: the self-relations' share of `sum_phi` (bits).
        n_self: the number of self-relations.
    """

    sum_phi: float
    n_relations: int
    sum_phi_self: float
    n_self: int


def _unions_and_shares(distinctions) -> tuple[list[frozenset], list[float]]:
    """Each distinction's purview union U(d) and its share phi_d / |U(d)|."""
    unions, shares = [], []
    for d in distinctions:
        cause_u, effect_u = _unit_sets(d)
        union = cause_u | effect_u
        unions.append(union)
        shares.append(float(d.phi_d) / len(union) if union else 0.0)
    return unions, shares


def _self_relation_phi(d: _DistinctionLike) -> float:
    cause_u, effect_u = _unit_sets(d)
    union = cause_u | effect_u
    if not union:
        return 0.0
    return len(cause_u & effect_u) * (float(d.phi_d) / len(union))


def relations_summary(distinctions: Sequence[_DistinctionLike]) -> RelationsSummary:
    """Sum of phi_r and number of relations of `distinctions`, in closed form (see module doc).

    `distinctions`: objects with phi_d, cause_purview, cause_state, effect_purview,
    effect_state (e.g. `distinctions.Distinction`). Cost O(U * D log D + 2^U * D) for U
    distinct units (U <= 2N) and D distinctions.
    """
    unions, shares = _unions_and_shares(distinctions)
    # Self-relations.
    self_phis = [_self_relation_phi(d) for d in distinctions]
    self_phis = [p for p in self_phis if _is_positive(p)]
    sum_self = float(sum(self_phis))
    n_self = len(self_phis)
    # Sum over units of the sum of minima among subsets of the distinctions covering it.
    units = sorted(set().union(*unions)) if unions else []
    total = 0.0
    for u in units:
        covering = [shares[k] for k, union in enumerate(unions) if u in union]
        total += sum_of_minima_over_subsets(covering)
    # Count by inclusion-exclusion over unit sets, with bitmasks over the units.
    index = {u: b for b, u in enumerate(units)}
    masks = np.array([sum(1 << index[u] for u in union) for union in unions], dtype=np.int64)
    n_units = len(units)
    count = 0
    if n_units and masks.size:
        all_t = np.arange(1, 1 << n_units, dtype=np.int64)
        # n_T = number of distinctions whose union contains T; chunk to bound memory.
        chunk = max(1, (1 << 22) // max(1, masks.size))
        for start in range(0, all_t.size, chunk):
            t = all_t[start:start + chunk]
            n_t = ((masks[None, :] & t[:, None]) == t[:, None]).sum(axis=1)
            keep = n_t >= 2
            for tt, nn in zip(t[keep].tolist(), n_t[keep].tolist()):
                sign = 1 if bin(tt).count("1") % 2 == 1 else -1
                count += sign * ((1 << nn) - nn - 1)
    return RelationsSummary(
        sum_phi=total + sum_self, n_relations=int(count + n_self), sum_phi_self=sum_self, n_self=n_self
    )


def relations_by_enumeration(distinctions: Sequence[_DistinctionLike]) -> list[tuple[tuple[int, ...], float]]:
    """Every relation as (indices of its distinctions, phi_r), by brute force.

    Independent of the closed form: for each subset of >= 2 distinctions, intersect the
    purview unions; plus each distinction's self-relation when phi_r > 0. Exponential in
    len(distinctions): for tests on small structures only.
    """
    unions, shares = _unions_and_shares(distinctions)
    out: list[tuple[tuple[int, ...], float]] = []
    for k, d in enumerate(distinctions):
        p = _self_relation_phi(d)
        if _is_positive(p):
            out.append(((k,), p))
    n = len(distinctions)
    for size in range(2, n + 1):
        for combo in combinations(range(n), size):
            overlap = frozenset.intersection(*(unions[k] for k in combo))
            if overlap:
                out.append((combo, len(overlap) * min(shares[k] for k in combo)))
    return out
