"""`python -m cognition.report`: compare runs of different modes; one clear line and exit 2 otherwise."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_report import PNG_MAGIC, shared_run

from cognition import report

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def two_modes(tmp_path_factory):
    return shared_run(tmp_path_factory, "lite"), shared_run(tmp_path_factory, "classical")


def _per_cycle(run_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    """Per-cycle phi_r and seconds per cycle, read straight from metrics.jsonl."""
    recs = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    return (np.array([r["phi"]["phi_r"] for r in recs if r["phi"]]),
            np.array([r["timing"]["cycle_s"] for r in recs]))


def test_two_modes_print_a_table_and_write_a_plot(two_modes, tmp_path):
    lite, classical = two_modes
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-m", "cognition.report", str(lite), str(classical), "--out",
                          str(tmp_path / "cmp")], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    for text in ("mode", "mean phi_r [CI]", "whole-run phi_r", "s/cycle (median)", "quantum-lite", "classical",
                 "a - b [95 % CI]", "bootstrap over agents", "within seed, agents"):
        assert text in out, text
    png = tmp_path / "cmp" / "comparison.png"
    assert png.read_bytes()[:8] == PNG_MAGIC and png.stat().st_size > 20_000
    assert "![" in (tmp_path / "cmp" / "comparison.md").read_text()

    # the numbers, recomputed here from the runs' own files
    cmp = json.loads((tmp_path / "cmp" / "comparison.json").read_text())
    (phi_l, sec_l), (phi_c, sec_c) = _per_cycle(lite), _per_cycle(classical)
    rows = {r["mode"]: r for r in cmp["runs"]}
    assert rows["quantum-lite"]["median_seconds_per_cycle"] == pytest.approx(np.median(sec_l))
    assert rows["classical"]["median_seconds_per_cycle"] == pytest.approx(np.median(sec_c))
    for mode, run in (("quantum-lite", lite), ("classical", classical)):
        assert rows[mode]["mean_bits"] == json.loads((run / "report.json").read_text())["phi"]["mean_bits"]
    (test,) = cmp["tests"]
    at = {}  # each run's mean per-cycle Phi at the cycles its bands evaluated, from metrics.jsonl
    for run, values in ((lite, phi_l), (classical, phi_c)):
        bands = json.loads((run / "report.json").read_text())["phi_bands"]
        first = json.loads((run / "report.json").read_text())["phi"]["window_cycles"]
        at[run] = values[np.array(bands["cycles"]) - first].mean()
    assert test["difference"] == pytest.approx(at[lite] - at[classical], abs=1e-12)
    assert test["ci"][0] <= test["difference"] <= test["ci"][1] and 0 < test["p_value"] <= 1
    assert f"{test['difference']:.4f} bits" in out
    # issue 18: the difference printed is the difference of the two numbers printed beside it
    assert (test["a_bits"], test["b_bits"]) == (pytest.approx(at[lite], abs=1e-12), pytest.approx(at[classical], abs=1e-12))
    assert f"{test['a_bits']:.4f} bits  {test['b_bits']:.4f} bits  {test['difference']:.4f} bits" in out
    # one run per side: the output says whose question the test answers (issue 16)
    assert "speaks for these architectures" in out and "not for the model" in out and "--group" in out


def _not_a_run(kind: str, tmp_path: Path, run: Path) -> tuple[Path, str]:
    if kind == "missing":
        return tmp_path / "nope", "does not exist"
    if kind == "file":
        (tmp_path / "f.txt").write_text("x")
        return tmp_path / "f.txt", "not a directory"
    if kind == "empty":
        (tmp_path / "empty").mkdir()
        return tmp_path / "empty", "missing config.yaml, provenance.json, metrics.jsonl"
    unfinished = tmp_path / "unfinished"
    shutil.copytree(run, unfinished)
    (unfinished / "report.json").unlink()
    return unfinished, "--resume"


@pytest.mark.parametrize("kind", ["missing", "file", "empty", "unfinished"])
@pytest.mark.parametrize("compare", [False, True])
def test_a_directory_that_is_not_a_run_is_one_line_exit_2(kind, compare, two_modes, tmp_path, capsys):
    bad, fragment = _not_a_run(kind, tmp_path, two_modes[1])
    argv = [str(two_modes[1]), str(bad), "--out", str(tmp_path / "cmp")] if compare else [str(bad)]
    assert report.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {bad}") and fragment in err[0], err
    assert not (tmp_path / "cmp").exists()


def test_not_a_run_from_the_shell_has_no_traceback(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-m", "cognition.report", str(tmp_path)], capture_output=True,
                         text=True, env=env, timeout=120)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr
    assert "not a hybrid-cognition run directory" in res.stderr


def test_unwritable_out_is_one_line_exit_2(two_modes, capsys):
    assert report.main([*map(str, two_modes), "--out", "/proc/hybrid-cognition-test/cmp"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --out /proc/hybrid-cognition-test/cmp"), err
