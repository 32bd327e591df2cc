"""Typed, validated run configuration and named presets.

A configuration is a tree of frozen dataclasses. Settings that change the
numbers (``run``, ``quantum``, ``modules``, ``workspace``, ``phi``) are kept apart
from settings that only change how a run executes (``runtime``) and from the
success ``criteria``, following PyPhi's habit of making every number traceable
to the settings that produced it.

Layering, later wins: built-in defaults < preset (``configs/NAME.yaml``) <
``--config FILE`` < command-line flags. Every field is checked on load: an
unknown key, a wrong type or an out-of-range value raises :class:`ConfigError`,
whose message names the field, the value and what is allowed.
"""
from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Optional

import yaml

from cognition.errors import ConfigError

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"


def _num(default, *, ge=None, gt=None, le=None, lt=None):
    """A numeric field with bounds, checked by :func:`from_dict`."""
    return field(default=default, metadata={"ge": ge, "gt": gt, "le": le, "lt": lt})


@dataclass(frozen=True)
class RunConfig:
    cycles: int = _num(50, ge=1)
    seed: int = _num(0, ge=0)
    agents: int = _num(8, ge=1)  # independent agents simulated as one batch
    content_dim: int = _num(8, ge=2)  # D: length of every proposal and broadcast vector
    dtype: Literal["float64", "float32"] = "float64"


@dataclass(frozen=True)
class QuantumConfig:
    mode: Literal["full", "lite", "disabled"] = "full"
    backend: Literal["auto", "aer", "torch"] = "auto"
    max_qubits: int = _num(28, ge=1)  # cap in full mode
    lite_max_qubits: int = _num(16, ge=1)  # cap under --quantum-lite
    lite_threads: int = _num(4, ge=1)  # Aer threads under --quantum-lite
    precision: Literal["double", "single"] = "double"
    on_cap_exceeded: Literal["error", "reduce"] = "error"

    @property
    def qubit_cap(self) -> int:
        return self.lite_max_qubits if self.mode == "lite" else self.max_qubits


@dataclass(frozen=True)
class ExpectationConfig:
    qubits: int = _num(6, ge=1)  # width of the quantum reservoir
    depth: int = _num(2, ge=1)  # re-uploading layers of the reservoir
    hidden: int = _num(16, ge=1)  # GRU size of the classical counterpart
    leak: float = _num(0.5, gt=0.0, le=1.0)  # feature memory: f_t = (1-leak) f_{t-1} + leak q_t
    forgetting: float = _num(0.98, gt=0.0, le=1.0)  # RLS forgetting factor lambda
    ridge: float = _num(1.0, gt=0.0)  # RLS initial P = I / ridge


@dataclass(frozen=True)
class UnconsciousConfig:
    qubits: int = _num(6, ge=1)
    layers: int = _num(2, ge=1)
    shots: int = _num(128, ge=1)
    hidden: int = _num(16, ge=1)  # stochastic-RNN size of the classical counterpart
    noise: float = _num(0.3, ge=0.0)  # classical counterpart's noise scale


@dataclass(frozen=True)
class HybridConfig:
    gamma: float = _num(2.09, ge=0.0)  # Pothos & Busemeyer (2009) dissonance coupling
    time: float = _num(1.5707963267948966, gt=0.0)  # evolution time t (P&B: pi/2)
    mu_scale: float = _num(1.0, ge=0.0)  # utility scale of the decision
    belief_gain: float = _num(4.0, ge=0.0)  # beta in belief = sigmoid(beta * agreement)


@dataclass(frozen=True)
class ModulesConfig:
    enabled: tuple[str, ...] = ("expectation", "unconscious", "hybrid")
    expectation: ExpectationConfig = field(default_factory=ExpectationConfig)
    unconscious: UnconsciousConfig = field(default_factory=UnconsciousConfig)
    hybrid: HybridConfig = field(default_factory=HybridConfig)


@dataclass(frozen=True)
class WorkspaceConfig:
    capacity: int = _num(1, ge=1)  # how many proposals enter the broadcast
    temperature: float = _num(0.25, gt=0.0)  # softmax temperature of the competition
    persistence: float = _num(0.5, ge=0.0, lt=1.0)  # b_t = p b_{t-1} + (1-p) winner mix


