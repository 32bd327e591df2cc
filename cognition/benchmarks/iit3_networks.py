"""Random sparse stochastic networks for IIT 3.0 comparisons (issue 20).

Logistic units: P(x_j(t+1) = 1 | x(t)) = sigmoid(beta * (W[:, j] . x + b_j)), with
W ~ N(0, 1) masked by a random connectivity matrix (each edge i -> j present with
probability `density`, self-loops included), b_j = -0.5 * sum_i W[i, j] (so a node is
unbiased when half its weighted input is on), probabilities rounded to 6 decimals, a
random current state. Connectivity matrices are redrawn until the graph is strongly
connected (otherwise IIT 3.0 gives Phi = 0 without any computation).

TPMs are state-by-node in PyPhi 1.2's little-endian order (row r: node i is bit i of r).
"""
from __future__ import annotations

import numpy as np

from cognition.phi.iit3.partitions import is_strongly_connected


def _inputs(cm: np.ndarray) -> tuple[int, ...]:
    """Bitmask of the inputs of each node (bit i set when cm[i, j] = 1)."""
    return tuple(int(sum(1 << i for i in range(len(cm)) if cm[i, j])) for j in range(len(cm)))


def random_connectivity(n: int, density: float, rng: np.random.Generator, max_tries: int = 10_000) -> np.ndarray:
    """A strongly connected 0/1 matrix (n, n), each entry 1 with probability `density`."""
    for _ in range(max_tries):
        cm = (rng.random((n, n)) < density).astype(int)
        if is_strongly_connected(_inputs(cm)):
            return cm
    raise ValueError(f"no strongly connected {n}-node graph at density {density} in {max_tries} draws")


def logistic_tpm(weights: np.ndarray, beta: float, decimals: int = 6) -> np.ndarray:
    """State-by-node TPM (2^n, n) of logistic units with the weights (n, n), W[i, j] for
    i -> j, and the half-input bias b_j = -0.5 sum_i W[i, j]."""
    n = len(weights)
    states = (np.arange(1 << n)[:, None] >> np.arange(n)) & 1
    bias = -0.5 * weights.sum(axis=0)
    drive = states @ weights + bias
    return np.round(1.0 / (1.0 + np.exp(-beta * drive)), decimals)


def sparse_logistic_network(n: int, density: float, beta: float, rng: np.random.Generator) -> dict:
    """{tpm, cm, state}: one random sparse stochastic network as described above."""
    cm = random_connectivity(n, density, rng)
    weights = rng.standard_normal((n, n)) * cm
    tpm = logistic_tpm(weights, beta)
    while True:  # PyPhi rejects states no previous state leads to (rounding can give 0 or 1)
        state = rng.integers(0, 2, n)
        if np.any(np.prod(np.where(state == 1, tpm, 1.0 - tpm), axis=1) > 0):
            return {"tpm": tpm, "cm": cm, "state": tuple(int(s) for s in state)}


def sparse_logistic_suite(seed: int, sizes=(3, 4, 5), densities=(0.3, 0.4, 0.5, 0.6),
                          betas=(1.0, 2.0, 4.0), per_setting: int = 1) -> list[dict]:
    """Networks for every (size, density, beta) setting, `per_setting` of each, drawn
    from one generator seeded with `seed`; each dict also records its setting."""
    rng = np.random.default_rng(seed)
    out = []
    for n in sizes:
        for density in densities:
            for beta in betas:
                for rep in range(per_setting):
                    net = sparse_logistic_network(n, density, beta, rng)
                    out.append(dict(net, name=f"n{n}_d{density:g}_b{beta:g}_{rep}", n=n, density=density, beta=beta))
    return out
