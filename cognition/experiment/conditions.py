"""The ablation factorial: each condition swaps one quantum component for one control, and the contrasts.

A condition is a set of config overrides on top of the experiment's configuration (which runs every
quantum component, ``quantum.mode`` lite or full). What each control holds fixed and removes, and how
it is verified, is in docs/quantum-effects.md. A condition with ``measured`` takes a value measured
on another condition's run of the same seed: the noise-matched classical stand-ins set
``modules.unconscious.noise_variance`` to the quantum sampler's mean shot-noise variance in that
seed's all-quantum run (``noise_var``, cognition/modules/noise_match.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field

REFERENCE = "quantum"


@dataclass(frozen=True)
class Condition:
    name: str
    label: str
    isolates: str  # what differs from the all-quantum architecture
    overrides: dict = field(default_factory=dict)
    measured: bool = False  # needs the all-quantum run's noise variance of the same seed


def _module(name: str, **settings) -> dict:
    return {"modules": {name: settings}}


CONDITIONS = (
    Condition(REFERENCE, "all quantum", "nothing: the reference architecture"),
    Condition("unconscious.no_entanglement", "unconscious: RZZ gates removed",
              "the sampler's entanglement (and the marginals the RZZ gates shaped)",
              _module("unconscious", control="no_entanglement")),
    Condition("unconscious.classical_marginals", "unconscious: independent qubits, same Born marginals and shots",
              "every correlation between the sampled qubits, nothing else",
              _module("unconscious", control="classical_marginals")),
    Condition("unconscious.classical_matched", "unconscious: stochastic RNN, noise variance matched",
              "the quantum sampler, for a classical one with the same sampling-noise variance",
              _module("unconscious", control="classical"), measured=True),
    Condition("unconscious.classical", "unconscious: stochastic RNN, its own noise (noise 0.3)",
              "the quantum sampler, for the classical variant as --disable-quantum runs it",
              _module("unconscious", control="classical")),
    Condition("expectation.classical_reservoir", "expectation: product-state reservoir, computed classically",
              "the reservoir's entanglers (entanglement, the features' multi-qubit mixing)",
              _module("expectation", control="classical_reservoir")),
    Condition("expectation.classical", "expectation: GRU reservoir",
              "the quantum reservoir, for the classical variant as --disable-quantum runs it",
              _module("expectation", control="classical")),
    Condition("hybrid.no_interference", "hybrid: interference off (law of total probability)",
              "the interference term only (= a Markov twin matched in P(act|A), P(act|B))",
              _module("hybrid", control="no_interference")),
    Condition("hybrid.classical", "hybrid: Markov model at the same mu and gamma",
              "the quantum decision, for the classical variant (other action rates)",
              _module("hybrid", control="classical")),
    Condition("classical", "all classical (--disable-quantum)", "every quantum component, noise 0.3",
              {"quantum": {"mode": "disabled"}}),
    Condition("classical_matched", "all classical, unconscious noise variance matched",
              "every quantum component, the sampler's noise variance kept",
              {"quantum": {"mode": "disabled"}}, measured=True),
)


@dataclass(frozen=True)
class Contrast:
    name: str
    condition: str
    reference: str
    isolates: str


def contrasts(names: list[str]) -> list[Contrast]:
    """Every condition against the all-quantum reference, and each noise-matched stand-in against its
    unmatched twin (what matching the noise changes), among the conditions ``names`` run."""
    by_name = {c.name: c for c in CONDITIONS}
    out = [Contrast(f"{n} - {REFERENCE}", n, REFERENCE, by_name[n].isolates)
           for n in names if n != REFERENCE and REFERENCE in names]
    for matched, plain in (("unconscious.classical_matched", "unconscious.classical"),
                           ("classical_matched", "classical")):
        if matched in names and plain in names:
            out.append(Contrast(f"{matched} - {plain}", matched, plain,
                                "the classical sampler's noise variance: matched to the quantum one vs its own"))
    return out


def select(names: list[str] | None) -> list[Condition]:
    """The conditions to run, in table order: all, or those named (the reference always, as the measured
    conditions and the contrasts need it). ValueError naming the unknown ones."""
    if not names:
        return list(CONDITIONS)
    known = {c.name for c in CONDITIONS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"{', '.join(unknown)}: not a condition; choose from {', '.join(sorted(known))}")
    return [c for c in CONDITIONS if c.name in names or c.name == REFERENCE]


def overrides(condition: Condition, noise_variance: float | None) -> dict:
    """The condition's config overrides, with the measured noise variance where it takes one."""
    if not condition.measured:
        return condition.overrides
    unconscious = dict(condition.overrides.get("modules", {}).get("unconscious", {}), noise_variance=noise_variance)
    modules = dict(condition.overrides.get("modules", {}), unconscious=unconscious)
    return dict(condition.overrides, modules=modules)
