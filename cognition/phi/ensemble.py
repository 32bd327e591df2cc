"""Phi of an ensemble of independent agents: per-agent standardisation and the jackknife.

An ensemble X (agents, T, n) is treated as A independent replications of one system
(each agent its own architecture drawn from the seed), so the agent, not the sample, is
the unit of replication:

* **Per-agent standardisation.** Each agent's units are centred and scaled by that
  agent's own mean and standard deviation over time before lagged pairs are pooled.
  Offsets between agents then never enter the covariance, and every unit has variance
  1, so the parts' differential entropies are positive and the normalised MIB criterion
  Phi_WMS / K (Barrett & Seth 2011) is always the one used.
* **Quenouille's half-series correction.** Removing each agent's own mean biases lagged
  covariances by O(1/T) (Kendall 1954, Biometrika 41:403; Marriott & Pope 1954). The
  statistic g = 2 theta(X) - theta(halves of X), with each agent's two halves standardised
  as separate series, cancels that term (Quenouille 1949, J. R. Stat. Soc. B 11:68): the
  halves have the same number of pooled samples, so only the O(1/T) term differs.
* **Delete-one-agent jackknife** of g (Quenouille 1956, Biometrika 43:353; Efron & Tibshirani
  1993, ch. 11): bias-corrected estimate A g - (A - 1) mean_k g_(-k), standard error
  sqrt((A - 1)/A sum_k (g_(-k) - mean)^2), and a t interval with A - 1 degrees of freedom.
  Every replicate is evaluated at the stated bipartition (the MIB of all the data), so the
  interval is for Phi across that bipartition; ``mib_stability`` says how often a
  replicate's own MIB search agrees with it.

Calibration of all of this (false-positive rates, coverage, bias) is measured by
``python -m cognition.bench calibration`` (docs/phi.md, "Calibration").
"""
from __future__ import annotations

import dataclasses

import numpy as np
import scipy.stats

from cognition.phi.covariance import shrink
from cognition.phi.measures import measures_at
from cognition.phi.search import phi_at_mib

MIN_JACKKNIFE_AGENTS = 5  # below this the t interval has too few degrees of freedom to be useful
CORRECTED = ("phi_wms", "phi_r")


def standardise_per_agent(X: np.ndarray) -> np.ndarray:
    """(agents, T, n) -> each agent's units centred and scaled to unit variance over time.

    Raises ValueError naming the agent and node when a unit is constant for an agent.
    """
    sd = X.std(axis=1, keepdims=True)
    flat = sd[:, 0, :] <= 1e-12 * np.maximum(1.0, np.abs(X).max(axis=1))
    if flat.any():
        agent, node = (int(i) for i in np.argwhere(flat)[0])
        raise ValueError(f"node {node} of X is constant for agent {agent} (zero variance over time); "
                         "Phi is undefined for it")
    return (X - X.mean(axis=1, keepdims=True)) / sd


def split_halves(X: np.ndarray) -> np.ndarray:
    """(agents, T, n) -> (2 agents, T // 2, n): first halves of every agent, then second halves."""
    h = X.shape[1] // 2
    return np.concatenate([X[:, :h], X[:, X.shape[1] - h:]], axis=0)


@dataclasses.dataclass(frozen=True)
class AgentMoments:
    """Per-agent sums of outer products of centred lagged pairs: outer (A, 2n, 2n), pairs per agent L."""

    outer: np.ndarray
    pairs_per_agent: int

    @classmethod
    def of(cls, Xs: np.ndarray, lag: int) -> "AgentMoments":
        pairs = np.concatenate([Xs[:, :-lag], Xs[:, lag:]], axis=-1)
        pairs = pairs - pairs.mean(axis=1, keepdims=True)
        return cls(np.einsum("atp,atq->apq", pairs, pairs), pairs.shape[1])

    def covariance(self, weights: np.ndarray) -> np.ndarray:
        """(R, 2n, 2n) pooled covariances, agent a counted weights[r, a] times (one mean per agent)."""
        dof = weights.sum(axis=1) * (self.pairs_per_agent - 1)
        if np.any(dof < 2):
            raise ValueError("a covariance needs at least 2 degrees of freedom")
        cov = np.einsum("ra,apq->rpq", weights, self.outer) / dof[:, None, None]
        return 0.5 * (cov + np.swapaxes(cov, -1, -2))


