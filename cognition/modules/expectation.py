"""Expectation: predicts the next workspace broadcast; its prediction error is its salience.

Both variants share one structure, a fixed nonlinear feature map with a leaky
memory and a trained linear readout (reservoir computing; Jaeger 2001,
Fujii & Nakajima 2017 for the quantum reservoir):

    q_t = phi(b_{t-1})                       feature map (quantum or classical)
    f_t = (1 - leak) f_{t-1} + leak q_t      feature memory
    p_t = W_t^T [f_t; 1]                     prediction of the broadcast b_t
    salience_t = mean_d (b_{t-1} - p_{t-1})^2   the prediction error of the input it reads now

Its salience is the surprise of the broadcast it receives this cycle, under the
prediction it made for it: the newest error it can know (b_t is not known until the
workspace has competed). The workspace turns it into a bid relative to the module's
own running statistics (cognition/architecture/workspace.py). W is learned online by recursive
least squares once b_t is known.

Quantum phi: a re-uploading angle-encoded reservoir circuit run on a quantum
backend; features are <Z_q> and nearest-neighbour <Z_q Z_q+1> on a ring.
Classical phi: a GRU cell with fixed random weights; features are its hidden state.

Matched control of the quantum reservoir (``control``, docs/quantum-effects.md):
``classical_reservoir`` computes, in closed form with no backend call, the features of the
same circuit with its entanglers removed (quantum.product_state): each qubit's Bloch vector
turned by its own rotations, <Z_q Z_q+1> = <Z_q><Z_q+1>. Same inputs, the agent's own angles,
same number of features, leak and readout; no entanglement and no correlation between qubits.

Every agent has its own reservoir: its own fixed random RX/RZ angles (uniform on
[0, 2 pi), passed to the circuit as parameters after its inputs, so every agent's
circuit runs in the same batched call), or its own GRU weights (uniform on
[-1/sqrt(H), 1/sqrt(H)], torch.nn.GRUCell's initialisation), drawn from its own
weight streams. The readout W starts at zero for every agent.
"""
from __future__ import annotations

import math
from abc import abstractmethod

import torch

from cognition.modules.base import (CognitiveModule, Proposal, batch_stable, per_agent, rowwise_matmul,
                                    uniform_init)
from cognition.modules.readout import rls_init, rls_predict, rls_shapes, rls_update


def leaky_readout(features, q, W, leak: float):
    """Kernel: feature memory f_t = (1 - leak) f_{t-1} + leak q_t and prediction W^T [f_t; 1]."""
    f = (1.0 - leak) * features + leak * q
    f1 = torch.cat([f, torch.ones_like(f[:, :1])], dim=1)
    return f, rls_predict(W, f1)


def readout_learn(W, P, features, broadcast, forgetting: float):
    """Kernel: one RLS step of the readout towards the broadcast."""
    f1 = torch.cat([features, torch.ones_like(features[:, :1])], dim=1)
    return rls_update(W, P, f1, broadcast, forgetting)


def gru_features(broadcast, hidden, w_ih_T, w_hh_T, b_ih, b_hh):
    """Kernel: the classical feature map, one GRU cell step (torch.nn.GRUCell's equations).

    Per agent: w_ih_T (agents, D, 3H) and w_hh_T (agents, H, 3H) are GRUCell's weight_ih
    and weight_hh transposed, b_ih and b_hh (agents, 3H) its biases.
    """
    gi = rowwise_matmul(broadcast, w_ih_T) + b_ih
    gh = rowwise_matmul(hidden, w_hh_T) + b_hh
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

    @classmethod
    @abstractmethod
    def feature_count(cls, cfg, width: int | None) -> int:
        """n_features, the length of the feature map q_t (width: the reservoir's qubits after the cap)."""

    @classmethod
    def state_shapes(cls, cfg, content_dim, width=None):
        """features (F,), prediction (D,), the RLS readout W (F+1, D) and its inverse correlation P
        (F+1, F+1), with F = :meth:`feature_count`."""
        F = cls.feature_count(cfg, width)
        return {"features": (F,), "prediction": (content_dim,), **rls_shapes(F + 1, content_dim)}

    @abstractmethod
    def features(self, state, broadcast, weights) -> tuple[torch.Tensor, dict]:
        """The feature map q_t = phi(b_{t-1}): (agents, n_features), plus state updates."""

    def init_state(self, agents, streams):
        A = len(agents)
        zeros = lambda *s: torch.zeros(*s, dtype=self.dtype, device=self.device)  # noqa: E731
        state = {"features": zeros(A, self.n_features), "prediction": zeros(A, self.D)}
        state.update(rls_init(A, self.n_features + 1, self.D, self.cfg.ridge, self.dtype, self.device))
        return state

    def propose(self, state, inputs, streams, weights):
        b_prev = inputs["broadcast"]
        q, extra_state = self.features(state, b_prev, weights)
        f, prediction = self._readout(state["features"], q, state["W"], self.cfg.leak)
        error = ((b_prev - state["prediction"]) ** 2).mean(dim=1)
        new_state = dict(state, features=f, prediction=prediction, **extra_state)
        return Proposal(prediction, error, {}), new_state

    def learn(self, state, broadcast):
        W, P = self._learn(state["W"], state["P"], state["features"], broadcast, self.cfg.forgetting)
        return dict(state, W=W, P=P)


