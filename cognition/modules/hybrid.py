"""Hybrid cognition: decides between the expectation and the association.

Each cycle the agent decides whether to act on its expectation (condition A:
"the world is as I predicted") or on the unconscious association. The
evidence is their agreement; the decision follows the Pothos & Busemeyer
(2009) model when quantum (interference between the belief and action
subspaces) and its Markov twin when classical (law of total probability):

    agreement = cos(expectation, association)
    belief_a  = sigmoid(beta * agreement)
    r         = tanh(salience_expectation)                      unreliability of the expectation
    mu_a      = mu_scale * (1 - r)      utility of acting on it if it is right (condition A)
    mu_b      = mu_scale * r            utility of acting on it if it is wrong (condition B)
    p_act, interference = decision.choice_probabilities(belief_a, mu_a, gamma, t, mu_b=mu_b)
    content   = p_act * expectation + (1 - p_act) * association
    salience  = |2 p_act - 1|                                   decisiveness

The interference term p_act - [belief_a P(act|A) + (1-belief_a) P(act|B)] is
recorded every cycle; it is zero (to rounding, ~1e-16) for the Markov twin.
"""
from __future__ import annotations

import numpy as np
import torch

from cognition.modules.base import CognitiveModule, Proposal


class Hybrid(CognitiveModule):
    name = "hybrid"
    reads = ("broadcast", "expectation", "unconscious")
    # Its decision only: the content is a blend of the others' contents (its alignment would be a
    # weighted sum of theirs) and its salience |2 p_act - 1| a function of p_act.
    unit_signals = ("p_act",)

    def __init__(self, cfg, dtype, device, model: str):
        self.cfg, self.dtype, self.device, self.model = cfg, dtype, device, model
        self.variant = "quantum" if model == "quantum" else "classical"

    @property
    def backend_name(self):
        return f"numpy-{self.model}-probability"

    def init_state(self, agents, streams):
        return {}

    def propose(self, state, inputs, streams, weights):
        from cognition import decision

        e, u = inputs["expectation"], inputs["unconscious"]
        agreement = torch.nn.functional.cosine_similarity(e.content, u.content, dim=1, eps=1e-12)
        belief = torch.sigmoid(self.cfg.belief_gain * agreement)
        unreliability = torch.tanh(e.salience)
        as_np = lambda x: x.detach().cpu().double().numpy()  # noqa: E731
        out = decision.choice_probabilities(
            as_np(belief), as_np(self.cfg.mu_scale * (1.0 - unreliability)), self.cfg.gamma,
            t=self.cfg.time, model=self.model, mu_b=as_np(self.cfg.mu_scale * unreliability))
        as_t = lambda a: torch.as_tensor(np.asarray(a), dtype=self.dtype, device=self.device)  # noqa: E731
        p_act, interference = as_t(out["p_act"]), as_t(out["interference"])
        content = p_act[:, None] * e.content + (1.0 - p_act[:, None]) * u.content
        extras = {"p_act": p_act, "interference": interference, "belief": belief}
        return Proposal(content, (2.0 * p_act - 1.0).abs(), extras), state

    def units(self, proposal, b_prev):
        return proposal.extras["p_act"][:, None]

    def describe(self):
        return dict(super().describe(), model=self.model, gamma=self.cfg.gamma, time=self.cfg.time)
