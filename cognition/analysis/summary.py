"""End-of-run Phi summary: the run's estimate (the headline) and the descriptive per-cycle mean.

* ``headline_bits``: the whole-run estimate of :func:`cognition.phi.estimate` on every recorded
  cycle and agent: for an ensemble, the mean over agents of each agent's own Phi (its minimum over
  bipartitions, bias-corrected), with its interval across agents (``headline_ci_bits``) and the
  within-agent trial-shuffling test (``headline_p_value``); ``integrated`` joins them into one
  verdict. This is the number the run reports and every comparison reads.
* ``mean_bits`` (descriptive): the average over cycles of the per-cycle Phi, each over a trailing
  window of cycles pooled over agents, so of the mixture of agents, not of any one. Its batch-means
  t interval (non-overlapping batches as long as the window; Schmeiser 1982) describes that series;
  it is not calibrated as an estimate of any agent's integration.
"""
from __future__ import annotations

import numpy as np

from cognition import phi
from cognition.analysis import fmt
from cognition.analysis.calibration_record import applicable_calibration, applicable_loop_calibration
from cognition.analysis.statistics import batch_means_ci
from cognition.phi.difference import paired_differences
from cognition.phi.directed import loop_test


def summarise_phi(cfg, records: list[dict], units: np.ndarray, unit_names: list[str], window: int) -> dict:
    """The ``phi`` section of report.json."""
    measure = cfg.phi.measure
    per_cycle = np.array([r["phi"][measure] for r in records if r.get("phi")], dtype=np.float64)
    out = {"measure": measure, "units": "bits", "lag": cfg.phi.lag, "window_cycles": window,
           "unit_names": unit_names, "n_cycles_with_phi": int(len(per_cycle))}
    if len(per_cycle):
        ci = batch_means_ci(per_cycle, window, cfg.phi.confidence)
        out.update(mean_bits=float(per_cycle.mean()), mean_ci_bits=list(ci) if ci else None,
                   confidence=cfg.phi.confidence,
                   mean_ci_method=(f"batch means t interval: {len(per_cycle) // window} non-overlapping batches of "
                                   f"{window} per-cycle values" if ci else f"none: {len(per_cycle)} per-cycle values, "
                                   f"fewer than two batches of {window}; run more cycles for a CI"))
    else:
        out.update(mean_bits=None, mean_ci_bits=None, note=f"no cycle reached the Phi window of {window} cycles")
    out.update(_whole_run(cfg, units[:, :len(records), :], unit_names))
    return out


def _whole_run(cfg, units: np.ndarray, unit_names: list[str]) -> dict:
    """Phi over every recorded cycle and agent, with CI and test; a note instead where it cannot be estimated."""
    try:
        r = phi.estimate(units, lag=cfg.phi.lag, shrinkage=cfg.phi.shrinkage, bootstrap=cfg.phi.bootstrap,
                         surrogates=cfg.phi.surrogates, seed=cfg.run.seed, confidence=cfg.phi.confidence,
                         centre=cfg.phi.centre)
    except ValueError as exc:  # e.g. too few cycles per agent for a calibrated per-agent estimate
        return {"whole_run": None, "whole_run_note": str(exc)}
    whole = r.to_dict()
    mib = [list(map(int, part)) for part in r.mib]
    whole["mib_named"] = [[unit_names[i] for i in part] for part in mib]
    measure = cfg.phi.measure
    weakest = (r.weakest_cut or {}).get(measure)
    per_agent = r.per_agent is not None
    ci = list((r.ci or {}).get(measure, ())) or None
    p = (r.p_value or {}).get(measure)
    return {"whole_run": whole, "partition": mib, "partition_named": whole["mib_named"],
            "weakest_cut": None if weakest is None else [[unit_names[i] for i in part] for part in weakest],
            "headline_bits": r.headline(measure), "headline_ci_bits": ci, "headline_p_value": p,
            "integrated": integration_verdict(r.headline(measure), ci, p, cfg.criteria.alpha, pooled=not per_agent),
            "mib_stability": r.mib_stability,
            "calibration": applicable_calibration(units.shape[0], units.shape[1]) if per_agent else None,
            "headline_method": ("mean over agents of each agent's own Phi (its minimum over bipartitions, "
                                "bias-corrected; shared course removed)" if per_agent
                                else "plug-in whole-run estimate, pooled over agents (descriptive)")}


