"""Unconscious: an associative sampler cued by the broadcast.

The cue b_{t-1} drives a stochastic system whose sample is mapped through a
fixed association matrix M (D x k) into content space:

    content_t = tanh(M z_t)
    salience_t = mean_d (content_t - b_{t-1})^2     (novelty of the association)

Quantum: z_t are the shot-sampled <Z_q> of an entangling circuit whose RY
rotations and RZZ couplings are set by the cue (superposition, entanglement;
the randomness is the Born rule, sampled with a finite number of shots).
Classical: a stochastic RNN, h_t = tanh(W h_{t-1} + U b_{t-1} + sigma eps_t),
z_t = h_t, with Gaussian noise eps_t from the agent's own stream.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from cognition.modules.base import CognitiveModule, Proposal, rowwise_matmul, seeded_generator


def _association(seed: int, salt: int, D: int, k: int, dtype, device) -> torch.Tensor:
    g = seeded_generator(seed, salt)
    M = torch.randn(D, k, generator=g, dtype=torch.float64) * (2.0 / math.sqrt(k))
    return M.to(dtype=dtype, device=device)


def associate(z, b_prev, M):
    """Kernel: content = tanh(M z) and its novelty mean_d (content - b_{t-1})^2."""
    content = torch.tanh(rowwise_matmul(z, M.T))
    return content, ((content - b_prev) ** 2).mean(dim=1)


def stochastic_rnn(hidden, b_prev, eps, W, U, M, noise: float):
    """Kernel: h_t = tanh(W h_{t-1} + U b_{t-1} + noise eps_t), then the association of h_t."""
    h = torch.tanh(rowwise_matmul(hidden, W.T) + rowwise_matmul(b_prev, U.T) + noise * eps)
    return (h, *associate(h, b_prev, M))


class Unconscious(CognitiveModule):
    name = "unconscious"
    reads = ("broadcast",)


class QuantumUnconscious(Unconscious):
    variant = "quantum"
    kernels = ("_associate",)

    def __init__(self, cfg, content_dim, seed, dtype, device, backend, width: int):
        from quantum import entangling_sampler

        self.cfg, self.dtype, self.device, self.backend = cfg, dtype, device, backend
        self.circuit = entangling_sampler(width, content_dim, cfg.layers)
        self.M = _association(seed, 23, content_dim, width, dtype, device)
        bits = (np.arange(2**width)[:, None] >> np.arange(width)[None, :]) & 1
        self._z_of_outcome = torch.as_tensor(1.0 - 2.0 * bits, dtype=torch.float64)  # (2^n, n)
        self._associate = associate

    @property
    def backend_name(self):
        return self.backend.name

    def init_state(self, agents, streams):
        return {}

    def propose(self, state, inputs, streams):
        b_prev = inputs["broadcast"]
        angles = torch.tanh(b_prev).detach().cpu().double().numpy()  # the builder scales by pi
        counts = self.backend.sample(self.circuit, angles, self.cfg.shots, streams.seeds())
        freq = torch.as_tensor(counts, dtype=torch.float64) / self.cfg.shots
        z = rowwise_matmul(freq, self._z_of_outcome).to(dtype=self.dtype, device=self.device)
        p = freq.clamp_min(1e-300)
        entropy = -(freq * torch.log2(p)).sum(dim=1).to(dtype=self.dtype, device=self.device)
        content, salience = self._associate(z, b_prev, self.M)
        return Proposal(content, salience, {"sample_entropy_bits": entropy}), state

    def describe(self):
        return dict(super().describe(), qubits=self.circuit.n_qubits, shots=self.cfg.shots,
                    circuit=self.circuit.name)


class ClassicalUnconscious(Unconscious):
    variant = "classical"
    kernels = ("_rnn",)

    def __init__(self, cfg, content_dim, seed, dtype, device):
        self.cfg, self.dtype, self.device = cfg, dtype, device
        H = cfg.hidden
        g = seeded_generator(seed, 31)
        W = torch.randn(H, H, generator=g, dtype=torch.float64)
        W *= 0.9 / torch.linalg.eigvals(W).abs().max()  # spectral radius 0.9: echo-state regime
        U = torch.randn(H, content_dim, generator=g, dtype=torch.float64) / math.sqrt(content_dim)
        self.W, self.U = W.to(dtype=dtype, device=device), U.to(dtype=dtype, device=device)
        self.M = _association(seed, 23, content_dim, H, dtype, device)
        self._rnn = stochastic_rnn

    @property
    def backend_name(self):
        return f"torch-stochastic-rnn-{torch.device(self.device).type}"

    def init_state(self, agents, streams):
        return {"hidden": torch.zeros(len(agents), self.cfg.hidden, dtype=self.dtype, device=self.device)}

    def propose(self, state, inputs, streams):
        b_prev = inputs["broadcast"]
        eps = torch.as_tensor(streams.normal(self.cfg.hidden), dtype=self.dtype, device=self.device)
        h, content, salience = self._rnn(state["hidden"], b_prev, eps, self.W, self.U, self.M, self.cfg.noise)
        return Proposal(content, salience, {}), {"hidden": h}

    def describe(self):
        return dict(super().describe(), hidden=self.cfg.hidden, noise=self.cfg.noise)
