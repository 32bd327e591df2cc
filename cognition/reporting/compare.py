"""Runs side by side: Phi per run, a significance test between conditions, and the cost per cycle.

A condition is a group of runs (``python -m cognition.report --group RUN ... --group RUN ...``)
or one run (``python -m cognition.report RUN_A RUN_B``). Each run is one number, its headline
Phi (``phi.headline_bits`` in report.json: the mean over agents of each agent's own Phi,
bias-corrected; :mod:`cognition.analysis.summary`), the number its report prints and its criteria judge.
Two conditions are compared

* **across runs** when each has at least two: every run (seed, an independently drawn
  architecture) contributes its headline, and the conditions are compared by Welch's t test
  (:func:`cognition.analysis.statistics.welch_difference`). The test speaks for the model as far
  as the seeds sample its architectures;
* **within one seed** when each is a single run: the difference of the two headlines, with
  standard error sqrt(se_a^2 + se_b^2) from each run's standard error across its agents
  (``phi.whole_run.se``), a normal interval and z test
  (:func:`cognition.analysis.statistics.independent_difference`). All agents of a run share one
  seed's architecture, so that test speaks for the two architectures only, and the output
  says so.

A run without a finite, per-agent headline (too few cycles or agents: its ``phi.whole_run_note``
says why) gets "no test" with the reason. One run against several is not tested (the single
run has no spread of its own across seeds). With more than one comparison, p-values are also
given Holm-adjusted, so that "some pair differs" keeps its level. The mean per-cycle Phi
(``phi.mean_bits``, each window pooled over agents) is shown as a description and never
tested: overlapping windows make neighbouring cycles dependent, and the pooled windows
describe the agents' mixture, not an agent.
"""
from __future__ import annotations

import math
from itertools import combinations
from pathlib import Path

import numpy as np

from cognition.errors import UsageError
from cognition.analysis import fmt, wording
from cognition.config.schema import ABSENT, format_value
from cognition.config.settings import recorded_settings
from cognition.reporting.rundata import MODE_NAMES, RunData, load_run
from cognition.reporting.sections import cycle_seconds
from cognition.analysis.statistics import holm, independent_difference, welch_difference

ACROSS_RUNS, ONE_ARCHITECTURE = "across runs (seeds)", "one architecture per side (agents within one seed)"
METHOD_NOTE = ("Each run is one number, its headline Phi (phi.headline_bits: the mean over agents of each agent's "
               "own Phi, bias-corrected), the number its report prints and its criteria judge. Across runs: two "
               "groups of runs (seeds) are compared by Welch's t test on their runs' headlines, with a t interval "
               "of the difference of group means; H0: equal mean over seeds. One run per side: the difference of "
               "the two headlines, with standard error sqrt(se_a^2 + se_b^2) from each headline's standard error "
               "across its run's agents (phi.whole_run.se), a normal interval and a two-sided z test; the agents "
               "share one seed's architecture, so this speaks for the two architectures, not for the model. "
               "Holm-adjusted p-values account for testing every pair. The mean per-cycle Phi is descriptive "
               "(each window pooled over agents) and not tested: overlapping windows make neighbouring cycles "
               "dependent, so a test that treats them as independent observations (Mann-Whitney U, Welch's t on "
               "per-cycle values) would overstate significance.")
LABEL_KEYS = 3  # settings named in a run's or group's label; more are counted ("(+2 more)")
LABEL_VALUE_CHARS = 24  # characters of a setting's value in a label
POOLED_MARK = " (pooled over agents, descriptive)"  # a run with too few agents for the per-agent headline
POOLED_TEST_MARK = " (circular shift, not the integration test)"
ONE_RUN_CAVEAT = ("one run per side: the test's standard error is the spread of each run's agents within its seed, "
                  "so it speaks for these architectures ({seeds}), not for the model; to compare conditions give "
                  "several seeds per side: python -m cognition.report --group RUN RUN ... --group RUN RUN ...")


