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
  sqrt((A - 1)/A sum_k (g_(-k) - mean)^2), t intervals with A - 1 degrees of freedom,
  joined over the bipartitions that could be the MIB (:mod:`cognition.phi.mib_interval`);
  ``mib_stability`` says how often a replicate's own MIB search agrees with the stated one.

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


def centred_agent_pairs(Xs: np.ndarray, lag: int) -> np.ndarray:
    """(A, L, 2n) lagged pairs (X_{t-lag}, X_t) of each agent, centred on that agent's own mean."""
    pairs = np.concatenate([Xs[:, :-lag], Xs[:, lag:]], axis=-1)
    return pairs - pairs.mean(axis=1, keepdims=True)


def pooled_covariance(Xs: np.ndarray, lag: int) -> np.ndarray:
    """(2n, 2n) covariance of the lagged pairs pooled over agents, one mean per agent (divided by A (L - 1))."""
    pairs = centred_agent_pairs(Xs, lag)
    cov = np.einsum("atp,atq->pq", pairs, pairs) / (pairs.shape[0] * (pairs.shape[1] - 1))
    return 0.5 * (cov + cov.T)


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

    whole: np.ndarray   # (2n, 2n) pooled covariance of the standardised series
    halves: np.ndarray  # the same of their standardised halves
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
        return cls(pooled_covariance(standardise_per_agent(Y), lag),
                   pooled_covariance(standardise_per_agent(split_halves(Y)), lag), X.shape[0], X, lag,
                   shrinkage, remove_shared)

    def standardised(self) -> np.ndarray:
        """The units as the estimate sees them: shared course removed (if asked), standardised per agent."""
        return standardise_per_agent(remove_shared_course(self.raw) if self.remove_shared else self.raw)

    def without(self, agent: int) -> "Ensemble":
        """The same procedure on every agent but ``agent`` (a delete-one jackknife replicate)."""
        return Ensemble.of(np.delete(self.raw, agent, axis=0), self.lag, self.shrinkage, self.remove_shared)

    def covariance(self) -> np.ndarray:
        """(1, 2n, 2n) the pooled covariance of the whole series, shrunk."""
        return shrink(self.whole[None], self.shrinkage)

    def corrected_at(self, masks: np.ndarray) -> dict[str, np.ndarray]:
        """g = 2 theta(whole) - theta(halves) at each of masks (P, n); and K(B) of the whole."""
        whole = measures_at(np.repeat(self.covariance(), len(masks), axis=0), masks)
        halves = measures_at(np.repeat(shrink(self.halves[None], self.shrinkage), len(masks), axis=0), masks)
        return {**{k: 2.0 * whole[k] - halves[k] for k in CORRECTED}, "k_norm": whole["k_norm"]}


def replicate_values(ens: Ensemble, masks: np.ndarray) -> dict[str, np.ndarray]:
    """(A + 1, P) values at each of the bipartitions ``masks`` (P, n): row 0 from all agents,
    row k + 1 without agent k. g = 2 theta(whole) - theta(halves) for Phi_WMS and Phi_R, and
    the whole series' K(B) (``k_norm``)."""
    rows = [ens] + [ens.without(k) for k in range(ens.agents)]
    parts = [e.corrected_at(masks) for e in rows]
    return {k: np.stack([p[k] for p in parts]) for k in parts[0]}


def jackknife_estimate(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bias-corrected estimate A g - (A - 1) mean_k g_(-k) and the jackknife standard error, per column."""
    A = values.shape[0] - 1
    full, reps = values[0], values[1:]
    centred = reps - reps.mean(axis=0)
    return A * full - (A - 1) * reps.mean(axis=0), np.sqrt((A - 1) / A * np.sum(centred**2, axis=0))


def replicate_mibs(ens: Ensemble, search: str, device=None) -> np.ndarray:
    """(A, n) the MIB each leave-one-agent-out replicate finds with its own search."""
    covs = np.concatenate([ens.without(k).covariance() for k in range(ens.agents)])
    return phi_at_mib(covs, search, device)["masks"]


def mib_stability(replicates: np.ndarray, mask: np.ndarray) -> float:
    """Share of the leave-one-agent-out MIBs ``replicates`` (A, n) equal to ``mask`` (as a bipartition)."""
    return float(np.mean(np.all(replicates == mask[None], axis=1)))
