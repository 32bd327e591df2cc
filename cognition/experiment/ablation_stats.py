"""The statistics of a factorial ablation: each condition ran the same seeds, so conditions are compared seed by seed.

Input: ``results = {condition: {seed: summary}}``, one summary per run (see :data:`OUTCOMES` for
the numbers it holds). The replication unit is the seed: it draws the architecture and every
noise stream, and its agents are already averaged into the run's summary (Phi is the run's
headline, the mean over agents of each agent's own Phi). A contrast ``condition - reference`` is tested by the paired t
test on the per-seed differences (:func:`cognition.analysis.statistics.paired_t_difference`); a seed
missing from either side, or whose value is missing or not finite, is left out and listed with
the reason.

Multiplicity: within each outcome, the contrasts are one family and their p-values are
Holm-adjusted together (Holm 1979), so "some ablation changes this outcome" keeps its level.
Outcomes are reported separately, not pooled into one family: Phi is the primary outcome, the
behavioural ones (P(act), switching rate, winner shares) and the noise variance describe how an
ablation acts, and the winner shares sum to 1, so they are not separate findings.

Nothing here depends on the order of the seeds or of the conditions: values are taken in
ascending seed order and each contrast names its two conditions.
"""
from __future__ import annotations

import math

from cognition.analysis.statistics import holm, minimum_detectable_effect, paired_t_difference, t_interval

PRIMARY = "phi_bits"
# outcome -> (name in the report, unit, what it is)
OUTCOMES = {
    "phi_bits": ("Phi", "bits", "the run's headline Phi: the mean over agents of each agent's own Phi (bias-corrected)"),
    "p_act": ("P(act)", "", "the hybrid module's mean P(act) over agents and cycles"),
    "switching_rate": ("switching rate", "", "how often the workspace winner changes, per cycle"),
    "winner_share.expectation": ("winner share: expectation", "", "share of cycles the expectation module wins"),
    "winner_share.unconscious": ("winner share: unconscious", "", "share of cycles the unconscious module wins"),
    "winner_share.hybrid": ("winner share: hybrid", "", "share of cycles the hybrid module wins"),
    "winner_share.none": ("winner share: none", "", "share of cycles without a winner"),
    "noise_var": ("noise variance", "", "the unconscious module's per-unit sampling-noise variance, run mean"),
}


def outcome_value(summary: dict | None, outcome: str) -> float | None:
    """One run's value of ``outcome`` (``winner_share.X`` reads ``summary["winner_shares"]["X"]``); None if absent."""
    if summary is None:
        return None
    if outcome.startswith("winner_share."):
        value = (summary.get("winner_shares") or {}).get(outcome.split(".", 1)[1])
    else:
        value = summary.get(outcome)
    return None if value is None else float(value)


def outcome_values(by_seed: dict, outcome: str) -> dict:
    """{seed: value or None} of one condition's runs."""
    return {seed: outcome_value(summary, outcome) for seed, summary in by_seed.items()}


def _usable(value) -> bool:
    return value is not None and math.isfinite(value)


def _why_dropped(value, side: str) -> str | None:
    if value is None:
        return f"missing in {side}"
    return None if math.isfinite(value) else f"non-finite in {side} ({value})"


def paired_difference(a: dict, b: dict, confidence: float = 0.95, names: tuple[str, str] = ("a", "b")) -> dict:
    """The paired difference a - b over the seeds that have a finite value in both ({seed: value} each).

    Returns :func:`~cognition.analysis.statistics.paired_t_difference`'s keys (``difference``, ``sd``,
    ``standard_error``, ``ci``, ``t``, ``df``, ``p_value``, ``n``, ``method``, ``note``) plus ``seeds``
    and ``differences`` (per seed, ascending), ``dropped`` ([{seed, reason}], reasons named after
    ``names``) and ``mde`` (:func:`minimum_detectable_effect`). With fewer than 2 seeds the test
    keys are None and ``note`` says why; it never raises on missing data.
    """
    seeds, dropped = [], []
    for seed in sorted(set(a) | set(b)):
        reasons = [r for r in (_why_dropped(a.get(seed), names[0]), _why_dropped(b.get(seed), names[1])) if r]
        if reasons:
            dropped.append({"seed": seed, "reason": "; ".join(reasons)})
        else:
            seeds.append(seed)
    out = {"seeds": seeds, "differences": [a[s] - b[s] for s in seeds], "dropped": dropped,
           "n": len(seeds), "confidence": confidence}
    if len(seeds) < 2:
        mean = out["differences"][0] if seeds else None
        return {**out, "difference": mean, "sd": None, "standard_error": None, "ci": None, "t": None,
                "df": None, "p_value": None, "mde": None, "method": "paired t test across seeds",
                "note": f"{len(seeds)} seed(s) with a finite value in both {names[0]} and {names[1]}: "
                        "a paired test needs at least 2"}
    test = paired_t_difference([a[s] for s in seeds], [b[s] for s in seeds], confidence)
    return {**out, **test, "mde": minimum_detectable_effect(test["sd"], test["n"], confidence)}


