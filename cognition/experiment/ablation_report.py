"""The report of a factorial ablation: report.json, report.md, report.html, phi_effects.png, behaviour_effects.png.

:func:`write_report` takes what the runner collected (``results = {condition: {seed: summary}}``, the
conditions and contrasts in table order, the settings) and writes every file atomically into
``out_dir``. The statistics are :mod:`cognition.experiment.ablation_stats`'s; report.md and
report.html are one :class:`~cognition.reporting.document.Section` list rendered twice.
"""
from __future__ import annotations

import math
from pathlib import Path

from cognition.experiment.ablation_plots import forest_plot
from cognition.analysis import fmt
from cognition.analysis.statistics import MDE_POWER
from cognition.experiment.ablation_stats import OUTCOMES, PRIMARY, condition_summary, contrast_table, missing_outcomes
from cognition.reporting.document import Figure, Section, Table, html_page, markdown
from cognition.simulator.rundir import write_json
from cognition.runtime.checkpoint import atomic_write

TITLE = "Ablation experiment"
BEHAVIOUR = ["p_act", "switching_rate", "winner_share.expectation", "winner_share.unconscious",
             "winner_share.hybrid", "winner_share.none"]
PLOTTED_BEHAVIOUR = ["p_act", "switching_rate"]
METHOD = ("Each seed is one replicate: it draws the architecture and every noise stream, and all conditions ran "
          "the same seeds. A run's outcome is one number (its agents are averaged first; Phi is the run's "
          "headline, the mean over agents of each agent's own Phi). A contrast condition - reference is tested by the paired t test on "
          "the per-seed differences (n - 1 df, t interval); a seed missing on either side, or whose value is "
          "missing or not finite, is left out and listed. Multiplicity: within each outcome the contrasts are one "
          "family and their p-values are Holm-adjusted together; outcomes are reported separately, Phi is the "
          "primary outcome, the others describe how an ablation acts.")


def _reading_notes(confidence: float) -> list[str]:
    return [
        "Seeds are the replication unit: n is the number of seeds with a value in both conditions of a contrast. "
        "Agents within a seed are averaged first (Phi: the mean of each agent's own Phi), so they are not extra "
        "replicates.",
        f"A {fmt.percent(confidence, 0)} interval that covers 0 with n seeds is a null result at this sample size, not "
        "evidence of no effect: effects smaller than the design can detect are easily missed.",
        f"MDE ({fmt.percent(MDE_POWER, 0)} power): the smallest true mean difference the paired test would detect in "
        f"{fmt.percent(MDE_POWER, 0)} of experiments at alpha = {1 - confidence:.2g} (two-sided), given the "
        "observed SD of the per-seed differences: MDE = (t_{1-alpha/2, n-1} + t_{" + f"{MDE_POWER:g}"
        + ", n-1}) SD / sqrt(n).",
        "Holm p: adjusted within one outcome across the contrasts tested in it (the family); outcomes are not "
        "pooled. Winner shares sum to 1 per run, so their contrasts are not independent findings.",
    ]


def _digits(outcome: str) -> int:
    return 6 if outcome == "noise_var" else 4


def _value(x, outcome: str, ci=None) -> str:
    """``0.0350 bits`` or ``0.0350 [0.0289, 0.0394] bits`` in the outcome's unit."""
    unit, digits = OUTCOMES[outcome][1], _digits(outcome)
    if fmt.number(x) == "n/a":
        return "n/a"
    if ci is None:
        return f"{fmt.number(x, digits)} {unit}".rstrip()
    return f"{fmt.number(x, digits)} {fmt.interval(ci, unit, digits)}".rstrip()


def _contrast_table(rows: list[dict]) -> Table:
    header = ["contrast", "what it isolates", "mean difference [CI]", "p", "Holm p", "n seeds",
              f"MDE ({fmt.percent(MDE_POWER, 0)} power)"]
    return Table(header, [[r["name"], r["isolates"], _value(r["difference"], r["outcome"], r["ci"]),
                           fmt.p_value(r["p_value"]), fmt.p_value(r["p_value_holm"]), str(r["n"]),
                           _value(r["mde"], r["outcome"])] for r in rows])


def _condition_table(conditions: list[dict], summaries: dict, outcomes: list[str]) -> Table:
    """Each condition's mean over its seeds with the t interval, and how many seeds had a value."""
    def cell(summary: dict, outcome: str) -> str:
        return f"{_value(summary['mean'], outcome, summary['ci'])}, {summary['n']}"

    header = ["condition"] + [f"{OUTCOMES[o][0]} [CI], n" for o in outcomes]
    return Table(header, [[c["name"]] + [cell(summaries[c["name"]][o], o) for o in outcomes] for c in conditions])


def _row_notes(rows: list[dict]) -> list[str]:
    """Per contrast: why it was not tested, and its left-out seeds grouped by reason."""
    notes = []
    for r in rows:
        by_reason: dict[str, list] = {}
        for d in r["dropped"]:
            by_reason.setdefault(d["reason"], []).append(str(d["seed"]))
        left_out = "; ".join(f"seed{'s' if len(s) > 1 else ''} {', '.join(s)} ({why})" for why, s in by_reason.items())
        parts = [r.get("note"), f"left out {left_out}" if left_out else None]
        if any(parts):
            notes.append(f"{r['name']} ({OUTCOMES[r['outcome']][0]}): " + "; ".join(p for p in parts if p))
    return notes


def _null_notes(rows: list[dict]) -> list[str]:
    """Each contrast whose interval covers 0: what its n seeds could have detected."""
    return [f"{r['name']}: the interval covers 0 with {r['n']} seeds, a null result at this sample size; "
            f"the design detects a true difference of about {_value(r['mde'], r['outcome'])} "
            f"({fmt.percent(MDE_POWER, 0)} power)" for r in rows if r["ci"] and r["ci"][0] <= 0 <= r["ci"][1]]


