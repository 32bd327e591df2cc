"""Result types of `iit3`: big Phi, the minimum-information cut and the concepts."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Settings of PyPhi 1.2 whose values this implementation reproduces.
PYPHI_SETTINGS = {
    "pyphi_version": "1.2.0",
    "MEASURE": "EMD",
    "PARTITION_TYPE": "BI",
    "SYSTEM_CUTS": "3.0_STYLE",
    "PRECISION": 6,
    "PICK_SMALLEST_PURVIEW": False,
    "ASSUME_CUTS_CANNOT_CREATE_NEW_CONCEPTS": False,
    "CUT_ONE_APPROXIMATION": False,
    "USE_SMALL_PHI_DIFFERENCE_FOR_CES_DISTANCE": False,
    "SINGLE_MICRO_NODES_WITH_SELFLOOPS_HAVE_PHI": False,
    "VALIDATE_SUBSYSTEM_STATES": True,
    "VALIDATE_CONDITIONAL_INDEPENDENCE": True,
}


@dataclass(frozen=True)
class SystemCut:
    """A unidirectional system cut: every edge from `from_nodes` to `to_nodes` is severed."""

    from_nodes: tuple[int, ...]
    to_nodes: tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.from_nodes} -/-> {self.to_nodes}"


@dataclass(frozen=True)
class Concept:
    """A mechanism with phi > 0 and its maximally irreducible cause and effect.

    Node indices are the network's. Repertoires are distributions over the purview's
    states, little-endian over the purview nodes (shape (2^|purview|,)). phi values are
    EMDs (expected number of nodes whose state differs), rounded to 6 decimals.
    """

    mechanism: tuple[int, ...]
    phi: float
    cause_purview: tuple[int, ...]
    effect_purview: tuple[int, ...]
    cause_phi: float
    effect_phi: float
    cause_repertoire: np.ndarray = field(repr=False, compare=False)
    effect_repertoire: np.ndarray = field(repr=False, compare=False)


@dataclass(frozen=True)
class IIT3Result:
    """Big Phi of a candidate system (Oizumi, Albantakis & Tononi 2014; PyPhi 1.2 `sia`).

    Attributes:
        phi: big Phi, the extended EMD between the cause-effect structure and the one
            left by the minimum-information cut; 0.0 for reducible systems.
        cut: the minimum-information unidirectional cut (first in PyPhi's cut order
            among ties), or None when Phi is 0 for a structural reason (empty or single
            node system, not strongly connected, no concepts).
        concepts: the cause-effect structure, sorted by mechanism size then indices.
        partitioned_concepts: the concepts of the system with `cut` applied.
        nodes: the system's network indices; state: the network state.
        seconds: wall-clock time of the computation.
        settings: the PyPhi settings reproduced (for provenance).
    """

    phi: float
    cut: SystemCut | None
    concepts: tuple[Concept, ...]
    partitioned_concepts: tuple[Concept, ...]
    nodes: tuple[int, ...]
    state: tuple[int, ...]
    seconds: float = 0.0
    settings: dict = field(default_factory=lambda: dict(PYPHI_SETTINGS), repr=False, compare=False)

    @property
    def small_phis(self) -> dict[tuple[int, ...], float]:
        """Mechanism -> small phi of the unpartitioned cause-effect structure."""
        return {c.mechanism: c.phi for c in self.concepts}
