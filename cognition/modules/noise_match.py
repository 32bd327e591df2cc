"""The sampling-noise variance of the unconscious module, quantum and classical, and matching them.

The unconscious module's sample z_t (what its association reads) is noisy in both variants:

* quantum: each z_q is the mean of ``shots`` outcomes +-1 of a qubit whose exact expectation is
  m_q, so Var[z_q | cue] = (1 - m_q^2) / shots (binomial shot noise). From the sample alone,
  (1 - z_q^2) / (shots - 1) is an unbiased estimate of it, since E[z_q^2] = m_q^2 + (1 - m_q^2)/shots
  (:func:`shot_noise_variance`);
* classical: h_j = tanh(a_j + sigma eps_j), eps_j ~ N(0, 1), with the drive a = W h_{t-1} + U b_{t-1};
  its noise variance given the drive, Var_eps[tanh(a_j + sigma eps)], is an integral against the
  normal density, computed here by Gauss-Hermite quadrature (:func:`tanh_noise_variance`).

Both are averaged over the sample's units, per agent, and recorded every cycle as the module's
``noise_var``. A noise-matched classical stand-in (``modules.unconscious.noise_variance``) picks
sigma each cycle, per agent, by bisection so that its noise variance equals a target
(:func:`matched_noise_scale`), e.g. the quantum sampler's measured mean (the ablation experiment
measures it on the all-quantum run of the same seed).
"""
from __future__ import annotations

import functools

import numpy as np
import torch

# probabilists' Gauss-Hermite nodes, by the largest noise scale in the call: against scipy.integrate.quad, 20
# nodes are within 2e-14 at scales <= 0.3 and 1e-9 at 0.5 (the matched scales are 0.1-0.5); 64 nodes within 1e-9 at
# 1 and 2.4e-4 at 3 (tanh nearly a step between nodes; tests/test_noise_match.py)
FEW_NODES, MANY_NODES, FEW_NODES_UP_TO = 20, 64, 0.5
NEWTON_STEPS = 8  # from the delta-method start, the variance meets its target to rounding in 4-6 (tested)
MAX_NOISE_SCALE = 20.0  # tanh saturates long before: the variance at 20 is within 0.05 of its limit 1


def shot_noise_variance(z: torch.Tensor, shots: int) -> torch.Tensor:
    """(agents,) unbiased estimate of mean_q (1 - m_q^2) / shots from the sampled <Z_q> z (agents, n).

    NaN for ``shots`` = 1 (one outcome per qubit carries no estimate of its own variance)."""
    if shots < 2:
        return torch.full(z.shape[:1], float("nan"), dtype=z.dtype, device=z.device)
    return ((1.0 - z * z) / (shots - 1)).mean(dim=1)


@functools.lru_cache(maxsize=None)
def _nodes(count: int) -> tuple[np.ndarray, np.ndarray]:
    nodes, weights = np.polynomial.hermite_e.hermegauss(count)
    return nodes, weights / weights.sum()


def node_count(largest_scale: float) -> int:
    """How many quadrature nodes a call whose largest noise scale is ``largest_scale`` uses."""
    return FEW_NODES if largest_scale <= FEW_NODES_UP_TO else MANY_NODES


def _quadrature(like: torch.Tensor, largest_scale: float) -> tuple[torch.Tensor, torch.Tensor]:
    nodes, weights = _nodes(node_count(largest_scale))
    as_t = lambda a: torch.as_tensor(a, dtype=like.dtype, device=like.device)  # noqa: E731
    return as_t(nodes), as_t(weights)


def _scale_tensor(drive: torch.Tensor, scale) -> tuple[torch.Tensor, float]:
    scale = torch.as_tensor(scale, dtype=drive.dtype, device=drive.device).reshape(-1, 1, 1)
    return scale, float(scale.max())


def tanh_noise_variance(drive: torch.Tensor, scale: torch.Tensor | float) -> torch.Tensor:
    """(agents,) mean over units of Var_eps[tanh(drive + scale eps)], eps ~ N(0, 1).

    drive (agents, H); scale a number or (agents,) tensor, one noise scale per agent.
    """
    scale, largest = _scale_tensor(drive, scale)
    nodes, weights = _quadrature(drive, largest)
    f = torch.tanh(drive[:, :, None] + scale * nodes)  # (agents, H, nodes)
    mean, second = (f * weights).sum(dim=2), (f * f * weights).sum(dim=2)  # row sums: batch-invariant
    return (second - mean * mean).clamp_min(0.0).mean(dim=1)


def _variance_and_slope(drive: torch.Tensor, scale) -> tuple[torch.Tensor, torch.Tensor]:
    """(agents,) mean over units of V = Var_eps[tanh(drive + scale eps)] and of dV/dscale."""
    scale, largest = _scale_tensor(drive, scale)
    nodes, weights = _quadrature(drive, largest)
    f = torch.tanh(drive[:, :, None] + scale * nodes)  # (agents, H, nodes)
    mean, second = (f * weights).sum(dim=2), (f * f * weights).sum(dim=2)  # row sums: batch-invariant
    df = (1.0 - f * f) * nodes  # d tanh / d scale
    slope = 2.0 * ((f * df * weights).sum(dim=2) - mean * (df * weights).sum(dim=2))
    return (second - mean * mean).clamp_min(0.0).mean(dim=1), slope.mean(dim=1)


def matched_noise_scale(drive: torch.Tensor, target: float) -> torch.Tensor:
    """(agents,) the noise scale sigma at which :func:`tanh_noise_variance` equals ``target``, per agent.

    Newton's method on sigma from the delta-method guess Var ~ sigma^2 mean_j (1 - tanh^2 a_j)^2, each
    step kept within [sigma / 4, 4 sigma] and [0, MAX_NOISE_SCALE]. A target beyond what the largest
    scale reaches (tanh saturates at variance < 1) ends at a large, saturating scale (at most
    MAX_NOISE_SCALE); the recorded ``noise_var`` then shows the shortfall.
    """
    gain = ((1.0 - torch.tanh(drive) ** 2) ** 2).mean(dim=1)
    sigma = (target / gain.clamp_min(1e-12)).sqrt().clamp(1e-6, MAX_NOISE_SCALE)
    for _ in range(NEWTON_STEPS):
        value, slope = _variance_and_slope(drive, sigma)
        step = (value - target) / slope.clamp_min(1e-300)
        sigma = (sigma - step).clamp(sigma / 4, 4 * sigma).clamp(1e-6, MAX_NOISE_SCALE)
    return sigma
