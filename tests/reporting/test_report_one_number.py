"""One number per label: every place a run's Phi numbers are printed says the same number under the same label.

Source of truth: the run's report.json (``phi`` from cognition.analysis.summary.summarise_phi, ``controls`` from
cognition.analysis.summary.summarise_controls), the numbers the run computed. Each place that prints them, the CLI
lines of ``python -m cognition.validate``, report.md, report.html, comparison.md, the terminal table of
``python -m cognition.report`` and the comparison plot, is parsed and every printed number is checked against
report.json at the precision it is printed with (0.2958 agrees with 0.29584...; 0.2959 does not).

The labels are written out here as the specification: the headline of a run of >= 5 agents (the mean of each
agent's own Phi) and of a run of fewer (a pooled, descriptive estimate with a circular-shift test) are different
quantities with different labels, and the mean per-cycle Phi is a third.

The default suite runs two small classical runs (8 agents: the per-agent headline; 4 agents: the pooled one),
44 cycles (the per-agent estimate of 7 units needs 43); the main job's configuration (quantum-lite, 32 agents,
50 cycles) is the integration variant.
"""
from __future__ import annotations

import contextlib
import html
import io
import json
import math
import re
import shutil
from pathlib import Path

import pytest

from cognition import report
from cognition.analysis import criteria
from cognition.config.settings import load_config
from cognition.reporting import compare_plot
from cognition.validate import main as validate_main

NUM = r"[-+]?\d+\.\d+(?:e[-+]\d+)?"
HEADLINE = "headline phi_r (mean over agents of each agent's own Phi)"
POOLED = "headline phi_r (pooled over agents, descriptive: too few agents for each agent's own Phi)"
MEAN = "mean per-cycle phi_r"
PHI_CRITERION = {HEADLINE: "Phi estimated and finite (the headline, per-agent mean)",
                 POOLED: "Phi estimated and finite (the headline, pooled over agents: descriptive)"}
TEST_NAME = {HEADLINE: "integration test", POOLED: "circular-shift test (H0: units independent)"}
DIRECTIONS = {"workspace_to_modules": "workspace -> modules", "modules_to_workspace": "modules -> workspace"}
FAST = "phi: {bootstrap: 20, surrogates: 20}\n"  # fewer resamples: the printing is tested, not the intervals


def agrees(printed: str, value) -> bool:
    """``printed`` is ``value`` written at the precision ``printed`` shows (4 decimals, or 3 significant figures
    in scientific notation, a leading + kept)."""
    if value is None or not math.isfinite(value):
        return False
    if "e" in printed:
        digits = len(printed.split("e")[0].split(".")[1])
        return float(printed) == float(f"{value:.{digits}e}")
    digits = len(printed.split(".")[1])
    return printed == f"{value:{'+' if printed.startswith('+') else ''}.{digits}f}"


def document_lines(text: str, kind: str) -> list[str]:
    """The text of a report as lines: bullets and paragraphs as they are, each table row as
    ``first cell: other cells joined by ' | '`` (so a criterion reads as on the CLI). kind: md, html or cli."""
    if kind == "html":
        rows = [[html.unescape(c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr)]
                for tr in re.findall(r"<tr>(.*?)</tr>", text)]
        lines = [html.unescape(t) for t in re.findall(r"<(?:li|p)>(.*?)</(?:li|p)>", text)]
    else:
        rows = [[c.replace("\\|", "|") for c in re.split(r"(?<!\\) \| ", ln.strip()[2:-2])]
                for ln in text.splitlines() if kind == "md" and ln.startswith("| ")]
        lines = [re.sub(r"^\s*(?:- |\[(?:pass|FAIL)\] )", "", ln) for ln in text.splitlines()
                 if not ln.startswith("|")]
    return lines + [f"{r[0]}: {' | '.join(r[1:])}" for r in rows if len(r) > 1]


