"""Phi of one set of agents minus Phi of another, paired agent by agent (the yoked control).

Agent k of ``X_a`` and agent k of ``X_b`` are a pair (an agent and its yoked twin share
weights and noise streams), so the pairs are the independent replications. Each side is the
per-agent estimate of :mod:`cognition.phi.agents` (each agent's own series, the shared course
removed, bias-corrected); the difference is taken within each pair and summarised across
pairs: mean, standard error, t interval with A - 1 degrees of freedom.

Two bipartitions can be asked for:

* ``cut`` given (a mask): each agent's bias-corrected value at that one bipartition on both
  sides, fixed before the data are seen, so there is no selection. The yoked control uses
  the broadcast cut {modules' units} | {workspace's units}, the one bipartition the yoke acts
  on (cognition/architecture/controls.py);
* ``cut=None``: each agent's own minimum over bipartitions (the per-agent point estimate) on
  both sides. Each minimum carries its own selection shift, so this difference is descriptive.

Their calibration (how often the interval excludes 0 when the sides do not differ) is
measured by ``python -m cognition.bench workspace`` and quoted in docs/calibration.md.
"""
from __future__ import annotations

import math

import numpy as np

from cognition.phi.agents import MEASURES, agent_minimum, corrected_tables
from cognition.phi.resampling import t_quantile


def _summary(va: dict, vb: dict, confidence: float) -> dict:
    """{measure: {"estimate", "se", "ci", "a", "b"}}: the mean within-pair difference across pairs."""
    pairs = len(next(iter(va.values())))
    t = t_quantile(0.5 + confidence / 2.0, pairs - 1)
    out = {}
    for k in MEASURES:
        d = va[k] - vb[k]
        est, se = float(d.mean()), float(d.std(ddof=1) / math.sqrt(pairs))
        out[k] = {"estimate": est, "se": se, "ci": (est - t * se, est + t * se),
                  "a": float(va[k].mean()), "b": float(vb[k].mean())}
    return out


def paired_difference(X_a: np.ndarray, X_b: np.ndarray, *, cut=None, lag: int = 1, confidence: float = 0.95,
                      shared: str = "remove", seed=0) -> dict:
    """Phi(X_a) - Phi(X_b) with its standard error and t interval across pairs, per measure.

    X_a, X_b: (agents, T, n) with the same agents in the same order; ``cut``: a bool mask (n,) of one
    side of a fixed bipartition, or None. Returns {measure: {"estimate", "se", "ci", "a", "b"}} (at
    ``cut`` when one is given, else at each agent's own minimum) plus "dof", "pairs" and "at_mib" (the
    same dict at each agent's own minimum, from the same bootstrap): the mean difference, its SE, the
    interval, and each side's mean. ``seed`` seeds the bias-correcting bootstrap (the same draws on both sides).
    """
    return paired_differences(X_a, {"b": X_b}, cut=cut, lag=lag, confidence=confidence, shared=shared,
                              seed=seed)["b"]


def paired_differences(X_a: np.ndarray, others: dict, *, cut=None, lag: int = 1, confidence: float = 0.95,
                       shared: str = "remove", seed=0) -> dict:
    """:func:`paired_difference` of ``X_a`` against each of ``others`` (name -> (agents, T, n)), ``X_a``'s
    per-agent tables computed once: {name: the dict paired_difference returns}. Every side's bootstrap
    draws the same normals (common random numbers), so each difference is what paired_difference gives."""
    X_a = np.asarray(X_a, dtype=np.float64)
    sides = {name: np.asarray(X, dtype=np.float64) for name, X in others.items()}
    for name, X_b in sides.items():
        if X_a.shape != X_b.shape:
            raise ValueError(f"paired sides need the same shape: {X_a.shape} vs {X_b.shape} ({name})")
    if X_a.shape[0] < 3:
        raise ValueError(f"a paired difference needs at least 3 agents, got {X_a.shape[0]}")

    def tables(X):  # common random numbers: identical sides give identical values, a difference of exactly 0
        return corrected_tables(X, lag, np.random.default_rng(seed), shared == "remove")

    mine = tables(X_a)
    column = None
    if cut is not None:
        mask = np.asarray(cut, dtype=bool)
        mask = mask if mask[0] else ~mask
        column = int(np.flatnonzero(np.all(mine.masks == mask[None], axis=1))[0])
    out = {}
    for name, X_b in sides.items():
        pair = (mine, mine if np.array_equal(X_a, X_b) else tables(X_b))
        at_mib = _summary(*({k: agent_minimum(t, k).estimate for k in MEASURES} for t in pair), confidence)
        head = {"dof": X_a.shape[0] - 1, "pairs": int(X_a.shape[0]), "at_mib": at_mib}
        out[name] = {**head, **(at_mib if column is None else
                                _summary(*({k: t.corrected[k][:, column] for k in MEASURES} for t in pair),
                                         confidence))}
    return out