def _finite(value) -> bool:
    return value is not None and math.isfinite(value)


def headline_missing(phi: dict) -> str | None:
    """Why a run's report.json has no headline a comparison can use, or None."""
    value = phi.get("headline_bits")
    if not _finite(value):
        return phi.get("whole_run_note") or ("no phi.headline_bits in report.json" if value is None
                                             else f"its headline Phi is {value}")
    if not (phi.get("whole_run") or {}).get("per_agent"):
        return f"its headline is a {phi.get('headline_method') or 'pooled estimate'}, not the per-agent Phi"
    return None


def summarise_run(run: RunData, label: str, group: str | None = None) -> dict:
    """One run's row: the headline Phi with its CI, test and standard error, the descriptive per-cycle Phi
    (bits), seconds per cycle, peak memory (bytes)."""
    phi = run.report["phi"]
    m = phi["measure"]
    with_phi = [r for r in run.records if r.get("phi")]
    whole = phi.get("whole_run") or {}
    secs = cycle_seconds(run.records)
    tel = run.report.get("telemetry") or {}
    return {"label": label, "group": group or label, "path": str(run.path), "mode": run.mode,
            "seed": run.provenance.get("seed"), "cycles": run.report["cycles_completed"],
            "agents": run.config["run"]["agents"], "measure": m,
            "window_cycles": phi.get("window_cycles"), "passed": run.report["passed"],
            "headline_bits": phi.get("headline_bits"), "headline_ci_bits": phi.get("headline_ci_bits"),
            "headline_p_value": phi.get("headline_p_value"), "headline_se_bits": (whole.get("se") or {}).get(m),
            "integrated": phi.get("integrated"), "no_headline_reason": headline_missing(phi),
            "headline_pooled": wording.headline_pooled(phi),
            "mean_bits": phi.get("mean_bits"), "mean_ci_bits": phi.get("mean_ci_bits"),
            "phi_cycles": [r["cycle"] for r in with_phi], "phi_bits": [float(r["phi"][m]) for r in with_phi],
            "seconds_per_cycle": secs.tolist(),
            "median_seconds_per_cycle": float(np.nanmedian(secs)) if np.isfinite(secs).any() else None,
            "peak_memory_bytes": tel.get("mem_peak_bytes", tel.get("mem_peak_rss_bytes")),
            "peak_memory_kind": "CUDA tensors" if "mem_peak_bytes" in tel else "process RSS"}


def _numbered(labels: list[str]) -> list[str]:
    """``labels`` with a label that repeats numbered by its position: ``classical #1``, ``classical #2``."""
    return [label if labels.count(label) == 1 else f"{label} #{i + 1}" for i, label in enumerate(labels)]


def _mode_labels(runs: list[RunData]) -> list[str]:
    """Each run's mode, numbered where a mode repeats: the labels of runs whose settings do not differ."""
    return _numbered([r.mode for r in runs])


def _group_mode_labels(groups: list[list[RunData]]) -> list[str]:
    """A group's mode when its runs share one and no other group has it, else "group N (modes)"."""
    modes = [sorted({r.mode for r in g}) for g in groups]
    return [m[0] if len(m) == 1 and modes.count(m) == 1 else f"group {i + 1} ({', '.join(m)})"
            for i, m in enumerate(modes)]


def differing_keys(settings: list[dict]) -> list[str]:
    """The dotted keys whose values are not the same in all of ``settings`` (a key one lacks counts as
    differing), ``quantum.mode`` first, then in the order the settings list them."""
    keys = list(dict.fromkeys(k for s in settings for k in s))
    found = [k for k in keys if any(s.get(k, ABSENT) != settings[0].get(k, ABSENT) for s in settings[1:])]
    return sorted(found, key=lambda k: k != "quantum.mode")


