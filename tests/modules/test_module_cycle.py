"""The cycle handed to the modules (issue 44, item 7; docs/modules.md "The cycle").

Before, a module got no cycle index: one that follows a schedule kept its own counter in its state
(tests/plugin_modules/faulty.py still does). Now ``propose``, ``learn`` and ``units`` that name a parameter
``cycle`` are passed it: an int, the cycle being computed, the "cycle" of metrics.jsonl, one number for every
row of every call. The reference for every check is the cycle numbering the run itself writes (metrics.jsonl's
"cycle", the cycle of the LoopState the loop returns, and for an intervention the recording's length), never what the module
was handed; tests/plugin_modules/scheduled.py records what it was handed in its extras.
"""
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from looptools import run_loop
from plugintools import PLUGIN_MODULES, import_file
from runtools import fast_args, run, science

from cognition import validate
from cognition.architecture.perturb import Intervention, record
from cognition.config.settings import load_config
from cognition.errors import ModuleFault
from cognition.modules import plugins
from cognition.simulator.build import assemble, intervention_loop

SCHEDULED = PLUGIN_MODULES / "scheduled.py"
DOC = Path(__file__).resolve().parents[2] / "docs" / "modules.md"
ONSET = 5  # ScheduledSettings.onset's default
BUILTINS = ["expectation", "unconscious", "hybrid"]
CONFIG = (f"modules: {{plugins: ['{SCHEDULED}:Scheduled'], enabled: [{', '.join(BUILTINS)}, scheduled]}}\n")


@pytest.fixture(scope="module")
def scheduled():
    """tests/plugin_modules/scheduled.py imported from its file, unregistered; the runs below register it by path
    as 'scheduled', forgotten after."""
    yield import_file(SCHEDULED, "scheduled_fixture")
    sys.modules.pop("scheduled", None)
    plugins.unregister("scheduled")


@pytest.fixture
def registered():
    """register(cls, name): a module registered for this test only."""
    names = []

    def register(cls, name):
        plugins.unregister(name)
        names.append(name)
        return plugins.register(cls, name)

    yield register
    for name in names:
        plugins.unregister(name)


def _loop(name, settings=None):
    cfg = load_config(overrides={"quantum": {"mode": "disabled"}, "run": {"agents": 3, "seed": 4},
                                 "modules": {"enabled": [*BUILTINS, name], "settings": settings or {}}})
    return assemble(cfg).loop


def _observed(scheduled):
    """The scheduled module with every per-cycle method taking ``cycle`` and logging (method, cycle, rows)."""

    class Observed(scheduled.Scheduled):
        calls = []

        def propose(self, state, inputs, streams, weights, *, cycle):
            self.calls.append(("propose", cycle, len(state["x"])))
            return super().propose(state, inputs, streams, weights, cycle=cycle)

        def learn(self, state, broadcast, *, cycle):
            self.calls.append(("learn", cycle, len(state["x"])))
            return super().learn(state, broadcast, cycle=cycle)

        def units(self, proposal, b_prev, *, cycle):
            self.calls.append(("units", cycle, len(b_prev)))
            return super().units(proposal, b_prev)

    return Observed


def _handed(calls) -> dict:
    """(method, cycle) -> the rows of each call that was handed that cycle."""
    out = {}
    for method, cycle, rows in calls:
        assert type(cycle) is int, type(cycle)  # a Python int, not a tensor or a numpy integer
        out.setdefault((method, cycle), []).append(rows)
    return out


