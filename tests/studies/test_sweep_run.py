"""Sweeps that run: a 2x2x2 sweep locally and on a local Ray cluster, reruns, kills and resumes.

Each point is a tiny classical run (15 cycles, 4 agents, small bootstrap) so that a
whole 8-point sweep takes about a minute on 2 cores. The reference for every
comparison is the uninterrupted local sweep (module fixture). Runs are
deterministic (counter-based streams, bit-identical resume: test_resume.py), so
the aggregate tables must agree exactly except in their ``timing_*`` columns.
"""
import importlib.util
import json
import os
import signal
import time
from pathlib import Path

import pytest
from clitools import command

from cognition.sweeps.aggregate import TIMING_COLUMNS, read_csv, without_timing

pytestmark = pytest.mark.integration  # whole sweeps in subprocesses (about 55 s): the CI's second step

BASE = """
base:
  run: {cycles: 15, agents: 8}
  quantum: {mode: disabled}
  phi: {window: 6, bootstrap: 20, surrogates: 20}
"""
SWEEP_2X2X2 = "name: tiny\n" + BASE + """
grid:
  modules.hybrid.gamma: [0.0, 2.09]
  workspace.temperature: [0.25, 0.5]
seeds: [0, 1]
"""
# the first point of the 2x2x2 sweep on its own: same parameters, hence the same run-directory name
SWEEP_ONE = "name: one\n" + BASE + """
grid:
  modules.hybrid.gamma: [0.0]
  workspace.temperature: [0.25]
seeds: [0]
"""
FIRST = "modules.hybrid.gamma=0.0__run.seed=0__workspace.temperature=0.25"
KILLED = "modules.hybrid.gamma=2.09__run.seed=1__workspace.temperature=0.5"  # the last point


def sweep_cli(*args, wait=True):
    return command("cognition.sweep", *args, wait=wait, timeout=400)


def verdict(root: Path) -> tuple[int, str]:
    """The exit code and the end of the summary line of a sweep whose points all finished, from the points' own
    report.json: 0 when every point met its criteria, else 1 (15 cycles are too few for a per-agent headline, so
    these points' Phi criteria can fail; the exit code must say so, as cognition.validate's does)."""
    passed = [json.loads((root / r["point"] / "report.json").read_text())["passed"]
              for r in read_csv(root / "aggregate.csv")]
    missed = passed.count(False)
    if not missed:
        return 0, f"criteria met by all {len(passed)} points"
    return 1, f"criteria NOT met by {missed} of {len(passed)} points (the aggregate's passed column)"


def snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in sorted(root.rglob("*"))}


def checkpoint_cycles(run_dir: Path) -> list[int]:
    """Cycles of the checkpoints whose completion marker is written (a body alone may be mid-write)."""
    return sorted(int(p.stem.split("-")[1]) for p in (run_dir / "checkpoints").glob("ckpt-*.json"))


def attempts(root: Path, name: str) -> list[str]:
    """The validate command line of each attempt, from the point's log."""
    return [ln for ln in (root / "logs" / f"{name}.log").read_text().splitlines() if ln.startswith("== ")]


@pytest.fixture(scope="module")
def local_sweep(tmp_path_factory):
    base = tmp_path_factory.mktemp("sweep")
    path = base / "tiny.yaml"
    path.write_text(SWEEP_2X2X2)
    root = base / "local"
    res = sweep_cli(path, "--out", root, "--workers", "2")
    return path, root, res