class QuantumExpectation(Expectation):
    variant = "quantum"

    def __init__(self, cfg, content_dim, seed, dtype, device, backend, width: int):
        super().__init__(cfg, content_dim, seed, dtype, device)
        from quantum import angle_encoded_reservoir

        self.backend, self.control = backend, cfg.control
        self.circuit = angle_encoded_reservoir(width, content_dim, cfg.depth)  # its angles: parameters
        if self.control == "classical_reservoir":
            from quantum import without_entanglers

            self.circuit = without_entanglers(self.circuit)  # a product state: computed classically
        self.shapes = self.weight_shapes(cfg, content_dim, width)
        self.pairs = [(q, (q + 1) % width) for q in range(width)] if width > 1 else []
        self.n_features = self.feature_count(cfg, width)

    @property
    def backend_name(self):
        return "torch-product-state-reservoir" if self.control == "classical_reservoir" else self.backend.name

    @classmethod
    def circuit_width(cls, cfg, content_dim):
        return cfg.qubits

    @classmethod
    def feature_count(cls, cfg, width):
        """<Z_q> of every qubit and <Z_q Z_q+1> of every ring pair (none with one qubit)."""
        return width + (width if width > 1 else 0)

    @classmethod
    def weight_shapes(cls, cfg, content_dim, width=None):
        from quantum import reservoir_angle_count

        return {"angles": (reservoir_angle_count(width, cfg.depth),)}

    def init_weights(self, agents):
        """The reservoir's RX/RZ angles, uniform on [0, 2 pi), in the circuit's parameter order.

        Kept in float64 whatever the run's dtype: they are circuit parameters, as the inputs are.
        """
        angles = self.weight_streams(agents, "angles").uniform(0.0, 2.0 * math.pi, *self.shapes["angles"])
        return {"angles": per_agent(angles, torch.float64, "cpu")}

    def features(self, state, broadcast, weights):
        inputs = torch.tanh(broadcast).detach().cpu().double()  # the builder scales by pi
        params = torch.cat([inputs, weights["angles"]], dim=1)  # each agent's own reservoir
        if self.control == "classical_reservoir":
            from quantum.product_state import product_state_features

            q = product_state_features(self.circuit, params, self.pairs, batch_stable)
            return q.to(dtype=self.dtype, device=self.device), {}
        params = params.numpy()
        if self.pairs:  # one simulation for both readouts
            parts = self.backend.expectations_z_zz(self.circuit, params, self.pairs)
        else:
            parts = [self.backend.expectations_z(self.circuit, params)]
        q = torch.cat([torch.as_tensor(p) for p in parts], dim=1)
        return q.to(dtype=self.dtype, device=self.device), {}

    def describe(self):
        return dict(super().describe(), qubits=self.circuit.n_qubits, circuit=self.circuit.name,
                    control=self.control)


class ClassicalExpectation(Expectation):
    variant = "classical"
    kernels = Expectation.kernels + ("_gru",)

    def __init__(self, cfg, content_dim, seed, dtype, device):
        super().__init__(cfg, content_dim, seed, dtype, device)
        self.n_features = self.feature_count(cfg)
        self.shapes = self.weight_shapes(cfg, content_dim)
        self._gru = gru_features

    @property
    def backend_name(self):
        return f"torch-gru-{torch.device(self.device).type}"

    @classmethod
    def feature_count(cls, cfg, width=None):
        return cfg.hidden  # the GRU's hidden state

    @classmethod
    def state_shapes(cls, cfg, content_dim, width=None):
        return dict(super().state_shapes(cfg, content_dim), hidden=(cfg.hidden,))

    @classmethod
    def weight_shapes(cls, cfg, content_dim, width=None):
        H3 = 3 * cfg.hidden
        return {"w_ih_T": (content_dim, H3), "w_hh_T": (cfg.hidden, H3), "b_ih": (H3,), "b_hh": (H3,)}

    def init_weights(self, agents):
        return {name: per_agent(uniform_init(self.weight_streams(agents, name), self.cfg.hidden, *shape),
                                self.dtype, self.device) for name, shape in self.shapes.items()}

    def init_state(self, agents, streams):
        state = super().init_state(agents, streams)
        state["hidden"] = torch.zeros(len(agents), self.cfg.hidden, dtype=self.dtype, device=self.device)
        return state

    def features(self, state, broadcast, weights):
        with torch.no_grad():
            h = self._gru(broadcast, state["hidden"], weights["w_ih_T"], weights["w_hh_T"],
                          weights["b_ih"], weights["b_hh"])
        return h, {"hidden": h}

    def describe(self):
        return dict(super().describe(), hidden=self.cfg.hidden, control=self.cfg.control)
