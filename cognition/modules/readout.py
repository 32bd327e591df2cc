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
    """One RLS step; returns the new (W, P)."""
    Pf = torch.einsum("aij,aj->ai", P, f)
    gain = Pf / (forgetting + torch.einsum("ai,ai->a", f, Pf)).unsqueeze(-1)
    error = y - rls_predict(W, f)
    W = W + gain.unsqueeze(-1) * error.unsqueeze(1)
    P = (P - gain.unsqueeze(-1) * Pf.unsqueeze(1)) / forgetting
    P = 0.5 * (P + P.transpose(1, 2))  # keep P symmetric against round-off drift
    return W, P
