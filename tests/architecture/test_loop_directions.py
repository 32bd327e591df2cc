"""The loop criterion's pieces (cognition/analysis/summary.py): the verdict of the loop test, the windows of the
time-resolved control, and one number per label between the whole run and its windows.

References: the intersection-union rule (Berger 1982: reject only when each component test rejects);
the windows' arithmetic written out by hand; a window that is the whole run must repeat the whole run's
numbers exactly, since it is the same data under the same seed.
"""
import numpy as np
import pytest

from cognition.analysis import summary as analysis
from cognition.benchmarks.directions import MODULE_UNITS, toy_population
from cognition.config.settings import load_config


class _Direction:
    def __init__(self, lo):
        self.shown = lo > 0


class _Test:
    """A stand-in LoopTest whose directions are shown or not (the verdict reads only that)."""

    def __init__(self, ws_to_m, m_to_ws):
        from cognition.phi.directed import LoopTest

        self.directions = {"workspace_to_modules": _Direction(ws_to_m), "modules_to_workspace": _Direction(m_to_ws)}
        self.passed = LoopTest.passed.fget(self)
        self.reason = LoopTest.reason.fget(self)


@pytest.mark.parametrize("ws_to_m, m_to_ws, passed, words", [
    (0.1, 0.2, True, "both directions shown"),
    (0.1, -0.1, False, "the modules' drive of the workspace is not shown"),
    (-0.1, 0.1, False, "the workspace's drive of the modules is not shown"),
    (-0.1, -0.2, False, "neither direction"),
    (0.0, 0.3, False, "the workspace's drive of the modules is not"),  # a lesion's exact 0 is not above 0
])
def test_the_loop_closes_only_when_both_directions_are_shown(ws_to_m, m_to_ws, passed, words):
    v = analysis.loop_verdict(_Test(ws_to_m, m_to_ws))
    assert v["passed"] is passed and words in v["reason"]


def test_windows_end_with_the_last_cycle_and_are_capped():
    assert analysis.control_windows(50, 50) == [(0, 50)]
    assert analysis.control_windows(30, 50) == [(0, 30)]  # shorter than a window: the whole run
    assert analysis.control_windows(120, 50) == [(0, 70), (70, 120)]  # the earliest remainder joins the first
    w = analysis.control_windows(500, 50)
    assert len(w) == 10 and w[-1] == (450, 500) and all(b - a == 50 for a, b in w)
    long = analysis.control_windows(20_000, 50)
    assert len(long) == analysis.MAX_WINDOWS and long[-1] == (19_000, 20_000)


def _toy(cycles):
    groups = toy_population("loop", "random", 16, cycles, np.random.default_rng(5))
    names = [f"m{i}.unit" for i in range(MODULE_UNITS)] + ["workspace.a", "workspace.b"]
    return groups, names


def test_a_window_that_is_the_whole_run_repeats_its_numbers_and_longer_runs_resolve_time():
    groups, names = _toy(100)
    cfg = load_config(overrides={"control": {"window": 100}})
    c = analysis.summarise_controls(cfg, groups, 100, names)
    (only,) = c["windows"]["rows"]
    assert only["cycles"] == [1, 100]
    for d, r in c["directions"].items():
        assert only[d]["difference_bits"] == r["difference_bits"] and only[d]["difference_ci_bits"] == r["difference_ci_bits"]
    assert c["windows"]["last_window_loop"] == c["loop"]["passed"]
    split = analysis.summarise_controls(load_config(overrides={"control": {"window": 50}}), groups, 100, names)
    assert [w["cycles"] for w in split["windows"]["rows"]] == [[1, 50], [51, 100]]
    assert split["directions"] == c["directions"]  # the whole-run numbers do not depend on the windows
    last = split["windows"]["rows"][-1]
    assert split["windows"]["last_window_loop"] == last["loop"]


def test_a_window_too_short_for_the_loop_test_says_so_and_the_run_still_reports():
    groups, names = _toy(100)
    c = analysis.summarise_controls(load_config(overrides={"control": {"window": 20}}), groups, 100, names)
    rows = c["windows"]["rows"]
    # 20 cycles < 3 x 12 + 1 = 37: the W -> M covariance of 2 + 5 + 5 variables needs 3 lagged pairs each
    assert len(rows) == 5 and all("needs T >= 37" in r["note"] for r in rows)
    assert c["windows"]["last_window_loop"] is None and c["directions"] is not None


