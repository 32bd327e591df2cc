"""Is Phi different between conditions? Across runs (seeds), or within one seed over its agents.

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

**Within one seed** (:func:`bootstrap_difference`), one run per condition:

Per-cycle Phi is estimated over overlapping windows, so neighbouring cycles share most
of their samples: 40 per-cycle values are not 40 independent observations, and a test
that treats them so (Mann-Whitney U, Welch's t) gives p-values far too small. The
independent replicates in a run are its agents (their noise streams are independent;
cognition.streams). So each run's statistic -- the mean of per-cycle Phi over the
evaluated cycles -- is bootstrapped by resampling agents with replacement and repeating
the whole per-cycle estimation (:mod:`cognition.reporting.bands`, which stores each
replicate's mean), which keeps every agent's temporal dependence intact (Efron &
Tibshirani 1993, *An Introduction to the Bootstrap*, ch. 13 and 16).

For two independent runs with estimates a, b and bootstrap replicates a*, b*, the
difference d = a - b has standard error se = sqrt(var(a*) + var(b*)); the test of H0:
equal means uses z = d / se against the normal distribution, and the CI is d +- z_{1-alpha/2}
se (the standard-normal bootstrap interval, Efron & Tibshirani 1993, sec. 13.3). Why not
the basic or percentile interval: with 8 agents each run's bootstrap bias estimate is
noisy, and centring on it (basic) rejected a true H0 in 12 % of 120 simulated pairs at
alpha = 0.05, the percentile test in 1 %; the normal interval in 5.0 % with the most power
but one (docs/reports.md). All agents of a run share its seed's architecture, so this test
speaks for that architecture only: on classical runs with different seeds it called the
difference significant in 16 % of 300 pairs at alpha = 0.05 before issue 15 (8 agents;
3.0 % of 400 pairs after it, at 32 agents: docs/reports.md), because the seed-to-seed
variation is not in its standard error.
"""
from __future__ import annotations

import numpy as np


def bootstrap_difference(a: float, a_reps, b: float, b_reps, confidence: float = 0.95) -> dict:
    """Test of equal means from two runs' estimates (bits) and their bootstrap replicates (bits).

    Returns ``difference`` (a - b), ``standard_error``, ``ci`` [low, high] at ``confidence``,
    two-sided ``p_value``, ``z`` and ``method``. Raises ValueError without at least 2
    replicates per run.
    """
    from scipy.stats import norm

    a_reps = np.asarray(a_reps, dtype=np.float64)
    b_reps = np.asarray(b_reps, dtype=np.float64)
    if a_reps.size < 2 or b_reps.size < 2:
        raise ValueError(f"each run needs at least 2 bootstrap replicates, got {a_reps.size} and {b_reps.size}")
    d = float(a - b)
    se = float(np.sqrt(a_reps.var(ddof=1) + b_reps.var(ddof=1)))
    z = d / se if se > 0 else (0.0 if d == 0 else float(np.copysign(np.inf, d)))
    half = float(norm.ppf(0.5 + confidence / 2)) * se
    return {"difference": d, "standard_error": se, "ci": [d - half, d + half], "z": z,
            "p_value": float(2 * norm.sf(abs(z))), "confidence": confidence,
            "method": (f"bootstrap over agents ({a_reps.size} and {b_reps.size} replicates), normal interval; "
                       "H0: equal mean per-cycle Phi")}


def welch_difference(a_values, b_values, confidence: float = 0.95) -> dict:
    """Welch's t test of equal means from two conditions' per-run values (bits), one value per run.

    Returns ``difference`` (mean(a) - mean(b)), ``standard_error`` sqrt(s_a^2/n_a + s_b^2/n_b),
    ``df`` (Welch-Satterthwaite), ``t``, the two-sided ``p_value``, ``ci`` = difference +-
    t_{df, 1-(1-confidence)/2} standard_error, ``n`` [n_a, n_b] and ``method``. Raises ValueError
    without at least 2 finite values per condition.
    """
    from scipy.stats import t as student_t

    a = np.asarray(a_values, dtype=np.float64)
    b = np.asarray(b_values, dtype=np.float64)
    if a.size < 2 or b.size < 2 or not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError(f"each condition needs at least 2 finite per-run values, got {a.size} and {b.size}")
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    d, se = float(a.mean() - b.mean()), float(np.sqrt(va + vb))
    if se > 0:
        df = float((va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1)))
        t = d / se
    else:  # every run of both conditions gave the same value
        df, t = float(a.size + b.size - 2), (0.0 if d == 0 else float(np.copysign(np.inf, d)))
    half = float(student_t.ppf(0.5 + confidence / 2, df)) * se
    return {"difference": d, "standard_error": se, "ci": [d - half, d + half], "t": t, "df": df,
            "p_value": float(2 * student_t.sf(abs(t), df)), "confidence": confidence,
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
    from scipy.special import stdtr, stdtrit  # Student's t CDF and its inverse (fast in a calibration loop)

    a = np.asarray(a_values, dtype=np.float64)
    b = np.asarray(b_values, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2 or not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError(f"a paired test needs two equally long lists of at least 2 finite values, "
                         f"got {a.size} and {b.size}")
    d = a - b
    n, mean, sd = int(d.size), float(d.mean()), float(d.std(ddof=1))
    se, note = sd / float(np.sqrt(n)), None
    if se > 0:
        t = mean / se
        p = float(2 * stdtr(n - 1, -abs(t)))
    else:
        t, p = (0.0, 1.0) if mean == 0 else (float(np.copysign(np.inf, mean)), 0.0)
        note = f"every seed gave the same difference ({mean:g}): standard error 0, interval [d, d], p = {p:g}"
    half = float(stdtrit(n - 1, 0.5 + confidence / 2)) * se
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
