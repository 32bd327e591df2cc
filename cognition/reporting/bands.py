"""Per-cycle bands around Phi over cycles: a bootstrap confidence band and the null model's band.

The run records Phi per cycle over a trailing window of ``window`` cycles pooled over
agents (:meth:`cognition.architecture.loop.IntegrationLoop.phi_at`, i.e. :func:`cognition.phi.estimate`
on ``units[:, c - window:c]``). Here the same estimator is repeated, batched over
windows by :func:`cognition.phi.estimate_windows`, on

* bootstrap resamples of the agents (agents are independent replicates of the
  system; Efron & Tibshirani 1993, ch. 13) -> a basic bootstrap interval per cycle,
  as :func:`cognition.phi.estimate` forms for the whole run;
* circular-shift surrogates (Quian Quiroga et al. 2002, Phys. Rev. E 65:041903): each
  unit's recorded series rotated in time by its own random offset within each agent,
  unit 0 kept in place. Every unit keeps its own dynamics and the alignment between
  units is destroyed, so the surrogates sample the null hypothesis of
  :func:`cognition.phi.estimate`'s p-value ("units are independent processes"), here
  per window: the band shows what a window's Phi looks like when there is nothing to
  integrate (including the estimator's positive small-sample bias).

Everything is seeded from the run's seed, so the bands are a deterministic function of
the run directory. Cost: the windows of the run, of every bootstrap replicate and of every
surrogate are searched in one batch (at most ``max_points`` windows each; 7 units, one core:
201 x 16 windows in about 0.4 s, 201 x 25 in about 0.8 s, LAPACK's small factorisations the most of it).
"""
from __future__ import annotations

import math

import numpy as np

from cognition.phi.resampling import MIN_BOOTSTRAP_AGENTS, basic_interval, circular_shift, monte_carlo_p_value

MAX_REPLICATES = 100  # per band; quantiles at 2.5 / 97.5 % from 100 draws are what a plot needs
MAX_POINTS = 25  # windows evaluated; longer runs are evaluated every k-th cycle
STREAM = 0xBA4D  # spawn key of the bands' random stream, apart from every science stream


def phi_bands(units: np.ndarray, *, measure: str, window: int, lag: int, shrinkage, seed: int,
              bootstrap: int, surrogates: int, confidence: float, max_points: int = MAX_POINTS) -> dict:
    """Per-cycle estimate, bootstrap band and null band, as JSON-able lists (bits).

    units: (agents, T, n) recorded unit signals of the completed cycles. Returns a dict
    with ``cycles`` (the cycle each window ends at), ``estimate_bits`` and their ``mean_bits``,
    ``ci_bits`` (list of [low, high] at ``confidence``, or None), ``null_bits`` {low, median, high}
    (quantiles (1 - confidence)/2, 0.5, (1 + confidence)/2 of the surrogates, or None),
    ``p_values`` (per-cycle Monte Carlo p-value against the surrogates), the counts of
    cycles above the null band, and the methods; or {"note": why} when no band can be made.
    """
    from cognition.phi.search import phi_at_mib
    from cognition.phi.windows import window_covariances

    units = np.asarray(units, dtype=np.float64)
    agents, T, _ = units.shape
    if T < window:
        return {"note": f"the run has {T} cycles, fewer than the Phi window of {window}"}
    step = max(1, math.ceil((T - window + 1) / max_points))

    def covariances(X):
        return window_covariances(X, window=window, step=step, lag=lag, shrinkage=shrinkage)[0]

    rng = np.random.default_rng([seed, STREAM])
    n_boot = min(bootstrap, MAX_REPLICATES) if agents >= MIN_BOOTSTRAP_AGENTS else 0
    n_sur = min(surrogates, MAX_REPLICATES)
    try:
        data, starts, _ = window_covariances(units, window=window, step=step, lag=lag, shrinkage=shrinkage)
        # every series' windows searched in one batch: the run's, the bootstrap's (agents resampled), the null's
        # (circular shifts), drawn in that order from the bands' stream
        boot = [covariances(units[rng.integers(0, agents, size=agents)]) for _ in range(n_boot)]
        null = [covariances(circular_shift(units, rng)) for _ in range(n_sur)]
        values = np.asarray(phi_at_mib(np.concatenate([data, *boot, *null]))[measure], dtype=np.float64)
    except ValueError as exc:  # e.g. a window whose covariance is singular
        return {"note": f"no band: {exc}"}
    values = values.reshape(1 + n_boot + n_sur, len(starts))
    estimate, reps, null = values[0], values[1:1 + n_boot], (values[1 + n_boot:] if n_sur else None)
    ci, ci_method = _bootstrap_band(estimate, reps, agents, bootstrap, confidence)
    out = {"measure": measure, "units": "bits", "window_cycles": window, "step_cycles": step,
           "confidence": confidence, "cycles": (starts + window).tolist(), "estimate_bits": estimate.tolist(),
           "mean_bits": float(estimate.mean()), "ci_bits": ci, "ci_method": ci_method,
           "null_bits": None, "p_values": None,
           "null_method": "none (phi.surrogates = 0)"}
    if null is not None:
        a = 1.0 - confidence
        lo, med, hi = np.quantile(null, [a / 2, 0.5, 1 - a / 2], axis=0)
        out.update(null_bits={"low": lo.tolist(), "median": med.tolist(), "high": hi.tolist()},
                   p_values=[monte_carlo_p_value(float(e), null[:, j]) for j, e in enumerate(estimate)],
                   cycles_above_null=int(np.count_nonzero(estimate > hi)),
                   null_method=(f"{len(null)} circular-shift surrogates of the recorded unit series (each unit "
                                "rotated in time independently, within agents); H0: units are independent"))
    out["n_cycles"] = len(estimate)
    return out


def _bootstrap_band(estimate, reps, agents: int, bootstrap: int, confidence: float):
    """The basic bootstrap interval per cycle from the replicates' values ``reps`` (replicates, windows)."""
    if min(bootstrap, MAX_REPLICATES) == 0:
        return None, "none (phi.bootstrap = 0)"
    if agents < MIN_BOOTSTRAP_AGENTS:
        return None, f"none: resampling agents needs at least {MIN_BOOTSTRAP_AGENTS} agents, the run has {agents}"
    ci = [list(basic_interval(float(e), reps[:, j], confidence)) for j, e in enumerate(estimate)]
    return ci, f"basic bootstrap per cycle, {len(reps)} replicates resampling agents"


def run_bands(config: dict, phi_summary: dict, units: np.ndarray, cycles: int) -> dict:
    """:func:`phi_bands` of a run from its resolved config (config.yaml as a dict), its report's
    ``phi`` section and its recorded units (rows, >= cycles, n_units): the run's own agents' rows."""
    from cognition.architecture.controls import intact_rows

    p = config["phi"]
    return phi_bands(intact_rows(units, config)[:, :cycles, :], measure=p["measure"], window=phi_summary["window_cycles"], lag=p["lag"],
                     shrinkage=p["shrinkage"], seed=config["run"]["seed"], bootstrap=p["bootstrap"],
                     surrogates=p["surrogates"], confidence=p["confidence"])
