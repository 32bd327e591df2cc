"""``estimate``: Gaussian Phi at the MIB from data, with an interval and a null-model p-value.

Two paths (docs/phi.md, "Estimation from data"):

* an ensemble of >= 5 independent agents (``centre='agent'``, the default there): Phi of each
  agent from its own series, bias-corrected, summarised across agents with a t interval
  (:mod:`cognition.phi.agents`), and the intersection-union trial-shuffling test across every
  bipartition with the statistic computed within agents (:mod:`cognition.phi.cut_test`);
* one series, or a few agents (``centre='pooled'``): pairs centred on the pooled mean, the
  basic (block) bootstrap and the circular-shift null.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from cognition.phi.covariance import ledoit_wolf_intensity, pooled_pairs, shrink, unit_statistics
from cognition.phi.cut_test import every_cut_test, hac_bandwidth, shuffled_means
from cognition.phi.agents import (BIAS_REPLICATES, MAX_LATENCY, MIN_AGENTS, PAIRS_PER_VARIABLE, agent_minimum,
                                  corrected_tables)
from cognition.phi.autolag import LagChoice, choose_lag
from cognition.phi.measures import measures_at
from cognition.phi.resampling import (
    basic_interval,
    bootstrap_weights,
    circular_shift_covariances,
    monte_carlo_p_value,
    resampling_units,
)
from cognition.phi.partitions import mask_to_mib
from cognition.phi.result import PhiResult, result_from_row
from cognition.phi.search import phi_at_mib, resolve_search
from cognition.phi.validation import check_options, check_series
from cognition.runtime.memlimits import describe, host_limits, tightest

REPORTED = ("phi_wms", "phi_r")


CENTRES = ("auto", "agent", "pooled")
SHARED = ("remove", "keep")
# the per-agent path's default: the command's (python -m cognition.phi --surrogates), so estimate(X) on an ensemble
# gives what the command prints (headline, interval, p)
DEFAULT_SURROGATES = 200
# the per-agent estimate's working memory beside X: blocks of bounded size (the bias replicates, the test's pair
# products) and about ten copies of the data at long T (measured: 0.56 GB working at 50 x 28 000 x 5, 10.5 copies
# of its 53 MB; docs/performance.md); planned with margin
ENSEMBLE_BLOCK_BYTES = 160 * 2**20   # at most, once the bias replicates' blocks fill (long T)
ENSEMBLE_COPIES = 12
ENSEMBLE_BASE_BYTES = 16 * 2**20     # small arrays whatever the size (measured peak 34 MB at 32 x 50 x 7)


def resolve_centre(centre: str, agents: int) -> str:
    """'auto' -> 'agent' for ensembles of >= MIN_AGENTS agents, else 'pooled'."""
    if centre not in CENTRES:
        raise ValueError(f"centre must be one of {CENTRES}, got {centre!r}")
    if centre == "auto":
        return "agent" if agents >= MIN_AGENTS else "pooled"
    if centre == "agent" and agents < MIN_AGENTS:
        raise ValueError(f"centre='agent' needs X with at least {MIN_AGENTS} agents (shape "
                         f"(agents, T, n)), got {agents}; use centre='pooled' for fewer")
    return centre


def estimate(X, lag: int | str = 1, shrinkage=None, bootstrap: int | None = None, surrogates: int | None = None, seed=0,
             search: str = "auto", confidence: float = 0.95, device=None, resample: str = "auto",
             block_length: int | None = None, centre: str = "auto", shared: str = "remove",
             replicates: int = BIAS_REPLICATES) -> PhiResult:
    """TDMI, Phi_WMS, Phi_R and stochastic interaction (bits) at the MIB, estimated from data.

    X: (T, n) one series or (agents, T, n) an ensemble of independent agents.
    lag: time steps between past and present (an integer >= 1), or "auto": chosen from the data, the median
    over every agent's units of each series' decorrelation time (its first lag with |autocorrelation| <=
    1/e; cognition.phi.autolag), within the largest lag the estimator allows on X and at most T // 4;
    ``result.lag`` is the lag used and ``result.method["lag"]`` says how it was chosen.
    centre: 'agent' (default for >= 5 agents): the per-agent estimand of
    :mod:`cognition.phi.agents`: each agent's own minimum of the measure over bipartitions, from
    its own lagged covariance, bias-corrected (Wishart log dets, then a parametric bootstrap of
    each agent with ``replicates`` ensembles); ``headline(measure)`` is its mean over agents,
    ``ci`` its interval across agents (any ``bootstrap`` > 0 requests it), ``per_agent`` the
    values of every agent, ``mib`` the most common per-agent MIB and ``mib_stability`` the share of
    agents whose MIB it is; with ``surrogates`` > 0 the intersection-union trial-shuffling test
    across every bipartition, statistic within agents (p = max over bipartitions,
    ``weakest_cut`` the bipartition attaining it; :mod:`cognition.phi.cut_test`). Each agent needs
    T >= 6 n + lag time steps. 'pooled' (default for one series or < 5 agents): lagged pairs
    (X_{t-lag}, X_t) formed within each agent, centred on the pooled mean and pooled into one
    (2n, 2n) covariance (divided by N - 1); the basic bootstrap and the circular-shift null below.
    shared: with centre='agent', 'remove' (default) regresses each unit, with its own gain, on the
    other agents' mean course of it, aligned to the agent's own latency (Woody 1967; within
    +-MAX_LATENCY cycles, cross-fitted: cognition.phi.agents.remove_shared_course), so Phi measures
    coupling within agents beyond the course every agent shares; 'keep' leaves it in (Phi then counts a
    time-locked transient as integration).
    shrinkage (centre='pooled' only): None, 'ledoit-wolf' (intensity estimated, Ledoit & Wolf 2004)
    or a float lambda in [0, 1]: S -> (1 - lambda) S + lambda (tr S / 2n) I.
    bootstrap, surrogates: None (default) gives what ``python -m cognition.phi`` gives: with centre='agent'
    the interval across agents and the test with DEFAULT_SURROGATES (200) permutations (``estimate(X)``
    equals the command's ``estimate`` for the same X, seed and lag); with centre='pooled' neither (0, 0:
    ask for them). With centre='agent' any ``bootstrap`` > 0 requests the interval across agents (no
    replicates are drawn: the interval is a t interval, see ``ci`` above) and 0 leaves it out.
    bootstrap (centre='pooled'): number of bootstrap replicates for a basic interval at ``confidence``
    (resample='auto': agents when there are >= 8 of them, else non-overlapping blocks of
    ``block_length`` pairs within agents, default ~ T^(1/3)). Each replicate repeats the
    whole procedure (covariance, shrinkage, MIB search).
    surrogates: number of circular-shift surrogates for a one-sided p-value of
    Phi_WMS and Phi_R against "nodes are independent processes".
    seed: the random stream of everything drawn (the per-agent bias correction's simulated ensembles, the
    bootstrap, the surrogates): default 0, so the same call on the same data gives the same numbers; None
    draws fresh entropy each call (the Monte-Carlo error of the bias correction is in docs/phi.md).
    search: 'auto' (exhaustive for n <= 16, else Queyranne) | 'exhaustive' | 'queyranne'.
    device: None (numpy) or a torch device for the batched exhaustive search. (search and device
    apply to centre='pooled'; the per-agent path evaluates every bipartition of every agent in numpy.)
    Raises ValueError for NaN/inf data, fewer than 2n + 1 lagged samples, a singular
    covariance, or invalid options.
    """
    choice = None
    if isinstance(lag, str) and lag == "auto":
        X, choice = _auto_lag(X, centre)
        lag = choice.lag
    X = check_series(X, lag)
    agents, T, n = X.shape
    per_agent = resolve_centre(centre, agents) == "agent"
    bootstrap = (1 if per_agent else 0) if bootstrap is None else bootstrap
    surrogates = (DEFAULT_SURROGATES if per_agent else 0) if surrogates is None else surrogates
    check_options(search, shrinkage, bootstrap, surrogates, confidence)
    rng = np.random.default_rng(seed)
    if per_agent:
        check_ensemble_memory(agents, T, n)
        return _with_lag_choice(_estimate_ensemble(X, lag, shrinkage, bootstrap > 0, surrogates, rng, search,
                                                   confidence, device, shared, replicates), choice)
    z, _ = pooled_pairs(X, lag)
    unit, block = resampling_units(agents, T - lag, lag, resample, block_length) if bootstrap else (None, None)
    stats = unit_statistics(z, block)
    cov, intensity = _shrunk(shrinkage, *stats.covariance())
    _check_nonsingular(cov[0], n, shrinkage)
    row = phi_at_mib(cov, search, device)

    method = {
        "search": resolve_search(search, n),
        "covariance": _covariance_name(shrinkage, intensity),
        "ci": "none",
        "null_model": "none",
    }
    ci = p_value = None
    if bootstrap:
        weights = bootstrap_weights(rng, len(stats.counts), bootstrap)
        try:
            reps = phi_at_mib(_shrunk(shrinkage, *stats.covariance(weights))[0], search, device)
        except ValueError as err:
            raise ValueError(f"a bootstrap replicate failed ({err}); with {len(stats.counts)} resampling "
                             "units some replicates repeat too few distinct samples: pass shrinkage, or "
                             "use more data") from None
        ci = {k: basic_interval(float(row[k][0]), reps[k], confidence) for k in REPORTED}
        what = "agents" if unit == "agents" else f"non-overlapping blocks of {block} lagged pairs within agents"
        method["ci"] = f"basic bootstrap, {bootstrap} replicates resampling {what}"
    if surrogates:
        null_cov, null_fourth = circular_shift_covariances(z, surrogates, rng)
        null = phi_at_mib(_shrunk(shrinkage, null_cov, float(z.shape[0] * z.shape[1]), null_fourth)[0], search, device)
        p_value = {k: monte_carlo_p_value(float(row[k][0]), null[k]) for k in REPORTED}
        method["null_model"] = (f"{surrogates} circular-shift surrogates (each node rotated in time "
                                "independently, within agents); H0: nodes are independent processes")
    return _with_lag_choice(result_from_row(row, 0, n_nodes=n, lag=lag, n_samples=int(agents * (T - lag)),
                                            method=method, ci=ci, p_value=p_value,
                                            confidence=confidence if bootstrap else None), choice)


def ensemble_bytes(agents: int, T: int, n: int) -> int:
    """Planned working memory (bytes) of the per-agent estimate of X (agents, T, n), beside X itself."""
    values = agents * T * n
    blocks = min(ENSEMBLE_BLOCK_BYTES, 8 * 8 * values * BIAS_REPLICATES)  # replicate blocks fill up to their cap
    return ENSEMBLE_BASE_BYTES + blocks + ENSEMBLE_COPIES * 8 * values


def check_ensemble_memory(agents: int, T: int, n: int, limits: list | None = None) -> None:
    """ValueError, one line, before any work, when the per-agent estimate of (agents, T, n) needs more than the
    tightest host memory limit leaves (MemAvailable, the cgroup's limit, ``ulimit -v``: ``limits``, read now
    when None), naming the need, the limit and the largest T (and agent count) that fit."""
    need = ensemble_bytes(agents, T, n)
    host = tightest(host_limits() if limits is None else limits, {"resident": need, "virtual": need})
    if host is None or need <= host.headroom_bytes:
        return
    room = max(0, host.headroom_bytes - ENSEMBLE_BASE_BYTES - ENSEMBLE_BLOCK_BYTES) // (ENSEMBLE_COPIES * 8 * n)
    fits = (f"at most T = {room // agents} time steps of {agents} agents fit, or {room // T} agents of {T} steps"
            if room // agents >= 1 else "no ensemble of these units fits")
    raise ValueError(f"X of {agents} agents x {T} time steps x {n} units needs about {need / 2**30:.3g} GiB for "
                     f"the per-agent estimate ({ENSEMBLE_COPIES} working copies of the data beside at most "
                     f"{(ENSEMBLE_BASE_BYTES + ENSEMBLE_BLOCK_BYTES) // 2**20} MiB of blocks; docs/performance.md), "
                     "more than the tightest "
                     f"host memory limit leaves, {describe(host)}: {fits}; estimate a subset of the time steps or "
                     "agents")


def auto_lag_range(agents: int, T: int, n: int, centre: str = "auto") -> int:
    """The largest lag ``lag="auto"`` considers on (agents, T, n): what the estimator allows (T - 6 n per agent,
    its calibrated minimum length; T - 1 pooled), at most T // 4."""
    room = T - PAIRS_PER_VARIABLE * 2 * n if resolve_centre(centre, agents) == "agent" else T - 1
    return min(room, T // 4)


def _auto_lag(X, centre: str) -> tuple[np.ndarray, LagChoice]:
    """X as (agents, T, n) float64 and the lag ``lag="auto"`` chooses on it (cognition.phi.autolag), within the
    largest lag the estimator allows on X: T - 6 n per agent (its calibrated minimum length), T - 1 pooled,
    and at most T // 4."""
    X = check_series(X, 1)
    agents, T, n = X.shape
    max_lag = auto_lag_range(agents, T, n, centre)
    if max_lag < 1:
        raise ValueError(f"lag='auto': X has T={T} time steps per series, too few for any lag above 1 to be "
                         f"considered (the estimator needs T >= {PAIRS_PER_VARIABLE * 2 * n} + lag, and auto looks "
                         "at most T // 4 ahead); pass lag=1")
    return X, choose_lag(X, max_lag)


def _with_lag_choice(result: PhiResult, choice: LagChoice | None) -> PhiResult:
    """The result with ``method["lag"]`` saying how its lag was chosen (``lag="auto"``), else unchanged."""
    if choice is None:
        return result
    return dataclasses.replace(result, method={**result.method, "lag": choice.describe(),
                                               "lag_choice": choice.to_dict()})


def _estimate_ensemble(X, lag, shrinkage, want_ci: bool, surrogates: int, rng, search, confidence,
                       device, shared: str, replicates: int) -> PhiResult:
    """The per-agent path of :func:`estimate` (see its docstring and cognition.phi.agents)."""
    if shared not in SHARED:
        raise ValueError(f"shared must be one of {SHARED}, got {shared!r}")
    if shrinkage is not None:
        raise ValueError(f"shrinkage={shrinkage!r} goes with centre='pooled'; per-agent Phi (centre='agent') "
                         "corrects its small-sample bias instead (docs/phi.md) and takes shrinkage=None")
    if isinstance(replicates, bool) or not isinstance(replicates, (int, np.integer)) or replicates < 2:
        raise ValueError(f"replicates must be an integer >= 2, got {replicates!r}")
    agents, T, n = X.shape
    remove = shared == "remove"
    tables = corrected_tables(X, lag, rng, remove_shared=remove, replicates=int(replicates))
    Z, cov = tables.units, tables.covariances
    shuffled = shuffled_means(Z, lag, tables.masks)
    per_agent = {k: agent_minimum(tables, k, shuffled[k]) for k in REPORTED}
    r_masks = per_agent["phi_r"].masks
    codes, counts = np.unique(r_masks, axis=0, return_counts=True)
    modal = codes[int(np.argmax(counts))]
    at_own = measures_at(cov, r_masks)
    row = {k: np.array([float(np.mean(at_own[k]))]) for k in ("tdmi", "stochastic_interaction", "mmi", "k_norm")}
    row.update({k: np.array([float(per_agent[k].plug_in.mean())]) for k in REPORTED},
               masks=modal[None], normalised=np.array([False]))
    method = {"search": "exhaustive, per agent",
              "covariance": ((f"shared course removed (each unit regressed on the other agents' mean course, "
                              f"aligned to its agent's latency within +-{MAX_LATENCY} cycles, cross-fitted), "
                              if remove else "") + "each agent's own lagged pairs, standardised per agent"),
              "estimand": "mean over agents of each agent's own minimum of the measure over bipartitions",
              "bias_correction": (f"Wishart log-det correction, then a parametric bootstrap of each agent "
                                  f"({replicates} VAR(1) ensembles) for serial dependence and the minimum's "
                                  "selection"),
              "ci": "none", "null_model": "none"}
    summaries = {k: per_agent[k].summary(confidence) for k in REPORTED}
    extra = {"bias_corrected": {k: summaries[k]["estimate"] for k in REPORTED},
             "se": {k: summaries[k]["se"] for k in REPORTED},
             "mib_stability": float(counts.max() / agents),
             "per_agent": {**{k: [float(v) for v in per_agent[k].estimate] for k in REPORTED},
                           **{f"{k}_lower": [float(v) for v in per_agent[k].lower] for k in REPORTED},
                           **{f"{k}_upper": [float(v) for v in per_agent[k].upper] for k in REPORTED},
                           **{f"{k}_plug_in": [float(v) for v in per_agent[k].plug_in] for k in REPORTED},
                           "mib": [mask_to_mib(m) for m in r_masks]}}
    if want_ci:
        extra.update(ci={k: summaries[k]["ci"] for k in REPORTED}, confidence=confidence)
        method["ci"] = (f"t interval across agents ({agents - 1} df): lower end from each agent's minimum before the "
                        "selection correction, and at bipartitions that may hold at 0 its plug-in value minus the "
                        "trial-shuffled surrogates' mean (Andrews & Soares 2010 moment selection), upper end from "
                        "the half-median-unbiased estimates (Chernozhukov, Lee & Rosen 2013)")
    if surrogates:
        test = every_cut_test(Z, lag, surrogates, rng)
        extra["p_value"] = {k: test.p_value for k in REPORTED}
        extra["weakest_cut"] = {k: mask_to_mib(test.weakest) for k in REPORTED}
        method["null_model"] = (f"intersection-union trial-shuffling test over all {len(test.masks)} "
                                f"bipartitions, {surrogates} permutations of the agents each, statistic the "
                                "mean over agents of the squared residual cross-correlations across the "
                                f"bipartition (each unit prewhitened by its own AR({lag}), shifts -{lag}..{lag}, "
                                f"heteroscedasticity- and autocorrelation-consistent, Bartlett kernel, "
                                f"{hac_bandwidth(T - lag)} lags); H0: some bipartition's parts are independent "
                                "in every agent (beyond the shared course); p = max over bipartitions, the same "
                                "for every measure")
    result = result_from_row(row, 0, n_nodes=n, lag=lag, n_samples=int(agents * (T - lag)), method=method, **extra)
    return dataclasses.replace(result, method={**result.method,
                                               "mib_criterion": "each agent's own minimum of Phi_R (stated: "
                                                                "the most common per-agent MIB)"})


def _shrunk(shrinkage, cov: np.ndarray, n_pairs, fourth) -> tuple[np.ndarray, np.ndarray]:
    """Apply the shrinkage option to covariances (R, 2n, 2n); also return the intensities (R,).

    Ledoit-Wolf intensities are estimated per matrix, so that replicates and surrogates go
    through the same procedure as the data.
    """
    n_pairs = np.broadcast_to(np.asarray(n_pairs, dtype=float), cov.shape[:1])
    if shrinkage == "ledoit-wolf":
        intensity = ledoit_wolf_intensity(cov * (n_pairs - 1)[:, None, None], fourth, n_pairs)
    else:
        intensity = np.full(cov.shape[:1], float(shrinkage or 0.0))
    return shrink(cov, intensity), intensity


def _covariance_name(shrinkage, intensity) -> str:
    base = "sample covariance of pooled lagged pairs (N - 1)"
    if shrinkage is None:
        return base
    how = "Ledoit-Wolf" if shrinkage == "ledoit-wolf" else "fixed"
    return f"{base}, {how} shrinkage toward (tr S / 2n) I, intensity {float(intensity[0]):.4g}"


def _check_nonsingular(cov: np.ndarray, n: int, shrinkage) -> None:
    """ValueError naming the problem when the joint covariance is (numerically) singular."""
    variances = np.diag(cov)
    if np.any(variances <= 0.0):
        node = int(np.flatnonzero(variances <= 0.0)[0]) % n
        raise ValueError(f"node {node} of X is constant (zero variance); Phi is undefined for it")
    scaled = cov / np.sqrt(np.outer(np.diag(cov), np.diag(cov)))
    smallest = float(np.linalg.eigvalsh(scaled)[0])
    if smallest <= 1e-10:
        hint = "" if shrinkage is not None else "; pass shrinkage='ledoit-wolf' to regularise"
        raise ValueError("the covariance of the lagged pairs (X_{t-lag}, X_t) is singular (smallest "
                         f"eigenvalue of the correlation matrix {smallest:.3g}): some nodes are "
                         f"(nearly) linear functions of others{hint}")
