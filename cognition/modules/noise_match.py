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

from cognition.modules.base import batch_stable

# probabilists' Gauss-Hermite nodes, by each row's noise scale: against scipy.integrate.quad, 20 nodes are within
# 2e-14 at scales <= 0.3 and 1e-9 at 0.5 (the matched scales are 0.1-0.5); 64 nodes within 1e-9 at 1 and 2.4e-4 at 3
# (tanh nearly a step between nodes; tests/modules/test_noise_match.py)
FEW_NODES, MANY_NODES, FEW_NODES_UP_TO = 20, 64, 0.5
# rows per block of the quadrature: 1024 x 16 units x 10 node pairs = 1.25 MiB per temporary (a core's L2); each
# row's moments are its own sums, so the blocking changes no number
ROW_BLOCK = 1024
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


@functools.lru_cache(maxsize=None)
def _positive_nodes(count: int) -> tuple[np.ndarray, np.ndarray]:
    """The nodes x_j > 0 and their weights: -x_j has the same weight, and a node at 0 adds nothing below."""
    nodes, weights = _nodes(count)
    return nodes[nodes > 0], weights[nodes > 0]


def node_count(largest_scale: float) -> int:
    """How many quadrature nodes a row whose noise scale is ``largest_scale`` uses."""
    return FEW_NODES if largest_scale <= FEW_NODES_UP_TO else MANY_NODES


def _sech2(x: torch.Tensor) -> torch.Tensor:
    """sech^2 x = 1 - tanh^2 x, to full relative precision also where tanh x rounds to +-1 (0 past |x| ~ 710)."""
    return batch_stable(torch.cosh, x).pow(-2)


def _unit_moments(drive: torch.Tensor, scale: torch.Tensor, count: int, slope: bool) -> list[torch.Tensor]:
    """[V] or [V, dV/dscale], (rows, H): V = Var_eps[tanh(a + scale eps)] of each unit a = drive[i, k].

    Gauss-Hermite quadrature over ``count`` nodes, the symmetric nodes +-x_j (weight w_j) taken in pairs.
    With t = tanh a, tau_j = tanh(scale x_j), tanh(a +- scale x_j) = (t +- tau_j) / (1 +- t tau_j), so the
    deviations g = tanh(a +- scale x_j) - t of a pair have closed-form sums over one denominator
    D_j = 1 - t^2 tau_j^2 = nu_j + c tau_j^2 (c = sech^2 a, nu_j = sech^2(scale x_j): a sum of non-negative
    terms, exact in relative terms also where t and tau_j round to +-1). With rho_j = c / D_j:

        E[g] = -2 t sum_j w_j tau_j^2 rho_j,   E[g^2] = 4 sum_j w_j tau_j^2 rho_j^2 - 2 c sum_j w_j tau_j^2 rho_j,

    and V = E[g^2] - E[g]^2: one cosh per unit instead of a tanh per unit and node, and the variance of
    the small deviations g (no cancellation of E[f^2] ~ E[f]^2 ~ 1 at large drives). The slope
    dV/dscale = 2 (E[g f'] - E[g] E[f']), f' = x (1 - f^2), pairs the same way (beta_j = nu_j / D_j):
    E[f'] = -4 t sum_j e_j rho_j beta_j, E[g f'] = 8 sum_j e_j rho_j^2 beta_j - 6 sum_j e_j rho_j^2 nu_j,
    e_j = w_j x_j tau_j.
    """
    x, w = (torch.as_tensor(v, dtype=drive.dtype, device=drive.device) for v in _positive_nodes(count))
    sx = scale.reshape(-1, 1) * x  # (rows or 1, J)
    tau, nu = batch_stable(torch.tanh, sx)[:, None, :], _sech2(sx)[:, None, :]
    c = _sech2(drive)[:, :, None]  # (rows, H, 1)
    denominator = (c * (tau * tau)).add_(nu)  # (rows, H, J)
    rho = c / denominator
    u = rho * (w * tau * tau)
    first, second = u.sum(dim=2), u.mul_(rho).sum(dim=2)  # row sums: batch-invariant
    c, t2 = c[:, :, 0], 1.0 - c[:, :, 0]
    moments = [4.0 * second - 2.0 * c * first - 4.0 * t2 * first * first]
    if slope:
        beta = nu / denominator
        k = rho * (w * x * tau)
        cross = (k * beta).sum(dim=2)
        k.mul_(rho)
        half_gf = 4.0 * (k * beta).sum(dim=2) - 3.0 * (k * nu).sum(dim=2)  # E[g f'] / 2
        moments.append(4.0 * (half_gf - 4.0 * t2 * first * cross))
    return moments


