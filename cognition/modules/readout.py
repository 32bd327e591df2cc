"""Recursive least squares (RLS) readout, batched over agents.

Exponentially weighted RLS (Haykin, *Adaptive Filter Theory*, 4th ed., sec. 9.3)
with forgetting factor lambda: for features f (F,) and target y (D,)

    k = P f / (lambda + f^T P f)
    W <- W + k (y - W^T f)^T
    P <- (P - k f^T P) / lambda

W: (agents, F, D), P: (agents, F, F). Each agent learns its own readout.
"""
from __future__ import annotations

import torch


def rls_shapes(n_features: int, n_outputs: int) -> dict[str, tuple[int, ...]]:
    """Per-agent shapes of the readout's state, as :func:`rls_init` makes it: W (F, D) and P (F, F)."""
    return {"W": (n_features, n_outputs), "P": (n_features, n_features)}


def rls_init(agents: int, n_features: int, n_outputs: int, ridge: float, dtype, device):
    eye = torch.eye(n_features, dtype=dtype, device=device)
    return {
        "W": torch.zeros(agents, n_features, n_outputs, dtype=dtype, device=device),
        "P": eye.expand(agents, n_features, n_features).clone() / ridge,
    }


def rls_predict(W: torch.Tensor, f: torch.Tensor) -> torch.Tensor:
    """(agents, F, D), (agents, F) -> (agents, D)."""
    return torch.einsum("afd,af->ad", W, f)


def rls_update(W, P, f, y, forgetting: float):
    """One RLS step; returns the new (W, P).

    The P update uses the symmetric form k f^T P = h h^T with h = P f / sqrt(lambda + f^T P f):
    each entry h_i h_j equals h_j h_i bit for bit, so P stays exactly symmetric without a
    symmetrising pass, and the update is two passes over P (one fused multiply-subtract, one scale).
    """
    Pf = (P * f.unsqueeze(1)).sum(dim=2)  # P f, each agent on its own
    denominator = forgetting + (f * Pf).sum(dim=1, keepdim=True)
    error = y - rls_predict(W, f)
    W = W + (Pf / denominator).unsqueeze(-1) * error.unsqueeze(1)
    h = Pf * denominator.rsqrt()
    P = torch.addcmul(P, h.unsqueeze(-1), h.unsqueeze(1), value=-1.0).mul_(1.0 / forgetting)
    return W, P
