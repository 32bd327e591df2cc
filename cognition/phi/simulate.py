"""Sample paths of a stationary Gaussian VAR(1), for tests, calibration and examples."""
from __future__ import annotations

import numpy as np

from cognition.phi.validation import check_var1
from cognition.phi.var1 import stationary_covariance


def simulate_var1(A, noise_cov, T: int, agents: int | None = None, seed=None) -> np.ndarray:
    """X_t = A X_{t-1} + eps_t, eps_t ~ N(0, noise_cov), started in the stationary law.

    X_0 ~ N(0, S) with S the stationary covariance, so there is no burn-in transient.
    Returns (T, n), or (agents, T, n) of independent agents when ``agents`` is given.
    """
    A, noise = check_var1(A, noise_cov)
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"T must be an integer >= 1, got {T!r}")
    n = A.shape[0]
    rng = np.random.default_rng(seed)
    m = 1 if agents is None else int(agents)
    X = np.empty((T, m, n))
    X[0] = rng.standard_normal((m, n)) @ np.linalg.cholesky(stationary_covariance(A, noise)).T
    eps = rng.standard_normal((T, m, n)) @ np.linalg.cholesky(noise).T
    for t in range(1, T):
        X[t] = X[t - 1] @ A.T + eps[t]
    X = np.moveaxis(X, 1, 0)
    return X[0] if agents is None else X


def simulate_agents(A: np.ndarray, noise_cov: np.ndarray, T: int, rng: np.random.Generator,
                    replicates: int | None = None) -> np.ndarray:
    """Independent stationary VAR(1) paths, each agent its own model: A, noise_cov (m, n, n) -> (m, T, n).

    Agent k follows X_t = A[k] X_{t-1} + eps_t, eps_t ~ N(0, noise_cov[k]), started in its own stationary
    law. ``replicates``: R independent copies of the whole set, (R, m, T, n). The models are not validated
    here (callers pass stationary ones); used by the per-agent parametric bootstrap
    (``cognition.phi.agents``) and by the calibration families.
    """
    R = 1 if replicates is None else int(replicates)
    X = np.concatenate(list(simulate_agent_blocks(A, noise_cov, T, rng, R, block=R)))
    return X[0] if replicates is None else X


def simulate_agent_blocks(A: np.ndarray, noise_cov: np.ndarray, T: int, rng: np.random.Generator,
                          replicates: int, block: int):
    """:func:`simulate_agents`' R replicates, yielded ``block`` at a time as (<= block, m, T, n) arrays.

    The draws are taken from ``rng`` in the order of one (R, m, T, n) call (every start first, then each
    block's innovations in turn: a Generator fills an array element by element, so consecutive blocks
    are the whole array's draws), so the blocks concatenated are :func:`simulate_agents`' array bit for
    bit, while only one block's paths are held at a time (the per-agent bootstrap of a long run).
    """
    m, n, _ = A.shape
    R, block = int(replicates), max(1, int(block))
    start = np.linalg.cholesky(np.stack([stationary_covariance(a, c) for a, c in zip(A, noise_cov)]))
    x0 = np.einsum("mij,rmj->rmi", start, rng.standard_normal((R, m, n)))
    chol = np.linalg.cholesky(noise_cov)
    for lo in range(0, R, block):
        hi = min(R, lo + block)
        # each step is one batched product into a buffer and one addition, the fewest calls per step (the step
        # loop is call-bound: a few agents' n x n products per step); every replicate and agent its own product,
        # so a replicate's path does not depend on the block it is simulated in
        paths = np.matmul(rng.standard_normal((hi - lo, m, T, n)), np.swapaxes(chol, -1, -2))   # the innovations
        paths[:, :, 0] = x0[lo:hi]
        step = np.empty((hi - lo, m, n, 1))
        for t in range(1, T):
            np.matmul(A, paths[:, :, t - 1, :, None], out=step)
            paths[:, :, t] += step[..., 0]
        yield paths
