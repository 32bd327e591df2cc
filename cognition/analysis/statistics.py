"""The package's statistics: t intervals, the batch-means interval of a per-cycle mean, paired and
independent differences, Holm's adjustment and the minimum detectable effect.

Is Phi different between conditions? Across runs (seeds), or within one seed over its agents.

The number compared is each run's headline (report.json ``phi.headline_bits``: the mean over
agents of each agent's own Phi, bias-corrected; :mod:`cognition.analysis.summary`).

**Across runs** (:func:`welch_difference`): when each condition has several runs, each
run -- a seed, an independently drawn architecture -- contributes one number, and the two
conditions' numbers are compared by Welch's t test with the Welch-Satterthwaite degrees of
freedom (Welch 1947, Biometrika 34:28) and the matching t interval of the difference of
means. This is the test that speaks for the model: the seed-to-seed variation of the
architecture is in its variance. Its false-positive rate on same-mode, different-seed groups
is measured by ``python -m cognition.bench compare`` (docs/reports.md).

**Paired across runs** (:func:`paired_t_difference`): when both conditions ran the same seeds
(a factorial ablation, :mod:`cognition.experiment.ablation_stats`), each seed gives one
difference d_s = a_s - b_s and the mean difference is tested by the one-sample t test with
n - 1 degrees of freedom (Student 1908), which removes the seed-to-seed variation the two
conditions share.

**Within one seed** (:func:`independent_difference`), one run per condition: each run's
headline a, b comes with its standard error across the run's agents (``phi.whole_run.se``:
the agents' values are independent replicates, their noise streams independent;
cognition.architecture.streams). The two runs' agents are independent of each other, so d = a - b has
standard error se = sqrt(se_a^2 + se_b^2); H0: equal means is tested with z = d / se against
the standard normal, and the interval is d +- z_{1-alpha/2} se (the Wald test of two
independent means: Wasserman 2004, *All of Statistics*, sec. 10.1). All agents of a run share
its seed's architecture, so this test speaks for the two architectures only: the
seed-to-seed variation is not in its standard error.

Per-cycle Phi is not compared: each value comes from a window pooled over agents (a
description of their mixture), and neighbouring windows share most of their samples, so a
test that treats per-cycle values as independent (Mann-Whitney U, Welch's t) gives p-values
far too small.
"""
from __future__ import annotations

import math

import numpy as np

from cognition.phi.resampling import t_quantile, t_upper_tail

MDE_POWER = 0.8


def _standardised(d: float, se: float) -> float:
    """d / se; with se 0 (no spread at all), 0 for d = 0 and +-inf otherwise, so that p is 1 or 0."""
    return d / se if se > 0 else (0.0 if d == 0 else float(np.copysign(np.inf, d)))


def independent_difference(a: float, se_a: float, b: float, se_b: float, confidence: float = 0.95) -> dict:
    """Test of equal means from two independent estimates (bits) and their standard errors (bits).

    Returns ``difference`` (a - b), ``standard_error`` sqrt(se_a^2 + se_b^2), ``ci`` = difference
    +- z_{1-(1-confidence)/2} standard_error, ``z``, the two-sided normal ``p_value``, ``confidence``
    and ``method``. When the standard error is 0 the interval is [d, d] and z is 0 (d = 0) or
    +-inf. Raises ValueError unless every input is finite and both standard errors are >= 0.
    """
    from scipy.stats import norm

    values = np.array([a, se_a, b, se_b], dtype=np.float64)
    if not np.isfinite(values).all() or min(se_a, se_b) < 0:
        raise ValueError(f"a z test needs two finite estimates and standard errors >= 0, got a = {a}, "
                         f"se_a = {se_a}, b = {b}, se_b = {se_b}")
    d, se = float(a - b), float(np.hypot(se_a, se_b))
    z = _standardised(d, se)
    half = float(norm.ppf(0.5 + confidence / 2)) * se
    return {"difference": d, "standard_error": se, "ci": [d - half, d + half], "z": z,
            "p_value": float(2 * norm.sf(abs(z))), "confidence": confidence,
            "method": ("z test of two independent estimates: standard error sqrt(se_a^2 + se_b^2), normal "
                       "interval; H0: equal means")}


