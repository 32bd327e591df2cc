"""Cognitive modules, and how a configuration becomes module instances.

:func:`cognition.plugins.lookup` maps a module name and a variant ("quantum" or
"classical") to its class, for the built-ins and for modules registered with
:func:`register_module` or a ``cognition.modules`` entry point (docs/modules.md);
:func:`build_modules` turns a configuration into module instances. Quantum variants
of the built-ins receive a quantum backend; classical ones never import qiskit. A
plug-in module is built as ``cls(settings, content_dim, seed, dtype, device)``.
"""
from __future__ import annotations

from cognition.errors import ConfigError
from cognition.modules.base import CognitiveModule, Proposal, State, cat_trees, slice_tree
from cognition.plugins import (RegistrationError, is_builtin, lookup, register_module, registered, settings_of,
                               unregister)

CIRCUIT_MODULES = ("expectation", "unconscious")


def variant_of(cfg, name: str | None = None) -> str:
    """The variant module ``name`` runs: "classical" when quantum is disabled, or when a built-in quantum
    module's ``control`` asks for its classical stand-in (docs/quantum-effects.md); "quantum" otherwise.
    Without ``name``: the run's mode ("classical" only when quantum is disabled)."""
    if cfg.quantum.mode == "disabled":
        return "classical"
    settings = getattr(cfg.modules, name, None) if name else None
    return "classical" if getattr(settings, "control", None) == "classical" else "quantum"


def unit_signal_count(cfg) -> int:
    """How many units of Phi the enabled modules declare (their classes' ``unit_signals``)."""
    return sum(len(lookup(name, variant_of(cfg, name)).unit_signals) for name in cfg.modules.enabled)


def weight_values_per_agent(cfg, widths: dict | None = None) -> int:
    """How many fixed random weight values every agent holds (the enabled modules' ``weight_shapes``).

    widths: circuit module -> qubit width after the cap (default: the configured width, capped).
    """
    import math

    total = 0
    for name in cfg.modules.enabled:
        mcfg, variant = settings_of(cfg, name), variant_of(cfg, name)
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
    seed, D = cfg.run.seed, cfg.run.content_dim
    modules = []
    for name in cfg.modules.enabled:
        mcfg = settings_of(cfg, name)
        quantum = variant_of(cfg, name) == "quantum"
        cls = lookup(name, variant_of(cfg, name))
        if not is_builtin(name):
            modules.append(cls(mcfg, D, seed, dtype, device))
        elif name == "hybrid":
            modules.append(cls(mcfg, D, seed, dtype, device, model="quantum" if quantum else "markov"))
        elif quantum:
            try:
                modules.append(cls(mcfg, D, seed, dtype, device, backend=backend, width=widths[name]))
            except ValueError as exc:  # the circuit builder's size checks, e.g. too few qubits for D inputs
                raise ConfigError(f"modules.{name}.qubits", widths[name], f"a width that fits: {exc}") from None
        else:
            modules.append(cls(mcfg, D, seed, dtype, device))
    return modules


def module_set(modules, unit_names) -> dict:
    """What a checkpoint must match to be resumed by these modules: each module's name, variant and
    class (module.qualname), and the run's unit names in order."""
    return {"modules": [{"name": m.name, "variant": m.variant,
                         "class": f"{type(m).__module__}.{type(m).__qualname__}"} for m in modules],
            "units": list(unit_names)}


__all__ = ["CognitiveModule", "Proposal", "State", "RegistrationError", "build_modules", "lookup", "module_set",
           "register_module", "registered", "unit_signal_count", "unregister", "variant_of",
           "weight_values_per_agent", "cat_trees", "slice_tree"]
