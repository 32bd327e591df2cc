"""Calibration of ``estimate`` on systems whose answer is known: nulls and exact VAR(1) agents.

Pure numpy; used by ``python -m cognition.bench calibration`` and by the tests. Agents differ
(each its own anatomy), as the loop's do:

* False positives: ensembles with no coupling within agents across some bipartition, with
  the structure of the loop's units: stationary AR(1) units; AR(1) units that all start 3 SD
  above their mean (a shared, time-locked transient); a drive shared by every agent and unit
  with a per-agent gain factor (lognormal); independent AR(1) units whose coefficients and
  scales differ per agent; two coupled halves per agent that are independent of each other,
  each agent its own couplings (the one null bipartition sets the intersection-union p-value);
  and the structures of real recordings (issue 42): a drive reaching each agent with its own
  latency (``lagged_drive``), an innovation SD that jumps at a time per agent (``variance_jump``),
  and two strongly coupled halves independent of each other (``dense_halves``).
* Accuracy and coverage: ensembles of agents with exact per-agent Phi
  (``analytical_var1(..., rule="minimum")``): every agent its own random VAR(1)
  (``random_agents``); one strongly coupled system with each agent's units' signs flipped at
  random (``sign_flipped``; a sign flip x_i -> -x_i leaves an agent's Phi unchanged and makes
  pooled covariances cancel); a scaled orthogonal system whose bipartitions nearly tie
  (``near_tied_system``).
"""
from __future__ import annotations

import numpy as np
import scipy.stats

from cognition.phi.measures import measures_at
from cognition.phi.simulate import simulate_agents
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


def random_var1(rng: np.random.Generator, n: int, radius: float | None = None, density: float = 0.5) -> np.ndarray:
    """A random stationary VAR(1) matrix: N(0, 1) weights on ~``density`` of the edges and every self-loop,
    scaled to spectral radius ``radius`` (default uniform in [0.5, 0.95])."""
    A = rng.normal(0.0, 1.0, (n, n)) * (rng.random((n, n)) < density)
    np.fill_diagonal(A, rng.normal(0.0, 1.0, n))
    target = rng.uniform(0.5, 0.95) if radius is None else radius
    return A * target / np.abs(np.linalg.eigvals(A)).max()


def random_agents(rng: np.random.Generator, agents: int, n: int) -> np.ndarray:
    """(agents, n, n): every agent its own ``random_var1``."""
    return np.stack([random_var1(rng, n) for _ in range(agents)])


def strong_system(n: int = 8, seed: int = 1235) -> np.ndarray:
    """A dense, strongly coupled VAR(1) (``random_var1`` with every edge, spectral radius 0.98)."""
    return random_var1(np.random.default_rng(seed), n, radius=0.98, density=1.0)


def near_tied_system(n: int = 8, seed: int = 28, radius: float = 0.9) -> np.ndarray:
    """radius * Q with Q a random orthogonal matrix: every node mixes evenly into every other, so the
    single-node bipartitions nearly tie in Phi_R (about 2 bits at n = 8, radius 0.9)."""
    return radius * scipy.stats.ortho_group.rvs(n, random_state=seed)


def sign_flipped(base: np.ndarray, rng: np.random.Generator, agents: int) -> np.ndarray:
    """(agents, n, n): D_a base D_a with D_a a random diagonal of +-1 per agent (each agent's units' signs)."""
    d = rng.choice([-1.0, 1.0], size=(agents, base.shape[0]))
    return d[:, :, None] * base[None] * d[:, None, :]


def exact_per_agent(A: np.ndarray, measure: str = "phi_r") -> np.ndarray:
    """(agents,) exact per-agent Phi (each agent's minimum over bipartitions) of agents A (agents, n, n), unit noise."""
    return np.array([getattr(analytical_var1(a, 1.0, rule="minimum"), measure) for a in A])


def simulate_ensemble(A: np.ndarray, T: int, rng: np.random.Generator) -> np.ndarray:
    """(agents, T, n) stationary paths of agents A (agents, n, n) with unit noise."""
    return simulate_agents(A, np.broadcast_to(np.eye(A.shape[-1]), A.shape).copy(), T, rng)


