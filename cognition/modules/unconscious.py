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

Matched controls of the quantum sampler (``control``, docs/quantum-effects.md):
``no_entanglement`` samples the same circuit with its RZZ gates removed (a product
state); ``classical_marginals`` draws each qubit on its own, Bernoulli with the
circuit's exact single-qubit Born marginal P(q=1), ``shots`` times from the agent's own
stream, so every qubit keeps its marginal and its shot noise and every correlation
between qubits is gone.

Every agent has its own M (entries N(0, 4/k)) and, classical, its own W (entries
N(0, 1), rescaled to spectral radius 0.9) and U (entries N(0, 1/D)), drawn from its
own weight streams. They are held as the right factors of row-vector products,
M_T = M^T (agents, k, D), W_T, U_T, so that each is one bmm without a copy.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import torch

from cognition.modules.base import CognitiveModule, Proposal, batch_stable, per_agent, rowwise_matmul
from cognition.modules.noise_match import matched_noise_scale, shot_noise_variance, tanh_noise_variance
from quantum.readout import z_expectations


@functools.lru_cache(maxsize=64)
def frequency_log_frequency(shots: int) -> torch.Tensor:
    """(shots + 1,) float64: f log2 f at the frequencies f = c / shots of c = 0 .. shots counts (0 at c = 0).

    A count's term is looked up instead of taking a logarithm per outcome and agent; the table's
    logarithms all run in torch's vectorised loop (batch_stable), as a large tensor's do, so the terms
    are the ones ``f * log2(max(f, 1e-300))`` gives there, whatever the batch."""
    freq = torch.arange(shots + 1, dtype=torch.float64).div_(shots)
    return batch_stable(torch.log2, freq.clamp_min(1e-300)).mul_(freq)


def associate(z, b_prev, M_T):
    """Kernel: content = tanh(M z) and its novelty mean_d (content - b_{t-1})^2; M_T (agents, k, D)."""
    content = torch.tanh(rowwise_matmul(z, M_T))
    return content, ((content - b_prev) ** 2).mean(dim=1)


def rnn_drive(hidden, b_prev, W_T, U_T):
    """Kernel: the stochastic RNN's drive a_t = W h_{t-1} + U b_{t-1} (agents, H)."""
    return rowwise_matmul(hidden, W_T) + rowwise_matmul(b_prev, U_T)


def rnn_sample(drive, b_prev, eps, M_T, noise):
    """Kernel: h_t = tanh(a_t + noise eps_t), then the association of h_t; noise a number or (agents, 1)."""
    h = torch.tanh(drive + noise * eps)
    return (h, *associate(h, b_prev, M_T))


class Unconscious(CognitiveModule):
    name = "unconscious"
    reads = ("broadcast",)

    def _init(self, cfg, content_dim, seed, dtype, device, k: int) -> None:
        self.cfg, self.D, self.seed, self.dtype, self.device = cfg, content_dim, seed, dtype, device
        self.shapes = self.weight_shapes(cfg, content_dim, k)

    def association(self, agents):
        """M_T (agents, k, D): the association matrix M, entries N(0, 4/k), transposed (float64)."""
        k = self.shapes["M_T"][0]
        return self.weight_streams(agents, "M_T").normal(*self.shapes["M_T"]) * (2.0 / math.sqrt(k))


