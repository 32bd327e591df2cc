"""The module registry: the built-in cognitive modules, and modules of one's own.

A module of one's own is a subclass of :class:`cognition.modules.CognitiveModule`
(docs/modules.md gives the protocol) made known under a name in one of two ways:

* in a script or notebook, by the decorator::

      from cognition.modules import CognitiveModule, register_module

      @register_module("oscillator")
      class Oscillator(CognitiveModule): ...

* from an installed package, by an entry point in the group ``cognition.modules``
  (pyproject.toml: ``[project.entry-points."cognition.modules"] oscillator =
  "my_pkg.osc:Oscillator"``), loaded the first time a name is not found otherwise;

* from the configuration, by path: ``modules.plugins: ["path/to/osc.py:Oscillator"]``
  (:mod:`cognition.modules.plugin_paths` imports the file and calls :func:`register_by_path`), so
  the command line, sweeps and experiments use a module that is not packaged.

``modules.enabled`` then names it like a built-in. A module registered with
``variant="any"`` (the default) runs in every quantum mode; ``"quantum"`` or
``"classical"`` registers a class for that mode only (a quantum run uses the quantum
class, ``--disable-quantum`` the classical one), so one name can have both.

Every registered name gets its own random streams (:func:`cognition.architecture.streams.stream_key`):
a stable 56-bit id from the name alone, which cannot meet the built-ins' streams; two
names whose ids are equal are refused here, at registration.

This file imports neither torch nor the modules: the configuration checks names
against it cheaply, and a built-in class is imported only when a run builds it.
"""
from __future__ import annotations

import importlib
import re

from cognition.errors import ConfigError, RegistrationError, UsageError

ENTRY_POINT_GROUP = "cognition.modules"
VARIANTS = ("quantum", "classical")
# name -> variant -> "module:Class" of the built-in modules (imported on first use)
BUILTIN = {
    "expectation": {"quantum": "cognition.modules.expectation:QuantumExpectation",
                    "classical": "cognition.modules.expectation:ClassicalExpectation"},
    "unconscious": {"quantum": "cognition.modules.unconscious:QuantumUnconscious",
                    "classical": "cognition.modules.unconscious:ClassicalUnconscious"},
    "hybrid": {"quantum": "cognition.modules.hybrid:Hybrid", "classical": "cognition.modules.hybrid:Hybrid"},
}
# names that are not modules but name something else in a run (streams, the wiring graph, unit names)
RESERVED = ("workspace", "init", "broadcast", "settings", "enabled")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

_plugins: dict[str, dict[str, type]] = {}  # name -> variant -> class
# name -> how it was registered: "script" (the decorator or register() in this process), "path"
# (modules.plugins) or "entry point"; only a "script" module cannot be found again by a resume from the CLI
_origins: dict[str, str] = {}
_entry_points: dict = {"loaded": False}


def _check_name(name) -> None:
    if not isinstance(name, str) or not NAME.match(name):
        raise RegistrationError(f"module name {name!r}: expected a Python identifier (letters, digits, _), "
                                "since it names config sections, streams and units ('name.signal')")
    if name in BUILTIN or name in RESERVED:
        raise RegistrationError(f"module name {name!r} is taken by the package (built-in modules: "
                                f"{', '.join(BUILTIN)}; reserved: {', '.join(RESERVED)}); choose another name")


def _same_definition(a: type, b: type) -> bool:
    """A class defined again by re-running the same cell or script (same module and qualified name)."""
    return (a.__module__, a.__qualname__) == (b.__module__, b.__qualname__)


def _check_class(cls, name: str) -> None:
    from cognition.modules.base import CognitiveModule

    if not (isinstance(cls, type) and issubclass(cls, CognitiveModule)):
        raise RegistrationError(f"module {name!r}: {cls!r} is not a subclass of cognition.modules.CognitiveModule")
    if cls.name not in ("", name):
        raise RegistrationError(f"module {name!r}: the class says name = {cls.name!r}; register it under that "
                                "name or leave the class attribute unset")
    signals = cls.unit_signals
    if not signals or not all(isinstance(s, str) and NAME.match(s) for s in signals) or len(set(signals)) != len(signals):
        raise RegistrationError(f"module {name!r}: unit_signals = {signals!r}: expected distinct identifiers, "
                                "at least one (its units of Phi)")


def _check_stream_id(name: str) -> None:
    from cognition.architecture.streams import plugin_stream_id

    mine = plugin_stream_id(name)
    for other in _plugins:
        if other != name and plugin_stream_id(other) == mine:
            raise RegistrationError(f"module {name!r} would share the random streams of the registered module "
                                    f"{other!r} (equal 56-bit stream id {mine:#x}); choose another name")


def register(cls: type, name: str | None = None, variant: str = "any") -> type:
    """Register ``cls`` under ``name`` (default: ``cls.name``) for ``variant`` ("any", "quantum" or
    "classical"); RegistrationError (one line) when the name or class cannot serve. Registering the
    same definition again (a re-run notebook cell) replaces it; another class under a taken name is refused."""
    name = name or getattr(cls, "name", "")
    _check_name(name)
    if variant not in ("any", *VARIANTS):
        raise RegistrationError(f"module {name!r}: variant = {variant!r}: expected 'any', 'quantum' or 'classical'")
    _check_class(cls, name)
    _check_stream_id(name)
    held = _plugins.setdefault(name, {})
    for v in VARIANTS if variant == "any" else (variant,):
        if v in held and held[v] is not cls and not _same_definition(held[v], cls):
            raise RegistrationError(f"module {name!r} ({v}) is already registered as "
                                    f"{held[v].__module__}.{held[v].__qualname__}; unregister it first or choose "
                                    "another name")
    for v in VARIANTS if variant == "any" else (variant,):
        held[v] = cls
    _origins.setdefault(name, "script")
    cls.name = name
    return cls