def test_local_2x2x2_sweep_writes_one_run_per_point_and_the_aggregate(local_sweep):
    path, root, res = local_sweep
    rc, criteria = verdict(root)
    assert res.returncode == rc, res.stderr
    stderr = [ln for ln in res.stderr.splitlines() if ln.strip()]
    progress, summary = stderr[:-1], stderr[-1]  # off a terminal: a line per finished point, then the summary
    assert len(progress) == 8 and progress[-1].startswith("sweep tiny: 8/8 done"), res.stderr
    assert "8/8 points done" in summary and "0 failed" in summary, res.stderr
    assert summary.endswith(f"; aggregate written; {criteria}"), summary
    rows = read_csv(root / "aggregate.csv")
    assert len(rows) == 8
    assert list(rows[0])[:4] == ["point", "modules.hybrid.gamma", "workspace.temperature", "run.seed"]
    assert [c for c in rows[0] if c.startswith("timing_")] == list(TIMING_COLUMNS)
    seen = set()
    for row in rows:
        run_dir = root / row["point"]
        seen.add((row["modules.hybrid.gamma"], row["workspace.temperature"], row["run.seed"]))
        assert row["point"] == (f"modules.hybrid.gamma={row['modules.hybrid.gamma']}__run.seed={row['run.seed']}"
                                f"__workspace.temperature={row['workspace.temperature']}")
        # every number in the row is the one in that run's own report.json
        report = json.loads((run_dir / "report.json").read_text())
        phi = report["phi"]
        assert row["status"] == report["status"] == "completed"
        assert float(row["phi_mean_bits"]) == phi["mean_bits"]
        ci = [float(row[f"phi_mean_ci_{k}_bits"]) if row[f"phi_mean_ci_{k}_bits"] else None for k in ("low", "high")]
        assert ci == (phi["mean_ci_bits"] or [None, None])  # None: fewer than two batches of the window
        if phi["whole_run"] is None:  # a 15-cycle run can hold a unit constant for one agent: undefined, said so
            assert phi["whole_run_note"] and row["phi_whole_run_bits"] == row["phi_whole_run_p_value"] == ""
        else:
            assert float(row["phi_whole_run_bits"]) == phi["whole_run"][phi["measure"]]
            assert float(row["phi_whole_run_p_value"]) == phi["whole_run"]["p_value"][phi["measure"]]
        assert row["passed"] == ("true" if report["passed"] else "false")
        cfg = (root / "configs" / f"{row['point']}.yaml").read_text()
        assert f"gamma: {row['modules.hybrid.gamma']}" in cfg and f"seed: {row['run.seed']}" in cfg
    assert seen == {(g, t, s) for g in ("0.0", "2.09") for t in ("0.25", "0.5") for s in ("0", "1")}
    for key in ("modules.hybrid.gamma", "workspace.temperature"):
        assert (root / f"phi_vs_{key}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rerunning_a_finished_sweep_does_no_work_and_says_so(local_sweep):
    path, root, first = local_sweep
    rc, criteria = verdict(root)
    assert first.returncode == rc, first.stderr
    before = snapshot(root)
    res = sweep_cli(path, "--out", root, "--workers", "2")
    assert res.returncode == rc, res.stderr  # the same verdict, read from the stored reports
    assert res.stderr.strip() == ("sweep tiny: all 8 points already finished; nothing to run; aggregate unchanged; "
                                  + criteria)
    assert snapshot(root) == before  # not a file written, touched or added


@pytest.mark.slow  # ~20 s: two runs of one point
def test_killed_point_resumes_from_its_checkpoint_on_rerun(local_sweep, tmp_path):
    _, ref_root, first = local_sweep
    assert first.returncode == verdict(ref_root)[0], first.stderr
    path = tmp_path / "one.yaml"
    path.write_text(SWEEP_ONE)
    root = tmp_path / "one"
    # the run kills itself (SIGKILL) before cycle 8; no retries, so the sweep reports it
    res = sweep_cli(path, "--out", root, "--retries", "0", "--inject-fault", "1:sigkill@8")
    assert res.returncode == 1
    assert "1 failed" in res.stderr and "killed by SIGKILL" in res.stderr
    assert read_csv(root / "aggregate.csv")[0]["status"] == "unfinished"
    run_dir = root / FIRST
    assert not (run_dir / "report.json").exists()
    resumed_from = checkpoint_cycles(run_dir)[-1]
    assert 2 <= resumed_from <= 7
    before = (run_dir / "metrics.jsonl").read_text().splitlines()

    res = sweep_cli(path, "--out", root)
    assert res.returncode == verdict(root)[0], res.stderr
    assert "0 failed" in res.stderr and "1 of them resumed" in res.stderr
    assert "--resume" in attempts(root, FIRST)[-1]
    after = (run_dir / "metrics.jsonl").read_text().splitlines()
    # cycles up to the checkpoint were restored, not recomputed: even their timings are the first attempt's
    assert after[:resumed_from] == before[:resumed_from] and len(after) == 15
    reference = [r for r in read_csv(ref_root / "aggregate.csv") if r["point"] == FIRST]
    assert without_timing(read_csv(root / "aggregate.csv")) == without_timing(reference)


# Ray runs only inside the sweep's subprocess (its logs, warnings and cluster stay there and end with it)
ray_test = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                              reason="ray is not installed (pip install -c constraints.txt -e '.[distributed]')")


