"""Why a run met its criteria or did not, in words that say what to change.

``explain(report, config)`` takes a run's report.json and config.yaml as dicts (``RunResults.report``
and ``RunResults.config``, or the files read back) and returns lines: the verdict and the exit code
``python -m cognition.validate`` gives it, each criterion as the command line prints it, then, for
each failed criterion and for a headline that is not the calibrated per-agent estimate, why at this
run's size (agents, cycles, units), with the page of the docs that measures it. Every statement is
derived from the run's own numbers and the package's thresholds (``cognition.phi.agents``); the
measured rates stay in docs/calibration.md and docs/architecture.md, which the lines point to.
"""
from __future__ import annotations

from cognition.phi.directed import DIRECTION_LABELS
from cognition.phi.agents import MIN_AGENTS, PAIRS_PER_VARIABLE
from cognition.analysis import fmt
from cognition.reporting.sections import criterion_value

CALIBRATION = "docs/calibration.md"
CRITERIA = 'docs/architecture.md, "Criteria"'


def min_cycles(n_units: int, lag: int = 1) -> int:
    """Cycles each agent needs for the calibrated per-agent Phi of ``n_units`` units (cognition.phi.agents)."""
    return PAIRS_PER_VARIABLE * 2 * n_units + lag


def explain(report: dict, config: dict) -> list[str]:
    """The verdict, every criterion, and why each failure happened at this size (see the module docstring)."""
    phi = report["phi"]
    agents, cycles = int(config["run"]["agents"]), int(report["cycles_completed"])
    n, lag = len(phi["unit_names"]), int(phi["lag"])
    need = min_cycles(n, lag)
    lines = [("every criterion passed (python -m cognition.validate exits 0)" if report["passed"]
              else "a criterion failed (python -m cognition.validate exits 1)")]
    lines += [f"  [{'pass' if c['passed'] else 'FAIL'}] {c['name']}: {criterion_value(c)}" for c in report["criteria"]]
    why = _size_notes(phi, config, agents, n, need)
    for c in report["criteria"]:
        if not c["passed"]:
            why += _why_failed(c, report, agents, float(config["criteria"]["alpha"]))
    if why:
        lines.append(f"why, at this size ({agents} agents x {cycles} cycles, {n} units):")
        lines += [f"  - {w}" for w in why]
    return lines


def _size_notes(phi: dict, config: dict, agents: int, n: int, need: int) -> list[str]:
    """What kind of estimate the headline is at this size, when it is not the calibrated per-agent one."""
    whole = phi.get("whole_run")
    if whole is None or whole.get("per_agent"):
        return []
    cause = (f"with {agents} agents (fewer than {MIN_AGENTS})" if agents < MIN_AGENTS
             else f"with phi.centre: {config.get('phi', {}).get('centre')}")
    return [f"{cause} the whole-run Phi is the plug-in estimate pooled over agents, which is descriptive: its "
            "interval is a block bootstrap within agents and its p-value a circular-shift test of \"the units are "
            "independent processes\", which docs/phi.md calls invalid for agents whose units share a time course, "
            "so its \"integrated\" verdict is not calibrated either way. The per-agent estimate and its "
            f"trial-shuffling test need at least {MIN_AGENTS} agents and {need} cycles for these {n} units; "
            f"{CALIBRATION} measures them at 8 and 32 agents x 50 and 200 cycles"]


def _why_failed(c: dict, report: dict, agents: int, alpha: float) -> list[str]:
    name, phi = c["name"], report["phi"]
    if name.startswith("Phi estimated"):
        return [f"no whole-run Phi: {phi.get('whole_run_note') or 'not estimated'}"]
    if name.startswith("integrated"):
        return _why_not_integrated(phi, agents, alpha)
    if name.startswith("the loop closes"):
        return _why_no_loop(report.get("controls") or {})
    if name in ("run completed", "unrecovered errors"):
        return [f"the run did not finish cleanly: {report.get('message') or report['status']}"]
    if name == "no unrequested fallback":
        return [f"the run fell back ({c['value']}) without being allowed to; the report's provenance says why"]
    return []


def _why_not_integrated(phi: dict, agents: int, alpha: float) -> list[str]:
    whole = phi.get("whole_run")
    if whole is None:
        return []  # "Phi estimated and finite" failed and says why
    if not whole.get("per_agent"):
        return ["\"integrated\" is not judged by the calibrated test at this size (above)"]
    h, ci, p = phi.get("headline_bits"), phi.get("headline_ci_bits"), phi.get("headline_p_value")
    if ci is None or p is None:
        return [f"not judged: {phi['integrated']['reason']} (set phi.bootstrap and phi.surrogates above 0)"]
    why = []
    if h <= 0:
        why.append(f"the headline is {fmt.bits(h)}: no integration to show in this run")
    elif ci[0] <= 0:
        why.append(f"the headline is {fmt.bits(h)}, but with {agents} agents its interval {fmt.interval(ci)} is "
                   f"{fmt.bits(ci[1] - ci[0])} wide and reaches {fmt.number(ci[0])}: this run does not show a mean per-agent Phi of about {h:.2f} bits "
                   "above 0")
    if p >= alpha:
        cut = " | ".join(", ".join(part) for part in phi.get("weakest_cut") or [])
        why.append(f"the test does not show every bipartition crossed by coupling within agents (p = {fmt.p_value(p)} >= "
                   f"{alpha}" + (f", at the weakest cut {cut})" if cut else ")"))
    why.append(f"more agents narrow the interval across agents, more cycles each agent's error; {CALIBRATION} "
               "(\"Accuracy and coverage\", \"The main job over seeds 0-19\") gives the verdict's measured power at "
               "8 and 32 agents x 50 and 200 cycles")
    return why


def _why_no_loop(controls: dict) -> list[str]:
    directions = controls.get("directions")
    calib = controls.get("calibration")
    if calib:  # the record's figures at the run's size (the nearest measured), as the report quotes them
        lo, hi = calib["closed_loop_passes"]
        size = f"{calib['size'][0]} agents x {calib['size'][1]} cycles"
        measured = f"in {fmt.percent(lo)}-{fmt.percent(hi)} of linear toys at {size}"
    else:
        measured = "in >= 99 % of linear toys at 32 agents x 50 cycles"
    power = (f"the loop test finds a closed loop with the cycle's timing {measured} ({CALIBRATION}, \"The loop "
             "test\"), so a direction not shown here is weak or absent in these agents, or the run is too short "
             "or has too few agents")
    if not directions:
        note = controls.get("note") or "no yoked control in this run (--control none)"
        return [f"the loop's control was not estimated: {note}"]
    above = {d: v["difference_ci_bits"][0] > 0 for d, v in directions.items()}
    shown = [DIRECTION_LABELS[d] for d, ok in above.items() if ok]
    missing = [DIRECTION_LABELS[d] for d, ok in above.items() if not ok]
    lines = [f"not shown: {', '.join(missing)}" + (f"; shown: {', '.join(shown)}" if shown else "")]
    identical = [DIRECTION_LABELS[d] for d, v in directions.items() if v.get("twins_identical")]
    if identical:
        lines.append(f"cut in the agents themselves (a lesion): {', '.join(identical)}; the twins equal the agents "
                     "bit for bit, so that direction cannot be shown (a check of the construction)")
    share = controls.get("no_access_share")
    if DIRECTION_LABELS["modules_to_workspace"] in missing and share is not None:
        lines.append(f"no module ignited in {fmt.percent(share)} of agent-cycles; there the broadcast does not depend "
                     "on the proposals, which dilutes modules -> workspace")
    lines.append(power)
    return lines