"""`python -m cognition.report --group ...`: conditions of several runs (seeds) each, tested across runs
by Welch's t on the runs' headline Phi (issue 16, item 3); bad combinations of arguments are one line and exit 2."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from clitools import command
from scipy.stats import ttest_ind
from test_report import shared_run
from test_report_cli import CYCLES, agents_headline

from cognition import report


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict[str, list[Path]]:
    """Two runs per mode, seeds 0 and 1, long enough for a per-agent headline."""
    return {mode: [shared_run(tmp_path_factory, mode, CYCLES, seed=s) for s in (0, 1)]
            for mode in ("lite", "classical")}


def _one_error_line(capsys, *fragments: str) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), err
    for f in fragments:
        assert f in err[0], (f, err[0])
    return err[0]


def test_groups_are_tested_across_runs_with_welchs_t(seeds, tmp_path):
    lite, classical = seeds["lite"], seeds["classical"]
    res = command("cognition.report", "--group", *lite, "--group", *classical, "--labels", "Q", "C",
                  "--out", tmp_path / "cmp")
    assert res.returncode == 0, res.stderr
    assert "Groups (the across-run test's numbers, bits)" in res.stdout and "Welch t, df" in res.stdout
    assert "Traceback" not in res.stderr
    cmp = json.loads((tmp_path / "cmp" / "comparison.json").read_text())
    (test,) = cmp["tests"]
    assert (test["a"], test["b"], test["scope"]) == ("Q", "C", "across runs (seeds)")
    # each seed one number, its headline recomputed from its agents' values; the reference test is scipy's Welch t
    q, c = [agents_headline(r)[0] for r in lite], [agents_headline(r)[0] for r in classical]
    ref = ttest_ind(q, c, equal_var=False)
    assert test["a_bits"] == pytest.approx(np.mean(q), abs=1e-12)
    assert test["b_bits"] == pytest.approx(np.mean(c), abs=1e-12)
    assert test["difference"] == pytest.approx(np.mean(q) - np.mean(c), abs=1e-12)
    assert test["p_value"] == pytest.approx(ref.pvalue, rel=1e-9) and test["df"] == pytest.approx(ref.df, rel=1e-9)
    lo, hi = ref.confidence_interval(0.95)
    assert test["ci"] == pytest.approx([lo, hi], rel=1e-9)
    assert f"{test['a_bits']:.4f} bits  {test['b_bits']:.4f} bits  {test['difference']:.4f} bits" in res.stdout
    assert [g["seeds"] for g in cmp["groups"]] == [[0, 1], [0, 1]]
    assert [g["headline_bits"] for g in cmp["groups"]] == [pytest.approx(q, abs=1e-12), pytest.approx(c, abs=1e-12)]
    assert "headline phi_r per run" in res.stdout and "across runs: a and b are the groups' means of their runs' " \
                                                       "headline Phi" in res.stdout
    assert "comparison.png" in res.stdout and (tmp_path / "cmp" / "comparison.png").stat().st_size > 20_000
    assert "## Groups" in (tmp_path / "cmp" / "comparison.md").read_text()


def test_three_groups_get_holm_adjusted_p_values(seeds, tmp_path_factory):
    from cognition.reporting.compare import compare_group_dirs

    mixed = [shared_run(tmp_path_factory, mode, CYCLES, seed=2) for mode in ("lite", "classical")]
    cmp = compare_group_dirs([seeds["lite"], seeds["classical"], mixed])
    assert [g["label"] for g in cmp["groups"]] == ["quantum-lite", "classical", "group 3 (classical, quantum-lite)"]
    ps = [t["p_value"] for t in cmp["tests"]]
    assert len(ps) == 3
    # Holm (1979) by hand: sorted p times (3, 2, 1), made monotone, capped at 1
    order = np.argsort(ps)
    expected = np.maximum.accumulate([min(1.0, (3 - k) * ps[i]) for k, i in enumerate(order)])
    assert [cmp["tests"][i]["p_value_holm"] for i in order] == pytest.approx(list(expected))
    assert any("differ in mode" in n for n in cmp["notes"])


def test_one_run_against_a_group_is_not_tested(seeds):
    from cognition.reporting.compare import compare_group_dirs, pair_rows

    cmp = compare_group_dirs([seeds["lite"], seeds["classical"][:1]])
    (test,) = cmp["tests"]
    assert "p_value" not in test and "at least 2 runs (seeds) in each group" in test["note"]
    assert pair_rows(cmp)[1][0][4] == "none"


def test_a_quick_run_is_no_phi_and_no_warning(seeds, tmp_path_factory, tmp_path, capsys):
    """issue 18: a --quick run printed 'Mean of empty slice' and was listed as passed (pytest: warnings are errors)."""
    quick = shared_run(tmp_path_factory, "quick")
    assert report.main([str(seeds["classical"][0]), str(quick), "--out", str(tmp_path / "cmp")]) == 0
    out = capsys.readouterr().out
    assert "passed (no Phi tested)" in out and "its criteria did not test Phi" in out
    assert report.main(["--group", *map(str, seeds["classical"]), "--group", str(seeds["lite"][0]), str(quick),
                        "--out", str(tmp_path / "cmp2")]) == 0
    out = capsys.readouterr().out
    why = json.loads((quick / "report.json").read_text())["phi"]["whole_run_note"]  # the run's own reason
    assert why and f"no test (group 2 (full quantum, quantum-lite) #2: {why})" in out, out


@pytest.mark.parametrize("argv, fragments", [
    (["RUN", "--group", "A", "B", "--group", "C", "D"], ["RUN_DIR RUN given beside --group"]),
    (["--group", "A", "B"], ["--group given once"]),
    (["--group", "A", "B", "--group", "C", "--labels", "x"], ["--labels x: 1 name(s) for 2 --group(s)"]),
    (["--group", "A", "B", "--group", "C", "--labels", "x", "x"], ["names must differ"]),
    (["A", "B", "--labels", "x"], ["--labels x: 1 name(s) for 2 RUN_DIR(s); give one name per RUN_DIR"]),
    (["A", "B", "--labels", "x", "x"], ["names must differ"]),
    (["A", "--labels", "x"], ["one RUN_DIR rebuilds its report"]),
    ([], ["nothing to do"]),
])
def test_argument_combinations_are_one_line_exit_2(argv, fragments, capsys):
    assert report.main(argv) == 2
    _one_error_line(capsys, *fragments)


def test_single_runs_are_named_by_what_differs_or_by_labels_without_group(seeds, tmp_path, capsys):
    """issue 44: two seeds of one mode were "quantum-lite #1 / #2", and --labels was refused without --group."""
    lite = [str(r) for r in seeds["lite"]]
    assert report.main([*lite, "--out", str(tmp_path / "cmp")]) == 0
    cmp = json.loads((tmp_path / "cmp" / "comparison.json").read_text())
    assert [r["label"] for r in cmp["runs"]] == ["seed=0", "seed=1"] and not cmp["grouped"]
    assert "seed=0 - seed=1" in capsys.readouterr().out
    assert report.main([*lite, "--labels", "first", "second", "--out", str(tmp_path / "cmp2")]) == 0
    cmp = json.loads((tmp_path / "cmp2" / "comparison.json").read_text())
    assert [r["label"] for r in cmp["runs"]] == ["first", "second"] and not cmp["grouped"]
    (test,) = cmp["tests"]
    assert (test["a"], test["b"], test["scope"]) == ("first", "second", "one architecture per side (agents within "
                                                                         "one seed)")
    # two keys differ: the mode and the seed
    assert report.main([str(seeds["classical"][0]), lite[1], "--out", str(tmp_path / "cmp3")]) == 0
    cmp = json.loads((tmp_path / "cmp3" / "comparison.json").read_text())
    assert [r["label"] for r in cmp["runs"]] == ["classical, seed=0", "quantum-lite, seed=1"]


def test_a_run_given_twice_is_one_line_exit_2(seeds, tmp_path, capsys):
    a, b = seeds["lite"]
    assert report.main(["--group", str(a), str(b), "--group", str(a), "--out", str(tmp_path / "cmp")]) == 2
    _one_error_line(capsys, str(a), "given twice (in --group 1 and 2)")
    assert report.main([str(a), str(a)]) == 2
    _one_error_line(capsys, "given twice (as RUN_DIR 1 and 2)")
    assert not (tmp_path / "cmp").exists()


def _edited_copy(run: Path, where: Path, **phi) -> Path:
    """A copy of ``run`` whose report.json's phi section has ``phi``'s values."""
    shutil.copytree(run, where)
    rep = json.loads((where / "report.json").read_text())
    rep["phi"].update(phi)
    (where / "report.json").write_text(json.dumps(rep))
    return where


def test_a_run_whose_headline_is_not_finite_is_no_test(seeds, tmp_path):
    from cognition.reporting.compare import compare_group_dirs

    broken = _edited_copy(seeds["lite"][1], tmp_path / "nan-run", headline_bits=float("nan"))
    (test,) = compare_group_dirs([[seeds["lite"][0], broken], seeds["classical"]])["tests"]
    assert "p_value" not in test and test["note"] == "no test (quantum-lite #2: its headline Phi is nan)"
    (test,) = compare_group_dirs([[broken], seeds["classical"][:1]])["tests"]  # within seed too
    assert "p_value" not in test and "its headline Phi is nan" in test["note"]


def test_the_descriptive_mean_is_not_what_is_compared(seeds, tmp_path):
    """A run whose mean per-cycle Phi is not finite is compared all the same, with the same p-value."""
    from cognition.reporting.compare import compare_group_dirs

    edited = _edited_copy(seeds["lite"][1], tmp_path / "nan-mean", mean_bits=float("nan"))
    (test,) = compare_group_dirs([[seeds["lite"][0], edited], seeds["classical"]])["tests"]
    (reference,) = compare_group_dirs([seeds["lite"], seeds["classical"]])["tests"]
    assert test["p_value"] == reference["p_value"]
    # a run short of a per-agent headline (its report's whole_run is null) gets its own note
    short = _edited_copy(seeds["lite"][1], tmp_path / "short", headline_bits=None, whole_run=None,
                         whole_run_note="each agent has too few time steps")
    (test,) = compare_group_dirs([[seeds["lite"][0], short], seeds["classical"]])["tests"]
    assert test["note"] == "no test (quantum-lite #2: each agent has too few time steps)"
