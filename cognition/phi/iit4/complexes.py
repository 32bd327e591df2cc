"""IIT 4.0 exclusion: complexes and the maximal complex (PyPhi 2.0 ``substrate.complexes``).

Candidates (Albantakis et al. 2023, exclusion postulate and S1 Text) are the nonempty subsets of
the units that have both an input and an output in cm (PyPhi's ``possible_complexes``),
enumerated largest first; subsets whose state PyPhi rejects as unreachable are skipped.
Every other unit is a background condition fixed at its current state. Each candidate's
phi_s is computed by :func:`.sia.analyze_candidate`; those with phi_s > 0 are sorted by
phi_s descending (stable, PyPhi's 1e-13 tolerance). Walking tiers of equal phi_s, a
candidate overlapping an accepted complex is dropped; the remaining candidates of a tier
are grouped into overlapping cliques; a single-candidate clique is accepted, and a larger
clique is resolved by the maximal structure integrated information Phi (Composition,
PyPhi's ``resolve_complex_tie``): the unique argmax is accepted, a tie at Phi excludes the
whole clique. The first accepted complex is the maximal complex.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Callable

import numpy as np

from ..iit3.tpm import _check_state
from .cause_effect import _prepare
from .limits import check_size
from .sia import (
    PRECISION,
    SystemIrreducibility,
    _check_formalism,
    _eq,
    _validated,
    analyze_candidate,
    check_partition_tolerance,
    check_state_tolerance,
)
from .structure import phi_structure


@dataclass(frozen=True)
class ComplexAnalysis:
    """Result of :func:`maximal_complex`.

    Attributes:
        maximal: SystemIrreducibility of the maximal complex, or None when no candidate
            has phi_s > 0.
        complexes: the non-overlapping complexes, phi_s descending (maximal first).
        candidates: every evaluated candidate system's result, in PyPhi's order.
        formalism: "IIT_4_0_2023" or "IIT_4_0_2026".
    """

    maximal: SystemIrreducibility | None
    complexes: tuple[SystemIrreducibility, ...]
    candidates: tuple[SystemIrreducibility, ...]
    formalism: str

    @property
    def phi_s(self) -> float:
        return self.maximal.phi_s if self.maximal is not None else 0.0

    @property
    def nodes(self) -> tuple[int, ...]:
        return self.maximal.nodes if self.maximal is not None else ()

    def __repr__(self) -> str:
        best = "no complex (every candidate has phi_s 0)" if self.maximal is None else \
            f"maximal complex {{{', '.join(map(str, self.maximal.nodes))}}} phi_s={self.maximal.phi_s:.6g} bits"
        return f"ComplexAnalysis({best}; {len(self.complexes)} complexes of {len(self.candidates)} candidates)"

    def to_dict(self, labels=None) -> dict:
        """JSON-able: the maximal complex, the complexes and every candidate (:meth:`SystemIrreducibility.to_dict`)."""
        return {"maximal": self.maximal.to_dict(labels) if self.maximal is not None else None,
                "complexes": [c.to_dict(labels) for c in self.complexes],
                "candidates": [c.to_dict(labels) for c in self.candidates], "formalism": self.formalism}


class _ByPhi:
    """PyPhi's ``OrderableByPhi`` ordering: phi with a 1e-13 tolerance."""

    __slots__ = ("phi",)

    def __init__(self, result):
        self.phi = result.phi_s

    def __lt__(self, other) -> bool:
        return self.phi < other.phi and not _eq(self.phi, other.phi)


def causally_significant(cm: np.ndarray) -> tuple[int, ...]:
    """Units with at least one input and one output (PyPhi's causally_significant_nodes)."""
    return tuple(int(i) for i in np.flatnonzero((cm.sum(axis=0) > 0) & (cm.sum(axis=1) > 0)))


def candidate_systems(cm: np.ndarray) -> list[tuple[int, ...]]:
    """PyPhi's candidate order: powerset of the significant units, largest first."""
    units = list(causally_significant(cm))[::-1]
    out = []
    for size in range(len(units), 0, -1):
        out.extend(tuple(sorted(c)) for c in combinations(units, size))
    return out


def _cliques(items: list[SystemIrreducibility]) -> list[list[SystemIrreducibility]]:
    n = len(items)
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    units = [set(r.nodes) for r in items]
    for i in range(n):
        for j in range(i + 1, n):
            if units[i] & units[j]:
                ri, rj = find(i), find(j)
                if ri != rj:
                    parent[ri] = rj
    groups: dict[int, list] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(items[i])
    return list(groups.values())


