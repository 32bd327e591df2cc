"""A known binary network run through the module protocol, for the perturbational IIT 4.0 (issue 46).

One module holds the network's nodes as its units (``unit_signals``: the node names) and its state (the bits).
Each cycle every node's next bit is drawn independently, Bernoulli(p), with p its row of the network's
state-by-node TPM at the current bits (little-endian rows, PyPhi's convention): so the system's true TPM at the
loop's whole-cycle grain is the network's own, and ``phi.iit4`` on it is the exact value the intervention
estimate must find. The module ignores the broadcast; its content carries the bits, its salience is constant.
``modules.settings.binary_net.network`` picks one of :data:`NETWORKS` (``binary_net4``: :data:`NETWORKS4`).
"""
from dataclasses import dataclass

import numpy as np
import torch

from cognition.modules import CognitiveModule, Proposal, register_module


def _tpm(n: int, rule, noise: float) -> np.ndarray:
    bits = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    return noise + (1 - 2 * noise) * np.array([rule(b) for b in bits], dtype=float)


#: name -> state-by-node TPM (2^n, n)
NETWORKS = {
    # each node copies the one before it (A <- C, B <- A, C <- B), flipping with probability 0.1: integrated
    "copy_ring3": _tpm(3, lambda b: [b[2], b[0], b[1]], 0.1),
    # each node keeps its own bit, flipping with probability 0.1: no cross-talk, phi_s exactly 0
    "independent3": _tpm(3, lambda b: [b[0], b[1], b[2]], 0.1),
    # Oizumi, Albantakis & Tononi 2014's OR / AND / XOR network (A = OR(B, C), B = AND(A, C), C = XOR(A, B)), flipping w.p. 0.1
    "or_and_xor3": _tpm(3, lambda b: [b[1] | b[2], b[0] & b[2], b[0] ^ b[1]], 0.1),
    # node A never leaves 0 (a unit constant over any run: the analysis refuses it), B and C copy each other
    "stuck3": np.column_stack([np.zeros(8), _tpm(3, lambda b: [b[2], b[1], b[1]], 0.1)[:, 1:]]),
}
#: four-node networks, for the module with four units (``binary_net4``)
NETWORKS4 = {
    # a ring of four copies, flipping with probability 0.15
    "copy_ring4": _tpm(4, lambda b: [b[3], b[0], b[1], b[2]], 0.15),
    # two independent copy pairs (A <-> B, C <-> D): reducible, phi_s exactly 0
    "two_pairs4": _tpm(4, lambda b: [b[1], b[0], b[3], b[2]], 0.1),
}


@dataclass(frozen=True)
class BinaryNetSettings:
    network: str = "copy_ring3"


@register_module("binary_net")
class BinaryNet(CognitiveModule):
    reads = ("broadcast",)
    settings_class = BinaryNetSettings
    unit_signals = ("A", "B", "C")
    networks = NETWORKS

    def __init__(self, settings, content_dim, seed, dtype, device, **kw):
        super().__init__(settings, content_dim, seed, dtype, device, **kw)
        if self.settings.network not in self.networks:
            raise ValueError(f"modules.settings.{self.name}.network: {self.settings.network!r}; allowed "
                             f"{', '.join(self.networks)}")
        self.tpm = torch.as_tensor(self.networks[self.settings.network], dtype=dtype, device=device)
        self.n = self.tpm.shape[1]

    def init_state(self, agents, streams):
        bits = self.initial_streams(agents).uniform(0.0, 1.0, self.n) < 0.5
        return {"bits": torch.as_tensor(bits, dtype=self.dtype, device=self.device)}

    def propose(self, state, inputs, streams, weights):
        x = state["bits"]
        row = (x.long() << torch.arange(self.n, device=x.device)).sum(dim=1)
        u = torch.as_tensor(streams.uniform(0.0, 1.0, self.n), dtype=self.dtype, device=self.device)
        new = (u < self.tpm[row]).to(self.dtype)
        content = torch.zeros(len(x), self.D, dtype=self.dtype, device=self.device)
        content[:, : self.n] = new
        return Proposal(content, torch.ones(len(x), dtype=self.dtype, device=self.device)), {"bits": new}

    def units(self, proposal, b_prev):
        return proposal.content[:, : self.n]


@dataclass(frozen=True)
class BinaryNet4Settings:
    network: str = "copy_ring4"


@register_module("binary_net4")
class BinaryNet4(BinaryNet):
    name = "binary_net4"
    settings_class = BinaryNet4Settings
    unit_signals = ("A", "B", "C", "D")
    networks = NETWORKS4


@register_module("xor_loop")
class XorLoop(CognitiveModule):
    """A loop through the workspace: the module's bit becomes its own bit XOR the sign of the broadcast it read,
    flipping with probability 0.1, and its content (+1 or -1 on every dimension) is what the workspace broadcasts.
    The module and the workspace then form one integrated two-element system; with the broadcast lesion (the
    module reads the fixed initial broadcast) the workspace only follows the module, a reducible system. The
    control of the lesion analysis that can fail (docs/iit4.md)."""

    name = "xor_loop"
    reads = ("broadcast",)
    unit_signals = ("bit",)

    def init_state(self, agents, streams):
        bits = self.initial_streams(agents).uniform(0.0, 1.0, 1)[:, 0] < 0.5
        return {"bit": torch.as_tensor(bits, dtype=self.dtype, device=self.device)}

    def propose(self, state, inputs, streams, weights):
        read = (inputs["broadcast"].mean(dim=1) > 0).to(self.dtype)
        flip = torch.as_tensor(streams.uniform(0.0, 1.0, 1)[:, 0] < 0.1, dtype=self.dtype, device=self.device)
        bit = (state["bit"] + read + flip) % 2
        content = (2 * bit - 1)[:, None].expand(-1, self.D).contiguous()
        return Proposal(content, torch.ones_like(bit)), {"bit": bit}

    def units(self, proposal, b_prev):
        return ((proposal.content[:, :1] + 1) / 2)
