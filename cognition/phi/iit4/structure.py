"""The IIT 4.0 Phi-structure of a candidate system: distinctions, relations and big Phi.

Albantakis et al. 2023 (PLoS Comput Biol 19(10): e1011465), as PyPhi 2.0 computes it
(`pyphi.formalism.iit4.ces`, commit 051052105a7e):

1. the system-level analysis (`sia.analyze_candidate`): phi_s, the MIP and the system's
   specified cause and effect states z_c*, z_e* (Eqs. 14-23, see `sia`);
2. the distinctions (`distinctions`): every mechanism's maximal cause and effect with
   phi_d = min(phi_c, phi_e) > 0, each then made congruent with the system's
   specified states (ties resolved to congruent states or purviews; a distinction without a
   congruent cause or effect is dropped). The structure is computed whether or not
   phi_s > 0, as PyPhi does; when PyPhi's SIA reports no states (system not strongly
   connected, or a single unit without self-loop) the states of maximal intrinsic
   information of the whole system are used (first in enumeration order);
3. the relations (`relations`): sum of phi_r in closed form and their number;
4. big Phi = sum_d phi_d + sum_r phi_r, in bits (the Phi-structure of the paper's Eq. 57 as
   PyPhi cites it).

The two formalisms give the same distinctions and relations: IIT_4_0_2026 (Mayner, Marshall
& Tononi 2026) only caps phi_s by the system's intrinsic information (Eq. 23), on the MIP the
2023 rule selects, so the congruence states (and hence the structure and big Phi) agree; only
`phi_s` (and the sia fields) differ.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import cause_effect as ce
from .distinctions import Distinction, MechanismTables, compute_mices, resolve_congruence
from .limits import check_size
from .relations import relations_summary
from .sia import SystemIrreducibility, _check_formalism, analyze_candidate

__all__ = ["PhiStructure", "phi_structure", "phi_structure_of_candidate", "phi_structures"]


@dataclass(frozen=True)
class PhiStructure:
    """The Phi-structure of a candidate system in a state (all phi values in bits).

    Attributes:
        big_phi: sum_phi_distinctions + sum_phi_relations.
        sum_phi_distinctions: sum of phi_d over the distinctions.
        sum_phi_relations: sum of phi_r over all relations (self-relations included).
        n_distinctions: number of distinctions.
        n_relations: number of relations.
        distinctions: the distinctions (`distinctions.Distinction`), ordered by mechanism size
            then lexicographically (PyPhi's order).
        phi_s: the system's integrated information (formalism-dependent).
        cause_state, effect_state: the system's specified cause/effect states used for
            congruence (0/1 over `nodes`).
        sia: the full system-level result (`sia.SystemIrreducibility`).
        nodes: network indices of the system; state: its current state.
        formalism: "IIT_4_0_2023" or "IIT_4_0_2026".
    """

    big_phi: float
    sum_phi_distinctions: float
    sum_phi_relations: float
    n_distinctions: int
    n_relations: int
    distinctions: tuple[Distinction, ...]
    phi_s: float
    cause_state: tuple[int, ...]
    effect_state: tuple[int, ...]
    sia: SystemIrreducibility
    nodes: tuple[int, ...]
    state: tuple[int, ...]
    formalism: str

    def __bool__(self) -> bool:
        return self.big_phi > 0

    @property
    def reducible(self) -> bool:
        """phi_s is 0: the system is not a complex, so its big Phi is that of a system IIT does not count as one
        (Albantakis et al. 2023: the Phi-structure is unfolded from a complex)."""
        return not self.sia

    def __repr__(self) -> str:
        return f"PhiStructure({self.describe()})"

    def describe(self, labels=None) -> str:
        """One line: big Phi, its two sums, phi_s, the system and its state, and a warning when it is reducible."""
        name = ce.unit_namer(labels, self.nodes)
        line = (f"big_phi={self.big_phi:.6g} bits ({self.n_distinctions} distinctions {self.sum_phi_distinctions:.6g}"
                f" + {self.n_relations} relations {self.sum_phi_relations:.6g}), phi_s={self.phi_s:.6g} bits of "
                f"{{{', '.join(name(i) for i in self.nodes)}}} in state "
                + (str(tuple(self.state)) if labels is None else
                   ", ".join(f"{name(i)}={v}" for i, v in zip(self.nodes, self.state))))
        if self.reducible:
            line += "; REDUCIBLE (phi_s = 0): not a complex, its big Phi is not that of a complex"
        return line

    def to_dict(self, labels=None) -> dict:
        """JSON-able: the numbers, ``reducible``, the distinctions and the system-level result (``sia``)."""
        name = ce.unit_namer(labels, self.nodes, text=False)
        return {"big_phi": self.big_phi, "sum_phi_distinctions": self.sum_phi_distinctions,
                "sum_phi_relations": self.sum_phi_relations, "n_distinctions": self.n_distinctions,
                "n_relations": self.n_relations, "phi_s": self.phi_s, "reducible": self.reducible,
                "cause_state": list(self.cause_state), "effect_state": list(self.effect_state),
                "nodes": [name(i) for i in self.nodes], "state": list(self.state), "formalism": self.formalism,
                "distinctions": [d.to_dict(labels) for d in self.distinctions], "sia": self.sia.to_dict(labels),
                "text": self.describe(labels)}


def _congruence_states(system: ce.CandidateSystem, sia: SystemIrreducibility):
    """The system cause/effect states distinctions are made congruent with (PyPhi's rule)."""
    cause, effect = sia.cause_state, sia.effect_state
    if cause is None or effect is None:
        nodes = system.nodes
        cause = ce.intrinsic_information(system, ce.CAUSE, nodes, nodes).state
        effect = ce.intrinsic_information(system, ce.EFFECT, nodes, nodes).state
    return tuple(cause), tuple(effect)


def phi_structure_of_candidate(system: ce.CandidateSystem, formalism: str = "IIT_4_0_2023") -> PhiStructure:
    """Phi-structure of a prepared candidate system (`cause_effect.prepare_candidate`)."""
    formalism = _check_formalism(formalism)
    sia = analyze_candidate(system, formalism)
    cause, effect = _congruence_states(system, sia)
    mices = compute_mices(system, MechanismTables(system))
    distinctions = tuple(resolve_congruence(system, mices, cause, effect))
    rel = relations_summary(distinctions)
    sum_d = float(sum(d.phi_d for d in distinctions))
    return PhiStructure(
        big_phi=sum_d + rel.sum_phi,
        sum_phi_distinctions=sum_d,
        sum_phi_relations=rel.sum_phi,
        n_distinctions=len(distinctions),
        n_relations=rel.n_relations,
        distinctions=distinctions,
        phi_s=sia.phi_s,
        cause_state=cause,
        effect_state=effect,
        sia=sia,
        nodes=system.nodes,
        state=system.state,
        formalism=formalism,
    )


def phi_structure(tpm, state, cm=None, nodes=None, formalism: str = "IIT_4_0_2023",
                  validate_state: bool = True, max_nodes: int | None = None) -> PhiStructure:
    """IIT 4.0 Phi-structure (distinctions, relations, big Phi) of `nodes` in `state`.

    Args:
        tpm: state-by-node TPM (2^N, N): row r is the state at t, little-endian (node 0 is the
            lowest bit), entry [r, j] = P(node j ON at t+1). PyPhi's multidimensional and
            (conditionally independent) state-by-state forms are accepted too.
        state: current network state, N zeros and ones.
        cm: (N, N) 0/1 connectivity, cm[i][j] = 1 for an edge i -> j; default all ones. It must
            contain every edge the TPM depends on.
        nodes: network indices of the candidate system (default: all). The other units are
            background conditions: fixed at their current state on the effect side, weighted
            by their posterior given the current state on the cause side (Eq. 4).
        formalism: "IIT_4_0_2023" (default) or "IIT_4_0_2026"; only phi_s differs.
        validate_state: PyPhi's `validate_system_states` (default True): the system's state
            must be reachable with the background fixed at its current state. The network
            state itself must always have a possible past.
        max_nodes: the largest candidate system computed (default None: 6,
            `cognition.phi.iit4.limits.MAX_STRUCTURE_NODES`); a larger one is refused before any work.

    Returns:
        `PhiStructure` (big_phi, sums, counts, distinctions, phi_s and the system states).

    Raises:
        ValueError: a bad argument (one line naming it, the value and what is allowed), or a
        state PyPhi 2.0 rejects as unreachable.
    """
    formalism = _check_formalism(formalism)
    system = ce.prepare_candidate(tpm, state, cm=cm, nodes=nodes, validate_state=validate_state)
    check_size(len(system.nodes), "phi_structure", max_nodes)
    return phi_structure_of_candidate(system, formalism)


def phi_structures(tpm, states, cm=None, nodes=None, formalism: str = "IIT_4_0_2023",
                   validate_state: bool = True, max_nodes: int | None = None) -> list:
    """`phi_structure` for each state of `states` ((s, N) zeros and ones), in order.

    A state PyPhi rejects as unreachable gives None instead of raising.
    """
    import numpy as np

    formalism = _check_formalism(formalism)
    st = np.asarray(states)
    if st.ndim != 2:
        raise ValueError(f"states: expected an (s, N) array of network states, got shape {st.shape}")
    out = []
    for row in st:
        try:
            out.append(phi_structure(tpm, row, cm=cm, nodes=nodes, formalism=formalism,
                                     validate_state=validate_state, max_nodes=max_nodes))
        except ValueError as err:
            if "unreachable" not in str(err):
                raise
            out.append(None)
    return out