def integration_verdict(headline: float, ci, p, alpha: float, pooled: bool = False) -> dict:
    """One answer to "is the ensemble integrated?" from the headline, its interval and the test.

    Integrated only when the test rejects (p < alpha: every bipartition is crossed by coupling within
    agents) and the interval of the mean per-agent Phi lies above 0; both are level-alpha statements, so
    requiring both keeps the level (an intersection-union rule). When they disagree the reason says which.
    ``pooled``: the headline is the pooled plug-in estimate of a run with too few agents, its p-value a
    circular-shift test; the same rule, and the reason names those two instead.
    """
    if p is None or ci is None:
        missing = " and ".join(w for w, v in (("no test (phi.surrogates: 0)", p), ("no interval (phi.bootstrap: 0)",
                                                                                      ci)) if v is None)
        return {"passed": False, "reason": f"not judged: {missing}"}
    test, above = p < alpha, ci[0] > 0
    if pooled:
        return {"passed": bool(test and above), "reason": _pooled_reason(test, above, p, alpha)}
    if test and above:
        reason = "the test rejects independence at every bipartition and the interval of the per-agent mean is above 0"
    elif test:
        reason = ("the test finds every bipartition crossed by coupling in some agents, but the interval of the "
                  "mean per-agent Phi includes 0: integration is not shown for the agents on average")
    elif above:
        reason = (f"the interval of the mean per-agent Phi is above 0, but some bipartition's parts are not shown "
                  f"to be coupled (p = {fmt.p_value(p)} >= {alpha}): not shown")
    else:
        reason = "neither the test nor the interval shows integration"
    return {"passed": bool(test and above), "reason": reason}


def _pooled_reason(test: bool, above: bool, p, alpha: float) -> str:
    """integration_verdict's reason for a pooled headline (descriptive: too few agents for the integration test)."""
    test_text = ("the circular-shift test rejects independent units" if test else
                 f"the circular-shift test does not reject independent units (p = {fmt.p_value(p)} >= {alpha})")
    interval = f"the interval of the pooled estimate {'is above' if above else 'includes'} 0"
    return (f"{test_text} and {interval}; descriptive: too few agents for each agent's own Phi and the "
            "integration test")


def broadcast_cut(unit_names: list[str]) -> np.ndarray:
    """The bipartition the twins act on: True for the workspace's units, False for the modules'."""
    return np.array([name.startswith("workspace.") for name in unit_names])


# The two directions of the loop through the workspace (cognition.phi.directed), and the twin group that cuts
# each (cognition/architecture/controls.py).
DIRECTIONS = {"workspace_to_modules": "yoked", "modules_to_workspace": "yoked_proposals"}
MAX_WINDOWS = 20  # the time-resolved control widens its windows beyond this many


def loop_verdict(test) -> dict:
    """{"passed", "reason"} of a :class:`cognition.phi.directed.LoopTest`: the loop is shown closed only when
    both directions' intervals lie above 0 (an intersection-union test; Berger 1982)."""
    return {"passed": bool(test.passed), "reason": test.reason}


