"""Cognitive modules, and how a configuration becomes module instances.

:func:`cognition.modules.plugins.lookup` maps a module name and a variant ("quantum" or
"classical") to its class, for the built-ins and for modules registered with
:func:`register_module` or a ``cognition.modules`` entry point (docs/modules.md);
:func:`build_modules` turns a configuration into module instances. Quantum variants
of the built-ins receive a quantum backend; classical ones never import qiskit. A
plug-in module is built as ``cls(settings, content_dim, seed, dtype, device)``, with
``backend=`` and ``width=`` added when it declares a circuit width.

Which modules run circuits, and how wide, is what their classes declare
(:meth:`CognitiveModule.circuit_width`): :func:`circuit_widths` asks the class each enabled
module runs, built-in or plug-in alike; :func:`resolve_widths` applies the qubit cap to them
when a run is assembled (:func:`check_circuit_widths`: refused, or lowered), and
the memory planner (:mod:`cognition.runtime.planner`) counts their statevectors and the
state and weights they declare.
"""
from __future__ import annotations

import importlib
import math

import quantum
from cognition.errors import ConfigError, RegistrationError
from cognition.modules.plugins import is_builtin, lookup, register_module, registered, settings_of, unregister

#: the protocol's names, loaded on first use (PEP 562): importing this package, as the configuration
#: does to read plug-in modules, imports neither torch nor qiskit
_FROM_BASE = ("CognitiveModule", "Proposal", "State", "cat_trees", "slice_tree")


def __getattr__(name: str):
    if name in _FROM_BASE:
        return getattr(importlib.import_module("cognition.modules.base"), name)
    raise AttributeError(f"module 'cognition.modules' has no attribute {name!r}")


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


def circuit_widths(cfg) -> dict[str, int]:
    """Enabled module -> the qubits its circuits use as configured, before the cap: every module whose
    class in this run declares a :meth:`~CognitiveModule.circuit_width` (built-ins and plug-ins alike),
    in enabled order. Empty when ``quantum.mode`` is disabled (no module runs a circuit then)."""
    if cfg.quantum.mode == "disabled":
        return {}
    widths = {}
    for name in cfg.modules.enabled:
        width = lookup(name, variant_of(cfg, name)).circuit_width(settings_of(cfg, name), cfg.run.content_dim)
        if width is not None:
            widths[name] = int(width)
    return widths


def width_field(name: str) -> str:
    """The configuration field a circuit module's width comes from, for an error message."""
    return f"modules.{name}.qubits" if is_builtin(name) else f"modules.settings.{name}"


def check_circuit_widths(cfg) -> None:
    """ConfigError when a circuit module is wider than the qubit cap (``quantum.qubit_cap``: ``max_qubits``,
    or ``lite_max_qubits`` under lite) and ``quantum.on_cap_exceeded`` is "error"; "reduce" lets it run.

    Checked when the run is built (:func:`resolve_widths`, before its directory is claimed), not when the
    configuration loads: asking the classes imports them, and torch, which a run imports only after its
    host memory limits have been checked (cognition.runtime.planner.check_libraries)."""
    if cfg.quantum.on_cap_exceeded != "error":
        return
    cap = cfg.quantum.qubit_cap
    for name, width in circuit_widths(cfg).items():
        if width > cap:
            cls = lookup(name, variant_of(cfg, name))
            what = "" if is_builtin(name) else f"a circuit width ({cls.__qualname__}.circuit_width) of "
            raise ConfigError(width_field(name), width,
                              f"{what}at most the qubit cap {cap} (or quantum.on_cap_exceeded: reduce)")