def run_report_disagreements(place: str, lines: list[str], rep: dict) -> list[str]:
    """Every Phi number a run report (report.md, report.html) or the CLI prints, against report.json."""
    phi = rep["phi"]
    label = POOLED if not phi["whole_run"].get("per_agent") else HEADLINE
    other = HEADLINE if label == POOLED else POOLED
    h, (lo, hi), p = phi["headline_bits"], phi["headline_ci_bits"], phi["headline_p_value"]
    text = "\n".join(lines)
    bad = []

    def check(what: str, pattern: str, values: list, at_least: int = 1) -> None:
        found = re.findall(pattern, text)
        if len(found) < at_least:
            bad.append(f"{place}: {what}: printed {len(found)} times, expected at least {at_least} ({pattern})")
        for got in found:
            got = got if isinstance(got, tuple) else (got,)
            if not all(agrees(g, v) for g, v in zip(got, values)):
                bad.append(f"{place}: {what}: printed {', '.join(got)}, report.json has "
                           f"{', '.join(str(v) for v in values)}")

    # the headline under its label, every time the label is printed, with its own interval and test
    cin = rf"CI \[({NUM}), ({NUM})\] bits"
    if text.count(label) != len(re.findall(re.escape(label) + rf": {NUM} bits(?:, | from \d+ lagged samples, )"
                                           rf"CI \[{NUM}, {NUM}\] bits", text)):
        bad.append(f"{place}: {label!r} printed without the headline and its interval after it")
    check("headline", re.escape(label) + rf": ({NUM}) bits(?:, | from \d+ lagged samples, ){cin}", [h, lo, hi])
    check("headline with its test", re.escape(label) + rf": ({NUM}) bits, {cin}, {re.escape(TEST_NAME[label])} "
          rf"p = ({NUM})", [h, lo, hi, p])
    if other in text:
        bad.append(f"{place}: the label of the other estimate, {other!r}, is printed")
    # every p-value a run report prints is the headline's (its test, the verdict's reason)
    check("p-value", rf"\bp = ({NUM})", [p])
    # the criteria: the number each judges
    check("'Phi estimated and finite'", re.escape(PHI_CRITERION[label]) + rf": ({NUM}) bits", [h])
    check("'integrated'", rf"and the headline above 0: ({NUM}) bits, {cin}, {re.escape(TEST_NAME[label])} "
          rf"p = ({NUM})", [h, lo, hi, p])
    # the loop's differences, each with its interval (the criterion and, in the reports, the control's table)
    for d, name in DIRECTIONS.items():
        r = rep["controls"]["directions"][d]
        diff, (dlo, dhi) = r["difference_bits"], r["difference_ci_bits"]
        check(f"loop: {name}", re.escape(name) + rf" ({NUM}) bits, {cin}", [diff, dlo, dhi])
        if place != "CLI":
            check(f"control table: {name}", re.escape(name) + rf": [\w-]+ \| "
                  rf"({NUM}) bits \| ({NUM}) bits \| ({NUM}) bits \| \[({NUM}), ({NUM})\] bits \| ",
                  [r["intact_bits"], r["twin_bits"], diff, dlo, dhi])
            # Phi at the broadcast cut, descriptive: its own rows, named by the cut, never under the test's
            phi_row = rep["controls"]["phi_at_broadcast_cut"][d]
            check(f"Phi table: {name}", re.escape(name) + rf": [\w-]+ \| broadcast cut \| "
                  rf"({NUM}) bits \| ({NUM}) bits \| ({NUM}) bits \| \[({NUM}), ({NUM})\] bits",
                  [phi_row["intact_bits"], phi_row["twin_bits"], phi_row["difference_bits"],
                   *phi_row["difference_ci_bits"]])
    if place == "CLI":
        return bad
    # the whole-run table's headline row and the descriptive mean per-cycle Phi, with its own interval
    check("whole-run table", rf"(?m)^phi_r: ({NUM}) bits \| [^|\n]+ \| \[({NUM}), ({NUM})\] bits \| ({NUM})$",
          [h, lo, hi, p])
    mlo, mhi = phi["mean_ci_bits"]
    mean = re.escape(MEAN) + rf" \([^)]*\): ({NUM}) bits, 95% CI \[({NUM}), ({NUM})\] bits"
    check(MEAN, mean, [phi["mean_bits"], mlo, mhi], at_least=2)
    if text.count(MEAN) != len(re.findall(mean, text)):
        bad.append(f"{place}: {MEAN!r} printed without the mean per-cycle Phi and its interval after it")
    return bad


