"""Bootstrap confidence intervals and the circular-shift null model for Phi.

Bootstrap (Davison & Hinkley 1997, *Bootstrap Methods and their Application*, Sec. 5.2; block
bootstrap: Carlstein 1986, Ann. Stat. 14:1171; Kuensch 1989, Ann. Stat. 17:1217):
resample independent units with replacement, recompute everything (covariance,
shrinkage, MIB search, measures) and form the basic ("reverse percentile") interval
(2 theta - q_{1-a/2}, 2 theta - q_{a/2}), which removes the first-order bias of Phi's
plug-in estimate that a percentile interval would double.

Null model (circular time shifts; Lancaster et al. 2018, Phys. Rep. 748:1, Sec. 4): each node's sequence of lagged pairs is rotated
in time by its own random offset, within each agent. This keeps every node's own
dynamics (its autocorrelation and its past-to-present pairs intact) and destroys the
alignment between nodes, i.e. it samples "nodes are independent processes", under which
every bipartition has Phi = 0.
"""
from __future__ import annotations

import numpy as np
from scipy.special import stdtr, stdtrit


MIN_BOOTSTRAP_AGENTS = 8  # fewer agents than this: block bootstrap within agents instead


def t_quantile(p: float, df: float) -> float:
    """Student's t quantile at probability ``p`` with ``df`` degrees of freedom: the special function
    ``scipy.stats.t.ppf`` evaluates (the same number), without importing scipy.stats (0.35 s of a run's start)."""
    return float(stdtrit(df, p))


def t_upper_tail(x: float, df: float) -> float:
    """P(T > x) for Student's t with ``df`` degrees of freedom (``scipy.stats.t.sf``'s number, as t_quantile)."""
    return float(stdtr(df, -x))


def default_block_length(pairs_per_agent: int, lag: int) -> int:
    """Block length ~ T^(1/3) (Hall, Horowitz & Jing 1995, Biometrika 82:561), at least 2 lag."""
    return int(max(2 * lag, round(pairs_per_agent ** (1.0 / 3.0))))


def resampling_units(agents: int, pairs_per_agent: int, lag: int, resample: str,
                     block_length: int | None) -> tuple[str, int | None]:
    """Choose the bootstrap unit: ('agents', None) or ('blocks', L)."""
    if resample not in ("auto", "agents", "blocks"):
        raise ValueError(f"resample must be 'auto', 'agents' or 'blocks', got {resample!r}")
    if resample == "auto":
        resample = "agents" if agents >= MIN_BOOTSTRAP_AGENTS else "blocks"
    if resample == "agents":
        if agents < 2:
            raise ValueError("resample='agents' needs X with at least 2 agents (shape (agents, T, n))")
        return "agents", None
    if block_length is None:
        block_length = default_block_length(pairs_per_agent, lag)
    if isinstance(block_length, bool) or not isinstance(block_length, (int, np.integer)) or block_length < 1:
        raise ValueError(f"block_length must be an integer >= 1, got {block_length!r}")
    return "blocks", int(block_length)


def bootstrap_weights(rng: np.random.Generator, n_units: int, n_boot: int) -> np.ndarray:
    """(n_boot, n_units) counts: each row draws n_units units with replacement."""
    return rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=n_boot).astype(float)


def basic_interval(estimate: float, replicates: np.ndarray, confidence: float) -> tuple[float, float]:
    """Basic bootstrap interval (2 theta - q_hi, 2 theta - q_lo) at ``confidence``."""
    alpha = 1.0 - confidence
    lo_q, hi_q = np.quantile(replicates, [alpha / 2.0, 1.0 - alpha / 2.0])
    return float(2.0 * estimate - hi_q), float(2.0 * estimate - lo_q)


def monte_carlo_p_value(observed: float, null: np.ndarray) -> float:
    """(1 + #{null >= observed}) / (1 + S): Monte Carlo p-value (Davison & Hinkley 1997, Sec. 4.2.5)."""
    return float((1 + np.count_nonzero(null >= observed)) / (1 + len(null)))


def shifted_rows(rng: np.random.Generator, length: int, size: tuple) -> np.ndarray:
    """Row indices of circular-shift surrogates: ``size`` = (..., 1, n) offsets drawn uniformly from
    [m, length - m], m = max(1, length // 10), node 0's set to 0 (only relative offsets matter); returns
    (..., length, n) indices ``(t + offset) % length`` into each node's series."""
    m = max(1, length // 10)
    shifts = rng.integers(m, length - m + 1, size=size)
    shifts[..., 0] = 0
    return (np.arange(length)[:, None] + shifts) % length


def circular_shift(X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One circular-shift surrogate of X (agents, T, n): unit i of agent a rotated in time by its own offset
    (:func:`shifted_rows`), independently per agent and unit; unit 0 is not moved."""
    agents, length, n = X.shape
    return np.take_along_axis(X, shifted_rows(rng, length, (agents, 1, n)), axis=1)


def circular_shift_covariances(z: np.ndarray, n_surrogates: int, rng: np.random.Generator,
                               chunk_entries: int = 2**24) -> tuple[np.ndarray, np.ndarray]:
    """Circular-shift surrogates of centred lagged pairs z (agents, T', 2n).

    Returns their covariances (S, 2n, 2n) (divided by N - 1) and sums of |z|^4 (S,) (for
    the Ledoit-Wolf intensity).

    Node i's columns (past i and present n+i) are rotated by an offset drawn uniformly
    from [m, T' - m], m = max(1, T' // 10), independently per surrogate, agent and node;
    node 0 stays put (only relative offsets matter). Rotation is a permutation of each
    agent's pairs, so the pooled mean is unchanged and z stays centred.
    """
    agents, length, p = z.shape
    n = p // 2
    if length < 3:
        raise ValueError(f"surrogates need at least 3 lagged samples per series, got {length}")
    per_surrogate = agents * length * p
    step = max(1, chunk_entries // per_surrogate)
    n_pairs = agents * length
    out = np.empty((n_surrogates, p, p))
    fourth = np.empty(n_surrogates)
    for start in range(0, n_surrogates, step):
        s = min(step, n_surrogates - start)
        rows = shifted_rows(rng, length, (s, agents, 1, n))               # (s, agents, T', n)
        rows = np.concatenate([rows, rows], axis=-1)                     # past and present of node i move together
        cols = np.arange(p)[None, None, None, :]
        sur = z[np.arange(agents)[None, :, None, None], rows, cols]      # (s, agents, T', 2n)
        sur = sur.reshape(s, n_pairs, p)
        out[start:start + s] = np.matmul(np.swapaxes(sur, 1, 2), sur) / (n_pairs - 1)
        fourth[start:start + s] = (np.einsum("snp,snp->sn", sur, sur) ** 2).sum(axis=1)
    return out, fourth