@dataclass(frozen=True)
class PhiConfig:
    measure: Literal["phi_r", "phi_wms"] = "phi_r"
    lag: int = _num(1, ge=1)
    window: int = _num(12, ge=3)  # trailing cycles per per-cycle estimate
    shrinkage: Optional[str] = "ledoit-wolf"
    bootstrap: int = _num(200, ge=0)
    surrogates: int = _num(200, ge=0)
    confidence: float = _num(0.95, gt=0.0, lt=1.0)


@dataclass(frozen=True)
class CriteriaConfig:
    require_phi: bool = True  # Phi estimated (the run reached the window) and finite
    min_mean_phi_bits: Optional[float] = 0.0
    require_significant: bool = True  # the null model's p-value below alpha
    alpha: float = _num(0.05, gt=0.0, lt=1.0)
    max_unrecovered_errors: int = _num(0, ge=0)
    allow_classical_fallback: bool = False  # an unrequested classical component fails the run


@dataclass(frozen=True)
class RuntimeConfig:
    device: str = "auto"
    allow_cpu_fallback: bool = False
    batch: Optional[int] = None  # agents per launch; None = all agents at once
    max_retries: int = _num(3, ge=0)  # OOM retries per cycle, batch halved each time
    min_batch: int = _num(1, ge=1)
    checkpoint_every_percent: float = _num(10.0, gt=0.0, le=100.0)
    checkpoint_every_seconds: float = _num(600.0, gt=0.0)
    keep_checkpoints: int = _num(3, ge=1)
    alloc_conf: Optional[str] = None  # PYTORCH_ALLOC_CONF string, e.g. "expandable_segments:True"
    autocast: Optional[Literal["bf16", "fp16"]] = None
    memory_budget_mb: Optional[int] = _num(None, ge=1)


@dataclass(frozen=True)
class Config:
    run: RunConfig = field(default_factory=RunConfig)
    quantum: QuantumConfig = field(default_factory=QuantumConfig)
    modules: ModulesConfig = field(default_factory=ModulesConfig)
    workspace: WorkspaceConfig = field(default_factory=WorkspaceConfig)
    phi: PhiConfig = field(default_factory=PhiConfig)
    criteria: CriteriaConfig = field(default_factory=CriteriaConfig)
    runtime: RuntimeConfig = field(default_factory=RuntimeConfig)

    def to_dict(self) -> dict:
        return _to_plain(dataclasses.asdict(self))


MODULE_NAMES = ("expectation", "unconscious", "hybrid")
PHI_SHRINKAGE = (None, "ledoit-wolf")


def _to_plain(obj):
    if isinstance(obj, dict):
        return {k: _to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_to_plain(v) for v in obj]
    return obj


def _describe(tp) -> str:
    origin = typing.get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(a) for a in typing.get_args(tp))
    if tp is type(None):
        return "null"
    if origin is tuple:
        return "a list"
    return {int: "an integer", float: "a number", bool: "true or false", str: "a string"}.get(tp, str(tp))