def test_the_toys_twins_are_built_as_the_loops_are():
    # reference: the constructions (cognition/architecture/controls.py). A twin keeps its agent's weights and
    # noise; where the agent reads a source instead of itself (feedforward: its modules read a source's
    # broadcast) the twin that cuts that direction reads a donor: it differs from the agent, not in law
    ws = slice(MODULE_UNITS, None)
    g = toy_population("feedforward", "same", 4, 40, np.random.default_rng(0))
    assert not np.array_equal(g["yoked"], g["intact"]) and not np.array_equal(g["yoked_proposals"], g["intact"])
    relay = toy_population("relay", "random", 4, 40, np.random.default_rng(0))
    # in the relay the agent's workspace and its yoked twin's read the same source's proposals, so their
    # workspaces are equal; the twin's modules read a donor's broadcast, the agent's its own
    np.testing.assert_array_equal(relay["yoked"][:, :, ws], relay["intact"][:, :, ws])
    assert not np.array_equal(relay["yoked_proposals"], relay["intact"])
    looped = toy_population("loop", "random", 4, 40, np.random.default_rng(0))
    for twin in ("yoked", "yoked_proposals", "yoked_2", "yoked_proposals_2"):
        assert not np.array_equal(looped[twin], looped["intact"])
    # without memory and a shared drive of gain 0, a module unit is B b_{t-1} + noise exactly
    free = toy_population("memoryless loop", "same", 3, 40, np.random.default_rng(1), world_gain=0.0)
    assert np.isfinite(free["intact"]).all()


def test_the_directions_bench_refuses_bad_counts_in_one_line(capsys):
    from cognition.bench import main

    with pytest.raises(SystemExit) as exc:
        main(["directions", "--agents", "2"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --agents 2: allowed 3 .. 4096"]
    with pytest.raises(SystemExit):
        main(["directions", "--agents", "4096", "--cycles", "1000"])
    assert "allowed a product up to 500000" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["directions", "--world-gain", "-1"])
    assert capsys.readouterr().err.strip().splitlines() == ["error: --world-gain -1.0: allowed 0 .. 10"]
    with pytest.raises(SystemExit):
        main(["directions", "--cycles", "30"])
    assert capsys.readouterr().err.strip().splitlines() == ["error: --cycles 30: allowed 37 .. 100000"]


@pytest.mark.integration
def test_the_workspace_bench_reports_both_directions_their_null_and_both_lesions():
    from cognition.benchmarks import workspace

    out = workspace.main(["--seeds", "1", "--cycles", "50", "--agents", "8", "--modes", "disabled"])
    (run,) = out["runs"]
    assert set(run["criterion"]) == {"workspace_to_modules", "modules_to_workspace", "loop"}
    assert set(run["null"]) == set(analysis.DIRECTIONS)
    lesions = {r["lesion"]: r for r in out["lesion"]}
    assert set(lesions) == {"broadcast", "proposals"}
    # each lesion cuts one direction in the agents too: those twins are the agents, the difference exactly 0
    for lesion, cut in (("broadcast", "workspace_to_modules"), ("proposals", "modules_to_workspace")):
        row = lesions[lesion]
        assert row["loop"] is False
        assert row[cut]["twins_identical"] and row[cut]["difference_bits"] == 0.0


@pytest.mark.parametrize("argv, line", [
    (["--seeds", "0"], "error: --seeds 0: allowed 1 .. 100000"),
    (["--cycles", "20"], "error: --cycles 20: allowed 43 .. 100000 (a per-agent estimate of 7 units needs 43)"),
    (["--agents", "2"], "error: --agents 2: allowed 3 .. 4096 (a paired difference needs 3 pairs)"),
    (["--agents", "4096", "--cycles", "500"], "error: --agents 4096 x --cycles 500: allowed a product up to 1000000"),
])
def test_the_workspace_bench_refuses_bad_counts_in_one_line(argv, line, capsys):
    from cognition.bench import main

    with pytest.raises(SystemExit) as exc:
        main(["workspace", *argv])
    assert exc.value.code == 2 and capsys.readouterr().err.strip().splitlines() == [line]