def _setting_text(key: str, value) -> str:
    """One setting in a label: ``quantum.mode`` as the mode's name (classical, quantum-lite, full quantum), a
    run.* key without its section (``seed=3``, as the flag ``--seed``), any other key in full
    (``workspace.threshold=0.5``); a long value cut to :data:`LABEL_VALUE_CHARS` characters."""
    if key == "quantum.mode":
        return MODE_NAMES.get(value, str(value))
    text = format_value(value)
    if len(text) > LABEL_VALUE_CHARS:
        text = text[:LABEL_VALUE_CHARS - 1] + "…"
    return f"{key.removeprefix('run.')}={text}"


def _labels_from(settings: list[dict], keys: list[str]) -> list[str] | None:
    """Each of ``settings`` named by its values of ``keys`` (at most :data:`LABEL_KEYS` of them, the rest
    counted; a name that repeats numbered), or None when there is no key."""
    if not keys:
        return None
    more = f" (+{len(keys) - LABEL_KEYS} more)" if len(keys) > LABEL_KEYS else ""
    return _numbered([", ".join(_setting_text(k, s.get(k, ABSENT)) for k in keys[:LABEL_KEYS]) + more
                      for s in settings])


def run_labels(configs: list[dict]) -> list[str] | None:
    """Runs (each its resolved configuration, config.yaml) named by the settings whose values differ between
    them (:func:`cognition.config.settings.recorded_settings`: fields tagged execution do not count), e.g.
    ``seed=0`` and ``seed=3``, or ``workspace.threshold=0.5, seed=3``; None when no setting differs."""
    settings = [recorded_settings(c) for c in configs]
    return _labels_from(settings, differing_keys(settings))


def group_labels(groups: list[list[dict]]) -> list[str] | None:
    """Groups of runs (each run its config.yaml) named by the settings that every run of a group shares and
    that differ between groups: a setting that differs within a group (the seed of its replicates) is left
    out of every label. None when no setting tells the groups apart."""
    per_group = [[recorded_settings(c) for c in g] for g in groups]
    within = {k for settings in per_group for k in differing_keys(settings)}
    shared = [{k: v for k, v in settings[0].items() if k not in within} for settings in per_group]
    return _labels_from(shared, [k for k in differing_keys(shared) if k not in within])


def _group_notes(label: str, rows: list[dict]) -> list[str]:
    """What makes a group's runs less than independent replicates of one condition."""
    notes = []
    for field in ("mode", "cycles", "agents"):
        values = sorted({str(r[field]) for r in rows})
        if len(values) > 1:
            notes.append(f"group {label}: its runs differ in {field} ({', '.join(values)}), not only in seed")
    seeds = [r["seed"] for r in rows]
    repeated = sorted({str(s) for s in seeds if seeds.count(s) > 1})
    if repeated:
        notes.append(f"group {label}: seed {', '.join(repeated)} given more than once; runs with one seed are the "
                     "same architecture, not independent replicates")
    return notes


def _no_test(rows: list[dict], *, standard_error: bool = False) -> dict | None:
    """{"note": "no test (...)"} naming each run without a usable headline (and, with ``standard_error``,
    without its standard error across agents), or None when every run has what the test needs."""
    missing = [f"{r['label']}: {r['no_headline_reason']}" for r in rows if r["no_headline_reason"]]
    if standard_error:
        missing += [f"{r['label']}: no standard error of its headline across agents in report.json "
                    f"(phi.whole_run.se.{r['measure']})" for r in rows
                    if not r["no_headline_reason"] and r["headline_se_bits"] is None]
    return {"note": "no test (" + "; ".join(missing) + ")"} if missing else None


def _across_runs(a: dict, b: dict) -> dict:
    missing = _no_test(a["rows"] + b["rows"])
    if missing:
        return missing
    test = welch_difference(a["headline_bits"], b["headline_bits"])
    return {**test, "a_bits": a["mean_headline_bits"], "b_bits": b["mean_headline_bits"], "scope": ACROSS_RUNS}


