"""A cognitive module of one's own, outside the package: a noisy phase oscillator driven by the broadcast.

Used by tests/modules/test_plugins.py (run in fresh interpreters, and installed as an entry point) and
mirrored by experiments/05_own_module.ipynb. Per agent a, with its own fixed unit direction u_a:

    drive_t   = <b_{t-1}, u_a>
    theta_t   = theta_{t-1} + frequency + coupling * drive_t + noise * eps_t
    content_t = cos(theta_t) u_a,  salience_t = 1 + sin(theta_t)

Its units of Phi are cos(theta_t) and its salience.
"""
from dataclasses import dataclass

import numpy as np
import torch

from cognition.config.schema import num
from cognition.modules import CognitiveModule, Proposal, register_module


@dataclass(frozen=True)
class OscillatorSettings:
    frequency: float = num(0.3, ge=0.0)  # radians per cycle
    coupling: float = num(1.0, ge=0.0)  # radians per unit of drive
    noise: float = num(0.1, ge=0.0)  # radians, standard deviation per cycle


@register_module("oscillator")
class Oscillator(CognitiveModule):
    reads = ("broadcast",)
    unit_signals = ("phase_cos", "salience")
    settings_class = OscillatorSettings

    @classmethod
    def weight_shapes(cls, settings, content_dim, width=None):
        return {"direction": (content_dim,)}

    def init_weights(self, agents):
        d = self.weight_streams(agents, "direction").normal(self.D)
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        return {"direction": torch.as_tensor(d, dtype=self.dtype, device=self.device)}

    def init_state(self, agents, streams):
        theta = self.initial_streams(agents).uniform(0.0, 2 * np.pi, 1)[:, 0]
        return {"theta": torch.as_tensor(theta, dtype=self.dtype, device=self.device)}

    def propose(self, state, inputs, streams, weights):
        s, u = self.settings, weights["direction"]
        drive = (inputs["broadcast"] * u).sum(dim=1)
        eps = torch.as_tensor(streams.normal(1)[:, 0], dtype=self.dtype, device=self.device)
        theta = state["theta"] + s.frequency + s.coupling * drive + s.noise * eps
        content = torch.cos(theta)[:, None] * u
        return Proposal(content, 1.0 + torch.sin(theta), {"phase_cos": torch.cos(theta)}), {"theta": theta}

    def units(self, proposal, b_prev):
        return torch.stack([proposal.extras["phase_cos"], proposal.salience], dim=1)