class QuantumUnconscious(Unconscious):
    variant = "quantum"
    kernels = ("_associate",)

    def __init__(self, cfg, content_dim, seed, dtype, device, backend, width: int):
        from quantum import entangling_sampler, without_entanglers

        self._init(cfg, content_dim, seed, dtype, device, width)
        self.backend = backend
        self.control = cfg.control
        self.circuit = entangling_sampler(width, content_dim, cfg.layers)
        if self.control == "no_entanglement":
            self.circuit = without_entanglers(self.circuit)
        self._associate = associate

    @property
    def backend_name(self):
        return self.backend.name

    @classmethod
    def circuit_width(cls, cfg, content_dim):
        return cfg.qubits

    @classmethod
    def weight_shapes(cls, cfg, content_dim, width=None):
        return {"M_T": (width, content_dim)}

    def init_weights(self, agents):
        return {"M_T": per_agent(self.association(agents), self.dtype, self.device)}

    def init_state(self, agents, streams):
        return {}

    def sample(self, angles, streams) -> np.ndarray:
        """Counts (agents, 2^n) of ``shots`` measurements of the circuit at ``angles`` (agents, D).

        classical_marginals: each qubit drawn on its own from its exact Born marginal
        (quantum.readout.product_counts), with uniforms from the agent's own stream.
        """
        if self.control == "classical_marginals":
            from quantum.readout import product_counts

            uniforms = streams.uniform(0.0, 1.0, self.cfg.shots, self.circuit.n_qubits)
            return product_counts(self.backend.marginals(self.circuit, angles), uniforms)
        return self.backend.sample(self.circuit, angles, streams.uniform32_tensor(self.cfg.shots))

    def propose(self, state, inputs, streams, weights):
        b_prev = inputs["broadcast"]
        angles = torch.tanh(b_prev).detach().cpu().double().numpy()  # the builder scales by pi
        counts = self.sample(angles, streams)
        # <Z_q> of the sample: signed sums of the integer counts (exact), divided once
        z = torch.from_numpy(z_expectations(counts, self.circuit.n_qubits)).to(torch.float64).div_(self.cfg.shots)
        z = z.to(dtype=self.dtype, device=self.device)
        plogp = frequency_log_frequency(self.cfg.shots)[torch.from_numpy(counts)]  # f log2 f of each outcome
        entropy = -plogp.sum(dim=1).to(dtype=self.dtype, device=self.device)
        content, salience = self._associate(z, b_prev, weights["M_T"])
        extras = {"sample_entropy_bits": entropy, "noise_var": shot_noise_variance(z, self.cfg.shots)}
        return Proposal(content, salience, extras), state

    def describe(self):
        return dict(super().describe(), qubits=self.circuit.n_qubits, shots=self.cfg.shots,
                    circuit=self.circuit.name, control=self.control)


class ClassicalUnconscious(Unconscious):
    variant = "classical"
    kernels = ("_drive", "_sample")

    def __init__(self, cfg, content_dim, seed, dtype, device):
        self._init(cfg, content_dim, seed, dtype, device, cfg.hidden)
        self._drive, self._sample = rnn_drive, rnn_sample

    @property
    def backend_name(self):
        return f"torch-stochastic-rnn-{torch.device(self.device).type}"

    @classmethod
    def state_shapes(cls, cfg, content_dim, width=None):
        return {"hidden": (cfg.hidden,)}

    @classmethod
    def weight_shapes(cls, cfg, content_dim, width=None):
        H = cfg.hidden
        return {"M_T": (H, content_dim), "W_T": (H, H), "U_T": (content_dim, H)}

    def init_weights(self, agents):
        W_T = self.weight_streams(agents, "W_T").normal(*self.shapes["W_T"])
        W_T *= 0.9 / np.abs(np.linalg.eigvals(W_T)).max(axis=1)[:, None, None]  # spectral radius 0.9: echo state
        U_T = self.weight_streams(agents, "U_T").normal(*self.shapes["U_T"]) / math.sqrt(self.D)
        return {name: per_agent(w, self.dtype, self.device)
                for name, w in (("M_T", self.association(agents)), ("W_T", W_T), ("U_T", U_T))}

    def init_state(self, agents, streams):
        return {"hidden": torch.zeros(len(agents), self.cfg.hidden, dtype=self.dtype, device=self.device)}

    def propose(self, state, inputs, streams, weights):
        b_prev = inputs["broadcast"]
        eps = streams.normal_tensor(self.cfg.hidden).to(dtype=self.dtype, device=self.device)
        drive = self._drive(state["hidden"], b_prev, weights["W_T"], weights["U_T"])
        noise = self.cfg.noise
        if self.cfg.noise_variance is not None:  # matched: the scale at which the noise has this variance
            noise = matched_noise_scale(drive, self.cfg.noise_variance)
        h, content, salience = self._sample(drive, b_prev, eps, weights["M_T"],
                                            noise[:, None] if torch.is_tensor(noise) else noise)
        extras = {"noise_var": tanh_noise_variance(drive, noise)}
        if self.cfg.noise_variance is not None:
            extras["noise_scale"] = noise
        return Proposal(content, salience, extras), {"hidden": h}

    def describe(self):
        return dict(super().describe(), hidden=self.cfg.hidden, noise=self.cfg.noise,
                    noise_variance=self.cfg.noise_variance, control=self.cfg.control)
