"""``lag="auto"``: the lag between past and present chosen from the data's own autocorrelation.

Phi at lag tau compares each unit's state tau steps apart. For data sampled finely against their own
time scale (continuous-time dynamics: oscillators, slow fields) a lag of one step compares two nearly
identical states, and what one unit does to another within a step is small beside what each does to
itself. Delay-embedding practice chooses the delay from the series' own memory, where the state tau steps
on is no longer nearly redundant with the present: the first minimum of the auto mutual information
(Fraser & Swinney 1986, Phys. Rev. A 33:1134) or the decorrelation time, the first tau at which the
autocorrelation has fallen to 1/e (Kantz & Schreiber 2004, Nonlinear Time Series Analysis, sec. 3.3.1).
The rule here is the decorrelation time: per series, the first tau >= 1 with |rho(tau)| <= 1/e (the Gaussian
auto mutual information -1/2 log2(1 - rho^2) is then at most 0.078 bits), or the range's end where the memory
outlasts it. Why not the first minimum: it exists for an oscillation (a quarter period, rho = 0; the
decorrelation time is 0.19 of a period there, the same scale) but not for a relaxation, whose estimated
rho^2 first turns up on a sampling wiggle after it has reached the noise floor, far past its memory
(``python -m cognition.bench lag`` measures both rules on both kinds).

Per series (each agent's each unit): rho from the standard (biased, 1/T) estimator of the series
centred on its own mean. The lag used is the median over all agents' units of their choices, rounded
down to an integer (one lag for every agent: the per-agent estimand then compares agents on the same
footing). The range is 1..``max_lag``; :func:`cognition.phi.estimate` passes the largest lag its
estimator allows on X (T - 6 n for per-agent Phi, at most T // 4).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DECORRELATION = float(np.exp(-1.0))  # |rho| at the decorrelation time


@dataclass(frozen=True)
class LagChoice:
    """The lag ``lag="auto"`` chose, and why.

    lag:       the lag used (>= 1)
    per_series: (agents, n) int, each agent's each unit's own choice
    rules:     (agents, n) str, which rule gave it: "decorrelation" (the first |rho| <= 1/e) or "range end"
    max_lag:   the largest lag considered
    """

    lag: int
    per_series: np.ndarray
    rules: np.ndarray
    max_lag: int

    def describe(self) -> str:
        """One line: the lag and how it was chosen, with how many series each rule decided."""
        names, counts = np.unique(self.rules, return_counts=True)
        how = ", ".join(f"{c} by {n}" for n, c in sorted(zip(names, counts), key=lambda x: -x[1]))
        lo, hi = int(self.per_series.min()), int(self.per_series.max())
        return (f"lag {self.lag}, chosen from the data: the median over {self.per_series.size} series (agents x "
                f"units; each {lo}..{hi}) of each series' decorrelation time, its first lag with |autocorrelation| "
                f"<= 1/e, within 1..{self.max_lag} ({how})")

    def to_dict(self) -> dict:
        names, counts = np.unique(self.rules, return_counts=True)
        return {"lag": self.lag, "rule": "median over every agent's units of each series' decorrelation time, its "
                                         "first lag with |autocorrelation| <= 1/e",
                "max_lag": self.max_lag, "per_series_min": int(self.per_series.min()),
                "per_series_median": float(np.median(self.per_series)),
                "per_series_max": int(self.per_series.max()),
                "series_by_rule": {str(n): int(c) for n, c in zip(names, counts)}}


def autocorrelation(X: np.ndarray, max_lag: int) -> np.ndarray:
    """(agents, max_lag + 1, n) rho(0..max_lag) of every series of X (agents, T, n): the biased estimator,
    sum_t (x_t - m)(x_{t+tau} - m) / sum_t (x_t - m)^2 over the T - tau pairs. A constant series has rho 0
    beyond lag 0."""
    Z = X - X.mean(axis=1, keepdims=True)
    T = Z.shape[1]
    var = np.einsum("atn,atn->an", Z, Z)
    out = np.empty((Z.shape[0], max_lag + 1, Z.shape[2]))
    for tau in range(max_lag + 1):
        out[:, tau] = np.einsum("atn,atn->an", Z[:, :T - tau], Z[:, tau:])
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(var[:, None, :] > 0, out / var[:, None, :], 0.0)
    rho[:, 0] = 1.0
    return rho


def choose_lag(X: np.ndarray, max_lag: int) -> LagChoice:
    """The ``lag="auto"`` rule of this module's docstring on X (agents, T, n), lags 1..max_lag."""
    if max_lag < 1:
        raise ValueError(f"lag='auto' needs room for a lag of at least 1; max_lag {max_lag}")
    below = np.abs(autocorrelation(X, max_lag)[:, 1:]) <= DECORRELATION     # (agents, max_lag, n), tau = 1..
    found = below.any(axis=1)
    choice = np.where(found, np.argmax(below, axis=1) + 1, max_lag)
    rules = np.where(found, "decorrelation", "range end")
    lag = max(1, int(np.floor(np.median(choice))))
    return LagChoice(lag=lag, per_series=choice.astype(np.int64), rules=rules.astype(str), max_lag=int(max_lag))


def first_ami_minimum(X: np.ndarray, max_lag: int) -> np.ndarray:
    """(agents, n) each series' first minimum of the Gaussian auto mutual information (the first tau in
    1..max_lag with rho^2(tau + 1) >= rho^2(tau)), max_lag where there is none: Fraser & Swinney's rule, the
    alternative the bench compares with the decorrelation time."""
    r2 = autocorrelation(X, max_lag + 1)[:, 1:] ** 2
    rising = r2[:, 1:] >= r2[:, :-1]
    return np.where(rising.any(axis=1), np.argmax(rising, axis=1) + 1, max_lag)
