"""End-of-run Phi summary: the per-cycle mean with its CI, and the whole-run estimate.

Two numbers answer two questions:

* ``mean_bits``: the average over cycles of the per-cycle Phi (each over a
  trailing window of cycles, pooled over agents). Its confidence interval is a
  batch-means t interval of that series (non-overlapping batches as long as the window,
  because overlapping windows make neighbouring values dependent; Schmeiser 1982).
* ``whole_run``: Phi estimated once from every recorded cycle and agent, with
  the bootstrap CI and the surrogate null model of :func:`cognition.phi.estimate`
  (the p-value says whether Phi is distinguishable from zero).
"""
from __future__ import annotations

import numpy as np


def batch_means_ci(series: np.ndarray, batch: int, confidence: float) -> tuple[float, float] | None:
    """t interval of the mean of a dependent series by non-overlapping batch means.

    The series' last ``b * batch`` values (b = len // batch, the earliest remainder left out)
    are cut into b consecutive batches; their means are treated as b independent values, and
    the interval is mean +- t_{b-1} sd(batch means) / sqrt(b) around the whole series' mean
    (Schmeiser 1982, Oper. Res. 30:556). With batches as long as the Phi window, batch means
    share no cycle's data. Measured coverage of the nominal 95 % on a stationary VAR(1)
    (docs/calibration.md, ``python -m cognition.bench meanci``): 92.3 / 92.0 % at 8 / 32 agents x
    50 cycles, 93.7 / 86.7 % at 200 cycles; the block bootstrap it replaced covered 73.3 / 71.7 /
    89.0 / 81.3 %, because with 3 or 4 blocks it underestimates the variance. None with fewer
    than two batches.
    """
    from scipy import stats

    x = np.asarray(series, dtype=np.float64)
    b = len(x) // batch
    if b < 2:
        return None
    means = x[len(x) - b * batch:].reshape(b, batch).mean(axis=1)
    half = float(stats.t.ppf(0.5 + confidence / 2, b - 1) * means.std(ddof=1) / np.sqrt(b))
    centre = float(x.mean())
    return (centre - half, centre + half)


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
    """Phi over every recorded cycle and agent, with CI and null model (None if too few samples)."""
    from cognition import phi
    from cognition.benchmarks.calibration import applicable_calibration

    try:
        r = phi.estimate(units, lag=cfg.phi.lag, shrinkage=cfg.phi.shrinkage, bootstrap=cfg.phi.bootstrap,
                         surrogates=cfg.phi.surrogates, seed=cfg.run.seed, confidence=cfg.phi.confidence,
                         centre=cfg.phi.centre)
    except ValueError as exc:  # e.g. fewer lagged samples than variables
        return {"whole_run": None, "whole_run_note": str(exc)}
    whole = r.to_dict()
    mib = [list(map(int, part)) for part in r.mib]
    whole["mib_named"] = [[unit_names[i] for i in part] for part in mib]
    measure = cfg.phi.measure
    weakest = (r.weakest_cut or {}).get(measure)
    return {"whole_run": whole, "partition": mib, "partition_named": whole["mib_named"],
            "weakest_cut": None if weakest is None else [[unit_names[i] for i in part] for part in weakest],
            "headline_bits": r.headline(measure), "headline_ci_bits": list((r.ci or {}).get(measure, ())) or None,
            "headline_p_value": (r.p_value or {}).get(measure), "mib_stability": r.mib_stability,
            "mib_candidates": r.mib_candidates,
            "calibration": (applicable_calibration(units.shape[0], units.shape[1])
                            if r.bias_corrected is not None else None),
            "headline_method": ("bias-corrected whole-run estimate, within agents (shared course removed)"
                                if r.bias_corrected is not None
                                else "plug-in whole-run estimate")}


def broadcast_cut(unit_names: list[str]) -> np.ndarray:
    """The bipartition the yoke acts on: True for the workspace's units, False for the modules'."""
    return np.array([name.startswith("workspace.") for name in unit_names])


def summarise_controls(cfg, groups: dict, cycles: int, unit_names: list[str]) -> dict:
    """report.json's ``controls``: Phi of the agents and of their yoked twins across the broadcast
    cut (the criterion) and at each side's MIB (descriptive), with the paired differences and
    their CIs (agents as replications; :func:`cognition.phi.difference.paired_difference`)."""
    from cognition.phi.difference import paired_difference

    if "yoked" not in groups:
        return {"yoked": None, "lesion": cfg.control.lesion,
                "note": "no yoked control in this run (control.yoked: false)"}
    measure = cfg.phi.measure
    intact, yoked = groups["intact"][:, :cycles], groups["yoked"][:, :cycles]
    cut = broadcast_cut(unit_names)
    opts = dict(lag=cfg.phi.lag, confidence=cfg.phi.confidence, shrinkage=float(cfg.phi.shrinkage or 0.0))
    try:
        at_cut = paired_difference(intact, yoked, cut=cut, **opts)
        at_mib = paired_difference(intact, yoked, **opts)
    except ValueError as exc:  # too few agents or cycles for the paired jackknife, a constant unit
        return {"yoked": None, "lesion": cfg.control.lesion, "note": str(exc)}

    def row(d, method):
        m = d[measure]
        return {"intact_bits": m["a"], "yoked_bits": m["b"], "difference_bits": m["estimate"],
                "difference_se_bits": m["se"], "difference_ci_bits": list(m["ci"]),
                "excludes_zero": bool(m["ci"][0] > 0 or m["ci"][1] < 0), "method": method}

    return {"lesion": cfg.control.lesion, "measure": measure, "confidence": cfg.phi.confidence,
            "yoked": {**row(at_cut, "bias-corrected whole-run Phi (within agents) at the broadcast cut, fixed in "
                                    "advance; delete-one-pair jackknife t interval"),
                      "cut": [[n for n, w in zip(unit_names, cut) if not w], [n for n, w in zip(unit_names, cut) if w]],
                      "at_mib": row(at_mib, "at each side's own MIB; union of the jackknife t intervals over the "
                                            "plausible MIB pairs (selection-aware)") | {"mib_candidates":
                                                                                        at_mib["candidates"]},
                      "twins_identical": bool(np.array_equal(intact, yoked)), "pairs": at_cut["pairs"],
                      "dof": at_cut["dof"]}}
