"""Expectation: predicts the next workspace broadcast; its prediction error is its salience.

Both variants share one structure, a fixed nonlinear feature map with a leaky
memory and a trained linear readout (reservoir computing; Jaeger 2001,
Fujii & Nakajima 2017 for the quantum reservoir):

    q_t = phi(b_{t-1})                       feature map (quantum or classical)
    f_t = (1 - leak) f_{t-1} + leak q_t      feature memory
    p_t = W_t^T [f_t; 1]                     prediction of the broadcast b_t
    salience_t = mean_d (b_{t-1} - p_{t-1})^2   last cycle's prediction error

W is learned online by recursive least squares once b_t is known.

Quantum phi: a re-uploading angle-encoded reservoir circuit run on a quantum
backend; features are <Z_q> and nearest-neighbour <Z_q Z_q+1> on a ring.
Classical phi: a GRU cell with fixed random weights; features are its hidden state.
"""
from __future__ import annotations

import math
from abc import abstractmethod

import torch

from cognition.modules.base import CognitiveModule, Proposal, rowwise_matmul, seeded_generator
from cognition.modules.readout import rls_init, rls_predict, rls_update


def leaky_readout(features, q, W, leak: float):
    """Kernel: feature memory f_t = (1 - leak) f_{t-1} + leak q_t and prediction W^T [f_t; 1]."""
    f = (1.0 - leak) * features + leak * q
    f1 = torch.cat([f, torch.ones_like(f[:, :1])], dim=1)
    return f, rls_predict(W, f1)


def readout_learn(W, P, features, prediction, broadcast, forgetting: float):
    """Kernel: one RLS step towards the broadcast, and this cycle's prediction error."""
    f1 = torch.cat([features, torch.ones_like(features[:, :1])], dim=1)
    W, P = rls_update(W, P, f1, broadcast, forgetting)
    return W, P, ((broadcast - prediction) ** 2).mean(dim=1)


def gru_features(broadcast, hidden, w_ih, w_hh, b_ih, b_hh):
    """Kernel: the classical feature map, one GRU cell step (torch.nn.GRUCell's own op)."""
    gi = rowwise_matmul(broadcast, w_ih.T) + b_ih
    gh = rowwise_matmul(hidden, w_hh.T) + b_hh
    i_r, i_z, i_n = gi.chunk(3, dim=1)
    h_r, h_z, h_n = gh.chunk(3, dim=1)
    r = torch.sigmoid(i_r + h_r)
    z = torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    return (1.0 - z) * n + z * hidden


class Expectation(CognitiveModule):
    name = "expectation"
    reads = ("broadcast",)
    kernels = ("_readout", "_learn")

    def __init__(self, cfg, content_dim: int, seed: int, dtype, device):
        self.cfg, self.D, self.dtype, self.device = cfg, content_dim, dtype, device
        self.seed = seed
        self._readout, self._learn = leaky_readout, readout_learn

    n_features: int

    @abstractmethod
    def features(self, state, broadcast) -> tuple[torch.Tensor, dict]:
        """The feature map q_t = phi(b_{t-1}): (agents, n_features), plus state updates."""

    def init_state(self, agents, streams):
        A = len(agents)
        zeros = lambda *s: torch.zeros(*s, dtype=self.dtype, device=self.device)  # noqa: E731
        state = {"features": zeros(A, self.n_features), "prediction": zeros(A, self.D),
                 "error": zeros(A)}
        state.update(rls_init(A, self.n_features + 1, self.D, self.cfg.ridge, self.dtype, self.device))
        return state

    def propose(self, state, inputs, streams):
        b_prev = inputs["broadcast"]
        q, extra_state = self.features(state, b_prev)
        f, prediction = self._readout(state["features"], q, state["W"], self.cfg.leak)
        new_state = dict(state, features=f, prediction=prediction, **extra_state)
        return Proposal(prediction, state["error"], {}), new_state

    def learn(self, state, broadcast):
        W, P, error = self._learn(state["W"], state["P"], state["features"], state["prediction"],
                                  broadcast, self.cfg.forgetting)
        return dict(state, W=W, P=P, error=error)


class QuantumExpectation(Expectation):
    variant = "quantum"

    def __init__(self, cfg, content_dim, seed, dtype, device, backend, width: int):
        super().__init__(cfg, content_dim, seed, dtype, device)
        from quantum import angle_encoded_reservoir

        self.backend = backend
        self.circuit = angle_encoded_reservoir(width, content_dim, cfg.depth, seed)
        self.pairs = [(q, (q + 1) % width) for q in range(width)] if width > 1 else []
        self.n_features = width + len(self.pairs)

    @property
    def backend_name(self):
        return self.backend.name

    def features(self, state, broadcast):
        angles = torch.tanh(broadcast).detach().cpu().double().numpy()  # the builder scales by pi
        parts = [self.backend.expectations_z(self.circuit, angles)]
        if self.pairs:
            parts.append(self.backend.expectations_zz(self.circuit, angles, self.pairs))
        q = torch.cat([torch.as_tensor(p) for p in parts], dim=1)
        return q.to(dtype=self.dtype, device=self.device), {}

    def describe(self):
        return dict(super().describe(), qubits=self.circuit.n_qubits, circuit=self.circuit.name)


class ClassicalExpectation(Expectation):
    variant = "classical"
    kernels = Expectation.kernels + ("_gru",)

    def __init__(self, cfg, content_dim, seed, dtype, device):
        super().__init__(cfg, content_dim, seed, dtype, device)
        self.n_features = cfg.hidden
        g = seeded_generator(seed, salt=11)
        self.gru = torch.nn.GRUCell(content_dim, cfg.hidden, dtype=dtype)
        with torch.no_grad():
            bound = 1.0 / math.sqrt(cfg.hidden)
            for p in self.gru.parameters():
                p.copy_(torch.empty(p.shape, dtype=dtype).uniform_(-bound, bound, generator=g))
        self.gru.to(device).requires_grad_(False)
        self._gru = gru_features

    @property
    def backend_name(self):
        return f"torch-gru-{torch.device(self.device).type}"

    def init_state(self, agents, streams):
        state = super().init_state(agents, streams)
        state["hidden"] = torch.zeros(len(agents), self.cfg.hidden, dtype=self.dtype, device=self.device)
        return state

    def features(self, state, broadcast):
        g = self.gru
        with torch.no_grad():
            h = self._gru(broadcast, state["hidden"], g.weight_ih, g.weight_hh, g.bias_ih, g.bias_hh)
        return h, {"hidden": h}

    def describe(self):
        return dict(super().describe(), hidden=self.cfg.hidden)
