"""Sweep files: expansion to points, point names, validation (exit 2, one line), progress, CIs.

Everything here runs in-process in well under a second per test; the sweeps that
actually run are in test_sweep_run.py.
"""
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cognition import sweep
from cognition.sweeps.keys import check_sweep_key, sweepable_keys
from cognition.sweeps.naming import point_name
from cognition.analysis.statistics import t_interval
from cognition.sweeps.point import PointResult, PointTask
from cognition.simulator.progress import RunsProgress, format_duration
from cognition.sweeps.ray_executor import _failed
from cognition.sweeps.spec import load_sweep
from cognition.errors import SweepError

ROOT = Path(__file__).resolve().parents[2]

GRID_2X2X2 = """
name: g
base:
  run: {cycles: 15, agents: 4}
  quantum: {mode: disabled}
grid:
  modules.hybrid.gamma: [0.0, 2.09]
  workspace.temperature: [0.25, 0.5]
seeds: [0, 1]
"""


def write(tmp_path, text, name="s.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_grid_expands_to_the_product_with_seeds_innermost(tmp_path):
    spec = load_sweep(write(tmp_path, GRID_2X2X2))
    assert spec.name == "g"
    assert spec.keys == ("modules.hybrid.gamma", "workspace.temperature", "run.seed")
    got = [tuple(p.params.values()) for p in spec.points]
    # itertools.product order written out by hand: gamma outermost, then temperature, seed innermost
    assert got == [(0.0, 0.25, 0), (0.0, 0.25, 1), (0.0, 0.5, 0), (0.0, 0.5, 1),
                   (2.09, 0.25, 0), (2.09, 0.25, 1), (2.09, 0.5, 0), (2.09, 0.5, 1)]
    p = spec.points[5]
    assert (p.config.modules.hybrid.gamma, p.config.workspace.temperature, p.config.run.seed) == (2.09, 0.25, 1)
    assert p.config.run.cycles == 15 and p.config.quantum.mode == "disabled"  # from base
    assert [p.index for p in spec.points] == list(range(1, 9))


def test_point_names_are_sorted_stable_and_file_system_safe():
    params = {"run.seed": 1, "quantum.mode": "lite"}
    assert point_name(params) == "quantum.mode=lite__run.seed=1"
    assert point_name(dict(reversed(list(params.items())))) == point_name(params)
    assert point_name({"modules.enabled": ["expectation", "hybrid"]}) == "modules.enabled=expectation+hybrid"
    assert point_name({"phi.shrinkage": None}) == "phi.shrinkage=null"
    odd = point_name({"run.dtype": "a/b c"})
    assert odd.startswith("run.dtype=a-b-c__h=") and len(odd) == len("run.dtype=a-b-c__h=") + 8
    assert point_name({"run.dtype": "a/b c"}) != point_name({"run.dtype": "a b/c"})  # no collision
    long = point_name({f"k{i}": "x" * 30 for i in range(10)})
    assert len(long) == 200 and "/" not in long


def test_random_samples_are_reproducible_and_in_range(tmp_path):
    text = """
samples:
  count: 5
  seed: 7
  keys:
    workspace.temperature: {uniform: [0.1, 1.0]}
    workspace.persistence: {loguniform: [0.05, 0.9]}
    modules.unconscious.shots: {randint: [64, 66]}
    phi.measure: {choice: [phi_r, phi_wms]}
seeds: 2
"""
    a, b = load_sweep(write(tmp_path, text)), load_sweep(write(tmp_path, text, "again.yaml"))
    assert [p.params for p in a.points] == [p.params for p in b.points]
    assert len(a.points) == 10 and {p.params["run.seed"] for p in a.points} == {0, 1}
    for p in a.points:
        t, per = p.params["workspace.temperature"], p.params["workspace.persistence"]
        assert 0.1 <= t <= 1.0 and 0.05 <= per <= 0.9
        assert float(f"{t:.6g}") == t  # rounded to 6 significant digits: the name shows the exact value
        assert p.params["modules.unconscious.shots"] in (64, 65, 66)
        assert p.config.workspace.temperature == t
    assert len({p.params["workspace.temperature"] for p in a.points}) == 5


def test_sweepable_set_is_the_science_sections():
    keys = sweepable_keys()
    assert {"run.seed", "run.cycles", "quantum.mode", "modules.hybrid.gamma", "workspace.temperature",
            "phi.window"} <= set(keys)
    assert not [k for k in keys if k.startswith(("runtime.", "criteria."))]
    with pytest.raises(SweepError, match="not sweepable: runtime"):
        check_sweep_key("runtime.device", "grid")
    with pytest.raises(SweepError, match="is a section"):
        check_sweep_key("modules.hybrid", "grid")


BAD = [
    ("unknown top-level key", "gird:\n  quantum.mode: [lite]\n", "unknown key 'gird'"),
    ("unknown config key", "grid:\n  run.cycels: [10]\n", "grid key 'run.cycels' is not a config key"),
    ("unknown section", "grid:\n  quantom.mode: [lite]\n", "grid key 'quantom.mode' is not a config key"),
    ("empty grid", "grid: {}\n", "grid is empty"),
    ("empty value list", "grid:\n  quantum.mode: []\n", "grid.quantum.mode = [] is not allowed"),
    ("nothing swept", "base:\n  run: {cycles: 5}\n", "nothing to sweep"),
    ("runtime not sweepable", "grid:\n  runtime.device: [cpu, cuda]\n", "'runtime.device' is not sweepable"),
    ("criteria not sweepable", "grid:\n  criteria.alpha: [0.01, 0.05]\n", "'criteria.alpha' is not sweepable"),
    ("bad value for a point", "grid:\n  quantum.mode: [lite, quantumish]\n", "quantum.mode = 'quantumish'"),
    ("bad base", "base:\n  run: {cycles: 0}\ngrid:\n  quantum.mode: [lite]\n", "run.cycles = 0"),
    ("duplicate value", "grid:\n  run.agents: [4, 4]\n", "lists 4 twice"),
    ("seed twice", "grid:\n  run.seed: [1]\nseeds: 2\n", "run.seed is swept by seeds"),
    ("bad samples", "samples: {count: 2, keys: {workspace.temperature: {normal: [0, 1]}}}\n",
     "unknown distribution 'normal'"),
]


@pytest.mark.parametrize("label,text,fragment", BAD, ids=[b[0] for b in BAD])
def test_bad_sweep_is_one_line_exit_2_and_nothing_starts(tmp_path, capsys, label, text, fragment):
    path = write(tmp_path, text)
    out = tmp_path / "out"
    assert sweep.main([str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(path) in lines[0], err
    assert fragment in lines[0], lines[0]
    assert not out.exists()


@pytest.mark.parametrize("args,fragment", [
    (["--workers", "2", "--ray"], "--workers is for local processes"),
    (["--gpus-per-point", "0.5"], "--gpus-per-point needs --ray"),
    (["--ray", "--gpus-per-point", "1.5"], "expected a fraction in [0, 1]"),
    (["--ray", "--ray-address", "auto"], "give one of them"),
    (["--inject-fault", "9:sigkill@3"], "POINT a point's index (1..8)"),
    (["--inject-fault", "1:boom@3"], "unknown kind 'boom'"),
])
def test_bad_flags_are_one_line_exit_2(tmp_path, capsys, args, fragment):
    path = write(tmp_path, GRID_2X2X2)
    assert sweep.main([str(path), "--out", str(tmp_path / "out"), *args]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and fragment in err, err
    assert not (tmp_path / "out").exists()


def test_missing_ray_names_the_extra_before_anything_starts(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` raise ImportError
    path = write(tmp_path, GRID_2X2X2)
    assert sweep.main([str(path), "--out", str(tmp_path / "out"), "--ray"]) == 2
    err = capsys.readouterr().err
    assert "-e \".[distributed]\"" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_cli_subprocess_bad_key_has_no_traceback(tmp_path):
    path = write(tmp_path, "grid:\n  runtime.batch: [1, 2]\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-m", "cognition.sweep", str(path), "--out", str(tmp_path / "o")],
                         env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "not sweepable" in res.stderr


def test_dry_run_lists_the_example_sweep(capsys, tmp_path):
    assert sweep.main([str(ROOT / "configs" / "sweeps" / "example.yaml"), "--dry-run",
                       "--out", str(tmp_path / "ex")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 + 8 and all(" fresh " in line for line in out[1:])
    assert not (tmp_path / "ex").exists()


def test_progress_counts_eta_and_writes_plain_lines_off_a_terminal():
    now = [0.0]
    stream = io.StringIO()
    prog = RunsProgress("sweep s", total=8, unit="points", already_finished=2, stream=stream, tty=False, clock=lambda: now[0])
    assert prog.eta_seconds() is None
    now[0] = 10.0
    prog.set_running(2)
    prog.finished(PointResult("a", "completed", False, 0, 5.0))
    prog.finished(PointResult("b", "killed", False, -9, 5.0, "killed by SIGKILL"))
    # 2 points ended in 10 s; 8 - 3 done - 1 failed = 4 left: 10 / 2 * 4 = 20 s
    assert prog.eta_seconds() == pytest.approx(20.0)
    assert prog.line() == "sweep s: 3/8 done, 2 running, 1 failed, ETA 20 s"
    # not a terminal: a plain line each time a point ends, no redraws, then the summary
    lines = ["sweep s: 3/8 done, 2 running, 0 failed, ETA 50 s", "sweep s: 3/8 done, 2 running, 1 failed, ETA 20 s"]
    assert stream.getvalue() == "".join(ln + "\n" for ln in lines)
    summary = prog.close()
    assert stream.getvalue().splitlines()[-1] == summary and "1 failed" in summary and "b (killed" in summary


def test_progress_redraws_one_line_on_a_terminal():
    stream = io.StringIO()
    prog = RunsProgress("sweep s", total=2, unit="points", stream=stream, tty=True, clock=lambda: 0.0)
    prog.set_running(1)
    assert stream.getvalue() == "\r\x1b[K" + "sweep s: 0/2 done, 1 running, 0 failed, ETA ?"


def test_nothing_to_run_summary_says_so():
    prog = RunsProgress("sweep s", total=3, unit="points", already_finished=3, stream=io.StringIO(), tty=False)
    assert prog.summary() == "sweep s: all 3 points already finished; nothing to run"


def test_format_duration():
    assert [format_duration(s) for s in (4.2, 65, 3600 * 2 + 7 * 60)] == ["4 s", "1 min 05 s", "2 h 07 min"]


def test_t_interval_matches_the_t_table():
    # values 1, 2, 3: mean 2, s = 1; t_{0.975, 2} = 4.302653 (Student's t table, e.g. NIST/SEMATECH
    # e-Handbook 1.3.6.7.2); half-width 4.302653 / sqrt(3) = 2.484138
    mean, lo, hi = t_interval([1.0, 2.0, 3.0])
    assert mean == 2.0
    assert lo == pytest.approx(2.0 - 2.484138, abs=1e-6) and hi == pytest.approx(2.0 + 2.484138, abs=1e-6)
    assert t_interval([0.5]) == (0.5, None, None)


def test_ray_failure_status_is_decided_by_type_not_class_name():
    """A point whose worker Ray lost (crash, Ray's memory monitor, dead node) is "killed"; any other
    error, even one whose class is also named OutOfMemoryError (torch's), is "error"."""
    ray = pytest.importorskip("ray")
    import torch

    task = PointTask("p", "run", "cfg.yaml", "log", "running")
    lost = [ray.exceptions.WorkerCrashedError(), ray.exceptions.NodeDiedError("node 1 died"),
            ray.exceptions.OutOfMemoryError("Task was killed due to the node running low on memory.")]
    assert [_failed(task, exc, ray).status for exc in lost] == ["killed"] * 3
    other = [torch.OutOfMemoryError("CUDA out of memory."), type("NodeDiedError", (Exception,), {})("x"),
             ValueError("bad")]
    assert [_failed(task, exc, ray).status for exc in other] == ["error"] * 3


def test_a_point_directory_must_agree_in_every_field_but_execution(tmp_path):
    """A directory the sweep resumes or reuses holds the point's configuration in every science, numerics
    and verdict field (cognition.config.settings.CHANGES_OF): runtime.autocast (numerics) edited in is refused,
    runtime.threads (execution) is not. Before, all of runtime was left out of the comparison."""
    import yaml

    from cognition.api import configure
    from cognition.sweeps.root import _check_same_config

    cfg = configure(preset="classical")
    for field, value, refused in (("autocast", "bf16", True), ("device", "cuda", True), ("threads", 3, False)):
        run_dir = tmp_path / field
        run_dir.mkdir()
        there = cfg.to_dict()
        there["runtime"][field] = value
        (run_dir / "config.yaml").write_text(yaml.safe_dump(there))
        if refused:
            with pytest.raises(SweepError, match=f"different configuration, at runtime.{field}"):
                _check_same_config(run_dir, cfg)
        else:
            _check_same_config(run_dir, cfg)
