"""A module's fault stops the run at the cycle it happens, naming the module, the method and the output
(issues 33 and 34; cognition/modules/guard.py, docs/modules.md "When a module fails").

Before: a plug-in's NaN salience passed silently (status completed, headline null, "Phi estimated and
finite" passed on the mean of the finite cycles); NaN content was blamed on the hybrid module
(``choice_probabilities: belief_a``); a wrong shape stopped with "stack expects each tensor to be equal
size", the module not named. The faults come from tests/plugin_modules/faulty.py, switched on by the
environment variable FAULTY_MODULE = METHOD:KIND:CYCLE[:OUTPUT] and off again to "fix" the module.
"""
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from looptools import run_loop
from plugintools import PLUGIN_MODULES, import_file
from runtools import fast_args, run, science

from cognition.simulator.build import assemble
from cognition.config.settings import load_config
from cognition.errors import ModuleFault, RunFailure
from cognition.modules import unregister
from cognition.modules.guard import ProtocolGuard
from cognition.simulator.progress import is_progress_line

ROOT = Path(__file__).resolve().parents[2]
FAULTY = PLUGIN_MODULES / "faulty.py"
ENABLED = ["expectation", "unconscious", "hybrid", "faulty"]
MODULES = f"modules: {{enabled: [{', '.join(ENABLED)}]}}\n"


@pytest.fixture(scope="module")
def faulty():
    """tests/plugin_modules/faulty.py imported from its file (its decorator registers 'faulty'), forgotten after."""
    yield import_file(FAULTY, "faulty")
    unregister("faulty")


@pytest.fixture(scope="module")
def loop(faulty):
    cfg = load_config(overrides={"quantum": {"mode": "disabled"}, "run": {"agents": 3, "seed": 2},
                                 "modules": {"enabled": ENABLED}})
    return assemble(cfg).loop


# (method, kind, output the fault names, cycle it happens at (None: before cycle 1))
BUILD = [("init_weights", kind, "weights.gain", None) for kind in ("raise", "nan", "inf", "shape", "int")] + \
        [("init_state", kind, "state.level", None) for kind in ("raise", "nan", "inf", "shape", "dtype", "device")]
CYCLE = [("propose", kind, "salience", 3) for kind in ("raise", "nan", "inf", "shape", "dtype", "int", "device")] + \
        [("propose", "nan:content", "content", 4), ("propose", "shape:content", "content", 4),
         ("propose", "inf:extras", "extras.level_mean", 2), ("propose", "keys", "state", 5)] + \
        [("learn", kind, "state.level", 4) for kind in ("raise", "nan", "inf", "shape", "dtype", "device")] + \
        [("learn", "keys", "state", 4)] + \
        [("units", kind, "units", 2) for kind in ("raise", "nan", "inf", "shape", "dtype", "device")]
PROBLEM = {"raise": "raised RuntimeError: faulty: the fault switched on by FAULTY_MODULE",
           "nan": "contains NaN in 1 of", "inf": "contains inf in 1 of", "shape": "has shape",
           "dtype": "has dtype float32", "int": "has dtype int64", "device": "is on meta", "keys": "has the keys"}


def _fault_of(monkeypatch, method, kind, cycle, build) -> ModuleFault:
    kind, _, output = kind.partition(":")
    monkeypatch.setenv("FAULTY_MODULE", f"{method}:{kind}:{cycle or 0}" + (f":{output}" if output else ""))
    with pytest.raises(ModuleFault) as info:
        build()
    return info.value


@pytest.mark.parametrize("method, kind, output, cycle", CYCLE)
def test_a_fault_in_a_cycle_is_named_at_that_cycle(loop, monkeypatch, method, kind, output, cycle):
    fault = _fault_of(monkeypatch, method, kind, cycle, lambda: run_loop(loop, cycle + 3))
    assert (fault.module, fault.method, fault.cycle) == ("faulty", method, cycle)
    line = str(fault)
    assert "\n" not in line and PROBLEM[kind.partition(":")[0]] in line, line
    if kind != "raise":
        assert fault.output == output and f"module 'faulty' method '{method}' output '{output}' at cycle {cycle}: " \
               in line and "(expected " in line, line
    monkeypatch.delenv("FAULTY_MODULE")
    run_loop(loop, cycle + 3)  # fixed: the same loop runs on


