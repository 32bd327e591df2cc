"""A sweep's exit code is its points' verdict, as cognition.validate's is one run's (issue 44, item 4), and
``python -m cognition.report SWEEP_DIR`` compares a sweep's finished points, named by what differs (item 3).

The in-process tests read sweep directories whose points' reports are written here (a report says what the
sweep judges: ``status`` and ``passed``), so the verdict is known by construction. The integration tests run
tiny sweeps (5 cycles of 4 agents, no yoked twins, no resampling: a few seconds a point) whose criteria are
met or missed by construction: with every Phi criterion off, a completed run meets the rest (no unrecovered
error, no fallback); a run of 1 cycle has one time step per agent, and Phi at lag 1 needs more, so "Phi
estimated and finite" fails, while 5 cycles of 4 agents give the pooled estimate 20 samples.
"""
import json
import shutil
from pathlib import Path

import pytest
import yaml
from clitools import run_limited

from cognition import report, sweep
from cognition.sweeps.aggregate import read_csv
from cognition.sweeps.root import comparison_groups
from cognition.sweeps.spec import load_sweep
from cognition.errors import SweepError

ROOT = Path(__file__).resolve().parents[2]
MEMORY_LIMIT = 1536 * 2**20  # RLIMIT_AS of the sweep and of each of its runs (torch reserves more than it touches)
TIMEOUT_S = 240

BASE = """
base:
  run: {cycles: 5, agents: 4}
  quantum: {mode: disabled}
  control: {yoked: false}
  phi: {bootstrap: 0, surrogates: 0}
"""
NO_PHI_CRITERIA = "  criteria: {require_phi: false, require_significant: false, require_closed_loop: false}\n"
MET = "name: met\n" + BASE + NO_PHI_CRITERIA + "grid:\n  workspace.threshold: [0.0, 0.5]\nseeds: [0, 1]\n"
MIXED = ("name: mixed\n" + BASE.replace("cycles: 5, ", "")
         + "  criteria: {require_phi: true, require_significant: false, require_closed_loop: false}\n"
         + "grid:\n  run.cycles: [1, 5]\n")


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def stored_sweep(tmp_path: Path, text: str, passed: list[bool | None]) -> tuple[Path, Path]:
    """A sweep directory as a finished sweep leaves it, each point's report written here: ``passed`` per point
    in sweep order, None for a point that never started (no directory)."""
    path = write(tmp_path, text)
    spec = load_sweep(path)
    root = tmp_path / "out"
    root.mkdir()
    for point, verdict in zip(spec.points, passed):
        if verdict is None:
            continue
        (root / point.name).mkdir()
        (root / point.name / "config.yaml").write_text(yaml.safe_dump(point.config.to_dict()))
        (root / point.name / "report.json").write_text(json.dumps(
            {"status": "completed", "passed": verdict, "cycles_completed": 5, "phi": {}}))
    (root / "points.json").write_text(json.dumps([{"index": p.index, "name": p.name, "params": p.params}
                                                   for p in spec.points]))
    return path, root


def last_line(text: str) -> str:
    return [ln for ln in text.splitlines() if ln.strip()][-1]


@pytest.mark.parametrize("passed, rc, verdict", [
    ([True, True, True, True], 0, "criteria met by all 4 points"),
    ([True, False, True, False], 1, "criteria NOT met by 2 of 4 points (the aggregate's passed column)"),
])
def test_a_finished_sweep_exits_with_its_points_verdict_from_their_reports(tmp_path, capsys, passed, rc, verdict):
    path, root = stored_sweep(tmp_path, MET, passed)
    capsys.readouterr()
    assert sweep.main([str(path), "--out", str(root)]) == rc
    assert last_line(capsys.readouterr().err) == (f"sweep met: all 4 points already finished; nothing to run; "
                                                  f"aggregate written; {verdict}")
    assert [r["passed"] for r in read_csv(root / "aggregate.csv")] == ["true" if p else "false" for p in passed]
    # again: nothing to run, nothing written, the same code from the same reports
    assert sweep.main([str(path), "--out", str(root)]) == rc
    assert last_line(capsys.readouterr().err).endswith(f"aggregate unchanged; {verdict}")


