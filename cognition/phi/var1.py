"""Exact Phi of a stationary Gaussian VAR(1) process.

Model: X_t = A X_{t-1} + eps_t, eps_t ~ N(0, noise_cov), A[i, j] the weight from node j
(past) to node i (present). The stationary covariance S solves the discrete Lyapunov
equation S = A S A^T + noise_cov, and cov(X_t, X_{t-tau}) = A^tau S (Barrett & Seth 2011,
PLoS Comput Biol 7:e1001052, Sec. "Gaussian systems").
"""
from __future__ import annotations

import dataclasses

import numpy as np
import scipy.linalg

from cognition.phi.measures import every_bipartition, measures_at
from cognition.phi.result import PhiResult, result_from_row
from cognition.phi.search import AUTO_EXHAUSTIVE_MAX_NODES, phi_at_mib, resolve_search
from cognition.phi.validation import SEARCHES, check_var1


def stationary_covariance(A, noise_cov) -> np.ndarray:
    """Stationary covariance S (n, n) of the VAR(1): S = A S A^T + noise_cov."""
    A, noise = check_var1(A, noise_cov)
    sigma = scipy.linalg.solve_discrete_lyapunov(A, noise)
    return 0.5 * (sigma + sigma.T)


def lagged_joint_covariance(A, noise_cov, lag: int = 1) -> np.ndarray:
    """Covariance (2n, 2n) of (X_{t-lag}, X_t) for the stationary VAR(1), past first.

    [[S, S (A^lag)^T], [A^lag S, S]].
    """
    if isinstance(lag, bool) or not isinstance(lag, (int, np.integer)) or lag < 1:
        raise ValueError(f"lag must be an integer >= 1, got {lag!r}")
    A, noise = check_var1(A, noise_cov)
    sigma = stationary_covariance(A, noise)
    cross = np.linalg.matrix_power(A, lag) @ sigma
    return np.block([[sigma, cross.T], [cross, sigma]])


RULES = ("normalised", "minimum")


def analytical_var1(A, noise_cov, lag: int = 1, search: str = "auto", device=None,
                    rule: str = "normalised") -> PhiResult:
    """Exact TDMI, Phi_WMS, Phi_R and stochastic interaction (bits) at the MIB of a VAR(1).

    A: (n, n) with spectral radius < 1; noise_cov: (n, n) symmetric positive definite (or a
    scalar, meaning scalar * I); lag: tau >= 1. search: 'auto' | 'exhaustive' | 'queyranne'.
    rule: 'normalised' (the MIB minimises Phi_WMS / K, Barrett & Seth 2011; every value is read
    at it) or 'minimum' (the estimand of the per-agent ensemble estimate, cognition.phi.agents:
    ``phi_r`` and ``phi_wms`` are each the measure's own minimum over every bipartition, ``mib``
    is Phi_R's minimiser and tdmi, SI, mmi, k_norm are read there; exhaustive, n <= 16).
    Raises ValueError for a non-stationary A or a non-positive-definite noise covariance.
    """
    if search not in SEARCHES:
        raise ValueError(f"search must be one of {SEARCHES}, got {search!r}")
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    cov = lagged_joint_covariance(A, noise_cov, lag)
    n = cov.shape[0] // 2
    if rule == "minimum":
        return _minimum_rule(cov, n, lag)
    row = phi_at_mib(cov[None], search, device)
    method = {
        "covariance": "analytical: discrete Lyapunov equation S = A S A^T + noise_cov",
        "search": resolve_search(search, n),
        "ci": "none",
        "null_model": "none",
    }
    return result_from_row(row, 0, n_nodes=n, lag=lag, n_samples=None, method=method)


def _minimum_rule(cov: np.ndarray, n: int, lag: int) -> PhiResult:
    """analytical_var1(rule='minimum'): each measure's own minimum over every bipartition."""
    if n > AUTO_EXHAUSTIVE_MAX_NODES:
        raise ValueError(f"rule='minimum' evaluates every bipartition; n={n} is above "
                         f"{AUTO_EXHAUSTIVE_MAX_NODES} nodes")
    table = every_bipartition(cov[None])
    best = int(np.argmin(table["phi_r"][0]))
    row = measures_at(cov[None], table["masks"][best][None])
    row.update(phi_r=table["phi_r"][:, best], phi_wms=table["phi_wms"].min(axis=1),
               masks=table["masks"][best][None], normalised=np.array([False]))
    method = {"covariance": "analytical: discrete Lyapunov equation S = A S A^T + noise_cov",
              "search": "exhaustive", "ci": "none", "null_model": "none"}
    result = result_from_row(row, 0, n_nodes=n, lag=lag, n_samples=None, method=method)
    return dataclasses.replace(result, method={**result.method, "mib_criterion": "minimum of Phi_R over "
                                               "bipartitions (phi_wms: its own minimum)"})