def resolve_widths(cfg) -> tuple[dict[str, int], list[str]]:
    """Circuit module -> its width after the qubit cap (``quantum.resolve_width`` under
    ``quantum.on_cap_exceeded``), and a note for every width the cap lowered; ConfigError
    (:func:`check_circuit_widths`) for a width over the cap under "error"."""
    check_circuit_widths(cfg)
    widths, notes = {}, []
    for name, requested in circuit_widths(cfg).items():
        widths[name], note = quantum.resolve_width(requested, cfg.quantum.qubit_cap, cfg.quantum.on_cap_exceeded)
        if note:
            notes.append(f"{name}: {note}")
    return widths, notes


def capped_widths(cfg, widths: dict | None = None) -> dict[str, int]:
    """Circuit module -> qubit width after the cap: from ``widths`` where it names the module (a run's
    :func:`resolve_widths`), else the declared width lowered to the cap."""
    given = widths or {}
    return {name: given.get(name, min(width, cfg.quantum.qubit_cap)) for name, width in circuit_widths(cfg).items()}


def _declared_values(cfg, widths: dict | None, shapes_of: str) -> int:
    capped = capped_widths(cfg, widths)
    total = 0
    for name in cfg.modules.enabled:
        cls = lookup(name, variant_of(cfg, name))
        shapes = getattr(cls, shapes_of)(settings_of(cfg, name), cfg.run.content_dim, capped.get(name))
        total += sum(math.prod(shape) for shape in shapes.values())
    return total


def weight_values_per_agent(cfg, widths: dict | None = None) -> int:
    """How many fixed random weight values every agent holds (the enabled modules' ``weight_shapes``).

    widths: circuit module -> qubit width after the cap (default: the declared width, capped).
    """
    return _declared_values(cfg, widths, "weight_shapes")


def state_values_per_row(cfg, widths: dict | None = None) -> int:
    """How many state values every row holds (the enabled modules' ``state_shapes``), widths as above."""
    return _declared_values(cfg, widths, "state_shapes")


def build_modules(cfg, *, dtype, device, backend=None, widths: dict | None = None) -> list[CognitiveModule]:
    """Instantiate the enabled modules in declared order.

    backend: a ``quantum`` backend, or None when quantum is disabled.
    widths:  circuit module -> qubit width after the cap (:func:`resolve_widths`); every module that
             declares a circuit width is built with ``backend=`` and ``width=``.
    """
    from cognition.modules.base import BuildContext  # torch: not when the registry is read

    seed, D = cfg.run.seed, cfg.run.content_dim
    widths = widths or {}
    modules = []
    for name in cfg.modules.enabled:
        mcfg, variant = settings_of(cfg, name), variant_of(cfg, name)
        cls = lookup(name, variant)
        if name not in widths and cls.circuit_width(mcfg, D) is not None:
            raise ConfigError("modules.enabled", name, f"a module without circuits when quantum.mode is "
                              f"{cfg.quantum.mode}: {cls.__qualname__} declares a circuit_width (register a "
                              "classical variant for runs without quantum)")
        ctx = BuildContext(D, seed, dtype, device, variant, backend if name in widths else None, widths.get(name))
        try:
            modules.append(cls.build(mcfg, ctx))
        except ValueError as exc:  # a built-in circuit builder's size checks, e.g. too few qubits for D inputs
            if name not in widths or not is_builtin(name):
                raise
            raise ConfigError(width_field(name), widths[name], f"a width that fits: {exc}") from None
    return modules


def module_set(modules, unit_names) -> dict:
    """What a checkpoint must match to be resumed by these modules: each module's name, variant and
    class (module.qualname), and the run's unit names in order."""
    return {"modules": [{"name": m.name, "variant": m.variant,
                         "class": f"{type(m).__module__}.{type(m).__qualname__}"} for m in modules],
            "units": list(unit_names)}


__all__ = ["CognitiveModule", "Proposal", "State", "RegistrationError", "build_modules", "capped_widths",
           "check_circuit_widths", "circuit_widths", "lookup", "module_set", "register_module", "registered",
           "resolve_widths", "state_values_per_row", "unit_signal_count", "unregister", "variant_of",
           "weight_values_per_agent", "cat_trees", "slice_tree"]
