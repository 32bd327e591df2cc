"""Typed, validated run configuration and named presets.

A configuration is a tree of frozen dataclasses. Every field is tagged by what it
changes (:data:`cognition.config.schema.CHANGES`): ``science`` (the model and its
analysis), ``numerics`` (the same model computed differently: dtype, precision,
backend, device, autocast, compilation), ``execution`` (how the run is carried out,
not meant to change a number), ``verdict`` (only how the finished numbers
are judged) or ``report`` (only what the report adds after the run). Each section's field in :class:`Config` gives its default tag and a
field that differs names its own, so the tags live here and nowhere else
(:data:`CHANGES_OF`); a checkpoint records the science and numerics settings and
``--resume`` names any that differ (:meth:`Config.diff`), following PyPhi's habit of
making every number traceable to the settings that produced it.

Layering, later wins: built-in defaults < preset (``configs/NAME.yaml``) <
``--config FILE`` < command-line flags. Every field is checked on load: an
unknown key, a wrong type, a non-finite or out-of-range value, or a key given twice
in one YAML mapping raises :class:`ConfigError`, whose message names the field, the
value and what is allowed. Each layer is checked on its own before the layers are
merged, so a bad section of a file is refused even when a flag overrides it.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Optional

import yaml

from cognition.config.schema import HASHED, MAX_INPUT_FILE_BYTES, check_file_size, field_tags, from_dict, leaves
from cognition.config.schema import diff as diff_settings, flatten, load_yaml, num, section, setting, to_plain
from cognition.errors import ConfigError, DuplicateKeyError, YamlTooLargeError, first_line, path_kind
from cognition.modules import plugin_paths

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"
MAX_CYCLES = 999_999_999  # checkpoints are named by a 9-digit cycle number
# phi.bootstrap and phi.surrogates at most: cognition.phi.validation.MAX_RESAMPLES, the bound phi.estimate
# itself keeps (written here too so that loading a config imports no numpy; tests/config/test_config.py)
MAX_RESAMPLES = 10_000


@dataclass(frozen=True)
class RunConfig:
    cycles: int = num(50, ge=1, le=MAX_CYCLES)
    seed: int = num(0, ge=0)
    agents: int = num(32, ge=1)  # independent agents simulated as one batch (the replications)
    content_dim: int = num(8, ge=2)  # D: length of every proposal and broadcast vector
    dtype: Literal["float64", "float32"] = setting("float64", "numerics")


@dataclass(frozen=True)
class QuantumConfig:
    mode: Literal["full", "lite", "disabled"] = "full"
    backend: Literal["auto", "aer", "torch"] = setting("auto", "numerics")  # simulators round differently
    max_qubits: int = num(28, ge=1)  # cap in full mode
    lite_max_qubits: int = num(16, ge=1)  # cap under --quantum-lite
    lite_threads: int = num(4, ge=1, changes="execution")  # Aer threads under --quantum-lite
    precision: Literal["double", "single"] = setting("double", "numerics")
    on_cap_exceeded: Literal["error", "reduce"] = "error"

    @property
    def qubit_cap(self) -> int:
        return self.lite_max_qubits if self.mode == "lite" else self.max_qubits


@dataclass(frozen=True)
class ExpectationConfig:
    qubits: int = num(6, ge=1)  # width of the quantum reservoir
    depth: int = num(2, ge=1)  # re-uploading layers of the reservoir
    hidden: int = num(16, ge=1)  # GRU size of the classical counterpart
    leak: float = num(0.5, gt=0.0, le=1.0)  # feature memory: f_t = (1-leak) f_{t-1} + leak q_t
    forgetting: float = num(0.98, gt=0.0, le=1.0)  # RLS forgetting factor lambda
    ridge: float = num(1.0, gt=0.0)  # RLS initial P = I / ridge
    # matched control of the quantum reservoir, or its classical stand-in (docs/quantum-effects.md); quantum modes only
    control: Literal["none", "classical_reservoir", "classical"] = "none"


@dataclass(frozen=True)
class UnconsciousConfig:
    qubits: int = num(6, ge=1)
    layers: int = num(2, ge=1)
    shots: int = num(128, ge=1)
    hidden: int = num(16, ge=1)  # stochastic-RNN size of the classical counterpart
    noise: float = num(0.3, ge=0.0)  # classical counterpart's noise scale
    # classical counterpart: the noise scale is set each cycle, per agent, so that the noise's variance in its
    # output equals this (cognition/modules/noise_match.py); null: the fixed scale `noise`
    noise_variance: Optional[float] = num(None, gt=0.0, lt=1.0)
    # matched control of the quantum sampler, or its classical stand-in (docs/quantum-effects.md); quantum modes only
    control: Literal["none", "no_entanglement", "classical_marginals", "classical"] = "none"


@dataclass(frozen=True)
class HybridConfig:
    gamma: float = num(2.09, ge=0.0)  # Pothos & Busemeyer (2009) dissonance coupling
    time: float = num(1.5707963267948966, gt=0.0)  # evolution time t (P&B: pi/2)
    mu_scale: float = num(1.0, ge=0.0)  # utility scale of the decision
    belief_gain: float = num(4.0, ge=0.0)  # beta in belief = sigmoid(beta * agreement)
    # matched control of the quantum decision, or its classical stand-in (docs/quantum-effects.md); quantum modes only
    control: Literal["none", "no_interference", "matched_markov", "classical"] = "none"


@dataclass(frozen=True)
class ModulesConfig:
    enabled: tuple[str, ...] = ("expectation", "unconscious", "hybrid")
    expectation: ExpectationConfig = field(default_factory=ExpectationConfig)
    unconscious: UnconsciousConfig = field(default_factory=UnconsciousConfig)
    hybrid: HybridConfig = field(default_factory=HybridConfig)
    settings: dict = field(default_factory=dict)  # plug-in module name -> its settings (cognition.modules.plugins)
    # modules of one's own by path, "[name=]file.py:Class" or "[name=]package.module:Class" (cognition.modules.plugin_paths)
    plugins: tuple[str, ...] = ()


@dataclass(frozen=True)
class WorkspaceConfig:  # the access dynamics of cognition/architecture/workspace.py
    capacity: int = num(1, ge=1)  # most modules that can hold the workspace at once
    threshold: float = num(0.0)  # access drive (in bid units, normal scores of surprise) at which access is 0.5
    temperature: float = num(0.25, gt=0.0)  # width of the access sigmoid
    self_excitation: float = num(1.5, ge=0.0)  # reverberation: > 4 x temperature makes access bistable
    inhibition: float = num(1.5, ge=0.0)  # lateral inhibition between the modules' access units
    adaptation: float = num(2.0, ge=0.0)  # fatigue gain: holding the workspace lowers the holder's drive
    adaptation_cycles: float = num(5.0, ge=1.0)  # time constant of the fatigue
    noise: float = num(0.2, ge=0.0)  # sd of the access drive's noise, in bid units
    surprise_window: int = num(20, ge=1)  # a bid is the evidence's percentile among the module's last this many
    persistence: float = num(0.5, ge=0.0, lt=1.0)  # b_t = persistence * b_{t-1} when no module ignites


@dataclass(frozen=True)
class ControlConfig:  # the causal controls of cognition/architecture/loop.py (docs/architecture.md)
    yoked: bool = True  # every agent gets two twins (same weights and noise): each direction of the loop cut
    lesion: Optional[str] = None  # null | broadcast | proposals (needs yoked) | module:NAME
    window: int = num(50, ge=2)  # cycles per window of the report's time-resolved control (at most 20 windows)


@dataclass(frozen=True)
class PhiConfig:
    measure: Literal["phi_r", "phi_wms"] = "phi_r"
    lag: int = num(1, ge=1)
    window: int = num(12, ge=3)  # trailing cycles per per-cycle estimate
    shrinkage: Optional[str] = None
    centre: Literal["auto", "agent", "pooled"] = "auto"  # auto: per agent for >= 5 agents (cognition.phi.estimate)
    bootstrap: int = num(200, ge=0, le=MAX_RESAMPLES)
    surrogates: int = num(200, ge=0, le=MAX_RESAMPLES)
    confidence: float = num(0.95, gt=0.0, lt=1.0)


@dataclass(frozen=True)
class CriteriaConfig:
    require_phi: bool = True  # Phi estimated (the run reached the window) and finite
    min_mean_phi_bits: Optional[float] = None  # a floor on absolute Phi: off by default (cognition/analysis/criteria.py)
    require_significant: bool = True  # the integration test's p-value below alpha
    require_closed_loop: bool = True  # each direction: Phi(agents) - Phi(its twins) with CI above 0 (control.yoked)
    alpha: float = num(0.05, gt=0.0, lt=1.0)
    max_unrecovered_errors: int = num(0, ge=0)
    allow_classical_fallback: bool = False  # an unrequested classical component fails the run


@dataclass(frozen=True)
class AnalysisConfig:  # analyses the report adds after the run, from its configuration (docs/iit4.md)
    iit4: bool = False  # IIT 4.0 of each agent by intervention (cognition.analysis.perturbational; about 35 s)


@dataclass(frozen=True)
class RuntimeConfig:
    device: str = setting("auto", "numerics")  # CPU and CUDA kernels round differently
    threads: Optional[int] = num(1, ge=1)  # torch and OpenBLAS CPU threads; null: library defaults
    allow_cpu_fallback: bool = False
    batch: Optional[int] = None  # agents per launch; None = all agents at once
    max_retries: int = num(3, ge=0)  # OOM retries per cycle, batch halved each time
    min_batch: int = num(1, ge=1)
    regrow_after_cycles: Optional[int] = num(25, ge=1)  # good cycles before a lowered batch doubles; null: never
    checkpoint_every_percent: float = num(10.0, gt=0.0, le=100.0)
    checkpoint_every_seconds: float = num(600.0, gt=0.0)
    keep_checkpoints: int = num(3, ge=1)
    alloc_conf: Optional[str] = None  # PYTORCH_ALLOC_CONF string, e.g. "expandable_segments:True"
    autocast: Optional[Literal["bf16", "fp16"]] = setting(None, "numerics")
    # torch.compile of the step's kernels: fused kernels round differently from eager ones
    compile: Literal["off", "default", "reduce-overhead"] = setting("off", "numerics")
    memory_budget_mb: Optional[int] = num(None, ge=1)
    gpu_memory_fraction: Optional[float] = num(None, gt=0.0, le=1.0)  # torch.cuda.set_per_process_memory_fraction


@dataclass(frozen=True)
class Config:
    # each section's default tag (config_schema.CHANGES); fields that differ name their own above
    run: RunConfig = section(RunConfig, "science")
    quantum: QuantumConfig = section(QuantumConfig, "science")
    modules: ModulesConfig = section(ModulesConfig, "science")
    workspace: WorkspaceConfig = section(WorkspaceConfig, "science")
    control: ControlConfig = section(ControlConfig, "science")
    phi: PhiConfig = section(PhiConfig, "science")
    criteria: CriteriaConfig = section(CriteriaConfig, "verdict")
    analysis: AnalysisConfig = section(AnalysisConfig, "report")
    runtime: RuntimeConfig = section(RuntimeConfig, "execution")

    def to_dict(self) -> dict:
        return to_plain(dataclasses.asdict(self))

    def settings(self, changes: tuple[str, ...] = HASHED) -> dict:
        """Dotted key -> value of every field tagged with one of ``changes`` (default: science and numerics)."""
        return {k: v for k, v in leaves(self).items() if CHANGES_OF[k] in changes}

    def diff(self, other: "Config", changes: tuple[str, ...] = HASHED) -> list[tuple]:
        """(key, this value, the other's) for each field tagged with one of ``changes`` that differs."""
        return diff_settings(self.settings(changes), other.settings(changes))


CHANGES_OF = field_tags(Config)  # dotted key -> science | numerics | execution | verdict


def recorded_settings(tree: dict) -> dict:
    """Dotted key -> value of every field of a configuration as ``config.yaml`` holds it (``Config.to_dict()``),
    less those tagged execution (threads, batch, checkpoints: how a run is carried out, never its numbers).
    Two runs whose recorded settings are equal computed, judged and reported the same way; a key only one
    configuration has (another version's) is kept, so that it shows as a difference."""
    return {k: v for k, v in flatten(tree).items() if CHANGES_OF.get(k) != "execution"}


PHI_SHRINKAGE = (None, "ledoit-wolf")
MATCHED_CONTROL_MODULES = ("expectation", "unconscious", "hybrid")  # the modules with a `control` setting


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
        raise ConfigError(what, str(path), f"an existing YAML file (it {path_kind(path)})")
    check_file_size(path, what)  # before a byte is parsed: PyYAML takes about 1 s per MiB
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_INPUT_FILE_BYTES + 1)  # the file may have grown since it was measured
    except OSError as exc:
        raise ConfigError(what, str(path), f"a readable YAML file ({exc.strerror or exc})") from None
    if len(raw) > MAX_INPUT_FILE_BYTES:
        check_file_size(path, what)
        raise ConfigError(what, str(path), f"a file of at most {MAX_INPUT_FILE_BYTES:,} bytes")
    try:
        data = load_yaml(raw.decode("utf-8"))
    except DuplicateKeyError as exc:
        raise ConfigError(what, str(path), f"YAML without repeated keys: {exc}") from None
    except YamlTooLargeError as exc:
        raise ConfigError(what, str(path), f"YAML of bounded size ({exc})") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError(what, str(path), f"valid YAML ({first})") from None
    except RecursionError:  # PyYAML composes and builds nested collections recursively
        raise ConfigError(what, str(path), "YAML nested a few hundred levels deep at most") from None
    except ValueError as exc:  # a constructor's own limit, e.g. an integer of more than 4300 digits
        raise ConfigError(what, str(path), f"valid YAML ({first_line(str(exc))[:160]})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(what, str(path), "a YAML mapping at the top level")
    return data


def available_presets() -> list[str]:
    return sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))


