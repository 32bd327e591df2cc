"""Calibration of ``estimate`` on systems whose answer is known: nulls and an exact VAR(1).

Pure numpy; used by ``python -m cognition.bench calibration`` and by the tests.

* False positives: ensembles whose units are independent (so every bipartition has
  Phi = 0), with the structure of the loop's units: stationary AR(1) units, and AR(1)
  units that all start 3 SD above their mean in every agent (a start-up transient shared,
  time-locked, by every agent and unit, then independent decay).
* Coverage: a coupled 8-node VAR(1) (``calibration_var1``) whose Phi is exact
  (``analytical_var1`` of its standardised form, since ``estimate`` standardises units
  per agent and the normalised MIB depends on the units' scale).
"""
from __future__ import annotations

import numpy as np

from cognition.phi.measures import measures_at
from cognition.phi.var1 import analytical_var1, lagged_joint_covariance, stationary_covariance


def independent_ar1(rng: np.random.Generator, agents: int, T: int, n: int, rho: float = 0.8,
                    start_sd: float | None = None) -> np.ndarray:
    """(agents, T, n) independent AR(1) units x_t = rho x_{t-1} + e_t, unit innovations.

    start_sd None: each unit starts from its stationary distribution; a number: every unit of
    every agent starts at start_sd stationary SDs (the shared transient).
    """
    sd = 1.0 / np.sqrt(1.0 - rho**2)
    x = rng.standard_normal((agents, n)) * sd if start_sd is None else np.full((agents, n), start_sd * sd)
    X = np.empty((agents, T, n))
    for t in range(T):
        x = rho * x + rng.standard_normal((agents, n))
        X[:, t] = x
    return X


def calibration_var1(n: int = 8, seed: int = 25) -> tuple[np.ndarray, np.ndarray]:
    """The coupled VAR(1) of the coverage study: A = 0.4 I + sparse N(0, 0.3^2) couplings, radius <= 0.8."""
    rng = np.random.default_rng(seed)
    A = 0.4 * np.eye(n) + (rng.random((n, n)) < 0.4) * rng.normal(0.0, 0.3, (n, n))
    radius = np.abs(np.linalg.eigvals(A)).max()
    return (A * 0.8 / radius if radius > 0.8 else A), np.eye(n)


def standardised_var1(A: np.ndarray, noise_cov: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same process with every node scaled to unit stationary variance: (D^-1 A D, D^-1 N D^-1)."""
    d = np.sqrt(np.diag(stationary_covariance(A, noise_cov)))
    return A * (1.0 / d)[:, None] * d[None, :], noise_cov / np.outer(d, d)


class ExactPhi:
    """Exact Phi_R of a VAR(1) at its MIB and at any stated bipartition (standardised units)."""

    def __init__(self, A: np.ndarray, noise_cov: np.ndarray, lag: int = 1):
        As, Ns = standardised_var1(A, noise_cov)
        self.result = analytical_var1(As, Ns, lag)
        self._cov = lagged_joint_covariance(As, Ns, lag)[None]

    def at(self, mib, measure: str = "phi_r") -> float:
        mask = np.zeros(self.result.n_nodes, dtype=bool)
        mask[list(mib[0])] = True
        return float(measures_at(self._cov, mask[None])[measure][0])