def test_points_are_grouped_by_setting_with_seeds_as_replicates(tmp_path):
    _, root = stored_sweep(tmp_path, MET, [True, False, True, True])  # passed or not, each is finished
    groups, left_out = comparison_groups(root)
    assert [[d.name for d in g] for g in groups] == [
        ["run.seed=0__workspace.threshold=0.0", "run.seed=1__workspace.threshold=0.0"],
        ["run.seed=0__workspace.threshold=0.5", "run.seed=1__workspace.threshold=0.5"]]
    assert left_out == []


def test_unfinished_points_are_left_out_and_named(tmp_path):
    _, root = stored_sweep(tmp_path, MET, [True, True, None, True])
    (root / "run.seed=1__workspace.threshold=0.0" / "report.json").unlink()  # claimed, never finished
    groups, left_out = comparison_groups(root)
    # one finished point per setting is left: each point is a condition of its own
    assert [[d.name for d in g] for g in groups] == [["run.seed=0__workspace.threshold=0.0"],
                                                     ["run.seed=1__workspace.threshold=0.5"]]
    assert left_out == ["run.seed=1__workspace.threshold=0.0 (unfinished)",
                        "run.seed=0__workspace.threshold=0.5 (not started)"]


def test_a_sweep_of_seeds_alone_compares_its_seeds(tmp_path):
    _, root = stored_sweep(tmp_path, "name: s\n" + BASE + "seeds: [0, 1, 2]\n", [True, True, True])
    groups, _ = comparison_groups(root)
    assert [[d.name for d in g] for g in groups] == [["run.seed=0"], ["run.seed=1"], ["run.seed=2"]]