# -- in memory: the loop -----------------------------------------------------------------------------------
def test_every_row_and_every_launch_gets_the_cycle_the_loop_records(scheduled, registered):
    # Reference: the cycle of the state the loop returns (LoopState.cycle, which IntegrationLoop.step records and
    # the runner writes as metrics.jsonl's "cycle")
    Observed = registered(_observed(scheduled), "observed")
    loop = _loop("observed")
    assert loop.cycle_methods["observed"] == {"propose", "learn", "units"}
    assert all(not loop.cycle_methods[n] for n in BUILTINS)  # the built-ins name no cycle: called as before
    rows = len(loop.agents)
    assert rows == 12 and set(loop.population.groups) > {"intact", "donor"}  # 3 agents, donors and twins
    Observed.calls.clear()
    state, recorded = loop.initial_state(), []
    for batch in (5, 5, 5, None, None, None):  # three launches of 5, 5 and 2 rows, then one of 12
        state, per_row, _ = loop.advance(state, batch)
        recorded.append(state.cycle)
        assert per_row["observed.cycle"].tolist() == [float(state.cycle)] * rows  # what propose was handed
    assert recorded == [1, 2, 3, 4, 5, 6]
    handed = _handed(Observed.calls)
    assert {c for _, c in handed} == set(recorded)
    for cycle in recorded:
        for method in ("propose", "learn", "units"):
            assert handed[(method, cycle)] == ([5, 5, 2] if cycle <= 3 else [12]), (method, cycle)


def test_a_module_without_cycle_runs_as_before_bit_for_bit(scheduled, registered):
    # Reference: the same module written to the old protocol (no method names cycle, so none is passed: learn's
    # **options stays empty) under the same name, so the same streams; it hands its parent a schedule that is
    # always on, as onset 1 is. Every unit of every module is bit-identical: passing cycle changes no number.
    class Old(scheduled.Scheduled):
        def propose(self, state, inputs, streams, weights):
            return super().propose(state, inputs, streams, weights, cycle=10**6)

        def learn(self, state, broadcast, **options):
            assert not options
            return dict(state)

    class New(scheduled.Scheduled):  # as it is (registering sets the class's name)
        pass

    units = {}
    for cls, settings in ((New, {"onset": 1}), (Old, {})):
        registered(cls, "sched")
        loop = _loop("sched", {"sched": settings})
        assert loop.cycle_methods["sched"] == ({"propose", "learn"} if cls is New else set())
        units[cls] = run_loop(loop, 6, batch=5)[2]
    assert units[Old].tobytes() == units[New].tobytes()


def test_an_intervention_hands_every_row_the_cycle_after_the_recording(scheduled, registered):
    # Reference: the recording's length: rows assembled from states of different recorded cycles (and, under the
    # proposals lesion, their donors' rows from others) are advanced as cycle burn + cycles + 1, the cycle
    # their noise streams and the workspace are given
    Observed = registered(_observed(scheduled), "observed")
    cfg = load_config(overrides={"quantum": {"mode": "disabled"}, "run": {"agents": 3, "seed": 4},
                                 "control": {"lesion": "proposals"}, "modules": {"enabled": [*BUILTINS, "observed"]}})
    loop = intervention_loop(cfg)
    Observed.calls.clear()
    rec = record(loop, 6, 2)
    assert sorted({c for _, c, _ in Observed.calls}) == list(range(1, 9))
    Observed.calls.clear()
    rng = np.random.default_rng(0)
    agents = np.repeat(np.arange(3), 5)
    picks = {o: rng.integers(0, rec.cycles, len(agents)) for o in set(rec.owners)}
    Intervention(loop, rec, rows_per_launch=8).advance(agents, picks, donor_cycles=rng.integers(0, 6, len(agents)))
    handed = _handed(Observed.calls)
    assert set(handed) == {(m, 9) for m in ("propose", "learn", "units")}
    assert handed[("propose", 9)] == [8, 8, 8, 6]  # 4 launches of an agent's rows beside their donors'


# -- the guard ---------------------------------------------------------------------------------------------
def test_a_cycle_the_loop_cannot_pass_is_a_fault_before_cycle_1(scheduled, registered):
    class PositionalOnly(scheduled.Scheduled):
        def propose(self, state, inputs, streams, weights, cycle, /):
            return super().propose(state, inputs, streams, weights, cycle=cycle)

    class InAnArgumentsPlace(scheduled.Scheduled):
        def learn(self, state, cycle, broadcast):
            return super().learn(state, broadcast, cycle=cycle)

    for cls, method, problem in ((PositionalOnly, "propose", "'cycle' parameter is positional only"),
                                 (InAnArgumentsPlace, "learn", "multiple values for argument 'cycle'")):
        registered(cls, "wrong")
        with pytest.raises(ModuleFault) as info:
            _loop("wrong")
        fault = info.value
        assert (fault.module, fault.method, fault.cycle) == ("wrong", method, None)
        assert problem in fault.problem and "\n" not in str(fault)
        assert str(fault).startswith(f"module 'wrong' method '{method}' before cycle 1: names cycle in (")
        assert fault.expected.startswith(f"a keyword-only parameter: def {method}(self, ")


