"""Modules of one's own (cognition.modules.plugins): registration, random streams, config, checkpoint identity.

The stream layouts are checked against Philox generators built by hand from the layout
docs/modules.md documents (not through AgentStreams). The end-to-end tests run in fresh
interpreters: a module defined in a file outside the package (tests/plugin_modules/oscillator.py,
copied into the test's tmp dir) is registered by its decorator or by an installed package's
``cognition.modules`` entry point, run with Phi, killed with SIGKILL and resumed.
"""
import hashlib
import os
import shutil
import signal
import struct
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch
from runtools import science

from cognition.modules import plugins
from cognition.config.settings import load_config
from cognition.config.schema import num
from cognition.errors import ConfigError
from cognition.modules import CognitiveModule, Proposal, RegistrationError, register_module, unregister
from cognition.architecture.rng import blocks_to_uniforms, box_muller, philox4x32
from cognition.architecture.streams import AgentStreams, master_key

ROOT = Path(__file__).resolve().parents[2]
OSCILLATOR = Path(__file__).resolve().parents[1] / "plugin_modules" / "oscillator.py"
ENABLED = ["expectation", "unconscious", "hybrid", "oscillator"]


def reference_normals(seed: int, module_byte: int, name_id: int, kind: int, agent: int, words, n: int) -> np.ndarray:
    """The documented layout (cognition/architecture/streams.py), rebuilt here: key = SHA-256 of the packed identity,
    counter (block, agent, word, word), two 32-bit words per 53-bit double, Box-Muller per pair."""
    digest = hashlib.sha256(struct.pack(">QBQB", master_key(seed), module_byte, name_id, kind)).digest()
    key = torch.tensor([int.from_bytes(digest[:4], "big"), int.from_bytes(digest[4:8], "big")])
    counter = torch.tensor([[j, agent, *words] for j in range((n + 1) // 2)])
    return box_muller(blocks_to_uniforms(philox4x32(counter, key))).reshape(-1)[:n].numpy()


def test_builtin_streams_keep_their_documented_layout():
    # unconscious = module byte 2, name id 0; noise kind 0 with counter words (cycle, 0), weights kind 1 (weight, 0)
    noise = AgentStreams(7, np.array([3]), "unconscious", 5).normal(4)[0]
    assert np.array_equal(noise, reference_normals(7, 2, 0, 0, 3, (5, 0), 4))
    weight = AgentStreams.weights(7, np.array([3]), "expectation", 2).normal(4)[0]
    assert np.array_equal(weight, reference_normals(7, 1, 0, 1, 3, (2, 0), 4))


def test_a_plugin_name_has_its_own_stable_streams():
    name_id = int.from_bytes(hashlib.sha256(b"oscillator").digest()[:7], "big")
    noise = AgentStreams(7, np.array([3]), "oscillator", 5).normal(4)[0]
    assert np.array_equal(noise, reference_normals(7, 0, name_id, 0, 3, (5, 0), 4))
    weight = AgentStreams.weights(7, np.array([3]), "oscillator", 2).normal(4)[0]
    assert np.array_equal(weight, reference_normals(7, 0, name_id, 1, 3, (2, 0), 4))
    others = [AgentStreams(7, np.array([3]), n, 5).normal(4)[0] for n in ("expectation", "unconscious", "hybrid",
                                                                           "workspace", "init", "oscillatr")]
    assert not any(np.array_equal(noise, o) for o in others)


class _Plain(CognitiveModule):
    unit_signals = ("salience",)

    def init_state(self, agents, streams):
        return {}

    def propose(self, state, inputs, streams, weights):
        b = inputs["broadcast"]
        return Proposal(b, b.abs().mean(dim=1)), state

    def units(self, proposal, b_prev):
        return proposal.salience[:, None]


@pytest.fixture
def registered():
    names = []

    def register(cls, name, **kw):
        names.append(name)
        return register_module(name, **kw)(type(cls.__name__, (cls,), {"__module__": __name__, "name": ""}))

    yield register
    for n in names:
        unregister(n)


def test_two_names_with_equal_stream_ids_are_refused(registered, monkeypatch):
    monkeypatch.setattr("cognition.architecture.streams.plugin_stream_id", lambda name: 42)
    registered(_Plain, "first")
    with pytest.raises(RegistrationError, match="'second' would share the random streams of .*'first'"):
        registered(_Plain, "second")


@pytest.mark.parametrize("name, fragment", [("workspace", "taken by the package"), ("hybrid", "taken by the package"),
                                            ("my-module", "a Python identifier"), ("", "a Python identifier")])
def test_names_that_cannot_be_registered(name, fragment):
    with pytest.raises(RegistrationError, match=fragment):
        register_module(name)(_Plain)


def test_a_taken_name_is_refused_unless_it_is_the_same_definition(registered):
    first = registered(_Plain, "taken")
    again = type("_Plain", (_Plain,), {"__module__": __name__, "name": ""})  # a re-run cell: same definition
    assert register_module("taken")(again) is again
    other = type("Other", (_Plain,), {"__module__": __name__, "name": ""})
    with pytest.raises(RegistrationError, match=r"'taken' \(quantum\) is already registered as .*_Plain"):
        register_module("taken")(other)
    assert first.name == "taken"


def test_not_a_module_is_refused():
    with pytest.raises(RegistrationError, match="not a subclass of cognition.modules.CognitiveModule"):
        register_module("thing")(dict)


def test_an_unknown_module_names_what_is_registered(registered):
    registered(_Plain, "mine")
    with pytest.raises(ConfigError) as info:
        load_config(overrides={"modules": {"enabled": ["expectation", "telepathy"]}})
    assert info.value.field == "modules.enabled"
    assert "expected a registered module: expectation, unconscious, hybrid, mine" in str(info.value)
    assert "register_module" in str(info.value)


def test_a_plugin_for_one_mode_only_is_refused_in_the_other(registered):
    registered(_Plain, "classical_only", variant="classical")
    cfg = load_config(overrides={"modules": {"enabled": ["expectation", "classical_only"]}})
    with pytest.raises(ConfigError, match="a module with a quantum variant: 'classical_only' is registered for "
                                          "classical only"):
        plugins.lookup("classical_only", "quantum")
    assert cfg.modules.enabled == ("expectation", "classical_only")


def test_plugin_settings_are_validated_against_its_settings_class(registered):
    from dataclasses import dataclass

    from cognition.config.schema import num

    @dataclass(frozen=True)
    class Gain:
        gain: float = num(1.0, gt=0.0)

    cls = registered(type("WithSettings", (_Plain,), {"settings_class": Gain}), "gained")
    cfg = load_config(overrides={"modules": {"enabled": ["gained"], "settings": {"gained": {"gain": 2.5}}}})
    assert plugins.settings_of(cfg, "gained") == Gain(2.5)
    assert cls.name == "gained"
    with pytest.raises(ConfigError) as info:
        load_config(overrides={"modules": {"enabled": ["gained"], "settings": {"gained": {"gain": -1}}}})
    assert info.value.field == "modules.settings.gained.gain"
    registered(_Plain, "plain")
    with pytest.raises(ConfigError, match="module 'plain' declares no settings_class"):
        load_config(overrides={"modules": {"enabled": ["plain"], "settings": {"plain": {"x": 1}}}})
    with pytest.raises(ConfigError, match="built-in modules take their settings from modules.hybrid"):
        load_config(overrides={"modules": {"settings": {"hybrid": {"gamma": 1.0}}}})


def test_a_plugin_builds_and_steps_in_the_loop(registered):
    from looptools import run_loop

    from cognition.simulator.build import assemble

    registered(_Plain, "plainmod")
    cfg = load_config(overrides={"quantum": {"mode": "disabled"}, "run": {"agents": 3},
                                 "modules": {"enabled": ["expectation", "plainmod"]}})
    loop = assemble(cfg).loop
    assert loop.unit_names[2] == "plainmod.salience"
    _, _, units = run_loop(loop, 4)
    units = units[loop.intact]  # the agents' rows (their donors and yoked twins follow)
    b = torch.tensor(units)  # its unit is mean |b_{t-1}|, which the workspace units bound from below
    assert units.shape == (3, 4, 5) and bool(torch.all(b[:, :, 2] >= 0))


class _SelfBuilt(_Plain):
    """A plug-in that builds itself (CognitiveModule.build), as the hybrid module does for its model."""

    built_with = None

    @classmethod
    def build(cls, settings, ctx):
        module = super().build(settings, ctx)
        module.built_with = ctx
        return module


def test_every_module_is_built_by_its_class_build(registered):
    """issue 32: one build path for built-ins and plug-ins: build_modules calls each class's build(settings,
    ctx); the hybrid module's override gives it the Markov model when quantum is disabled."""
    from cognition.simulator.build import assemble

    registered(_SelfBuilt, "selfbuilt")
    cfg = load_config(overrides={"quantum": {"mode": "disabled"}, "run": {"agents": 2},
                                 "modules": {"enabled": ["expectation", "unconscious", "hybrid", "selfbuilt"]}})
    modules = assemble(cfg).loop.modules
    ctx = modules["selfbuilt"].built_with
    assert (ctx.content_dim, ctx.seed, ctx.variant, ctx.width) == (cfg.run.content_dim, cfg.run.seed,
                                                                    "classical", None)
    assert modules["hybrid"].model == "markov"


@dataclass(frozen=True)
class WideSettings:
    qubits: int = num(6, ge=1)


class _Wide(CognitiveModule):
    """A plug-in that runs circuits: <Z_q> of an entangling circuit driven by the broadcast, on the run's
    shared backend, at the width it is given (its declared width after the qubit cap)."""
    settings_class = WideSettings
    unit_signals = ("salience",)

    @classmethod
    def circuit_width(cls, settings, content_dim):
        return settings.qubits

    @classmethod
    def state_shapes(cls, settings, content_dim, width=None):
        return {"z": (width,)}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from quantum import entangling_sampler

        self.circuit = entangling_sampler(self.width, self.D, 2)

    def init_state(self, agents, streams):
        return {"z": torch.zeros(len(agents), self.width, dtype=self.dtype, device=self.device)}

    def propose(self, state, inputs, streams, weights):
        b = inputs["broadcast"]
        z = self.backend.expectations_z(self.circuit, torch.tanh(b).detach().cpu().double().numpy())
        z = torch.as_tensor(z, dtype=self.dtype, device=self.device)
        return Proposal(torch.tanh(b), z.abs().mean(dim=1)), {"z": z}

    def units(self, proposal, b_prev):
        return proposal.salience[:, None]


def _wide(qubits: int, **quantum) -> dict:
    return {"quantum": {"mode": "lite", **quantum}, "run": {"agents": 2, "content_dim": 4},
            "runtime": {"device": "cpu"},
            "modules": {"enabled": ["expectation", "unconscious", "hybrid", "wide"],
                        "expectation": {"qubits": 4}, "unconscious": {"qubits": 4},
                        "settings": {"wide": {"qubits": qubits}}}}


def test_a_plugin_that_runs_circuits_is_held_to_the_qubit_cap(registered):
    from looptools import run_loop

    from cognition.simulator.build import assemble

    registered(_Wide, "wide")
    for quantum, cap in (({"lite_max_qubits": 4}, 4), ({"mode": "full", "max_qubits": 5}, 5)):
        with pytest.raises(ConfigError) as info:  # as a built-in's modules.NAME.qubits is, before the run's claim
            assemble(load_config(overrides=_wide(6, **quantum)))
        assert info.value.field == "modules.settings.wide" and info.value.value == 6
        assert f"circuit width (_Wide.circuit_width) of at most the qubit cap {cap}" in str(info.value)
    assert assemble(load_config(overrides=_wide(4, lite_max_qubits=4))).widths["wide"] == 4
    with pytest.raises(ConfigError, match="quantum.mode is disabled: _Wide declares a circuit_width"):
        assemble(load_config(overrides=dict(_wide(4), quantum={"mode": "disabled"})))

    # on_cap_exceeded: reduce lowers it to the cap, with a note, and builds it on the shared backend at that width
    assembly = assemble(load_config(overrides=_wide(6, lite_max_qubits=4, on_cap_exceeded="reduce")))
    wide = assembly.loop.modules["wide"]
    assert assembly.widths == {"expectation": 4, "unconscious": 4, "wide": 4}
    assert wide.width == 4 and wide.circuit.n_qubits == 4 and wide.backend is assembly.backend
    assert "wide: width reduced from 6 to 4 qubits by the qubit cap (policy='reduce')" in assembly.notes
    state, _, units = run_loop(assembly.loop, 3)
    assert state.modules["wide"]["z"].shape == (len(assembly.loop.agents), 4) and np.isfinite(units).all()


def test_a_plugin_that_runs_circuits_is_planned_with_the_state_it_declares(registered):
    from cognition.runtime.planner import check_fits, classical_bytes_per_agent, plan_run, widest_circuit

    registered(_Wide, "wide")
    base = _wide(4)
    base["modules"]["enabled"] = ["expectation", "unconscious", "hybrid"]
    without, wide = load_config(overrides=base), load_config(overrides=_wide(10))
    assert (widest_circuit(without), widest_circuit(wide)) == (4, 10)
    # its statevectors: 2^10 amplitudes x 16 B (complex128) x 3 copies, for every row (2 agents x 4) in one launch
    p = plan_run(wide, 2**30, working_copies=3)
    assert p.quantum_bytes == 8 * 2**10 * 16 * 3
    # its declared state z (10,), doubled (old and new), 8 B a value: the built-ins' state is unchanged
    assert classical_bytes_per_agent(wide) - classical_bytes_per_agent(without) == 2 * 10 * 8
    assert p.classical_bytes - plan_run(without, 2**30).classical_bytes == 8 * 2 * 10 * 8
    reduced = load_config(overrides=_wide(10, lite_max_qubits=6, on_cap_exceeded="reduce"))
    assert widest_circuit(reduced) == 6  # planned at its width after the cap
    assert classical_bytes_per_agent(reduced) - classical_bytes_per_agent(without) == 2 * 6 * 8
    budget = 2 * (p.total_bytes - 1)  # half the budget is headroom: one byte short of the plan
    with pytest.raises(ConfigError, match="run.agents = 2 .*lower the qubit widths"):
        check_fits(wide, budget, working_copies=3)
    check_fits(without, budget, working_copies=3)


# -- end to end, in fresh interpreters ---------------------------------------------------------------
SCRIPT = textwrap.dedent('''
    import sys
    import oscillator  # defines and registers the module (outside the package)
    import cognition.api as hc

    mode, out = sys.argv[1], sys.argv[2]
    if mode == "resume":
        sim = hc.Simulator.resume(out, progress=False)
    else:
        cfg = hc.configure(quantum={"mode": "disabled"}, run={"cycles": 30, "agents": 4, "seed": 3},
                           modules={"enabled": %r, "settings": {"oscillator": {"noise": 0.2}}},
                           phi={"bootstrap": 20, "surrogates": 20})
        sim = hc.Simulator(cfg, out=out, progress=False, faults="sigkill@17" if mode == "kill" else None)
    with sim:
        results = sim.run()
    print(results.status, results.report["phi"]["headline_bits"], results.probe("oscillator.phase_cos").shape)
''' % ENABLED)


def _env(*paths) -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *map(str, paths)]))