def condition_summary(by_seed: dict, outcome: str, confidence: float = 0.95) -> dict:
    """One condition's mean of ``outcome`` over its seeds with the t interval (n - 1 df), per-seed values
    in ascending seed order, and the seeds left out (missing or non-finite value)."""
    values = outcome_values(by_seed, outcome)
    seeds = sorted(s for s, v in values.items() if _usable(v))
    dropped = [{"seed": s, "reason": _why_dropped(values[s], "this condition")}
               for s in sorted(values) if s not in seeds]
    mean, low, high = t_interval([values[s] for s in seeds], confidence) if seeds else (None, None, None)
    return {"outcome": outcome, "mean": mean, "ci": None if low is None else [low, high],
            "n": len(seeds), "seeds": seeds, "values": [values[s] for s in seeds], "dropped": dropped,
            "confidence": confidence}


def missing_outcomes(results: dict, outcomes) -> list[str]:
    """The outcomes with no finite value in any run of any condition (reported as left out, not tested)."""
    return [o for o in outcomes
            if not any(_usable(v) for by_seed in results.values() for v in outcome_values(by_seed, o).values())]


def contrast_row(results: dict, contrast: dict, outcome: str, confidence: float = 0.95) -> dict:
    """One contrast's paired difference condition - reference in ``outcome`` (a note if a side has no results)."""
    row = {"outcome": outcome, "name": contrast["name"], "condition": contrast["condition"],
           "reference": contrast["reference"], "isolates": contrast.get("isolates", "")}
    absent = [k for k in (contrast["condition"], contrast["reference"]) if k not in results]
    if absent:
        return {**row, "n": 0, "difference": None, "p_value": None, "ci": None, "mde": None, "seeds": [],
                "differences": [], "dropped": [], "note": f"no results for {', '.join(absent)}"}
    return {**row, **paired_difference(outcome_values(results[contrast["condition"]], outcome),
                                       outcome_values(results[contrast["reference"]], outcome),
                                       confidence, names=(contrast["condition"], contrast["reference"]))}


def _adjust_within(family: list[dict]) -> None:
    """Holm over the rows of one outcome that have a p-value; ``p_value_holm`` None for the others."""
    tested = [r for r in family if r["p_value"] is not None]
    adjusted = dict(zip(map(id, tested), holm([r["p_value"] for r in tested]))) if tested else {}
    for r in family:
        r["p_value_holm"], r["family_size"] = adjusted.get(id(r)), len(tested)


def contrast_table(results: dict, contrasts: list[dict], outcomes, confidence: float = 0.95) -> list[dict]:
    """For each outcome with data and each contrast, the paired difference condition - reference.

    Rows come outcome by outcome in the order of ``outcomes`` (those of :func:`missing_outcomes`
    left out), then in contrast order; each is a :func:`contrast_row` plus ``p_value_holm`` and
    ``family_size``: Holm-adjusted within the outcome across the contrasts that could be tested
    (one family per outcome; see the module docstring).
    """
    absent = set(missing_outcomes(results, outcomes))
    rows = []
    for outcome in [o for o in outcomes if o not in absent]:
        family = [contrast_row(results, c, outcome, confidence) for c in contrasts]
        _adjust_within(family)
        rows += family
    return rows