def test_fewer_than_two_finished_points_is_one_line_exit_2(tmp_path, capsys):
    _, root = stored_sweep(tmp_path, MET, [True, None, None, None])
    with pytest.raises(SweepError, match="1 of its 4 points finished; a comparison needs at least two"):
        comparison_groups(root)
    assert report.main([str(root), "--out", str(tmp_path / "cmp")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {root}: 1 of its 4 points finished"), err
    assert not (tmp_path / "cmp").exists()


@pytest.mark.parametrize("argv, fragment", [
    (["{sweep}", "{sweep}/run.seed=0__workspace.threshold=0.0"], "is a sweep's directory; give it alone"),
    (["--group", "{sweep}", "A", "--group", "B", "C"], "is a sweep's directory; give it alone"),
    (["{sweep}", "--labels", "a", "b", "c"], "3 name(s) for the 2 settings (each one or more seeds) of sweep"),
])
def test_a_sweep_directory_with_other_arguments_is_one_line_exit_2(tmp_path, capsys, argv, fragment):
    _, root = stored_sweep(tmp_path, MET, [True, True, True, True])
    assert report.main([a.format(sweep=root) for a in argv] + ["--out", str(tmp_path / "cmp")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and fragment in err[0], err
    assert not (tmp_path / "cmp").exists()


# ---- tiny sweeps that run -------------------------------------------------------------------------------------
def sweep_cli(path: Path, root: Path, *flags: str):
    out = run_limited(["-m", "cognition.sweep", str(path), "--out", str(root), *flags], path.parent, MEMORY_LIMIT,
                      TIMEOUT_S, env={"PYTHONPATH": str(ROOT)})
    assert not out.timed_out, out.stderr
    return out


@pytest.fixture(scope="module")
def met_sweep(tmp_path_factory):
    base = tmp_path_factory.mktemp("met")
    path = write(base, MET, "met.yaml")
    return path, base / "out", sweep_cli(path, base / "out", "--workers", "2")


@pytest.mark.integration
def test_a_sweep_whose_points_meet_their_criteria_exits_0_and_again_on_rerun(met_sweep):
    path, root, first = met_sweep
    assert first.rc == 0, first.stderr
    assert "4/4 points done" in last_line(first.stderr) and "0 failed" in last_line(first.stderr)
    assert last_line(first.stderr).endswith("aggregate written; criteria met by all 4 points")
    assert all(json.loads((root / r["point"] / "report.json").read_text())["passed"]
               for r in read_csv(root / "aggregate.csv"))
    again = sweep_cli(path, root)
    assert again.rc == 0, again.stderr
    assert again.stderr.strip() == ("sweep met: all 4 points already finished; nothing to run; aggregate unchanged; "
                                    "criteria met by all 4 points")


@pytest.mark.integration
def test_a_sweep_with_a_point_that_misses_its_criteria_exits_1_and_again_on_rerun(tmp_path):
    path = write(tmp_path, MIXED)
    first = sweep_cli(path, tmp_path / "out", "--workers", "2")
    assert first.rc == 1, first.stderr
    assert "2/2 points done" in first.stderr and "0 failed" in first.stderr
    assert last_line(first.stderr).endswith("criteria NOT met by 1 of 2 points (the aggregate's passed column)")
    reports = {n: json.loads((tmp_path / "out" / n / "report.json").read_text()) for n in ("run.cycles=1",
                                                                                            "run.cycles=5")}
    assert not reports["run.cycles=1"]["passed"] and reports["run.cycles=5"]["passed"]
    phi = next(c for c in reports["run.cycles=1"]["criteria"] if c["name"].startswith("Phi estimated and finite"))
    assert not phi["passed"]  # the criterion that fails by construction, and no other
    assert all(c["passed"] for c in reports["run.cycles=1"]["criteria"] if c is not phi)
    again = sweep_cli(path, tmp_path / "out")
    assert again.rc == 1, again.stderr
    assert again.stderr.strip() == ("sweep mixed: all 2 points already finished; nothing to run; aggregate "
                                    "unchanged; criteria NOT met by 1 of 2 points (the aggregate's passed column)")


@pytest.mark.integration
def test_report_compares_a_sweeps_points_labelled_by_the_swept_value(met_sweep, tmp_path, capsys):
    _, root, first = met_sweep
    assert first.rc == 0, first.stderr
    capsys.readouterr()
    assert report.main([str(root), "--out", str(tmp_path / "cmp")]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    cmp = json.loads((tmp_path / "cmp" / "comparison.json").read_text())
    # two settings of two seeds each: groups named by the swept value, the seeds their replicates
    assert cmp["grouped"] and [g["label"] for g in cmp["groups"]] == ["workspace.threshold=0.0",
                                                                      "workspace.threshold=0.5"]
    assert [g["seeds"] for g in cmp["groups"]] == [[0, 1], [0, 1]]
    assert [Path(r["path"]).name for r in cmp["runs"]] == [
        "run.seed=0__workspace.threshold=0.0", "run.seed=1__workspace.threshold=0.0",
        "run.seed=0__workspace.threshold=0.5", "run.seed=1__workspace.threshold=0.5"]
    assert "workspace.threshold=0.0 - workspace.threshold=0.5" in out

    # a point that did not finish is left out, and said so in one line; the setting left with one seed is a
    # group of one run
    partial = tmp_path / "partial"
    shutil.copytree(root, partial)
    (partial / "run.seed=1__workspace.threshold=0.5" / "report.json").unlink()
    assert report.main([str(partial), "--labels", "low", "high", "--out", str(tmp_path / "cmp2")]) == 0
    out, err = capsys.readouterr()
    assert err.strip() == (f"note: sweep {partial}: 1 point(s) left out, not finished: "
                           "run.seed=1__workspace.threshold=0.5 (unfinished)")
    cmp = json.loads((tmp_path / "cmp2" / "comparison.json").read_text())
    assert [(g["label"], g["seeds"]) for g in cmp["groups"]] == [("low", [0, 1]), ("high", [0])]