def test_a_module_that_fails_with_the_cycle_is_named_at_that_cycle(scheduled, registered):
    class FailsAt3(scheduled.Scheduled):
        def units(self, proposal, b_prev, *, cycle):
            if cycle == 3:
                raise RuntimeError("scheduled failure")
            return super().units(proposal, b_prev)

    class OldWrongSignature(scheduled.Scheduled):  # the old protocol, a method short of an argument
        def propose(self, state, inputs, streams):
            raise AssertionError("never called")

    registered(FailsAt3, "fails")
    with pytest.raises(ModuleFault) as info:
        run_loop(_loop("fails"), 5)
    assert str(info.value) == "module 'fails' method 'units' at cycle 3: raised RuntimeError: scheduled failure"
    registered(OldWrongSignature, "short")
    with pytest.raises(ModuleFault) as info:
        run_loop(_loop("short"), 5)
    assert (info.value.method, info.value.cycle) == ("propose", 1)
    assert "raised TypeError" in info.value.problem and "\n" not in str(info.value)


# -- the main job: metrics.jsonl, a resume, launches split by an out-of-memory retry -----------------------
def _metrics(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


def _check_schedule(run_dir: Path, cycles: int) -> None:
    """The module's schedule and what its methods were handed, against metrics.jsonl's own "cycle"."""
    metrics = _metrics(run_dir)
    assert [m["cycle"] for m in metrics] == list(range(1, cycles + 1))
    for m in metrics:
        assert m["extras"]["scheduled.cycle"] == m["cycle"]  # the mean over the agents of what propose was handed
        assert m["extras"]["scheduled.learned"] == m["cycle"] - 1  # what learn was handed the cycle before
        assert (m["salience"]["scheduled"] > 0) == (m["cycle"] >= ONSET), m


@pytest.fixture(scope="module")
def reference(scheduled, tmp_path_factory):
    """An uninterrupted run of the built-ins and the scheduled module, named by path."""
    base = tmp_path_factory.mktemp("ref")
    assert validate.main([str(a) for a in fast_args(base, cycles=12, extra=CONFIG) + ["--out", base / "run"]]) \
        in (0, 1)
    return base / "run"


def test_the_schedule_follows_the_cycles_of_metrics_jsonl(reference):
    _check_schedule(reference, 12)


def test_a_resumed_run_is_handed_the_cycles_it_records(reference, tmp_path, capsys):
    # stopped by a full disk while writing cycle 7: the resume starts from the checkpoint of cycle 6
    out = tmp_path / "run"
    rc, _, err = run(fast_args(tmp_path, cycles=12, extra=CONFIG) + ["--out", out, "--inject-fault", "enospc@7"],
                     capsys)
    assert rc == 1 and "last good checkpoint: cycle 6" in err[0], err
    rc, _, err = run(["--resume", out], capsys)
    assert rc in (0, 1), err
    _check_schedule(out, 12)
    assert science(out) == science(reference)


def test_launches_split_by_an_out_of_memory_retry_are_handed_the_cycle(reference, tmp_path, capsys):
    # 4 agents' 16 rows in launches of 6 rows, halved to 3 by the retry of cycle 3: the agents' rows (0-3, whose
    # mean metrics.jsonl records) fall in two launches
    out = tmp_path / "run"
    argv = fast_args(tmp_path, cycles=12, extra=CONFIG + "runtime: {batch: 6}\n")
    rc, _, err = run(argv + ["--out", out, "--inject-fault", "oom@3"], capsys)
    assert rc in (0, 1), err
    assert [m["batch"] for m in _metrics(out)] == [6, 6] + [3] * 10
    _check_schedule(out, 12)
    assert (out / "unit_history.npy").read_bytes() == (reference / "unit_history.npy").read_bytes()


def test_the_pages_example_is_the_scheduled_module():
    block = re.search(r"\n### The cycle\n.*?```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    assert "*, cycle)" in block and block in SCHEDULED.read_text()
