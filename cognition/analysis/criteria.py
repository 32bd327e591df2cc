"""Success criteria, checked at the end of a run (config section ``criteria``).

Each default criterion tests a hypothesis and can fail for it (docs/architecture.md,
"Criteria"), and each prints the number it judges: "Phi estimated and finite" the headline
(the mean per-agent Phi; with fewer than 5 agents a pooled, descriptive estimate, and the names of
the Phi criteria say so: cognition.analysis.wording); "integrated" the verdict of
cognition.analysis.summary.integration_verdict
(the within-agent trial-shuffling test of cognition/phi/cut_test.py and the headline's
interval, both required); "the loop closes" the loop test of cognition.phi.directed: per direction of
the loop through the workspace, the agents' directed information minus that of the twins that cut it
(cognition/architecture/controls.py), both required. A
floor on the headline (``min_mean_phi_bits``) is available
but not a default: a fixed number tests nothing by itself.
"""
from __future__ import annotations

import math

from cognition.analysis.summary import DIRECTIONS
from cognition.phi.directed import DIRECTION_LABELS
from cognition.analysis import fmt
from cognition.analysis.wording import headline_numbers, headline_pooled


def evaluate(cfg, *, status: str, phi_summary: dict, provenance: dict, unrecovered_errors: int,
             controls: dict | None = None) -> list[dict]:
    """One entry per criterion: name, passed, value, required."""
    c = cfg.criteria
    out = [{"name": "run completed", "passed": status == "completed", "value": status,
            "required": "completed"},
           {"name": "unrecovered errors", "passed": unrecovered_errors <= c.max_unrecovered_errors,
            "value": unrecovered_errors, "required": f"<= {c.max_unrecovered_errors}"}]
    headline = phi_summary.get("headline_bits")
    finite = headline is not None and math.isfinite(headline)
    # the headline's label says what it is: with too few agents it is a pooled, descriptive estimate
    which = "pooled over agents: descriptive" if headline_pooled(phi_summary) else "per-agent mean"
    shown = (headline if finite else f"{headline} bits (not finite)" if headline is not None
             else phi_summary.get("whole_run_note") or "not estimated")
    if c.require_phi:
        out.append({"name": f"Phi estimated and finite (the headline, {which})", "passed": finite,
                    "value": shown, "required": "a finite number of bits"})
    if c.min_mean_phi_bits is not None:
        out.append({"name": f"Phi (the headline, {which})", "passed": finite and headline >= c.min_mean_phi_bits,
                    "value": shown, "required": f">= {c.min_mean_phi_bits} bits"})
    if c.require_significant:
        verdict = phi_summary.get("integrated") or {"passed": False,
                                                    "reason": phi_summary.get("whole_run_note") or "not estimated"}
        ci, p = phi_summary.get("headline_ci_bits"), phi_summary.get("headline_p_value")
        value = (f"{headline_numbers(phi_summary)}: {verdict['reason']}"
                 if finite and ci and p is not None else verdict["reason"])
        out.append({"name": ("integrated: the circular-shift test rejects independent units (pooled over agents), "
                             "and the headline above 0" if headline_pooled(phi_summary) else
                             "integrated: every bipartition crossed by coupling within agents, and the headline "
                             "above 0"), "passed": bool(verdict["passed"]), "value": value,
                    "required": f"test p-value < {c.alpha} and the headline's CI above 0"
                                + (" (needs phi.surrogates > 0 and phi.bootstrap > 0)"
                                   if cfg.phi.surrogates == 0 or cfg.phi.bootstrap == 0 else "")})
    if c.require_closed_loop:
        out.append(_closed_loop(controls))
    if not c.allow_classical_fallback:
        cpu_fallback = bool(provenance["device"].get("fell_back")) and not cfg.runtime.allow_cpu_fallback
        classical = bool(provenance.get("classical_fallback"))
        fell_back = classical or cpu_fallback
        what = [w for w, hit in (("classical fallback", classical), ("CPU fallback", cpu_fallback)) if hit]
        out.append({"name": "no unrequested fallback", "passed": not fell_back, "value": ", ".join(what) or "none",
                    "required": "no classical or CPU fallback that was not asked for"})
    return out


LOOP = ("the loop closes: each direction (workspace -> modules, modules -> workspace) carries more directed "
        "information in the agents than in the twins that cut it")


def _closed_loop(controls: dict | None) -> dict:
    """The loop test (cognition.phi.loop_test): both paired differences' intervals above 0."""
    directions = (controls or {}).get("directions")
    required = "CI of each direction's difference above 0"
    if not directions:
        why = (controls or {}).get("note") or "no yoked control in this run"
        return {"name": LOOP, "passed": False, "value": why, "required": required}
    parts = [f"{DIRECTION_LABELS[d]} {directions[d]['difference_bits']:+.4f} bits, CI "
             f"{fmt.interval(directions[d]['difference_ci_bits'])}" for d in DIRECTIONS]
    verdict = controls["loop"]
    value = "; ".join(parts) + f": {verdict['reason']}"
    share = controls.get("no_access_share")
    if share is not None:
        value += (f" (no module ignited in {fmt.percent(share)} of agent-cycles: there the broadcast does not "
                  "depend on the proposals, which dilutes modules -> workspace)")
    return {"name": LOOP, "passed": bool(verdict["passed"]), "value": value, "required": required}
