"""Phi of one set of agents minus Phi of another, paired agent by agent (the yoked control).

Agent k of ``X_a`` and agent k of ``X_b`` are a pair (an agent and its yoked twin share
weights and noise streams), so the pairs are the independent replications. Each side is
the whole-run estimator of :func:`cognition.phi.estimate` with per-agent centring (shared
course removed, Quenouille half-series correction); the difference is jackknifed by
deleting one pair at a time (Quenouille 1956; Efron & Stein 1981 for the variance), with
a t interval on A - 1 degrees of freedom.

Two bipartitions can be asked for:

* ``cut`` given (a mask): the measure at that one bipartition on both sides, fixed before
  the data are seen, so the plain jackknife t interval applies. The yoked control uses
  the broadcast cut {modules' units} | {workspace's units}, the one bipartition the yoke
  acts on (cognition/controls.py);
* ``cut=None``: Phi at each side's own MIB. The MIB is chosen on the data, so the interval
  is selection-aware as in :mod:`cognition.phi.mib_interval`: the union of the t
  intervals of the difference over every pair (B_a, B_b) of plausible MIBs.

Their calibration (how often the interval excludes 0 when the sides do not differ) is
measured by ``python -m cognition.bench workspace`` and quoted in docs/calibration.md.
"""
from __future__ import annotations

import numpy as np

from cognition.phi.ensemble import CORRECTED, Ensemble, replicate_mibs, replicate_values
from cognition.phi.mib_interval import plausible_mibs, union_interval
from cognition.phi.search import phi_at_mib


def _side(X: np.ndarray, lag: int, shrinkage: float, remove_shared: bool, search: str, cut):
    ens = Ensemble.of(X, lag, shrinkage, remove_shared=remove_shared)
    if cut is not None:
        masks = np.asarray(cut, dtype=bool)[None]
        return masks, replicate_values(ens, masks)
    mask = np.asarray(phi_at_mib(ens.covariance(), search)["masks"][0])
    return plausible_mibs(ens, mask, replicate_mibs(ens, search))


def paired_difference(X_a: np.ndarray, X_b: np.ndarray, *, cut=None, lag: int = 1, confidence: float = 0.95,
                      shrinkage: float = 0.0, shared: str = "remove", search: str = "auto") -> dict:
    """Phi(X_a) - Phi(X_b) with its jackknife SE and interval, per measure.

    X_a, X_b: (agents, T, n) with the same agents in the same order; ``cut``: a bool mask (n,)
    of one side of a fixed bipartition, or None for each side's MIB. Returns {measure:
    {"estimate", "se", "ci", "a", "b"}} plus "dof", "pairs" and "candidates" (P_a, P_b): the
    bias-corrected difference (at the cut, or at the stated MIBs), its SE, the interval (the
    union over the plausible MIB pairs without a cut), and each side's bias-corrected value.
    """
    if X_a.shape[0] != X_b.shape[0]:
        raise ValueError(f"paired sides need the same agents: {X_a.shape[0]} vs {X_b.shape[0]}")
    if X_a.shape[0] < 3:
        raise ValueError(f"a paired jackknife needs at least 3 agents, got {X_a.shape[0]}")
    (masks_a, va), (masks_b, vb) = (_side(X, lag, shrinkage, shared == "remove", search, cut)
                                    for X in (X_a, X_b))
    out = {"dof": X_a.shape[0] - 1, "pairs": int(X_a.shape[0]), "candidates": [len(masks_a), len(masks_b)]}
    for k in CORRECTED:
        diff = (va[k][:, :, None] - vb[k][:, None, :]).reshape(va[k].shape[0], -1)
        est, se, _, ci = union_interval(diff, confidence)
        a = union_interval(va[k], confidence)[0]
        b = union_interval(vb[k], confidence)[0]
        out[k] = {"estimate": est, "se": se, "ci": ci, "a": a, "b": b}
    return out