def comparison_disagreements(md: str, stdout: str, reps: dict[str, dict]) -> list[str]:
    """comparison.md's runs and pairs tables and the terminal's table against each run's report.json
    (``reps``: the run's label in the comparison -> its report.json)."""
    bad = []
    tables = {}
    for block in re.split(r"\n\n+", md):
        rows = [[c.replace("\\|", "|") for c in re.split(r"(?<!\\) \| ", ln.strip()[2:-2])]
                for ln in block.splitlines() if ln.startswith("| ")]
        if rows:
            tables[rows[0][0]] = [dict(zip(rows[0], r)) for r in rows[1:]]  # the |---| line is not a row
    if sorted(r["run"] for r in tables.get("run", [])) != sorted(reps):
        listed = [r["run"] for r in tables.get("run", [])]
        bad.append(f"comparison.md: the runs table lists {listed}, not {sorted(reps)}")
    if not any(r["a"] != "n/a" for r in tables.get("compared", [])):
        bad.append("comparison.md: no pair of runs was tested")
    for row in tables.get("run", []):
        phi = reps[row["run"]]["phi"]
        pooled = not phi["whole_run"].get("per_agent")
        h, (lo, hi), p = phi["headline_bits"], phi["headline_ci_bits"], phi["headline_p_value"]
        m = re.fullmatch(rf"({NUM}) bits \[({NUM}), ({NUM})\]( \(pooled over agents, descriptive\))?",
                         row["headline phi_r [CI]"])
        if not m or not all(agrees(g, v) for g, v in zip(m.groups(), (h, lo, hi))) or bool(m.group(4)) != pooled:
            bad.append(f"comparison.md: {row['run']}: headline {row['headline phi_r [CI]']!r}, report.json "
                       f"{h} [{lo}, {hi}] ({'pooled' if pooled else 'per agent'})")
        m = re.fullmatch(rf"({NUM})( \(circular shift, not the integration test\))?", row["p (integration test)"])
        if not m or not agrees(m.group(1), p) or bool(m.group(2)) != pooled:
            bad.append(f"comparison.md: {row['run']}: p {row['p (integration test)']!r}, report.json {p}")
        m = re.fullmatch(rf"({NUM}) bits \[({NUM}), ({NUM})\]", row[f"{MEAN} [CI] (descriptive)"])
        if not m or not all(agrees(g, v) for g, v in zip(m.groups(), (phi["mean_bits"], *phi["mean_ci_bits"]))):
            bad.append(f"comparison.md: {row['run']}: mean per-cycle {row[f'{MEAN} [CI] (descriptive)']!r}, "
                       f"report.json {phi['mean_bits']} {phi['mean_ci_bits']}")
        terminal = [ln for ln in stdout.splitlines() if ln.startswith(row["run"] + "  ")]
        cells = (row["headline phi_r [CI]"], row["p (integration test)"], row[f"{MEAN} [CI] (descriptive)"])
        if len(terminal) != 1 or not all(c in terminal[0] for c in cells):
            bad.append(f"terminal table: {row['run']}: {terminal} does not show {cells}")
    for row in tables.get("compared", []):
        a, b = row["compared"].split(" - ")
        for side, run in (("a", a), ("b", b)):
            if row[side] == "n/a":
                continue
            m = re.fullmatch(rf"({NUM}) bits", row[side])
            if not m or not agrees(m.group(1), reps[run]["phi"]["headline_bits"]):
                bad.append(f"comparison.md: pair {row['compared']}: {side} = {row[side]!r}, the headline of {run} "
                           f"is {reps[run]['phi']['headline_bits']}")
    return bad


def plot_disagreements(fig, comparison: dict, reps: dict[str, dict]) -> list[str]:
    """The comparison plot's headline panel (points, intervals, p labels, title) and its mean per-cycle markers."""
    import numpy as np

    bad = []
    ax_t, ax_d, ax_w, _ = fig.axes
    runs = comparison["runs"]
    points = [ln for ln in ax_w.get_lines() if ln.get_marker() == "o"]
    spans = [seg for coll in ax_w.collections for seg in coll.get_segments()]
    notes = [t.get_text() for t in ax_w.texts]
    if not len(points) == len(notes) == len(runs):
        return [f"plot: {len(points)} headline points and {len(notes)} p labels for {len(runs)} runs"]
    for i, r in enumerate(runs):
        phi = reps[r["label"]]["phi"]
        pooled = not phi["whole_run"].get("per_agent")
        if points[i].get_ydata()[0] != phi["headline_bits"]:
            bad.append(f"plot: {r['label']}: headline point {points[i].get_ydata()[0]}, report.json "
                       f"{phi['headline_bits']}")
        if (points[i].get_markerfacecolor() == "white") != pooled:
            bad.append(f"plot: {r['label']}: {'pooled' if pooled else 'per-agent'} headline drawn "
                       f"{'filled' if pooled else 'hollow'}")
        if not any(np.allclose(seg[:, 1], phi["headline_ci_bits"], rtol=0, atol=0) for seg in spans):
            bad.append(f"plot: {r['label']}: no interval drawn at {phi['headline_ci_bits']}")
        m = re.fullmatch(rf"p = ({NUM})(\n\(circular shift\))?", notes[i])
        if not m or not agrees(m.group(1), phi["headline_p_value"]) or bool(m.group(2)) != pooled:
            bad.append(f"plot: {r['label']}: {notes[i]!r}, report.json p {phi['headline_p_value']}")
    title = ax_w.get_title()
    if "Headline Phi" not in title or ("hollow: pooled" in title) != any(
            not reps[r["label"]]["phi"]["whole_run"].get("per_agent") for r in runs):
        bad.append(f"plot: headline panel titled {title!r}")
    means = sorted(float(y) for y in ax_d.collections[-1].get_offsets()[:, 1])
    if means != sorted(reps[r["label"]]["phi"]["mean_bits"] for r in runs):
        bad.append(f"plot: mean per-cycle markers at {means}")
    for label_text in (ax_t.get_title(), ax_d.get_title(), title):
        for stale in ("bootstrap", "surrogate", "whole-run phi"):
            if stale in label_text:
                bad.append(f"plot: a panel title names {stale!r}: {label_text!r}")
    return bad