def _within_seed(a: dict, b: dict) -> dict:
    missing = _no_test([a, b], standard_error=True)
    if missing:
        return missing
    test = independent_difference(a["headline_bits"], a["headline_se_bits"], b["headline_bits"], b["headline_se_bits"])
    return {**test, "a_bits": a["headline_bits"], "b_bits": b["headline_bits"], "scope": ONE_ARCHITECTURE,
            "caveat": ONE_RUN_CAVEAT.format(seeds=f"{a['label']}: seed {a['seed']}; {b['label']}: seed {b['seed']}")}


def _test(a: dict, b: dict) -> dict:
    sizes = (len(a["rows"]), len(b["rows"]))
    if min(sizes) >= 2:
        return _across_runs(a, b)
    if sizes == (1, 1):
        return _within_seed(a["rows"][0], b["rows"][0])
    one = a if sizes[0] == 1 else b
    return {"note": f"no test ({one['label']} has one run: the across-run test needs at least 2 runs (seeds) "
                    "in each group, and the within-seed test one run on each side)"}


def compare_groups(groups: list[list[RunData]], labels: list[str] | None = None) -> dict:
    """Rows for each run, each group's per-run headlines, and a test for each pair of groups.

    ``groups``: the runs of each condition (a group of one is one run); ``labels``: a name for each condition,
    by default the settings that differ between them (:func:`group_labels` when a group has several runs, else
    :func:`run_labels`), or their mode when none does. UsageError if the runs use different measures, or for
    a number of labels other than one per condition."""
    runs = [r for g in groups for r in g]
    measures = {r.report["phi"]["measure"] for r in runs}
    if len(measures) > 1:
        raise UsageError(f"the runs use different Phi measures ({', '.join(sorted(measures))}); "
                         "compare runs with the same phi.measure")
    grouped = any(len(g) > 1 for g in groups)
    if labels is None and grouped:
        labels = group_labels([[r.config for r in g] for g in groups]) or _group_mode_labels(groups)
    elif labels is None:
        labels = run_labels([r.config for r in runs]) or _mode_labels(runs)
    if len(labels) != len(groups):
        raise UsageError(f"{len(labels)} label(s) for {len(groups)} conditions; give one label per condition")
    summaries, all_rows, notes = [], [], []
    for g, label in zip(groups, labels):
        rows = [summarise_run(r, f"{label} #{i + 1}" if grouped else label, label) for i, r in enumerate(g)]
        all_rows += rows
        values = [None if r["no_headline_reason"] else r["headline_bits"] for r in rows]  # the test's numbers
        known = [v for v in values if v is not None]
        summaries.append({"label": label, "rows": rows, "runs": [r["label"] for r in rows],
                          "seeds": [r["seed"] for r in rows], "headline_bits": values,
                          "mean_headline_bits": float(np.mean(known)) if known else None,
                          "sd_headline_bits": float(np.std(known, ddof=1)) if len(known) > 1 else None})
        notes += _group_notes(label, rows)
        notes += [f"{r['label']}: {r['no_headline_reason']}; its criteria did not test Phi" for r in rows
                  if _untested(r)]
    tests = [{"a": a["label"], "b": b["label"], **_test(a, b)} for a, b in combinations(summaries, 2)]
    done = [t for t in tests if "p_value" in t]
    if len(done) > 1:
        for t, p in zip(done, holm([t["p_value"] for t in done])):
            t["p_value_holm"] = p
    for s in summaries:
        del s["rows"]
    return {"measure": measures.pop(), "grouped": grouped, "runs": all_rows, "groups": summaries, "tests": tests,
            "notes": notes}


def compare_runs(runs: list[RunData]) -> dict:
    """:func:`compare_groups` with each run its own condition (the within-seed test for each pair)."""
    return compare_groups([[r] for r in runs])