@dataclasses.dataclass(frozen=True)
class Ensemble:
    """Moments of the standardised ensemble and of its standardised halves.

    ``shrinkage`` (a fixed lambda in [0, 1]) is applied to every covariance it produces,
    so replicates go through the same procedure as the data.
    """

    whole: AgentMoments
    halves: AgentMoments
    agents: int
    shrinkage: float = 0.0

    @classmethod
    def of(cls, X: np.ndarray, lag: int, shrinkage: float = 0.0) -> "Ensemble":
        if X.shape[1] // 2 <= lag + 1:
            raise ValueError(f"X has T={X.shape[1]} time steps per agent; the half-series correction "
                             f"needs T >= {2 * (lag + 2)} at lag {lag}")
        return cls(AgentMoments.of(standardise_per_agent(X), lag),
                   AgentMoments.of(standardise_per_agent(split_halves(X)), lag), X.shape[0], shrinkage)

    def covariance(self, weights: np.ndarray | None = None) -> np.ndarray:
        """(R, 2n, 2n) pooled covariances of the whole series (one row of weights per replicate)."""
        w = np.ones((1, self.agents)) if weights is None else weights
        return shrink(self.whole.covariance(w), self.shrinkage)

    def corrected_at(self, masks: np.ndarray, weights: np.ndarray) -> dict[str, np.ndarray]:
        """g = 2 theta(whole) - theta(halves) at masks (R, n), for each weight row (R, A)."""
        whole = measures_at(self.covariance(weights), masks)
        both = np.concatenate([weights, weights], axis=1)
        halves = measures_at(shrink(self.halves.covariance(both), self.shrinkage), masks)
        return {k: 2.0 * whole[k] - halves[k] for k in CORRECTED}


def leave_one_out(agents: int) -> np.ndarray:
    """(A, A) weights: row k leaves agent k out."""
    return np.ones((agents, agents)) - np.eye(agents)


def jackknife(ens: Ensemble, mask: np.ndarray, confidence: float, replicate_masks: np.ndarray | None = None) -> dict:
    """Bias-corrected Phi_WMS / Phi_R at ``mask`` with jackknife standard errors and t intervals.

    replicate_masks (A, n): the bipartition each leave-one-out replicate is evaluated at
    (None: ``mask`` for all). Returns {"estimate": {k: value}, "se": {k: se},
    "ci": {k: (lo, hi)}, "dof": A - 1}.
    """
    A = ens.agents
    weights = np.vstack([np.ones((1, A)), leave_one_out(A)])
    reps = np.repeat(mask[None], A, axis=0) if replicate_masks is None else replicate_masks
    g = ens.corrected_at(np.vstack([mask[None], reps]), weights)
    t = float(scipy.stats.t.ppf(0.5 + confidence / 2.0, A - 1))
    out = {"estimate": {}, "se": {}, "ci": {}, "dof": A - 1}
    for k, values in g.items():
        full, reps = float(values[0]), values[1:]
        corrected = A * full - (A - 1) * float(reps.mean())
        se = float(np.sqrt((A - 1) / A * np.sum((reps - reps.mean()) ** 2)))
        out["estimate"][k], out["se"][k] = corrected, se
        out["ci"][k] = (corrected - t * se, corrected + t * se)
    return out


def mib_stability(ens: Ensemble, mask: np.ndarray, search: str, device=None) -> float:
    """Share of leave-one-agent-out replicates whose own MIB equals ``mask`` (as a bipartition)."""
    masks = phi_at_mib(ens.covariance(leave_one_out(ens.agents)), search, device)["masks"]
    return float(np.mean(np.all(masks == mask[None], axis=1)))