@pytest.mark.parametrize("method, kind, output, cycle", BUILD)
def test_a_fault_in_the_weights_or_initial_state_is_named_before_cycle_1(faulty, loop, monkeypatch, method, kind,
                                                                        output, cycle):
    build = (lambda: assemble(loop.cfg)) if method == "init_weights" else loop.initial_state
    fault = _fault_of(monkeypatch, method, kind, cycle, build)
    assert (fault.module, fault.method, fault.cycle) == ("faulty", method, None)
    assert PROBLEM[kind] in str(fault) and "before cycle 1" in str(fault)
    assert kind == "raise" or fault.output == output


def test_expected_values_are_spelled_out(loop, monkeypatch):
    rows, dtype = len(loop.agents), str(loop.dtype).removeprefix("torch.")  # the agents and their controls' rows
    fault = _fault_of(monkeypatch, "propose", "nan", 2, lambda: run_loop(loop, 3))
    assert str(fault).endswith(f": contains NaN in 1 of {rows} values (expected finite values of shape (rows,), "
                               f"{dtype} on cpu)")
    fault = _fault_of(monkeypatch, "propose", "shape:content", 2, lambda: run_loop(loop, 3))
    assert f"has shape ({rows - 1}, 8), not ({rows}, 8) (expected finite values of shape (rows, 8), {dtype} on " \
           "cpu)" in str(fault)


def test_a_builtin_modules_nan_is_named_as_its_own_not_as_the_hybrid_modules(loop, monkeypatch):
    # the hybrid module reads the expectation's proposal in the same cycle: NaN content there made the
    # decision model raise "choice_probabilities: belief_a", which named the wrong module
    cls = type(loop.modules["expectation"])
    real, calls = cls.propose, []

    def propose(self, state, inputs, streams, weights):
        proposal, new_state = real(self, state, inputs, streams, weights)
        calls.append(1)
        if len(calls) == 3:
            proposal.content = proposal.content.clone()
            proposal.content[0, 0] = float("nan")
        return proposal, new_state

    monkeypatch.setattr(cls, "propose", propose)
    with pytest.raises(ModuleFault) as info:
        run_loop(loop, 4)
    assert (info.value.module, info.value.method, info.value.output, info.value.cycle) == \
           ("expectation", "propose", "content", 3)


def test_out_of_memory_in_a_module_goes_on_to_the_retries_and_an_overflowing_sum_is_not_a_fault():
    guard = ProtocolGuard(torch.float32, "cpu", 1)

    def oom():
        raise RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate 4 PB")

    with pytest.raises(RuntimeError, match="DefaultCPUAllocator"):  # as it was raised: the runner retries it
        guard.call("m", "propose", oom)
    big = torch.full((4,), 3e38, dtype=torch.float32)  # finite, but its sum overflows to inf
    guard.tensor("m", "propose", "salience", big, torch.Size((4,)), (torch.float32,))
    guard.settle()


def test_the_fault_is_a_run_failure_and_crosses_a_process_pool():
    fault = ModuleFault("faulty", "propose", "contains NaN in 1 of 4 values", "salience", "finite values", 7)
    again = pickle.loads(pickle.dumps(fault))  # experiment ablations runs its runs in a process pool
    assert isinstance(fault, RunFailure) and str(again) == str(fault) and again.cycle == 7


# -- the main job, in this process ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def reference(faulty, tmp_path_factory):
    """An uninterrupted run with the healthy module."""
    from cognition.validate import main

    base = tmp_path_factory.mktemp("ref")
    assert main([str(a) for a in fast_args(base, extra=MODULES) + ["--out", base / "run"]]) in (0, 1)
    return science(base / "run")