def shared_drive(rng: np.random.Generator, agents: int, T: int, n: int, sigma: float = 1.0,
                 rho: float = 0.8, drive_rho: float = 0.9, start_sd: float = 3.0) -> np.ndarray:
    """Independent AR(1) units plus a drive shared by every agent and unit, with a gain per agent.

    x_a,i(t) = u_a,i(t) + g_a c_a,i d(t): u independent AR(1) (``rho``, unit stationary variance), d one
    AR(1) (``drive_rho``) started at ``start_sd`` SDs (a transient), g_a ~ lognormal(0, sigma) per agent
    and c_a,i ~ lognormal(0, 0.25) per unit. No coupling within agents: every bipartition is null.
    """
    U = independent_ar1(rng, agents, T, n, rho) * np.sqrt(1.0 - rho**2)
    d = np.empty(T)
    x = start_sd
    for t in range(T):
        x = drive_rho * x + np.sqrt(1.0 - drive_rho**2) * rng.standard_normal()
        d[t] = x
    gain = rng.lognormal(0.0, sigma, (agents, 1)) * rng.lognormal(0.0, 0.25, (agents, n))
    return U + gain[:, None, :] * d[None, :, None]


def heterogeneous_ar1(rng: np.random.Generator, agents: int, T: int, n: int) -> np.ndarray:
    """Independent AR(1) units whose coefficient is drawn per agent (uniform in [0, 0.95], shared by that
    agent's units, so units of one agent are alike) and whose scale is drawn per unit (lognormal(0, 1))."""
    rho = rng.uniform(0.0, 0.95, (agents, 1))
    x = rng.standard_normal((agents, n)) / np.sqrt(1.0 - rho**2)
    X = np.empty((agents, T, n))
    for t in range(T):
        x = rho * x + rng.standard_normal((agents, n))
        X[:, t] = x
    return X * rng.lognormal(0.0, 1.0, (agents, 1, n))


def independent_halves(rng: np.random.Generator, agents: int, T: int, n: int) -> np.ndarray:
    """Two coupled halves per agent, independent of each other: agent a's first n // 2 units and the
    rest are each its own ``random_var1`` (radius uniform [0.5, 0.95]), so the bipartition between the
    halves is null while every other one is crossed by coupling."""
    h = n // 2
    A = np.zeros((agents, n, n))
    for a in range(agents):
        A[a, :h, :h] = random_var1(rng, h)
        A[a, h:, h:] = random_var1(rng, n - h)
    return simulate_ensemble(A, T, rng)


def lagged_drive(rng: np.random.Generator, agents: int, T: int, n: int, lags=(0, 1, 2), sigma: float = 0.5,
                 rho: float = 0.8, drive_rho: float = 0.9) -> np.ndarray:
    """Independent AR(1) units plus one AR(1) drive that reaches each agent with its own latency.

    x_a,i(t) = u_a,i(t) + g_a c_a,i d(t - l_a): u independent AR(1) (``rho``, unit stationary variance), d one
    stationary AR(1) (``drive_rho``), l_a drawn per agent from ``lags``, g_a ~ lognormal(0, sigma) per agent
    and c_a,i ~ lognormal(0, 0.25) per unit (a stimulus-locked response with per-subject latency and
    amplitude). No coupling within agents: every bipartition is null.
    """
    pad = max(lags)
    U = independent_ar1(rng, agents, T, n, rho) * np.sqrt(1.0 - rho**2)
    d = np.empty(T + pad)
    x = rng.standard_normal()
    for t in range(T + pad):
        x = drive_rho * x + np.sqrt(1.0 - drive_rho**2) * rng.standard_normal()
        d[t] = x
    lag = rng.choice(np.asarray(lags), size=agents)
    gain = rng.lognormal(0.0, sigma, (agents, 1)) * rng.lognormal(0.0, 0.25, (agents, n))
    course = np.stack([d[pad - l:pad - l + T] for l in lag])             # (agents, T): d(t - l_a)
    return U + gain[:, None, :] * course[:, :, None]


def variance_jump(rng: np.random.Generator, agents: int, T: int, n: int, rho: float = 0.8,
                  same_time: bool = False, A: np.ndarray | None = None) -> np.ndarray:
    """Units whose innovation SD jumps x3 or /3 (chosen per agent) at a time drawn per agent in [T/10, 9T/10).

    A None: independent AR(1) units (``rho``); else (agents, n, n) each agent's VAR(1), run 50 steps before
    the record starts. same_time: one jump time for every agent (the control). Every unit of an agent
    shares its schedule (a per-agent non-stationarity: a change of state or of recording gain).
    """
    lo, hi = T // 10, T - T // 10
    when = np.full(agents, rng.integers(lo, hi)) if same_time else rng.integers(lo, hi, size=agents)
    factor = np.where(rng.random(agents) < 0.5, 3.0, 1.0 / 3.0)
    burn = 0 if A is None else 50
    x = rng.standard_normal((agents, n)) / np.sqrt(1.0 - rho**2) if A is None else np.zeros((agents, n))
    X = np.empty((agents, T + burn, n))
    for t in range(T + burn):
        scale = np.where(t - burn >= when, factor, 1.0)[:, None]
        drift = rho * x if A is None else np.einsum("aij,aj->ai", A, x)
        x = drift + scale * rng.standard_normal((agents, n))
        X[:, t] = x
    return X[:, burn:]