def compare_group_dirs(groups: list[list[str | Path]], labels: list[str] | None = None, *,
                       singles: bool = False) -> dict:
    """:func:`compare_groups` on run directories (NotARunError, one line, for a path that is not a run;
    UsageError for a directory given twice, named as ``RUN_DIR N`` with ``singles``, the RUN_A RUN_B form,
    else as ``--group N``)."""
    seen: dict[Path, int] = {}
    for i, g in enumerate(groups):
        for p in g:
            key = Path(p).resolve()
            if key in seen:
                where = (f"as RUN_DIR {seen[key] + 1} and {i + 1}" if singles else
                         f"in --group {i + 1}" if seen[key] == i else f"in --group {seen[key] + 1} and {i + 1}")
                raise UsageError(f"{p}: given twice ({where}); each run may be compared once")
            seen[key] = i
    return compare_groups([[load_run(p) for p in g] for g in groups], labels)


def compare_dirs(paths: list[str | Path], labels: list[str] | None = None) -> dict:
    """:func:`compare_runs` on run directories (NotARunError, one line, for a path that is not a run), each
    named by its label in ``labels`` or by the settings that differ between them."""
    return compare_group_dirs([[p] for p in paths], labels, singles=True)


def _untested(row: dict) -> bool:
    """A run that passed without a headline: its criteria never tested Phi (a --quick run)."""
    return row["passed"] and not _finite(row["headline_bits"])


def _criteria(row: dict) -> str:
    if not row["passed"]:
        return "FAILED"
    return "passed (no Phi tested)" if _untested(row) else "passed"


def _with_ci(value, ci) -> str:
    """``0.2760 bits [0.1340, 0.5410]``, ``0.2760 bits n/a`` without an interval, ``n/a`` without a value."""
    return "n/a" if fmt.bits(value) == "n/a" else f"{fmt.bits(value)} {fmt.interval(ci, unit='')}"


def table_rows(comparison: dict) -> tuple[list[str], list[list[str]]]:
    """Each run: its headline Phi with CI, integration test and verdict; the descriptive mean per-cycle Phi; cost."""
    m = comparison["measure"]
    header = ["run", "mode", "seed", "cycles", f"headline {m} [CI]", "p (integration test)", "integrated",
              f"{wording.per_cycle_mean_name(m)} [CI] (descriptive)", "s/cycle (median)", "peak memory", "criteria"]
    rows = [[r["label"], r["mode"], str(r["seed"]), str(r["cycles"]),
             _with_ci(r["headline_bits"], r["headline_ci_bits"]) + (POOLED_MARK if r.get("headline_pooled") else ""),
             fmt.p_value(r["headline_p_value"]) + (POOLED_TEST_MARK if r.get("headline_pooled") else ""),
             "n/a" if r["integrated"] is None else ("yes" if r["integrated"]["passed"] else "no"),
             _with_ci(r["mean_bits"], r["mean_ci_bits"]),
             fmt.seconds(r["median_seconds_per_cycle"]), fmt.mib(r["peak_memory_bytes"]),
             _criteria(r)] for r in comparison["runs"]]
    return header, rows


def group_rows(comparison: dict) -> tuple[list[str], list[list[str]]]:
    """Each group: its seeds and the one number per run the across-run test uses, the run's headline."""
    m = comparison["measure"]
    header = ["group", "runs", "seeds", f"headline {m} per run", "group mean", "SD across runs"]
    rows = [[g["label"], str(len(g["runs"])), ", ".join(map(str, g["seeds"])),
             ", ".join(fmt.number(v) for v in g["headline_bits"]), fmt.bits(g["mean_headline_bits"]),
             fmt.bits(g["sd_headline_bits"])] for g in comparison["groups"]]
    return header, rows


def pair_rows(comparison: dict) -> tuple[list[str], list[list[str]]]:
    """Each pair of conditions: the two numbers compared (a, b), a - b with its CI, the p-values."""
    header = ["compared", "a", "b", "a - b [95 % CI]", "test", "p-value", "Holm-adjusted"]
    rows = []
    for t in comparison["tests"]:
        pair = f"{t['a']} - {t['b']}"
        if "p_value" not in t:
            rows.append([pair, "n/a", "n/a", "n/a", "none", "n/a", "n/a"])
        else:
            test = (f"Welch t, df {t['df']:.1f}" if t["scope"] == ACROSS_RUNS else "within seed, z (agents' SE)")
            rows.append([pair, fmt.bits(t["a_bits"]), fmt.bits(t["b_bits"]),
                         _with_ci(t["difference"], t["ci"]), test,
                         fmt.p_value(t["p_value"]), fmt.p_value(t.get("p_value_holm"))])
    return header, rows