def _moments(drive: torch.Tensor, scale, slope: bool) -> list[torch.Tensor]:
    """(agents,) means over units of :func:`_unit_moments`, each row with the node count of its own scale,
    so that a row's result does not depend on the rows beside it."""
    scale = torch.as_tensor(scale, dtype=drive.dtype, device=drive.device).reshape(-1)  # (1,) or (agents,)
    few = scale <= FEW_NODES_UP_TO
    if few.all() or not few.any():
        count, blocks = node_count(float(scale.max())), []
        for start in range(0, drive.shape[0], ROW_BLOCK):  # (rows, H, nodes/2) temporaries that stay in cache
            rows = slice(start, start + ROW_BLOCK)
            unit = _unit_moments(drive[rows], scale[rows] if scale.numel() > 1 else scale, count, slope)
            blocks.append(torch.stack([unit[0].clamp_min(0.0).mean(dim=1)] + [m.mean(dim=1) for m in unit[1:]]))
        return list(torch.cat(blocks, dim=1))
    out = torch.empty(1 + slope, drive.shape[0], dtype=drive.dtype, device=drive.device)
    for rows in (few, ~few):
        out[:, rows] = torch.stack(_moments(drive[rows], scale[rows], slope))
    return list(out)


def tanh_noise_variance(drive: torch.Tensor, scale: torch.Tensor | float) -> torch.Tensor:
    """(agents,) mean over units of Var_eps[tanh(drive + scale eps)], eps ~ N(0, 1).

    drive (agents, H); scale a number or (agents,) tensor, one noise scale per agent.
    """
    return _moments(drive, scale, slope=False)[0]


def _variance_and_slope(drive: torch.Tensor, scale) -> tuple[torch.Tensor, torch.Tensor]:
    """(agents,) mean over units of V = Var_eps[tanh(drive + scale eps)] and of dV/dscale."""
    variance, slope = _moments(drive, scale, slope=True)
    return variance, slope


def matched_noise_scale(drive: torch.Tensor, target: float) -> torch.Tensor:
    """(agents,) the noise scale sigma at which :func:`tanh_noise_variance` equals ``target``, per agent.

    Newton's method on sigma from the delta-method guess Var ~ sigma^2 mean_j (1 - tanh^2 a_j)^2, each
    step kept within [sigma / 4, 4 sigma] and [0, MAX_NOISE_SCALE]. A target beyond what the largest
    scale reaches (tanh saturates at variance < 1) ends at a large, saturating scale (at most
    MAX_NOISE_SCALE); the recorded ``noise_var`` then shows the shortfall.
    """
    gain = (_sech2(drive) ** 2).mean(dim=1)
    sigma = (target / gain.clamp_min(1e-12)).sqrt().clamp(1e-6, MAX_NOISE_SCALE)
    for _ in range(NEWTON_STEPS):
        value, slope = _variance_and_slope(drive, sigma)
        step = (value - target) / slope.clamp_min(1e-300)
        sigma = (sigma - step).clamp(sigma / 4, 4 * sigma).clamp(1e-6, MAX_NOISE_SCALE)
    return sigma