@ray_test
def test_ray_2x2x2_sweep_gives_the_local_aggregate(local_sweep, tmp_path):
    path, ref_root, first = local_sweep
    assert first.returncode == verdict(ref_root)[0], first.stderr
    root = tmp_path / "ray"
    res = sweep_cli(path, "--out", root, "--ray", "--ray-cpus", "2")
    # the same verdict on Ray as locally, from the same reports
    assert verdict(root) == verdict(ref_root) and res.returncode == first.returncode, res.stderr
    assert res.stderr.strip().endswith(verdict(root)[1]), res.stderr
    assert "8/8 points done" in res.stderr
    local, on_ray = read_csv(ref_root / "aggregate.csv"), read_csv(root / "aggregate.csv")
    assert list(local[0]) == list(on_ray[0])
    assert without_timing(on_ray) == without_timing(local)
    assert all(float(r["timing_run_seconds"]) > 0 for r in on_ray)


@ray_test
@pytest.mark.slow  # ~65 s on the 2-core machine: a whole Ray sweep with a worker killed; run with --runslow
def test_ray_worker_killed_mid_run_is_retried_and_resumes(local_sweep, tmp_path):
    path, ref_root, first = local_sweep
    assert first.returncode == verdict(ref_root)[0], first.stderr
    root = tmp_path / "ray-kill"
    proc = sweep_cli(path, "--out", root, "--ray", "--ray-cpus", "2", "--retries", "2", wait=False)
    run_dir, marker = root / KILLED, root / ".running" / KILLED
    killed, deadline = None, time.time() + 300
    while killed is None and time.time() < deadline and proc.poll() is None:
        metrics = run_dir / "metrics.jsonl"
        if metrics.exists() and len(metrics.read_text().splitlines()) >= 6 and marker.exists():
            worker_pid = int(marker.read_text().split()[1])  # the Ray worker running this point
            os.kill(worker_pid, signal.SIGKILL)
            killed = (checkpoint_cycles(run_dir)[-1], metrics.read_text().splitlines())
        time.sleep(0.005)
    out, err = proc.communicate(timeout=400)
    assert killed is not None, f"never saw {KILLED} at cycle 6: {err}"
    assert proc.returncode == first.returncode, err
    assert "8/8 points done" in err and "1 of them resumed" in err
    resumed_from, before = killed
    assert 2 <= resumed_from < 15
    runs = attempts(root, KILLED)
    assert len(runs) == 2 and "--out" in runs[0] and "--resume" in runs[1]
    after = (run_dir / "metrics.jsonl").read_text().splitlines()
    assert after[:resumed_from] == before[:resumed_from] and len(after) == 15
    assert without_timing(read_csv(root / "aggregate.csv")) == without_timing(read_csv(ref_root / "aggregate.csv"))
