"""`python -m cognition.report`: compare runs of different modes; one clear line and exit 2 otherwise."""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_report import PNG_MAGIC, shared_run

from cognition import report

ROOT = Path(__file__).resolve().parents[2]


CYCLES = 44  # a per-agent headline of the 7 units needs at least 6 n + 1 = 43 cycles (docs/architecture.md)


@pytest.fixture(scope="module")
def two_modes(tmp_path_factory):
    return shared_run(tmp_path_factory, "lite", CYCLES), shared_run(tmp_path_factory, "classical", CYCLES)


def _seconds(run_dir: Path) -> np.ndarray:
    """Seconds per cycle, read straight from metrics.jsonl."""
    recs = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    return np.array([r["timing"]["cycle_s"] for r in recs])


def agents_headline(run_dir: Path) -> tuple[float, float]:
    """A run's headline and its standard error, recomputed from its agents' own values (report.json's
    phi.whole_run.per_agent): their mean and sd / sqrt(agents)."""
    phi = json.loads((run_dir / "report.json").read_text())["phi"]
    values = np.array(phi["whole_run"]["per_agent"][phi["measure"]])
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(len(values)))


def test_two_modes_print_a_table_and_write_a_plot(two_modes, tmp_path):
    lite, classical = two_modes
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-m", "cognition.report", str(lite), str(classical), "--out",
                          str(tmp_path / "cmp")], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    for text in ("mode", "headline phi_r [CI]", "p (integration test)", "mean per-cycle phi_r [CI] (descriptive)",
                 "s/cycle (median)", "quantum-lite", "classical", "a - b [95 % CI]", "Headline phi_r, each pair",
                 "within seed, z (agents' SE)", "sqrt(se_a^2 + se_b^2)"):
        assert text in out, text
    png = tmp_path / "cmp" / "comparison.png"
    assert png.read_bytes()[:8] == PNG_MAGIC and png.stat().st_size > 20_000
    assert "![" in (tmp_path / "cmp" / "comparison.md").read_text()

    # the numbers, recomputed here from the runs' own files
    cmp = json.loads((tmp_path / "cmp" / "comparison.json").read_text())
    rows = {r["mode"]: r for r in cmp["runs"]}
    assert rows["quantum-lite"]["median_seconds_per_cycle"] == pytest.approx(np.median(_seconds(lite)))
    assert rows["classical"]["median_seconds_per_cycle"] == pytest.approx(np.median(_seconds(classical)))
    (a, se_a), (b, se_b) = agents_headline(lite), agents_headline(classical)
    for mode, (value, se) in (("quantum-lite", (a, se_a)), ("classical", (b, se_b))):
        assert rows[mode]["headline_bits"] == pytest.approx(value, abs=1e-12)
        assert rows[mode]["headline_se_bits"] == pytest.approx(se, rel=1e-9)
        assert f"{value:.4f} bits [" in out  # the runs table shows the headline, not the mean per-cycle Phi
    (test,) = cmp["tests"]
    # the difference of two independent means, se = sqrt(se_a^2 + se_b^2), normal interval and two-sided p
    # (Wasserman 2004, All of Statistics, sec. 10.1): p = erfc(|z| / sqrt 2), z_0.975 = 1.959964
    d, se = a - b, math.sqrt(se_a**2 + se_b**2)
    assert test["difference"] == pytest.approx(d, abs=1e-12) and test["standard_error"] == pytest.approx(se, rel=1e-9)
    assert test["ci"] == pytest.approx([d - 1.959964 * se, d + 1.959964 * se], abs=1e-7)
    assert test["p_value"] == pytest.approx(math.erfc(abs(d / se) / math.sqrt(2)), rel=1e-9)
    assert f"{test['difference']:.4f} bits" in out
    # issue 18: the difference printed is the difference of the two numbers printed beside it
    assert (test["a_bits"], test["b_bits"]) == (pytest.approx(a, abs=1e-12), pytest.approx(b, abs=1e-12))
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


@pytest.mark.parametrize("damage", ["truncated", "fewer-cycles"])
def test_a_damaged_unit_history_is_refused_naming_the_file(damage, tmp_path_factory, tmp_path, capsys):
    """Issue 33: `report` on a truncated unit_history.npy exited 0 without a word (the Phi bands left out
    quietly); now one line naming the file and what is wrong, exit 2, and the report files untouched."""
    run = tmp_path / "run"
    shutil.copytree(shared_run(tmp_path_factory, "classical", CYCLES), run)
    history = run / "unit_history.npy"
    if damage == "truncated":
        os.truncate(history, history.stat().st_size // 2)
        what = "cannot be read as the run's unit history"
    else:
        units = np.load(history)  # (cycles, rows, units) on disk
        np.save(history, units[: CYCLES // 2])
        what = f"holds {CYCLES // 2} cycles of unit signals, metrics.jsonl {CYCLES}"
    before = {p.name: p.stat().st_mtime_ns for p in run.iterdir()}
    capsys.readouterr()  # the shared run's own progress lines, when this test made it
    assert report.main([str(run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(history) in err[0] and what in err[0], err
    assert {p.name: p.stat().st_mtime_ns for p in run.iterdir()} == before