def control_windows(cycles: int, window: int) -> list[tuple[int, int]]:
    """Consecutive windows of ``window`` cycles ending with the run's last cycle, the earliest remainder
    joined to the first; widened so that there are at most MAX_WINDOWS. [(start, stop)], 0-based, stop exclusive."""
    length = max(int(window), -(-cycles // MAX_WINDOWS))
    count = max(1, cycles // length)
    edges = [cycles - (count - k) * length for k in range(count)] + [cycles]
    edges[0] = 0
    return list(zip(edges[:-1], edges[1:]))


def run_loop_test(groups: dict, cut: np.ndarray, confidence: float):
    """The run's criterion: :func:`cognition.phi.loop_test` of the agents against the twins that cut each
    direction, the modules' units against the workspace's (``cut``: True for the workspace's units)."""
    return loop_test(groups["intact"], groups[DIRECTIONS["workspace_to_modules"]],
                     groups[DIRECTIONS["modules_to_workspace"]], modules=np.flatnonzero(~cut).tolist(),
                     workspace=np.flatnonzero(cut).tolist(), confidence=confidence)


def loop_rows(test) -> dict:
    """report.json's ``controls.directions``: per direction, the twin group and the loop test's numbers."""
    return {d: {"twin": DIRECTIONS[d], **test.directions[d].to_dict()} for d in DIRECTIONS}


def direction_rows(intact: np.ndarray, groups: dict, cut: np.ndarray, *, measure: str, lag: int,
                   confidence: float, seed: int) -> dict:
    """Phi at the broadcast cut, per direction of the loop (descriptive since 0.6.0): the agents against the
    twins that cut it (``groups[DIRECTIONS[d]]``) at ``cut`` and at each side's MIB: each side's mean, the
    mean paired difference, its SE and interval. Not a test of the direction: a loop closed within one
    cycle is, to Phi at this cut, the workspace predicting itself (cognition.phi.directed)."""

    twins = {d: groups[t] for d, t in DIRECTIONS.items()}
    got = paired_differences(intact, twins, cut=cut, lag=lag, confidence=confidence, seed=seed)

    def row(m):
        return {"intact_bits": m["a"], "twin_bits": m["b"], "difference_bits": m["estimate"],
                "difference_se_bits": m["se"], "difference_ci_bits": list(m["ci"]),
                "excludes_zero": bool(m["ci"][0] > 0 or m["ci"][1] < 0)}

    return {d: {"twin": DIRECTIONS[d], **row(got[d][measure]), "twins_identical": bool(np.array_equal(intact, twins[d])),
                "at_mib": row(got[d]["at_mib"][measure]), "pairs": got[d]["pairs"], "dof": got[d]["dof"]}
            for d in DIRECTIONS}


def summarise_controls(cfg, groups: dict, cycles: int, unit_names: list[str], no_access: float | None = None) -> dict:
    """report.json's ``controls``: the loop test (the criterion "the loop closes"; cognition.phi.directed) of
    the agents against the twins that cut each direction of the loop through the workspace, with its
    verdict; the same test per window of cycles (``control.window``), with whether the loop is shown closed
    in the last one; and, as a description, Phi at the broadcast cut of agents and twins
    (``phi_at_broadcast_cut``). ``no_access``: the share of agent-cycles in which no module ignited (the
    broadcast then does not depend on the proposals), quoted beside the verdict."""
    head = {"lesion": cfg.control.lesion, "measure": "directed information", "phi_measure": cfg.phi.measure,
            "confidence": cfg.phi.confidence, "no_access_share": no_access}
    if "yoked" not in groups:
        return {**head, "directions": None, "note": "no yoked control in this run (control.yoked: false)"}
    cut = broadcast_cut(unit_names)
    trimmed = {k: v[:, :cycles] for k, v in groups.items()}
    try:
        test = run_loop_test(trimmed, cut, cfg.phi.confidence)
    except ValueError as exc:  # too few agents or cycles, a constant unit
        return {**head, "directions": None, "note": str(exc)}
    try:
        described = direction_rows(trimmed["intact"], trimmed, cut, measure=cfg.phi.measure, lag=cfg.phi.lag,
                                   confidence=cfg.phi.confidence, seed=cfg.run.seed)
    except ValueError as exc:  # Phi needs more cycles than the loop test
        described = {"note": str(exc)}
    spans = control_windows(cycles, cfg.control.window)
    rows = []
    for start, stop in spans:
        try:
            part = (test if (start, stop) == (0, cycles) else
                    run_loop_test({k: v[:, start:stop] for k, v in trimmed.items()}, cut, cfg.phi.confidence))
        except ValueError as exc:
            rows.append({"cycles": [start + 1, stop], "note": str(exc)})
            continue
        rows.append({"cycles": [start + 1, stop], "loop": part.passed,
                     **{d: {k: v for k, v in part.directions[d].to_dict().items()
                            if k in ("difference_bits", "difference_ci_bits", "p_value")} for d in DIRECTIONS}})
    last = rows[-1].get("loop")
    return {**head, "cut": [[n for n, w in zip(unit_names, cut) if not w], [n for n, w in zip(unit_names, cut) if w]],
            "method": ("per agent, each direction's directed information with the cycle's order (workspace -> "
                       "modules: I(b_{t-1}; m_t | m_{t-1}); modules -> workspace: I(m_t; b_t | b_{t-1})), Wishart-"
                       "corrected; mean of the agent-minus-twin differences with a t interval across pairs; the "
                       "loop closes when both intervals lie above 0 (cognition.phi.loop_test)"),
            "directions": loop_rows(test), "loop": loop_verdict(test), "phi_at_broadcast_cut": described,
            "collinear_units": {unit_names[int(i)]: pairs for i, pairs in test.collinear.items()},
            "calibration": applicable_loop_calibration(trimmed["intact"].shape[0], cycles),
            "windows": {"cycles_per_window": spans[-1][1] - spans[-1][0], "rows": rows, "last_window_loop": last}}
