"""A module of one's own whose faults are switched from outside, for tests/modules/test_module_faults.py.

A leaky integrator of the broadcast, per agent a with its own fixed gain g_a:

    level_t   = 0.8 level_{t-1} + 0.2 g_a b_{t-1}
    content_t = tanh(level_t),  salience_t = mean_d |content_t| + 0.05 eps_t

``learn`` nudges the level towards the broadcast that won; its units are the mean level and its
salience. ``state["clock"]`` (and the extra ``clock``) counts its cycles, so every method knows which
cycle it serves.

The environment variable ``FAULTY_MODULE = METHOD:KIND:CYCLE[:OUTPUT]`` breaks METHOD (init_weights,
init_state, propose, learn or units) at CYCLE (0 for the two that run before cycle 1) with KIND: raise,
exit (``sys.exit(0)``), interrupt (``raise KeyboardInterrupt``), nan, inf, shape (a row short), dtype (the other float dtype), int (int64), device (the tensor moved
to the 'meta' device) or keys (a state with a key added). OUTPUT picks propose's output: salience
(default), content or extras. Unset: a healthy module, so unsetting it "fixes" the module between a
stop and its resume.
"""
import os
import sys

import torch

from cognition.modules import CognitiveModule, Proposal, register_module

FAULT_VARIABLE = "FAULTY_MODULE"


def _fault(method: str, cycle: int) -> tuple[str, str] | None:
    """(kind, output) when FAULTY_MODULE breaks ``method`` at ``cycle``, else None."""
    spec = os.environ.get(FAULT_VARIABLE, "").split(":")
    if len(spec) < 3 or spec[0] != method or int(spec[2]) != cycle:
        return None
    return spec[1], spec[3] if len(spec) > 3 else "salience"


def _broken(value: torch.Tensor, kind: str) -> torch.Tensor:
    """``value`` with one fault of ``kind``."""
    if kind == "raise":
        raise RuntimeError("faulty: the fault switched on by FAULTY_MODULE")
    if kind == "exit":  # a module that ends the process its own way: the run must not exit 0 with it
        sys.exit(0)
    if kind == "interrupt":
        raise KeyboardInterrupt
    if kind in ("nan", "inf"):
        value = value.clone()
        value.view(-1)[0] = float(kind)
        return value
    if kind == "shape":
        return value[:-1]
    if kind == "dtype":  # the other float: float64 in a float32 run, float32 in a float64 one
        return value.to(torch.float64 if value.dtype != torch.float64 else torch.float32)
    if kind == "int":
        return value.to(torch.int64)
    if kind == "device":
        return value.to("meta")
    raise ValueError(f"FAULTY_MODULE kind {kind!r}")


def _broken_state(state: dict, name: str, kind: str) -> dict:
    if kind == "keys":
        return dict(state, extra=state[name])
    return dict(state, **{name: _broken(state[name], kind)})


@register_module("faulty")
class Faulty(CognitiveModule):
    reads = ("broadcast",)
    unit_signals = ("level_mean", "salience")

    @classmethod
    def weight_shapes(cls, settings, content_dim, width=None):
        return {"gain": (1,)}

    def init_weights(self, agents):
        gain = 1.0 + 0.5 * self.weight_streams(agents, "gain").uniform(-1.0, 1.0, 1)
        weights = {"gain": torch.as_tensor(gain, dtype=self.dtype, device=self.device)}
        fault = _fault("init_weights", 0)
        return weights if fault is None else _broken_state(weights, "gain", fault[0])

    def init_state(self, agents, streams):
        state = {"level": torch.zeros(len(agents), self.D, dtype=self.dtype, device=self.device),
                 "clock": torch.zeros(len(agents), dtype=self.dtype, device=self.device)}
        fault = _fault("init_state", 0)
        return state if fault is None else _broken_state(state, "level", fault[0])

    def propose(self, state, inputs, streams, weights):
        clock = state["clock"] + 1.0
        level = 0.8 * state["level"] + 0.2 * weights["gain"] * inputs["broadcast"]
        content = torch.tanh(level)
        eps = torch.as_tensor(streams.normal(1)[:, 0], dtype=self.dtype, device=self.device)
        proposal = Proposal(content, content.abs().mean(dim=1) + 0.05 * eps,
                            {"level_mean": level.mean(dim=1), "clock": clock})
        new_state = {"level": level, "clock": clock}
        fault = _fault("propose", int(clock[0]))
        if fault is not None:
            kind, output = fault
            if kind == "keys":
                new_state = _broken_state(new_state, "level", kind)
            elif output == "extras":
                proposal.extras["level_mean"] = _broken(proposal.extras["level_mean"], kind)
            else:
                setattr(proposal, output, _broken(getattr(proposal, output), kind))
        return proposal, new_state

    def learn(self, state, broadcast):
        new_state = dict(state, level=state["level"] + 0.05 * (broadcast - state["level"]))
        fault = _fault("learn", int(state["clock"][0]))
        return new_state if fault is None else _broken_state(new_state, "level", fault[0])

    def units(self, proposal, b_prev):
        values = torch.stack([proposal.extras["level_mean"], proposal.salience], dim=1)
        fault = _fault("units", int(proposal.extras["clock"][0]))
        return values if fault is None else _broken(values, fault[0])