class KeepFigures:
    """matplotlib.pyplot whose ``close`` keeps the figure, so a test can read what was drawn."""

    def __init__(self, plt):
        self.plt, self.figures = plt, []

    def __getattr__(self, name):
        return getattr(self.plt, name)

    def close(self, fig=None):
        self.figures.append(fig)


def make_runs(base: Path, flags: list[list[str]]) -> list[tuple[Path, str]]:
    """Each run made in this process: (run directory, the CLI's stdout)."""
    out = []
    for i, f in enumerate(flags):
        run_dir = base / f"run{i}"
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert validate_main([*f, "--out", str(run_dir)]) in (0, 1)
        out.append((run_dir, buf.getvalue()))
    return out


def everything(runs: list[tuple[Path, str]], base: Path, monkeypatch) -> dict:
    """Compare the first run with a copy of itself (a pair with a test) and with the other runs; every place's text."""
    first = runs[0][0]
    twin = base / "copy"
    if not twin.exists():
        shutil.copytree(first, twin)
    kept = KeepFigures(compare_plot.pyplot())
    monkeypatch.setattr(compare_plot, "pyplot", lambda: kept)
    dirs = [first, twin] + [r for r, _ in runs[1:]]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert report.main([*map(str, dirs), "--out", str(base / "cmp")]) == 0
    comparison = json.loads((base / "cmp" / "comparison.json").read_text())
    by_label = {r["label"]: json.loads((Path(r["path"]) / "report.json").read_text()) for r in comparison["runs"]}
    return {"runs": runs, "figure": kept.figures[-1], "close": kept.plt.close, "comparison": comparison,
            "by_label": by_label,
            "comparison_md": (base / "cmp" / "comparison.md").read_text(), "report_stdout": buf.getvalue()}


def all_disagreements(made: dict) -> list[str]:
    bad = []
    for run_dir, cli in made["runs"]:
        rep = json.loads((run_dir / "report.json").read_text())
        for place, text, kind in (("CLI", cli, "cli"), ("report.md", (run_dir / "report.md").read_text(), "md"),
                                  ("report.html", (run_dir / "report.html").read_text(), "html")):
            bad += [f"{run_dir.name}: {b}" for b in run_report_disagreements(place, document_lines(text, kind), rep)]
    bad += comparison_disagreements(made["comparison_md"], made["report_stdout"], made["by_label"])
    bad += plot_disagreements(made["figure"], made["comparison"], made["by_label"])
    return bad


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """An 8-agent run (the per-agent headline) and a 4-agent run (the pooled one), classical, 44 cycles."""
    base = tmp_path_factory.mktemp("one-number")
    (base / "fast.yaml").write_text(FAST)
    common = ["--disable-quantum", "--cycles", "44", "--seed", "3", "--config", str(base / "fast.yaml")]
    return base, make_runs(base, [common + ["--agents", "8"], common + ["--agents", "4"]])


@pytest.fixture
def small_places(small, monkeypatch):
    base, runs = small
    made = everything(runs, base, monkeypatch)
    yield made
    made["close"](made["figure"])


def test_every_place_prints_the_run_json_numbers_under_one_label(small_places):
    assert all_disagreements(small_places) == []


