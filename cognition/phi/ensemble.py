"""Phi of an ensemble of independent agents: per-agent standardisation and the jackknife.

An ensemble X (agents, T, n) is treated as A independent replications of one system
(each agent its own architecture drawn from the seed), so the agent, not the sample, is
the unit of replication:

* **The shared time course removed** (``remove_shared``, the default): the across-agent
  mean trajectory of every unit (standardised per agent) is subtracted at each step, so
  what remains is each agent's own deviation and Phi measures coupling within agents
  beyond the course all agents share (start-up transients, common drive). This is the
  "noise correlation" of trial-based neuroscience, where the trial-averaged response is
  removed first (Cohen & Kohn 2011, Nat. Neurosci. 14:811; Aertsen et al. 1989, J.
  Neurophysiol. 61:900). On a stationary system with independent agents it leaves the
  expected covariance a uniform (A - 1)/A multiple of itself, so Phi is unchanged; on
  units that share only a time-locked course (modules taken from different agents) it
  brings Phi from 0.23 to about 0 bits. The replicates of the jackknife recompute it
  without the deleted agent.
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


def remove_shared_course(X: np.ndarray) -> np.ndarray:
    """(agents, T, n) -> each unit, standardised per agent, minus the across-agent mean of that at each step.

    Standardising first keeps the result invariant to any per-agent offset and scale of a unit.
    """
    Z = standardise_per_agent(X)
    return Z - Z.mean(axis=0, keepdims=True)


@dataclasses.dataclass(frozen=True)
class Ensemble:
    """Moments of the standardised ensemble and of its standardised halves.

    ``shrinkage`` (a fixed lambda in [0, 1]) is applied to every covariance it produces,
    so replicates go through the same procedure as the data. ``raw`` keeps the data, so a
    replicate without one agent repeats the whole procedure (:meth:`without`).
    """

    whole: AgentMoments
    halves: AgentMoments
    agents: int
    raw: np.ndarray
    lag: int
    shrinkage: float = 0.0
    remove_shared: bool = True

    @classmethod
    def of(cls, X: np.ndarray, lag: int, shrinkage: float = 0.0, remove_shared: bool = True) -> "Ensemble":
        if X.shape[1] // 2 <= lag + 1:
            raise ValueError(f"X has T={X.shape[1]} time steps per agent; the half-series correction "
                             f"needs T >= {2 * (lag + 2)} at lag {lag}")
        Y = remove_shared_course(X) if remove_shared else X
        return cls(AgentMoments.of(standardise_per_agent(Y), lag),
                   AgentMoments.of(standardise_per_agent(split_halves(Y)), lag), X.shape[0], X, lag,
                   shrinkage, remove_shared)

    def standardised(self) -> np.ndarray:
        """The units as the estimate sees them: shared course removed (if asked), standardised per agent."""
        return standardise_per_agent(remove_shared_course(self.raw) if self.remove_shared else self.raw)

    def without(self, agent: int) -> "Ensemble":
        """The same procedure on every agent but ``agent`` (a delete-one jackknife replicate)."""
        return Ensemble.of(np.delete(self.raw, agent, axis=0), self.lag, self.shrinkage, self.remove_shared)

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


def jackknife(ens: Ensemble, mask: np.ndarray, confidence: float, replicate_masks: np.ndarray | None = None) -> dict:
    """Bias-corrected Phi_WMS / Phi_R at ``mask`` with jackknife standard errors and t intervals.

    replicate_masks (A, n): the bipartition each leave-one-out replicate is evaluated at
    (None: ``mask`` for all). Returns {"estimate": {k: value}, "se": {k: se},
    "ci": {k: (lo, hi)}, "dof": A - 1}.
    """
    A = ens.agents
    reps = np.repeat(mask[None], A, axis=0) if replicate_masks is None else replicate_masks
    parts = [ens.corrected_at(mask[None], np.ones((1, A)))]
    parts += [ens.without(k).corrected_at(reps[k][None], np.ones((1, A - 1))) for k in range(A)]
    g = {k: np.concatenate([p[k] for p in parts]) for k in CORRECTED}
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
    covs = np.concatenate([ens.without(k).covariance() for k in range(ens.agents)])
    masks = phi_at_mib(covs, search, device)["masks"]
    return float(np.mean(np.all(masks == mask[None], axis=1)))