def welch_difference(a_values, b_values, confidence: float = 0.95) -> dict:
    """Welch's t test of equal means from two conditions' per-run values (bits), one value per run.

    Returns ``difference`` (mean(a) - mean(b)), ``standard_error`` sqrt(s_a^2/n_a + s_b^2/n_b),
    ``df`` (Welch-Satterthwaite), ``t``, the two-sided ``p_value``, ``ci`` = difference +-
    t_{df, 1-(1-confidence)/2} standard_error, ``n`` [n_a, n_b] and ``method``. Raises ValueError
    without at least 2 finite values per condition.
    """
    a = np.asarray(a_values, dtype=np.float64)
    b = np.asarray(b_values, dtype=np.float64)
    if a.size < 2 or b.size < 2 or not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError(f"each condition needs at least 2 finite per-run values, got {a.size} and {b.size}")
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    d, se = float(a.mean() - b.mean()), float(np.sqrt(va + vb))
    t = _standardised(d, se)
    if se > 0:
        df = float((va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1)))
    else:  # every run of both conditions gave the same value
        df = float(a.size + b.size - 2)
    half = t_quantile(0.5 + confidence / 2, df) * se
    return {"difference": d, "standard_error": se, "ci": [d - half, d + half], "t": t, "df": df,
            "p_value": 2 * t_upper_tail(abs(t), df), "confidence": confidence,
            "n": [int(a.size), int(b.size)],
            "method": (f"Welch's t test across runs ({a.size} and {b.size} seeds, one value per run), "
                       "t interval; H0: equal mean over seeds")}


def paired_t_difference(a_values, b_values, confidence: float = 0.95) -> dict:
    """Paired t test of equal means: a_values[i] and b_values[i] come from one seed (bits or any unit).

    With d_i = a_i - b_i: ``difference`` mean(d), ``sd`` (n - 1), ``standard_error`` sd / sqrt(n),
    ``df`` n - 1, ``t``, two-sided ``p_value``, ``ci`` = difference +- t_{df, 1-(1-confidence)/2}
    standard_error, ``n`` and ``method``. When every d_i is the same (standard error 0) the interval
    is [d, d], p is 1.0 for d = 0 and 0.0 otherwise, and ``note`` says so. Raises ValueError
    unless both hold the same number (at least 2) of finite values.
    """
    a = np.asarray(a_values, dtype=np.float64)
    b = np.asarray(b_values, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2 or not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError(f"a paired test needs two equally long lists of at least 2 finite values, "
                         f"got {a.size} and {b.size}")
    d = a - b
    n, mean, sd = int(d.size), float(d.mean()), float(d.std(ddof=1))
    se, note = sd / float(np.sqrt(n)), None
    t = _standardised(mean, se)
    p = 2 * t_upper_tail(abs(t), n - 1)  # 1 for t = 0, 0 for t = +-inf
    if se == 0:
        note = f"every seed gave the same difference ({mean:g}): standard error 0, interval [d, d], p = {p:g}"
    half = t_quantile(0.5 + confidence / 2, n - 1) * se
    return {"difference": mean, "sd": sd, "standard_error": se, "ci": [mean - half, mean + half],
            "t": float(t), "df": n - 1, "p_value": p, "confidence": confidence, "n": n, "note": note,
            "method": (f"paired t test across runs ({n} seeds, one difference per seed), t interval with "
                       f"{n - 1} df; H0: mean difference 0")}


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order (Holm 1979, Scand. J. Statist. 6:65)."""
    order = np.argsort(p_values)
    m = len(p_values)
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


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
    x = np.asarray(series, dtype=np.float64)
    b = len(x) // batch
    if b < 2:
        return None
    means = x[len(x) - b * batch:].reshape(b, batch).mean(axis=1)
    half = float(t_quantile(0.5 + confidence / 2, b - 1) * means.std(ddof=1) / np.sqrt(b))
    centre = float(x.mean())
    return (centre - half, centre + half)


def t_interval(values, confidence: float = 0.95) -> tuple[float, float | None, float | None]:
    """(mean, low, high): ``mean -/+ t_{(1+c)/2, n-1} * s / sqrt(n)`` (Student 1908).

    ``s`` is the sample standard deviation (n - 1); with one value there is no
    interval and low = high = None. Units are those of ``values`` (bits).
    """
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        raise ValueError("t_interval needs at least one value")
    mean = sum(xs) / n
    if n == 1:
        return mean, None, None
    s = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = t_quantile((1.0 + confidence) / 2.0, n - 1) * s / math.sqrt(n)
    return mean, mean - half, mean + half


def minimum_detectable_effect(sd: float, n: int, confidence: float = 0.95, power: float = MDE_POWER) -> float | None:
    """The smallest true mean difference a paired t test on ``n`` seeds detects with ``power`` (two-sided):
    (t_{1-alpha/2, n-1} + t_{power, n-1}) sd / sqrt(n), alpha = 1 - confidence (the normal-theory
    approximation with t quantiles; Cohen 1988, ch. 2). None with fewer than 2 seeds."""
    if n < 2 or sd is None or not math.isfinite(sd):
        return None
    quantiles = t_quantile(0.5 + confidence / 2, n - 1) + t_quantile(power, n - 1)
    return float(quantiles * sd / math.sqrt(n))