def test_the_check_catches_one_place_that_disagrees(small_places, tmp_path):
    """Negative control: one number changed in one place (the whole-run table of report.md) is found, and only
    there; so is the per-agent label put on the pooled estimate's number."""
    run_dir = small_places["runs"][0][0]
    md = (run_dir / "report.md").read_text()
    rep = json.loads((run_dir / "report.json").read_text())
    h = rep["phi"]["headline_bits"]
    row = f"| phi_r | {h:.4f} bits |"
    assert md.count(row) == 1
    perturbed = md.replace(row, f"| phi_r | {h + 1e-4:.4f} bits |")
    bad = run_report_disagreements("report.md", document_lines(perturbed, "md"), rep)
    assert len(bad) == 1 and "whole-run table" in bad[0], bad
    cmp = small_places["comparison_md"]
    cell = f"| {h:.4f} bits | {h:.4f} bits |"  # the pair of the run and its copy: a and b, both the headline
    assert cmp.count(cell) == 1
    bad = comparison_disagreements(cmp.replace(cell, f"| {h:.4f} bits | {h - 1e-4:.4f} bits |"),
                                   small_places["report_stdout"], small_places["by_label"])
    assert len(bad) == 1 and "b = " in bad[0], bad

    pooled_dir = small_places["runs"][1][0]
    pooled_md = (pooled_dir / "report.md").read_text()
    relabelled = pooled_md.replace(POOLED, HEADLINE, 1)
    bad = run_report_disagreements("report.md", document_lines(relabelled, "md"),
                                   json.loads((pooled_dir / "report.json").read_text()))
    assert any("the label of the other estimate" in b for b in bad), bad


def test_the_pooled_run_says_what_its_headline_is(small):
    """The 4-agent run's headline is the pooled plug-in estimate (report.json: no per-agent values) and its
    p-value a circular-shift test: the CLI, its criteria and its report name them so."""
    (_, _), (pooled_dir, cli) = small[1]
    rep = json.loads((pooled_dir / "report.json").read_text())
    assert rep["phi"]["whole_run"]["per_agent"] is None
    assert f"{POOLED}: " in cli and HEADLINE not in cli
    names = [c["name"] for c in rep["criteria"]]
    assert PHI_CRITERION[POOLED] in names and PHI_CRITERION[HEADLINE] not in names
    assert "per-agent" not in rep["phi"]["integrated"]["reason"]


def _phi_criterion(headline, whole_run=None, note=None) -> dict:
    cfg = load_config(overrides={"criteria": {"require_closed_loop": False, "require_significant": False}})
    summary = {"headline_bits": headline, "whole_run": whole_run, "whole_run_note": note}
    checks = criteria.evaluate(cfg, status="completed", phi_summary=summary, controls=None, unrecovered_errors=0,
                               provenance={"device": {}, "classical_components": []})
    return next(c for c in checks if c["name"].startswith("Phi estimated and finite"))


def test_phi_estimated_and_finite_judges_the_headline_alone():
    """It passes on a finite headline and shows it; it fails on a null or non-finite headline (whatever the
    per-cycle values were) and shows that instead."""
    ok = _phi_criterion(0.25, whole_run={"per_agent": {"phi_r": [0.2, 0.3]}})
    assert ok["passed"] and ok["value"] == 0.25 and ok["name"] == PHI_CRITERION[HEADLINE]
    short = _phi_criterion(None, note="each agent has T=30 time steps; ... needs T >= 43")
    assert not short["passed"] and short["value"].startswith("each agent has T=30")
    for bad in (math.nan, math.inf):
        c = _phi_criterion(bad, whole_run={"per_agent": {"phi_r": [bad]}})
        assert not c["passed"] and c["value"] == f"{bad} bits (not finite)", c
    pooled = _phi_criterion(0.1, whole_run={"per_agent": None})
    assert pooled["passed"] and pooled["name"] == PHI_CRITERION[POOLED]


@pytest.mark.integration
def test_the_main_job_prints_one_number_per_label(tmp_path, monkeypatch):
    """The main job's configuration (quantum-lite, 32 agents, 50 cycles, full resampling) and the same at 4
    agents, through every place."""
    runs = make_runs(tmp_path, [["--quantum-lite", "--cycles", "50"], ["--quantum-lite", "--cycles", "50",
                                                                           "--agents", "4"]])
    made = everything(runs, tmp_path, monkeypatch)
    try:
        assert all_disagreements(made) == []
    finally:
        made["close"](made["figure"])