def register_by_path(cls: type, name: str) -> type:
    """Register a class loaded from ``modules.plugins`` (for every variant, unless its file registered
    it already under that name with the decorator); RegistrationError (one line) when it cannot serve."""
    if cls not in _plugins.get(name, {}).values():
        register(cls, name)
    _origins[name] = "path"
    return cls


def script_registered(names) -> list[str]:
    """Those of ``names`` registered only in this process (a script's or notebook's decorator), which
    ``python -m cognition.validate --resume`` cannot import: neither by path nor by an entry point."""
    return [n for n in names if _origins.get(n) == "script" and n in _plugins]


def register_module(name: str | type | None = None, *, variant: str = "any"):
    """Class decorator: ``@register_module("oscillator")``, ``@register_module`` (the class's ``name``)
    or ``@register_module("oscillator", variant="classical")``. Returns the class unchanged."""
    if isinstance(name, type):  # used bare: @register_module
        return register(name)
    return lambda cls: register(cls, name, variant)


def unregister(name: str) -> None:
    """Forget a registered module of one's own (built-ins stay)."""
    _plugins.pop(name, None)
    _origins.pop(name, None)


def _load_entry_points() -> None:
    """Register every ``cognition.modules`` entry point of the installed packages (once)."""
    if _entry_points["loaded"]:
        return
    _entry_points["loaded"] = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in _plugins:
            continue  # registered in this process already
        try:
            target = ep.load()
        except Exception as exc:  # noqa: BLE001 - a broken third-party package is the user's to fix
            raise UsageError(f"entry point {ENTRY_POINT_GROUP}:{ep.name} = {ep.value!r} failed to load "
                             f"({type(exc).__name__}: {exc})") from None
        try:
            if isinstance(target, dict):  # variant -> class
                for variant, cls in target.items():
                    register(cls, ep.name, variant)
            else:
                register(target, ep.name)
        except RegistrationError as exc:
            raise UsageError(f"entry point {ENTRY_POINT_GROUP}:{ep.name} = {ep.value!r}: {exc}") from None
        _origins[ep.name] = "entry point"


def registered() -> dict[str, list[str]]:
    """Every module name that can be enabled -> its variants (built-ins first, then plug-ins)."""
    _load_entry_points()
    out = {name: list(variants) for name, variants in BUILTIN.items()}
    out.update({name: [v for v in VARIANTS if v in held] for name, held in _plugins.items() if held})
    return out


def is_builtin(name: str) -> bool:
    return name in BUILTIN


def has_quantum_variant(name: str) -> bool:
    """Whether ``name`` has a quantum form of its own (every built-in; a plug-in registered with a
    quantum class apart from its classical one): only then is a classical instance in a quantum run
    a fallback. A plug-in registered for any mode is what it is in every mode."""
    if name in BUILTIN:
        return True
    held = _plugins.get(name, {})
    return "quantum" in held and held["quantum"] is not held.get("classical")


def _unknown(name) -> ConfigError:
    return ConfigError("modules.enabled", name,
                       f"a registered module: {', '.join(registered())} (register one of your own with "
                       f"@cognition.modules.register_module, a '{ENTRY_POINT_GROUP}' entry point, or by path "
                       "in modules.plugins: ['path/to/file.py:Class'])")


def check_enabled(name) -> None:
    """ConfigError naming what is registered when ``name`` is not a module that can be enabled."""
    if name in BUILTIN or name in _plugins:
        return
    if name not in registered():
        raise _unknown(name)


def lookup(name: str, variant: str) -> type:
    """The class that runs module ``name`` in ``variant`` mode; ConfigError (one line) when there is none."""
    if name in BUILTIN:
        path = BUILTIN[name][variant]
        module, attr = path.split(":")
        return getattr(importlib.import_module(module), attr)
    check_enabled(name)
    held = _plugins[name]
    if variant not in held:
        raise ConfigError("modules.enabled", name, f"a module with a {variant} variant: '{name}' is registered "
                                                   f"for {', '.join(held)} only")
    return held[variant]


def settings_of(cfg, name: str):
    """The settings object a module is built with: its ``modules.<name>`` section for a built-in; for a
    plug-in, ``modules.settings.<name>`` checked against its class's ``settings_class`` (a dataclass),
    or None when the class declares none. ConfigError (one line) for a bad value."""
    if name in BUILTIN:
        return getattr(cfg.modules, name)
    raw = (cfg.modules.settings or {}).get(name)
    cls = next(iter(_plugins.get(name, {}).values()), None) if name in _plugins else None
    schema = getattr(cls, "settings_class", None)
    if schema is None:
        if raw:
            raise ConfigError(f"modules.settings.{name}", raw, f"nothing: module '{name}' declares no settings_class")
        return None
    from cognition.config.schema import from_dict

    return from_dict(schema, raw or {}, f"modules.settings.{name}.")


def check_settings(cfg) -> None:
    """Every ``modules.settings`` entry names a registered plug-in module and fits its settings_class."""
    for name in (cfg.modules.settings or {}):
        if name in BUILTIN:
            raise ConfigError(f"modules.settings.{name}", cfg.modules.settings[name],
                              f"nothing: built-in modules take their settings from modules.{name}")
        check_enabled(name)
        settings_of(cfg, name)
