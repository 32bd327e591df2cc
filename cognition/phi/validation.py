"""Input checks for ``cognition.phi``: each user error is one ValueError naming the problem.

Phi must never come back as a silent NaN: a non-stationary model, a covariance that is
not positive definite, missing values or too few samples are rejected here, before any
arithmetic.
"""
from __future__ import annotations

import numbers

import numpy as np

SEARCHES = ("auto", "exhaustive", "queyranne")
#: bootstrap replicates and surrogates at most: p-values resolve to 1e-4 there, and the work and the memory grow
#: linearly past it (1e8 surrogates asked for 5.96 GiB and ran past a minute; issue 43)
MAX_RESAMPLES = 10_000


def check_var1(A, noise_cov) -> tuple[np.ndarray, np.ndarray]:
    """Validate a VAR(1) model X_t = A X_{t-1} + eps, eps ~ N(0, noise_cov).

    Returns float arrays (A (n, n), noise_cov (n, n)). Raises ValueError when A is not a
    finite square matrix with spectral radius < 1, or noise_cov is not a symmetric
    positive-definite (n, n) matrix.
    """
    A = np.asarray(A, dtype=float)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square (n, n) matrix, got shape {A.shape}")
    n = A.shape[0]
    if n < 2:
        raise ValueError(f"A has n={n} node(s); a bipartition needs at least 2 nodes")
    if not np.all(np.isfinite(A)):
        raise ValueError("A contains NaN or infinite entries")
    radius = float(np.max(np.abs(np.linalg.eigvals(A))))
    if radius >= 1.0:
        raise ValueError(f"A is not stationary: spectral radius {radius:.6g} >= 1 "
                         "(a stationary VAR(1) needs every |eigenvalue| of A below 1)")
    noise = np.asarray(noise_cov, dtype=float)
    if noise.ndim == 0:
        noise = noise * np.eye(n)
    if noise.shape != (n, n):
        raise ValueError(f"noise_cov must have shape ({n}, {n}) to match A, got {noise.shape}")
    check_covariance(noise, "noise_cov")
    return A, noise


def check_covariance(cov: np.ndarray, name: str) -> None:
    """Raise ValueError unless ``cov`` is finite, symmetric and positive definite."""
    if not np.all(np.isfinite(cov)):
        raise ValueError(f"{name} contains NaN or infinite entries")
    scale = max(float(np.max(np.abs(cov))), 1e-300)
    if not np.allclose(cov, cov.T, rtol=1e-8, atol=1e-12 * scale):
        raise ValueError(f"{name} is not symmetric; a covariance matrix must equal its transpose")
    smallest = float(np.linalg.eigvalsh(cov)[0])
    if smallest <= 1e-12 * scale:
        raise ValueError(f"{name} is not positive definite (smallest eigenvalue {smallest:.3g}); "
                         "it must be a symmetric positive-definite covariance")


def check_series(X, lag: int) -> np.ndarray:
    """Validate data X, shape (T, n) or (agents, T, n); return float64 (agents, T, n).

    Raises ValueError on a wrong shape, NaN/inf values, a bad lag, or fewer lagged
    samples than the 2n variables (past and present) of the joint covariance.
    """
    if isinstance(lag, bool) or not isinstance(lag, numbers.Integral) or lag < 1:
        raise ValueError(f"lag must be an integer >= 1, got {lag!r}")
    X = np.asarray(X, dtype=float)
    if X.ndim == 2:
        X = X[None]
    if X.ndim != 3:
        raise ValueError(f"X must have shape (T, n) or (agents, T, n), got shape {X.shape}")
    agents, T, n = X.shape
    if n < 2:
        raise ValueError(f"X has n={n} node(s) (last axis); a bipartition needs at least 2 nodes")
    bad = ~np.isfinite(X)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        kind = "NaN" if np.isnan(X).any() else "infinite"
        raise ValueError(f"X contains {int(bad.sum())} {kind} value(s) (first at index {first} "
                         "of (agents, T, n)); remove or impute them before estimating Phi")
    if T <= lag:
        raise ValueError(f"X has T={T} time steps per series; lag={lag} needs T > lag")
    pairs = agents * (T - lag)
    if pairs <= 2 * n:
        raise ValueError(f"X has {pairs} lagged samples for {2 * n} variables "
                         f"(n={n} nodes, past and present); at least {2 * n + 1} are needed")
    return X


def check_options(search: str, shrinkage, bootstrap: int, surrogates: int, confidence: float) -> None:
    """Validate the options of ``estimate``; raise ValueError naming the bad one."""
    if search not in SEARCHES:
        raise ValueError(f"search must be one of {SEARCHES}, got {search!r}")
    if shrinkage is not None and shrinkage != "ledoit-wolf":
        if isinstance(shrinkage, bool) or not isinstance(shrinkage, numbers.Real) or not 0.0 <= shrinkage <= 1.0:
            raise ValueError(f"shrinkage must be None, 'ledoit-wolf' or a float in [0, 1], got {shrinkage!r}")
    for name, value in (("bootstrap", bootstrap), ("surrogates", surrogates)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= MAX_RESAMPLES:
            raise ValueError(f"{name} must be an integer from 0 to {MAX_RESAMPLES}, got {value!r}")
    if not isinstance(confidence, numbers.Real) or not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be a float in (0, 1), got {confidence!r}")