@pytest.mark.parametrize("spec, named", [
    ("propose:nan:8", "module 'faulty' method 'propose' output 'salience' at cycle 8: contains NaN"),
    ("learn:raise:8", "module 'faulty' method 'learn' at cycle 8: raised RuntimeError"),
    ("units:shape:8", "module 'faulty' method 'units' output 'units' at cycle 8: has shape"),
    # issue 43: a module's own exit is its fault, not the run's exit (exit 1, a checkpoint, a resume)
    ("propose:exit:5", "module 'faulty' method 'propose' at cycle 5: called sys.exit(0)"),
    ("learn:interrupt:5", "module 'faulty' method 'learn' at cycle 5: raised KeyboardInterrupt itself"),
])
def test_the_run_stops_at_the_faulty_cycle_and_resumes_bit_identically_once_fixed(
        faulty, reference, tmp_path, capsys, monkeypatch, spec, named):
    out = tmp_path / "run"
    monkeypatch.setenv("FAULTY_MODULE", spec)
    rc, _, err = run(fast_args(tmp_path, extra=MODULES) + ["--out", out], capsys)
    assert rc == 1 and len(err) == 1 and "Traceback" not in err[0], err
    line, cycle = err[0], int(spec.split(":")[2])
    assert line.startswith(f"error: run stopped in cycle {cycle}: ModuleFault: " + named), line
    # checkpoints fall every 2 cycles; the state before the faulty cycle is checkpointed too
    assert f"last good checkpoint: cycle {cycle - 1}" in line and str(out) in line, line
    assert len((out / "metrics.jsonl").read_text().splitlines()) == cycle - 1
    assert not (out / "report.json").exists()  # no criteria, no status "completed" for a faulty run
    monkeypatch.delenv("FAULTY_MODULE")  # the module fixed
    rc, _, err = run(["--resume", out], capsys)
    assert rc in (0, 1), err
    assert science(out) == reference
    recovery = json.loads((out / "report.json").read_text())["recovery"]
    assert any(e["kind"] == "module_fault" and e["cycle"] == cycle and named in e["detail"] for e in recovery)


def test_a_fault_before_cycle_1_is_one_line_exit_1_and_writes_nothing(faulty, tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    for spec in ("init_weights:nan:0", "init_state:raise:0"):
        monkeypatch.setenv("FAULTY_MODULE", spec)
        rc, _, err = run(fast_args(tmp_path, extra=MODULES) + ["--out", out], capsys)
        method = spec.split(":")[0]
        assert rc == 1 and len(err) == 1 and err[0].startswith(f"error: module 'faulty' method '{method}'"), err
        assert "before cycle 1" in err[0] and not out.exists()


# -- end to end, in fresh interpreters ------------------------------------------------------------------
SCRIPT = """
import sys
import faulty  # defines and registers the module (outside the package)
from cognition.validate import main

sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.integration
def test_faults_in_a_fresh_interpreter_stop_in_one_line_and_resume_bit_identically_after_the_fix(tmp_path):
    shutil.copy(FAULTY, tmp_path / "faulty.py")
    (tmp_path / "main.py").write_text(SCRIPT)
    args = [*fast_args(tmp_path, cycles=12, extra=MODULES)]

    def job(*extra, fault=None):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path)]))
        env.pop("FAULTY_MODULE", None)
        if fault:
            env["FAULTY_MODULE"] = fault
        return subprocess.run([sys.executable, "main.py", *map(str, extra)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)

    ref = job(*args, "--out", tmp_path / "ref")
    assert ref.returncode in (0, 1) and "status: completed" in ref.stdout, ref.stderr
    for i, spec in enumerate(["propose:inf:5:content", "learn:dtype:6", "units:nan:9", "propose:raise:4",
                              "propose:exit:5"]):
        out = tmp_path / f"run{i}"
        stopped = job(*args, "--out", out, fault=spec)
        cycle = int(spec.split(":")[2])
        lines = [ln for ln in stopped.stderr.splitlines() if ln.strip() and not is_progress_line(ln)]
        assert stopped.returncode == 1 and len(lines) == 1 and "Traceback" not in stopped.stderr, stopped.stderr
        assert lines[-1].startswith(f"error: run stopped in cycle {cycle}: ModuleFault: module 'faulty' method "
                                    f"'{spec.split(':')[0]}'") and f"checkpoint: cycle {cycle - 1}" in lines[-1], lines
        resumed = job("--resume", out)
        assert resumed.returncode in (0, 1) and "status: completed, 12 cycles" in resumed.stdout, resumed.stderr
        assert science(out) == science(tmp_path / "ref")