def _conditions_section(conditions: list[dict]) -> Section:
    rows = [[c["name"], c.get("label", ""), c.get("isolates", ""),
             ", ".join(f"{k}={v}" for k, v in (c.get("overrides") or {}).items()) or "none",
             ", ".join(map(str, c["seeds"])) or "none"] for c in conditions]
    return Section("Conditions", [Table(["condition", "label", "what it holds or removes", "overrides",
                                         "seeds run"], rows)])


def _settings_section(settings: dict, confidence: float) -> Section:
    lines = [f"{k}: {', '.join(map(str, v)) if isinstance(v, (list, tuple)) else fmt.number(v)}"
             for k, v in settings.items()]
    return Section("Settings", [lines + [f"confidence level: {fmt.percent(confidence, 0)}",
                                         f"primary outcome: {OUTCOMES[PRIMARY][0]} ({OUTCOMES[PRIMARY][2]})"]])


def _outcome_section(title: str, outcomes: list[str], rows: list[dict], conditions, summaries,
                     figure: Figure | None) -> Section:
    blocks: list = [_condition_table(conditions, summaries, outcomes)]
    for o in outcomes:
        these = [r for r in rows if r["outcome"] == o]
        blocks += [f"{OUTCOMES[o][0]}: {OUTCOMES[o][2]}; condition - reference.", _contrast_table(these)]
        blocks += [n for n in [_row_notes(these), _null_notes(these) if o == PRIMARY else []] if n]
    return Section(title, blocks + ([figure] if figure else []))


def _finite(tree):
    """The tree with NaN and infinities as None (strict JSON)."""
    if isinstance(tree, float):
        return tree if math.isfinite(tree) else None
    if isinstance(tree, dict):
        return {k: _finite(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return [_finite(v) for v in tree]
    return tree


def _plots(out: Path, rows: list[dict], present: list[str]) -> dict[str, Figure]:
    by_outcome = {o: [r for r in rows if r["outcome"] == o] for o in [PRIMARY] + PLOTTED_BEHAVIOUR if o in present}
    figures = {}
    if PRIMARY in by_outcome and by_outcome[PRIMARY]:
        path = forest_plot({PRIMARY: by_outcome.pop(PRIMARY)}, out / "phi_effects.png", "Effect on Phi")
        figures[PRIMARY] = Figure(path, "Phi contrasts: mean paired difference with its t interval; 0 = no effect")
    if any(by_outcome.values()):
        path = forest_plot(by_outcome, out / "behaviour_effects.png", "Effect on behaviour")
        figures["behaviour"] = Figure(path, "P(act) and switching-rate contrasts: mean paired difference with "
                                            "its t interval; 0 = no effect")
    return figures


def report_data(results: dict, conditions: list[dict], contrasts: list[dict], settings: dict,
                confidence: float = 0.95) -> dict:
    """Everything report.json holds: settings, per-condition summaries, per-contrast rows, notes, method."""
    absent = missing_outcomes(results, list(OUTCOMES))
    present = [o for o in OUTCOMES if o not in absent]
    summaries = {c["name"]: {o: condition_summary(results.get(c["name"], {}), o, confidence) for o in present}
                 for c in conditions}
    return {"title": TITLE, "settings": settings, "confidence": confidence, "primary_outcome": PRIMARY,
            "outcomes": {o: {"name": n, "unit": u, "meaning": m} for o, (n, u, m) in OUTCOMES.items()},
            "conditions": [{**c, "seeds": sorted(results.get(c["name"], {})), "summaries": summaries[c["name"]]}
                           for c in conditions],
            "contrasts": contrast_table(results, contrasts, present, confidence), "present_outcomes": present,
            "left_out": [f"{OUTCOMES[o][0]} ({o}): no run of any condition has a finite value (not recorded, e.g. "
                         "its module is off, or undefined, e.g. NaN); left out" for o in absent],
            "method": METHOD, "how_to_read": _reading_notes(confidence)}


def _sections(data: dict, figures: dict[str, Figure]) -> list[Section]:
    conditions, rows, present = data["conditions"], data["contrasts"], data["present_outcomes"]
    summaries = {c["name"]: c["summaries"] for c in conditions}
    parts = [_settings_section(data["settings"], data["confidence"]), _conditions_section(conditions)]
    for title, outcomes, figure in (("Effect on Phi", [PRIMARY], figures.get(PRIMARY)),
                                    ("Effect on behaviour", BEHAVIOUR, figures.get("behaviour")),
                                    ("Noise", ["noise_var"], None)):
        shown = [o for o in outcomes if o in present]
        if shown:
            parts.append(_outcome_section(title, shown, rows, conditions, summaries, figure))
    if data["left_out"]:
        parts.append(Section("Left out", [data["left_out"]]))
    return parts + [Section("How to read this", [data["how_to_read"], data["method"]])]


def write_report(out_dir, results: dict, conditions: list[dict], contrasts: list[dict], settings: dict,
                 confidence: float = 0.95) -> dict:
    """Write report.json, report.md, report.html and the forest plots into ``out_dir`` (created if missing),
    each atomically; returns {file name: path} of the files written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = report_data(results, conditions, contrasts, settings, confidence)
    figures = _plots(out, data["contrasts"], data["present_outcomes"])
    sections = _sections(data, figures)
    paths = {f.path.name: f.path for f in figures.values()}
    for name, text in (("report.md", markdown(TITLE, sections)), ("report.html", html_page(TITLE, sections))):
        atomic_write(out / name, text.encode())
        paths[name] = out / name
    write_json(out / "report.json", _finite(data))
    return {**paths, "report.json": out / "report.json"}