def dense_halves(rng: np.random.Generator, agents: int, n: int) -> np.ndarray:
    """(agents, n, n): two halves per agent, each a dense ``random_var1`` of radius uniform in [0.6, 0.95]
    (every edge), independent of each other: the cut between the halves is the exact MIB, Phi = 0, while
    the parts are strongly coupled inside (the boundary the interval must cover)."""
    h = n // 2
    A = np.zeros((agents, n, n))
    for a in range(agents):
        for part in (slice(0, h), slice(h, n)):
            size = part.stop - part.start
            A[a, part, part] = random_var1(rng, size, radius=rng.uniform(0.6, 0.95), density=1.0)
    return A


def kuramoto(rng: np.random.Generator, trials: int, T: int, n: int, coupling: float, *, dt: float = 0.25,
             substeps: int = 10, omega: float = 1.0, spread: float = 0.2, diffusion: float = 0.1,
             density: float = 0.5, burn: int = 50) -> np.ndarray:
    """(trials, T, n) sin(phase) of n noisy Kuramoto oscillators on one random graph, sampled every ``dt``.

    d theta_i = (w_i + coupling / deg_i sum_j a_ij sin(theta_j - theta_i)) dt + sqrt(2 diffusion) dW_i
    (Kuramoto 1984; the noisy form of Sakaguchi 1988), integrated by Euler-Maruyama in ``substeps`` steps per
    sample. One system per call (the trials are its repetitions): a connected Erdos-Renyi graph of
    ``density`` and natural frequencies w_i ~ N(omega, spread^2) rad per unit time, drawn once; every trial
    starts at independent uniform phases and runs ``burn`` samples before the record. With the defaults a
    period is about 25 samples, so a lag of one sample sees about 1/25 of a cycle (finely sampled
    continuous-time data). coupling 0: independent oscillators, Phi 0 at every bipartition.
    """
    while True:
        adj = np.triu(rng.random((n, n)) < density, 1)
        adj = adj | adj.T
        reach = np.eye(n, dtype=bool)
        for _ in range(n):
            reach = reach | ((reach.astype(np.int64) @ adj.astype(np.int64)) > 0)
        if reach.all():
            break
    w = rng.normal(omega, spread, n)
    K = coupling * adj / adj.sum(axis=1, keepdims=True)
    theta = rng.uniform(0.0, 2.0 * np.pi, (trials, n))
    h = dt / substeps
    out = np.empty((trials, T, n))
    for t in range(T + burn):
        for _ in range(substeps):
            pull = (K[None] * np.sin(theta[:, None, :] - theta[:, :, None])).sum(axis=-1)
            theta = theta + h * (w + pull) + np.sqrt(2.0 * diffusion * h) * rng.standard_normal(theta.shape)
        if t >= burn:
            out[:, t - burn] = np.sin(theta)
    return out


def trial_shuffled(rng: np.random.Generator, X: np.ndarray) -> np.ndarray:
    """(trials, T, n) X with its trials recombined so that every shuffled trial takes each unit from a different
    trial: unit j of shuffled trial a is unit j of trial p[(a + s_j) mod trials], p a random permutation and
    s_j distinct offsets (s_0 = 0). Every unit keeps its own dynamics and no two units of a shuffled trial
    share a trial, so no bipartition is coupled (Phi 0): the shuffled control of a recording. Needs n <= trials."""
    trials, _, n = X.shape
    if n > trials:
        raise ValueError(f"trial_shuffled needs at least as many trials as units, got {trials} trials, {n} units")
    p = rng.permutation(trials)
    offsets = np.concatenate([[0], 1 + rng.permutation(trials - 1)[:n - 1]])
    source = p[(np.arange(trials)[:, None] + offsets[None, :]) % trials]          # (trials, n)
    return X[source, :, np.arange(n)[None, :]].transpose(0, 2, 1)