def _coerce(value, tp, name: str):
    """Return ``value`` as type ``tp`` or raise ConfigError naming ``name``."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(tp):
            try:
                return _coerce(value, arg, name)
            except ConfigError:
                continue
        raise ConfigError(name, value, _describe(tp))
    if origin is Literal:
        if value in typing.get_args(tp):
            return value
        raise ConfigError(name, value, _describe(tp))
    if tp is type(None):
        if value is None:
            return None
        raise ConfigError(name, value, "null")
    if origin is tuple:
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ConfigError(name, value, "a list of names")
        return tuple(value)
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(name, value, "true or false")
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ConfigError(name, value, "an integer")
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise ConfigError(name, value, "a number")
    if tp is str:
        if isinstance(value, str):
            return value
        raise ConfigError(name, value, "a string")
    raise TypeError(f"unsupported config type {tp!r} for {name}")


def _check_bounds(value, meta: dict, name: str) -> None:
    if value is None:
        return
    for key, op, word in (("ge", float.__ge__, ">="), ("gt", float.__gt__, ">"),
                          ("le", float.__le__, "<="), ("lt", float.__lt__, "<")):
        bound = meta.get(key)
        if bound is not None and not op(float(value), float(bound)):
            raise ConfigError(name, value, f"a value {word} {bound}")


def from_dict(cls, data: Any, prefix: str = ""):
    """Build dataclass ``cls`` from a mapping, rejecting unknown keys and bad values."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(prefix.rstrip(".") or "config", data, "a mapping of keys to values")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        key = unknown[0]
        raise ConfigError(f"{prefix}{key}", data[key], "known keys here: " + ", ".join(fields),
                          unknown_key=True)
    kwargs = {}
    for name, value in data.items():
        tp, full = hints[name], f"{prefix}{name}"
        if dataclasses.is_dataclass(tp):
            kwargs[name] = from_dict(tp, value, full + ".")
        else:
            kwargs[name] = _coerce(value, tp, full)
            _check_bounds(kwargs[name], dict(fields[name].metadata), full)
    return cls(**kwargs)


def _merge(base: dict, override: dict) -> dict:
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def read_yaml(path: Path, what: str) -> dict:
    """Read a YAML mapping; any problem is a ConfigError naming the file."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(what, str(path), "an existing YAML file")
    try:
        data = yaml.safe_load(path.read_text())
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError(what, str(path), f"valid YAML ({first})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(what, str(path), "a YAML mapping at the top level")
    return data


def available_presets() -> list[str]:
    return sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))


def _validate_cross_fields(cfg: Config) -> None:
    for name in cfg.modules.enabled:
        if name not in MODULE_NAMES:
            raise ConfigError("modules.enabled", name, "module names from " + ", ".join(MODULE_NAMES))
    if len(set(cfg.modules.enabled)) != len(cfg.modules.enabled):
        raise ConfigError("modules.enabled", list(cfg.modules.enabled), "each module at most once")
    if not cfg.modules.enabled:
        raise ConfigError("modules.enabled", [], "at least one module")
    if cfg.phi.shrinkage not in PHI_SHRINKAGE:
        raise ConfigError("phi.shrinkage", cfg.phi.shrinkage, "null or 'ledoit-wolf'")
    if cfg.phi.window <= cfg.phi.lag:
        raise ConfigError("phi.window", cfg.phi.window, f"more cycles than phi.lag ({cfg.phi.lag})")
    if cfg.quantum.mode != "disabled":
        cap = cfg.quantum.qubit_cap
        for name in ("expectation", "unconscious"):
            width = getattr(cfg.modules, name).qubits
            if name in cfg.modules.enabled and width > cap and cfg.quantum.on_cap_exceeded == "error":
                raise ConfigError(f"modules.{name}.qubits", width,
                                  f"at most the qubit cap {cap} (or quantum.on_cap_exceeded: reduce)")
    if cfg.runtime.batch is not None and cfg.runtime.batch < 1:
        raise ConfigError("runtime.batch", cfg.runtime.batch, "null or an integer >= 1")


def load_config(preset: str | None = None, path: str | Path | None = None,
                overrides: dict | None = None) -> Config:
    """Defaults < preset < file < overrides, validated; raises ConfigError."""
    data: dict = {}
    if preset is not None:
        presets = available_presets()
        if preset not in presets:
            raise ConfigError("--preset", preset, "one of " + ", ".join(presets))
        data = _merge(data, read_yaml(CONFIG_DIR / f"{preset}.yaml", "--preset"))
    if path is not None:
        data = _merge(data, read_yaml(Path(path), "--config"))
    if overrides:
        data = _merge(data, overrides)
    cfg = from_dict(Config, data)
    _validate_cross_fields(cfg)
    return cfg


def config_from_resolved(data: dict) -> Config:
    """Rebuild a Config from ``config.yaml`` written into a run directory."""
    cfg = from_dict(Config, data)
    _validate_cross_fields(cfg)
    return cfg