def maximal_complex(tpm, state, cm=None, formalism: str = "IIT_4_0_2023",
                    big_phi: Callable | None = None, validate_state: bool = True,
                    max_nodes: int | None = None, state_tolerance=None,
                    partition_tolerance=None) -> ComplexAnalysis:
    """Exclusion over all candidate systems: the complexes and the maximal complex.

    Args:
        tpm, state, cm: as :func:`.sia.iit4` (the whole network).
        formalism: "IIT_4_0_2023" (default) or "IIT_4_0_2026".
        big_phi: ``big_phi(tpm, state, cm, nodes, formalism) -> float``, the structure
            integrated information Phi of a candidate; used only when overlapping
            candidates tie at maximal phi_s (PyPhi escalates to Phi there). Default: the
            Phi-structure of the sibling ``structure`` module.
        validate_state: PyPhi's ``validate_system_states`` (default True): candidates whose
            state is unreachable with the background fixed are skipped (and an unreachable
            network state gives no complex). False keeps them; an unreachable network
            state then raises ValueError, as PyPhi does.
        max_nodes: the largest network whose candidate systems are all computed (default None: 8, as
            :func:`.sia.iit4`); a larger one is refused before any work.
        state_tolerance, partition_tolerance: as :func:`.sia.iit4`, for every candidate system (so the state
            tolerance is a number or a pair of numbers, not one value per state).

    Returns:
        :class:`ComplexAnalysis`.
    """
    formalism = _check_formalism(formalism)
    if big_phi is not None and not callable(big_phi):
        raise ValueError(f"big_phi: got {big_phi!r}; allowed: None or a callable")
    sbn, cm_arr = _validated(tpm, cm)
    full = _check_state(state, sbn.shape[1])
    check_size(sbn.shape[1], "maximal_complex", max_nodes)
    if state_tolerance is not None:
        pair = state_tolerance if isinstance(state_tolerance, (tuple, list)) else (state_tolerance,)
        if any(np.ndim(v) for v in pair):
            raise ValueError(f"state_tolerance: got one value per state; allowed for maximal_complex: None, a number "
                             "or a pair (cause, effect) of numbers, the same for every candidate system")
        check_state_tolerance(state_tolerance, sbn.shape[1])
    check_partition_tolerance(partition_tolerance)  # a number: one per partition would differ in size by candidate
    effect_cache: dict = {}
    factor_cache: dict = {}
    results = []
    for nodes in candidate_systems(cm_arr):
        try:
            cs = _prepare(sbn, cm_arr, full, nodes, bool(validate_state), factor_cache)
        except ValueError:
            if not validate_state:
                raise
            continue
        results.append(analyze_candidate(cs, formalism, effect_cache, state_tolerance, partition_tolerance))
    irreducible = [r for r in results if r.phi_s > PRECISION]
    ordered = sorted(irreducible, key=_ByPhi, reverse=True)
    accepted: list[SystemIrreducibility] = []
    covered: set[int] = set()
    i = 0
    while i < len(ordered):
        j = i + 1
        while j < len(ordered) and _eq(ordered[j].phi_s, ordered[i].phi_s):
            j += 1
        tier = [r for r in ordered[i:j] if not set(r.nodes) & covered]
        i = j
        for clique in _cliques(tier):
            if len(clique) == 1:
                winner = clique[0]
            else:
                winner = _resolve_by_big_phi(clique, tpm, state, cm, formalism, big_phi)
            if winner is not None:
                accepted.append(winner)
                covered.update(winner.nodes)
    return ComplexAnalysis(accepted[0] if accepted else None, tuple(accepted), tuple(results), formalism)


def _structure_big_phi(tpm, state, cm, nodes, formalism) -> float:
    """Phi of the candidate's Phi-structure (:func:`.structure.phi_structure`)."""
    return phi_structure(tpm, state, cm, nodes, formalism).big_phi


def _resolve_by_big_phi(clique, tpm, state, cm, formalism, big_phi):
    big_phi = big_phi or _structure_big_phi
    # PyPhi compares these as plain floats (exactly): argmax, and a tie excludes all
    values = [float(big_phi(tpm, state, cm, r.nodes, formalism)) for r in clique]
    best = max(values)
    winners = [r for r, v in zip(clique, values) if v == best]
    return winners[0] if len(winners) == 1 else None
