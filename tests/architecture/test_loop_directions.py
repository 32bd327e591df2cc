"""The loop criterion's pieces (cognition/analysis/summary.py): the verdict, the windows of the time-resolved
control, and one number per label between the whole run and its windows.

References: the intersection-union rule (Berger 1982: reject only when each component test rejects);
the windows' arithmetic written out by hand; a window that is the whole run must repeat the whole run's
numbers exactly, since it is the same data under the same seed.
"""
import numpy as np
import pytest

from cognition.analysis import summary as analysis
from cognition.benchmarks.directions import MODULE_UNITS, toy_population
from cognition.config.settings import load_config


def _row(lo, hi):
    return {"difference_ci_bits": [lo, hi]}


@pytest.mark.parametrize("ws_to_m, m_to_ws, passed, words", [
    ((0.1, 0.5), (0.2, 0.4), True, "both directions add Phi"),
    ((0.1, 0.5), (-0.1, 0.4), False, "a relay, not a loop"),
    ((-0.1, 0.5), (0.1, 0.4), False, "broadcast's drive of the modules adds no Phi"),
    ((-0.1, 0.5), (-0.2, 0.4), False, "neither direction"),
    ((0.0, 0.0), (0.3, 0.4), False, "broadcast's drive"),  # a lesion's exact 0 is not above 0
])
def test_the_loop_closes_only_when_both_directions_are_shown(ws_to_m, m_to_ws, passed, words):
    v = analysis.loop_verdict({"workspace_to_modules": _row(*ws_to_m), "modules_to_workspace": _row(*m_to_ws)})
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


def test_a_window_too_short_for_a_per_agent_estimate_says_so_and_the_run_still_reports():
    groups, names = _toy(100)
    c = analysis.summarise_controls(load_config(overrides={"control": {"window": 20}}), groups, 100, names)
    rows = c["windows"]["rows"]
    assert len(rows) == 5 and all("note" in r for r in rows)  # 20 cycles < 6 n + lag for 7 units
    assert c["windows"]["last_window_loop"] is None and c["directions"] is not None


def test_the_toys_twins_are_built_as_the_loops_are():
    # reference: the constructions. A twin keeps its agent's weights and noise, so where the cut direction does
    # not exist in the agent (a feedforward workspace ignores its modules) the twin that cuts it is the agent
    g = toy_population("feedforward", "same", 4, 20, np.random.default_rng(0))
    np.testing.assert_array_equal(g["yoked_proposals"], g["intact"])
    assert not np.array_equal(g["yoked"], g["intact"])
    # a yoked twin's workspace is its agent's while its modules read the donor's: in the feedforward toy the
    # workspace is autonomous, so the twin's workspace units equal its agent's and its modules' do not
    ws = slice(MODULE_UNITS, None)
    np.testing.assert_array_equal(g["yoked"][:, :, ws], g["intact"][:, :, ws])
    looped = toy_population("loop", "random", 4, 20, np.random.default_rng(0))
    assert not np.array_equal(looped["yoked_proposals"], looped["intact"])
    relay = toy_population("relay", "random", 4, 20, np.random.default_rng(0))
    # in the relay toy the agent's workspace reads a source that is not the twins' donor
    assert not np.array_equal(relay["yoked_proposals"], relay["intact"])
    np.testing.assert_array_equal(relay["yoked"][:, :, ws], relay["intact"][:, :, ws])


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
        main(["directions", "--module-coupling", "-1"])
    assert capsys.readouterr().err.strip().splitlines() == ["error: --module-coupling -1.0: allowed 0 .. 1"]


@pytest.mark.integration
def test_the_workspace_bench_reports_both_directions_their_null_and_both_lesions():
    from cognition.benchmarks import workspace

    out = workspace.main(["--seeds", "1", "--cycles", "50", "--agents", "8", "--modes", "disabled"])
    (run,) = out["runs"]
    assert set(run["criterion"]) == {"workspace_to_modules", "modules_to_workspace", "loop", "loop_at_mib"}
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