def _validate_cross_fields(cfg: Config) -> None:
    from cognition.modules import plugins

    plugin_paths.load(cfg.modules.plugins)  # registers them, so that modules.enabled can name them
    for name in cfg.modules.enabled:
        plugins.check_enabled(name)
    if len(set(cfg.modules.enabled)) != len(cfg.modules.enabled):
        raise ConfigError("modules.enabled", list(cfg.modules.enabled), "each module at most once")
    if not cfg.modules.enabled:
        raise ConfigError("modules.enabled", [], "at least one module")
    plugins.check_settings(cfg)
    if cfg.phi.shrinkage not in PHI_SHRINKAGE:
        raise ConfigError("phi.shrinkage", cfg.phi.shrinkage, "null or 'ledoit-wolf'")
    if cfg.phi.shrinkage == "ledoit-wolf" and cfg.phi.centre != "pooled":
        raise ConfigError("phi.shrinkage", cfg.phi.shrinkage,
                          "null with per-agent centring; 'ledoit-wolf' needs phi.centre: pooled")
    if cfg.phi.window <= cfg.phi.lag:
        raise ConfigError("phi.window", cfg.phi.window, f"more cycles than phi.lag ({cfg.phi.lag})")
    for name in MATCHED_CONTROL_MODULES:
        chosen = getattr(cfg.modules, name).control
        if chosen != "none" and cfg.quantum.mode == "disabled":
            raise ConfigError(f"modules.{name}.control", chosen,
                              "'none' when quantum.mode is disabled (a control stands in for the quantum "
                              "component, which a classical run does not have)")
    if cfg.workspace.capacity > len(cfg.modules.enabled):
        raise ConfigError("workspace.capacity", cfg.workspace.capacity,
                          f"at most the number of enabled modules ({len(cfg.modules.enabled)})")
    lesion = cfg.control.lesion
    if lesion is not None and lesion not in ("broadcast", "proposals") and not (
            lesion.startswith("module:") and lesion[len("module:"):] in cfg.modules.enabled):
        raise ConfigError("control.lesion", lesion, "null, 'broadcast', 'proposals' or 'module:NAME' with NAME one of "
                          + ", ".join(cfg.modules.enabled))
    if lesion == "proposals" and not cfg.control.yoked:
        raise ConfigError("control.lesion", lesion, "'proposals' only with control.yoked: true (the workspaces compete "
                          "over the proposals of the yoked control's donors)")
    if cfg.runtime.batch is not None and cfg.runtime.batch < 1:
        raise ConfigError("runtime.batch", cfg.runtime.batch, "null or an integer >= 1")