def _python(args, cwd, *paths, timeout=300):
    return subprocess.run([sys.executable, *map(str, args)], cwd=cwd, env=_env(*paths), capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.integration
def test_own_module_runs_with_phi_is_killed_and_resumes_bit_identically(tmp_path):
    shutil.copy(OSCILLATOR, tmp_path / "oscillator.py")
    (tmp_path / "script.py").write_text(SCRIPT)
    ref = _python(["script.py", "ref", tmp_path / "ref"], tmp_path, tmp_path)
    assert ref.returncode == 0, ref.stderr
    assert ref.stdout.split()[0] == "completed" and ref.stdout.strip().endswith("(4, 30)")
    killed = _python(["script.py", "kill", tmp_path / "run"], tmp_path, tmp_path)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert len((tmp_path / "run" / "metrics.jsonl").read_text().splitlines()) == 16
    resumed = _python(["script.py", "resume", tmp_path / "run"], tmp_path, tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert science(tmp_path / "run") == science(tmp_path / "ref")
    report = (tmp_path / "run" / "report.md").read_text()
    assert "oscillator" in report and "resumed from the checkpoint of cycle" in report
    assert resumed.stdout.split()[1] != "None"  # the whole-run Phi was estimated


def _install_entry_point(site: Path, unit_signals: str = '("phase_cos", "salience")') -> None:
    """A package 'oscplug' whose entry point cognition.modules:oscillator is the oscillator, made importable
    (and visible to importlib.metadata) through PYTHONPATH, as pip would install it."""
    pkg = site / "oscplug"
    pkg.mkdir(parents=True, exist_ok=True)
    source = OSCILLATOR.read_text().replace('@register_module("oscillator")\n', "")
    (pkg / "__init__.py").write_text(source.replace('unit_signals = ("phase_cos", "salience")',
                                                    f"unit_signals = {unit_signals}"))
    info = site / "oscplug-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: oscplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[cognition.modules]\noscillator = oscplug:Oscillator\n")


def _cli(args, cwd, *paths):
    return _python(["-m", "cognition.validate", *args], cwd, *paths)


@pytest.mark.integration
def test_entry_point_module_runs_from_the_cli_and_the_module_set_guards_the_checkpoint(tmp_path):
    site = tmp_path / "site"
    _install_entry_point(site)
    config = tmp_path / "osc.yaml"
    config.write_text(f"modules: {{enabled: {ENABLED}}}\nphi: {{bootstrap: 10, surrogates: 10}}\n")
    out = tmp_path / "run"
    args = ["--disable-quantum", "--cycles", "12", "--agents", "4", "--config", config, "--out", out]
    res = _cli([*args, "--inject-fault", "sigkill@9"], tmp_path, site)
    assert res.returncode == -signal.SIGKILL, res.stderr
    assert len((out / "metrics.jsonl").read_text().splitlines()) == 8
    # without the package, the run's config names a module nobody registered
    res = _cli(["--resume", out], tmp_path)
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert "modules.enabled = 'oscillator' is not allowed: expected a registered module: expectation, " \
           "unconscious, hybrid (register" in res.stderr
    # the package changed its units: the checkpoint's module set no longer matches
    _install_entry_point(site, '("phase_cos", "salience", "theta_sin")')
    res = _cli(["--resume", out], tmp_path, site)
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert "checkpoint was written with 9 units" in res.stderr and "this run has 10" in res.stderr
    _install_entry_point(site)
    res = _cli(["--resume", out], tmp_path, site)
    assert res.returncode in (0, 1), res.stderr  # 1: a criterion may fail at 12 cycles
    assert "status: completed, 12 cycles" in res.stdout
    assert "oscillator.salience" in (out / "report.json").read_text()
