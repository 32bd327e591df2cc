"""Exact IIT 4.0 for binary networks, equal to PyPhi 2.0 (formalisms IIT_4_0_2023 and IIT_4_0_2026).

The Phi-structure (``structure``, ``distinctions``, ``relations``, ``mechanism_partitions``):
distinctions with their phi_d, the closed-form sum of relations and big Phi. System level
(``sia``/``complexes``): the maximal cause and effect
states, the directed set partitions, the minimum information partition and phi_s
(Albantakis et al. 2023, Eqs. 19-22 and 24; the 2026 cap of Eq. 23; equation numbers as
PyPhi 2.0's source cites them), and exclusion over
candidate systems. The repertoire layer (:mod:`.cause_effect`) is shared with the
Phi-structure (distinctions and relations). Pure numpy; units are bits.

Example:
    >>> from cognition.phi.iit4 import iit4, iit4_batch, maximal_complex
    >>> # two units copying each other; row index s0 + 2 s1, column j = P(unit j ON next)
    >>> tpm = [[0, 0], [0, 1], [1, 0], [1, 1]]
    >>> result = iit4(tpm, (1, 0))
    >>> result.phi_s, result.cause_state, result.effect_state
    (2.0, (0, 1), (0, 1))
    >>> str(result.partition)
    '2 parts: {0}<- | {1}<-'
    >>> iit4(tpm, (1, 0), formalism="IIT_4_0_2026").phi_s  # deterministic: ii cap is 0
    0.0
    >>> [r.phi_s for r in iit4_batch(tpm, [(0, 0), (1, 1)])]
    [2.0, 2.0]
    >>> maximal_complex(tpm, (1, 0)).nodes
    (0, 1)
"""
from .cause_effect import (
    CAUSE,
    EFFECT,
    CandidateSystem,
    IntrinsicInformation,
    cause_repertoire,
    effect_repertoire,
    forward_cause_repertoire,
    forward_effect_repertoire,
    forward_probability,
    forward_repertoire,
    intrinsic_information,
    prepare_candidate,
    repertoire,
    unconstrained_cause_repertoire,
    unconstrained_effect_repertoire,
    unconstrained_forward_repertoire,
    unconstrained_repertoire,
)
from .complexes import ComplexAnalysis, maximal_complex
from .sia import FORMALISMS, SystemIrreducibility, analyze_candidate, iit4, iit4_batch
from .structure import PhiStructure, phi_structure, phi_structures
from .system_partitions import SystemPartition, partition_table

__all__ = [
    "CAUSE",
    "EFFECT",
    "FORMALISMS",
    "CandidateSystem",
    "ComplexAnalysis",
    "IntrinsicInformation",
    "PhiStructure",
    "SystemIrreducibility",
    "SystemPartition",
    "analyze_candidate",
    "cause_repertoire",
    "effect_repertoire",
    "forward_cause_repertoire",
    "forward_effect_repertoire",
    "forward_probability",
    "forward_repertoire",
    "iit4",
    "iit4_batch",
    "intrinsic_information",
    "maximal_complex",
    "partition_table",
    "phi_structure",
    "phi_structures",
    "prepare_candidate",
    "repertoire",
    "unconstrained_cause_repertoire",
    "unconstrained_effect_repertoire",
    "unconstrained_forward_repertoire",
    "unconstrained_repertoire",
]