def load_config(preset: str | None = None, path: str | Path | None = None,
                overrides: dict | None = None) -> Config:
    """Defaults < preset < file < overrides, each layer validated on its own, then the merge;
    raises ConfigError. Relative ``modules.plugins`` files are resolved against the directory of the
    YAML file that names them, or the working directory for ``overrides``."""
    layers = []
    if preset is not None:
        presets = available_presets()
        if preset not in presets:
            raise ConfigError("--preset", preset, "one of " + ", ".join(presets))
        layers.append(plugin_paths.resolve_layer(read_yaml(CONFIG_DIR / f"{preset}.yaml", "--preset"), CONFIG_DIR))
    if path is not None:
        layers.append(plugin_paths.resolve_layer(read_yaml(Path(path), "--config"), Path(path).parent))
    if overrides:
        layers.append(plugin_paths.resolve_layer(overrides, Path.cwd()))
    data: dict = {}
    for layer in layers:
        from_dict(Config, layer)  # a later layer must not hide a bad section of an earlier one
        data = _merge(data, layer)
    cfg = from_dict(Config, data)
    _validate_cross_fields(cfg)
    return cfg


def config_from_resolved(data: dict) -> Config:
    """Rebuild a Config from ``config.yaml`` written into a run directory."""
    cfg = from_dict(Config, data)
    _validate_cross_fields(cfg)
    return cfg