def pair_notes(comparison: dict) -> list[str]:
    """What a and b are, the tests' methods and any caveat, once each."""
    notes = []
    scopes = {t.get("scope") for t in comparison["tests"]}
    if ACROSS_RUNS in scopes:
        notes.append("across runs: a and b are the groups' means of their runs' headline Phi (the groups table); "
                     "each seed counts once")
    if ONE_ARCHITECTURE in scopes:
        notes.append("within seed: a and b are the two runs' headline Phi (the runs table); the standard error of "
                     "a - b is sqrt(se_a^2 + se_b^2), each the standard error of a headline across its run's agents")
    for t in comparison["tests"]:
        for note in (f"test: {t['method']}" if "method" in t else None, t.get("caveat"), t.get("note")):
            if note and note not in notes:
                notes.append(note)
    return notes + [n for n in comparison.get("notes", []) if n not in notes]


def _text_table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]


def runs_note(measure: str) -> str:
    """What the runs table's Phi columns are (the terminal's table and comparison.md say the same)."""
    return (f"{measure} in bits; headline: the mean over agents of each agent's own Phi, with its CI across agents "
            "and its integration test, or where marked a run's pooled, descriptive estimate (too few agents) with "
            f"its own interval and circular-shift test; {wording.per_cycle_mean_name(measure)}: descriptive, each "
            "window pooled over agents")


def table_text(comparison: dict) -> str:
    """The comparison as plain-text tables for a terminal."""
    lines = [f"Runs ({runs_note(comparison['measure'])})", ""]
    lines += _text_table(*table_rows(comparison))
    if comparison["grouped"]:
        lines += ["", "Groups (the across-run test's numbers, bits)", ""] + _text_table(*group_rows(comparison))
    lines += ["", f"Headline {comparison['measure']}, each pair of "
                  f"{'groups' if comparison['grouped'] else 'runs'}", ""]
    lines += _text_table(*pair_rows(comparison)) + [""] + pair_notes(comparison)
    lines += [""] + [f"{r['label']}: {r['path']}" for r in comparison["runs"]]
    return "\n".join(lines)


def write_files(comparison: dict, out: str | Path) -> list[Path]:
    """comparison.json, comparison.png, comparison.md and comparison.html in ``out`` (created if missing)."""
    from cognition.reporting import document
    from cognition.reporting.compare_plot import comparison_plot
    from cognition.simulator.rundir import write_json

    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        png = comparison_plot(comparison, out / "comparison.png")
        write_json(out / "comparison.json", comparison)
        title = f"Run comparison: {', '.join(g['label'] for g in comparison['groups'])}"
        groups = [document.Section("Groups", [document.Table(*group_rows(comparison))])]
        body = [document.Section("Runs", [f"The Phi columns: {runs_note(comparison['measure'])}.",
                                          document.Table(*table_rows(comparison)),
                                          [f"{r['label']}: {r['path']}" for r in comparison["runs"]]]),
                *(groups if comparison["grouped"] else []),
                document.Section("Significance", [document.Table(*pair_rows(comparison)),
                                                  pair_notes(comparison), METHOD_NOTE]),
                document.Section("Plots", [document.Figure(png, "headline Phi per run with its CI, the "
                                                                "numbers tested, per-cycle Phi (descriptive) and "
                                                                "seconds per cycle")])]
        (out / "comparison.md").write_text(document.markdown(title, body))
        (out / "comparison.html").write_text(document.html_page(title, body))
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write the comparison ({exc.strerror or exc})") from None
    return [out / n for n in ("comparison.md", "comparison.html", "comparison.png", "comparison.json")]
