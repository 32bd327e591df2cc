"""Cognitive modules and their registry.

``REGISTRY[name][variant]`` maps a module name and a variant ("quantum" or
"classical") to its class; :func:`build_modules` turns a configuration into
module instances. Quantum variants receive a quantum backend; classical ones
never import qiskit.
"""
from __future__ import annotations

from cognition.errors import ConfigError
from cognition.modules.base import CognitiveModule, Proposal, State, cat_trees, slice_tree
from cognition.modules.expectation import ClassicalExpectation, QuantumExpectation
from cognition.modules.hybrid import Hybrid
from cognition.modules.unconscious import ClassicalUnconscious, QuantumUnconscious

REGISTRY = {
    "expectation": {"quantum": QuantumExpectation, "classical": ClassicalExpectation},
    "unconscious": {"quantum": QuantumUnconscious, "classical": ClassicalUnconscious},
    "hybrid": {"quantum": Hybrid, "classical": Hybrid},
}
CIRCUIT_MODULES = ("expectation", "unconscious")


def lookup(name: str, variant: str):
    try:
        variants = REGISTRY[name]
    except KeyError:
        raise ConfigError("modules.enabled", name, "one of " + ", ".join(REGISTRY)) from None
    try:
        return variants[variant]
    except KeyError:
        raise ConfigError(f"{name} variant", variant, "one of " + ", ".join(variants)) from None


def variant_of(cfg) -> str:
    """The module variant a configuration runs: "quantum" unless quantum is disabled."""
    return "classical" if cfg.quantum.mode == "disabled" else "quantum"


def unit_signal_count(cfg) -> int:
    """How many units of Phi the enabled modules declare (their classes' ``unit_signals``)."""
    return sum(len(lookup(name, variant_of(cfg)).unit_signals) for name in cfg.modules.enabled)


def weight_values_per_agent(cfg, widths: dict | None = None) -> int:
    """How many fixed random weight values every agent holds (the enabled modules' ``weight_shapes``).

    widths: circuit module -> qubit width after the cap (default: the configured width, capped).
    """
    import math

    variant, total = variant_of(cfg), 0
    for name in cfg.modules.enabled:
        mcfg = getattr(cfg.modules, name)
        width = None
        if variant == "quantum" and name in CIRCUIT_MODULES:
            width = (widths or {}).get(name, min(mcfg.qubits, cfg.quantum.qubit_cap))
        shapes = lookup(name, variant).weight_shapes(mcfg, cfg.run.content_dim, width)
        total += sum(math.prod(shape) for shape in shapes.values())
    return total


def build_modules(cfg, *, dtype, device, backend=None, widths: dict | None = None) -> list[CognitiveModule]:
    """Instantiate the enabled modules in declared order.

    backend: a ``quantum`` backend, or None when quantum is disabled.
    widths:  module name -> qubit width after the cap (see ``quantum.resolve_width``).
    """
    variant = variant_of(cfg)
    quantum = variant == "quantum"
    seed, D = cfg.run.seed, cfg.run.content_dim
    modules = []
    for name in cfg.modules.enabled:
        mcfg = getattr(cfg.modules, name)
        cls = lookup(name, variant)
        if name == "hybrid":
            modules.append(cls(mcfg, D, seed, dtype, device, model="quantum" if quantum else "markov"))
        elif quantum:
            try:
                modules.append(cls(mcfg, D, seed, dtype, device, backend=backend, width=widths[name]))
            except ValueError as exc:  # the circuit builder's size checks, e.g. too few qubits for D inputs
                raise ConfigError(f"modules.{name}.qubits", widths[name], f"a width that fits: {exc}") from None
        else:
            modules.append(cls(mcfg, D, seed, dtype, device))
    return modules


__all__ = ["CognitiveModule", "Proposal", "State", "REGISTRY", "build_modules", "unit_signal_count", "variant_of",
           "weight_values_per_agent", "cat_trees", "slice_tree"]
