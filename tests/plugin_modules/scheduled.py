"""A module of one's own that follows a schedule (docs/modules.md, "The cycle"): silent before cycle ``onset``.

Per row, a leaky integrator of the broadcast:

    x_t        = (1 - leak) x_{t-1} + leak b_{t-1} + noise eps_t
    salience_t = 0 before cycle onset, 1 + mean_d |x_t| from it on

It keeps no counter: ``propose`` and ``learn`` take the cycle the loop hands them (``cycle=``), and it
records what they were handed, so that metrics.jsonl holds it beside its own "cycle": the extra ``cycle``
is what ``propose`` was handed, the extra ``learned`` what ``learn`` was handed the cycle before (kept in
the state; 0 at cycle 1). Used by tests/modules/test_module_cycle.py, named by path in ``modules.plugins``.
"""
from dataclasses import dataclass

import torch

from cognition.config.schema import num
from cognition.modules import CognitiveModule, Proposal


@dataclass(frozen=True)
class ScheduledSettings:
    onset: int = num(5, ge=1)  # the first cycle it bids in
    leak: float = num(0.3, gt=0.0, le=1.0)  # share of the broadcast that enters the state each cycle
    noise: float = num(0.1, ge=0.0)  # standard deviation of the state's noise per cycle


class Scheduled(CognitiveModule):
    settings_class = ScheduledSettings

    def init_state(self, agents, streams):
        rows = len(agents)
        return {"x": torch.zeros(rows, self.D, dtype=self.dtype, device=self.device),
                "learned": torch.zeros(rows, dtype=self.dtype, device=self.device)}

    def propose(self, state, inputs, streams, weights, *, cycle):
        s = self.settings
        eps = streams.normal_tensor(self.D).to(self.dtype)
        x = (1 - s.leak) * state["x"] + s.leak * inputs["broadcast"] + s.noise * eps
        on = 1.0 if cycle >= s.onset else 0.0  # cycle: an int, the cycle being computed (1 for the first)
        salience = on * (1.0 + x.abs().mean(dim=1))
        extras = {"cycle": torch.full_like(salience, cycle), "learned": state["learned"]}
        return Proposal(x, salience, extras), {"x": x, "learned": state["learned"]}

    def learn(self, state, broadcast, *, cycle):
        return {"x": state["x"], "learned": torch.full_like(state["learned"], cycle)}
