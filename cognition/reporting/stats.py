"""Is mean per-cycle Phi different between two runs? A bootstrap test over agents.

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
but one (docs/reports.md).
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


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order (Holm 1979, Scand. J. Statist. 6:65)."""
    order = np.argsort(p_values)
    m = len(p_values)
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
