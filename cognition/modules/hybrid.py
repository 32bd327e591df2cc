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
    content   = (2 p_act - 1) * action                          its decision, as content
    salience  = mean_d (content - b_{t-1})^2                    what the broadcast does not carry yet

The module competes with content of its own: its decision, a signed code on the
agent's fixed random action vector ``action`` (D entries N(0, 1/2), its own weight
stream), +action for "act on the expectation", -action for "act on the association",
scaled by how decided it is. When it wins, the broadcast carries the decision the
other modules then read (a blend of their contents, as before, would broadcast
nothing of its own and its alignment was a weighted sum of theirs). Its evidence for
access is, as the unconscious module's, the distance of its content from the broadcast
it read: a decision already broadcast has nothing new to say and yields, as an
expectation whose prediction was broadcast does (its next error is small).

The interference term p_act - [belief_a P(act|A) + (1-belief_a) P(act|B)] is
recorded every cycle; it is zero (to rounding, ~1e-16) for the Markov twin.

Matched controls of the quantum decision (``control``, docs/quantum-effects.md;
cognition/decision/matched.py): ``no_interference`` combines the quantum model's
P(act|A), P(act|B) by the law of total probability (interference exactly 0);
``matched_markov`` runs a Markov chain whose P(act|A), P(act|B) equal the quantum ones.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from cognition.modules.base import CognitiveModule, Proposal, batch_stable, per_agent


def cosine(x: torch.Tensor, y: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    """Row-wise cosine similarity x.y / max(|x| |y|, eps).

    Written out (sums of products over each row, exact square root and division) so that an
    agent's rounding is fixed by these few operations; it replaced
    torch.nn.functional.cosine_similarity while a batch dependence was traced (it came from the
    sigmoid on this value, now :func:`batch_stable`; cosine_similarity itself was batch-invariant
    when checked), and the runs the docs quote were made with it, so it stays.
    """
    return (x * y).sum(dim=1) / torch.sqrt((x * x).sum(dim=1) * (y * y).sum(dim=1)).clamp_min(eps)


class Hybrid(CognitiveModule):
    name = "hybrid"
    reads = ("broadcast", "expectation", "unconscious")
    # Its decision only: its content (2 p_act - 1) * action is a function of p_act.
    unit_signals = ("p_act",)

    @classmethod
    def build(cls, settings, ctx):
        """Its decision model follows the run's variant: quantum (Pothos & Busemeyer) or its Markov twin."""
        return cls(settings, ctx.content_dim, ctx.seed, ctx.dtype, ctx.device,
                   model="quantum" if ctx.variant == "quantum" else "markov")

    def __init__(self, cfg, content_dim: int, seed: int, dtype, device, model: str):
        self.cfg, self.D, self.seed, self.dtype, self.device, self.model = cfg, content_dim, seed, dtype, device, model
        self.variant = "quantum" if model == "quantum" else "classical"
        self.control = cfg.control
        self.shapes = self.weight_shapes(cfg, content_dim)

    @classmethod
    def weight_shapes(cls, cfg, content_dim, width=None):
        return {"action": (content_dim,)}

    def init_weights(self, agents):
        action = self.weight_streams(agents, "action").normal(*self.shapes["action"]) / math.sqrt(2.0)
        return {"action": per_agent(action, self.dtype, self.device)}

    @property
    def backend_name(self):
        return f"numpy-{self.model}-probability"

    def init_state(self, agents, streams):
        return {}

    def propose(self, state, inputs, streams, weights):
        from cognition import decision

        e, u = inputs["expectation"], inputs["unconscious"]
        agreement = cosine(e.content, u.content)
        belief = batch_stable(torch.sigmoid, self.cfg.belief_gain * agreement)
        unreliability = batch_stable(torch.tanh, e.salience)
        as_np = lambda x: x.detach().cpu().double().numpy()  # noqa: E731
        args = (as_np(belief), as_np(self.cfg.mu_scale * (1.0 - unreliability)), self.cfg.gamma)
        kwargs = {"t": self.cfg.time, "mu_b": as_np(self.cfg.mu_scale * unreliability)}
        if self.control in ("none", "classical"):  # the model itself: quantum, or the Markov stand-in
            out = decision.choice_probabilities(*args, model=self.model, **kwargs)
        else:
            out = decision.controlled_choice_probabilities(*args, control=self.control, **kwargs)
        as_t = lambda a: torch.as_tensor(np.asarray(a), dtype=self.dtype, device=self.device)  # noqa: E731
        p_act, interference = as_t(out["p_act"]), as_t(out["interference"])
        decided = 2.0 * p_act - 1.0
        content = decided[:, None] * weights["action"]
        extras = {"p_act": p_act, "interference": interference, "belief": belief}
        novelty = ((content - inputs["broadcast"]) ** 2).mean(dim=1)
        return Proposal(content, novelty, extras), state

    def units(self, proposal, b_prev):
        return proposal.extras["p_act"][:, None]

    def describe(self):
        return dict(super().describe(), model=self.model, gamma=self.cfg.gamma, time=self.cfg.time,
                    control=self.control)
