"""Counter-based random streams: one per (agent, module, cycle), and one per (agent, module, weight).

The noise an agent's module draws at a cycle is a pure function of
``(master seed, agent index, module, cycle)``, computed by Philox4x32-10 (:mod:`cognition.architecture.rng`;
Salmon et al. 2011) for all agents at once, on the run's device. An agent's fixed random
weights (its anatomy, drawn once when the loop is assembled) come from streams of their own,
a pure function of ``(master seed, agent index, module, weight index)``
(:meth:`AgentStreams.weights`). Consequences the package relies on:

* an agent's numbers do not depend on how many other agents share its batch,
  so a batch of N agents equals N runs of one agent;
* retrying a cycle after an out-of-memory error, or resuming from a checkpoint,
  redraws exactly the same numbers, with no generator state to save;
* agent i's weights are the same in a run of 8 agents and one of 65 536, so the
  seed fixes the whole population and agents are independent replications.

Layout. The Philox key (two 32-bit words) is the first 8 bytes of SHA-256 over the stream's
identity: the seed's 64-bit word (:func:`master_key`), the module byte, the 56-bit name id
and the kind (0 noise, 1 weights), packed big-endian (:func:`philox_key`). The counter of an
agent's block ``j`` is ``(j, agent, cycle & 0xffffffff, cycle >> 32)`` for noise and
``(j, agent, weight, 0)`` for weights. So two agents, two cycles or two weights of one stream
never share a counter, and two streams share a key only if 64-bit prefixes of SHA-256 collide
(about n^2 / 2^65 for n streams). Each draw takes whole blocks after the blocks an earlier draw
of the same :class:`AgentStreams` took: two draws from one object are different numbers, and
the k-th draw of a fresh object is always the same.

Names: the built-in streams (``MODULE_IDS``: expectation 1, unconscious 2, hybrid 3,
workspace 4, init 5) have their own module byte and name id 0. Every other name (a plug-in
module, :mod:`cognition.modules.plugins`) has module byte 0, which no built-in uses, and the name id
:func:`plugin_stream_id`, the first 56 bits of its name's SHA-256: its streams cannot meet a
built-in's, and two plug-ins' can only meet if their 56-bit ids are equal, which the registry
refuses at registration.

This generator replaced numpy's per-agent Philox4x64 generators (one ``np.random.Philox``
per agent, module and cycle, in a Python loop) in version 0.2.0: every run's random numbers,
and so every run's results, changed once with it (docs/performance.md).
"""
from __future__ import annotations

import functools
import hashlib
import math
import struct

import numpy as np
import torch

from cognition.architecture.rng import MASK32, blocks_to_uniforms, blocks_to_uniforms32, box_muller, philox_words

MODULE_IDS = {"expectation": 1, "unconscious": 2, "hybrid": 3, "workspace": 4, "init": 5}
PLUGIN_MODULE_BYTE = 0  # the key's module byte for every name outside MODULE_IDS
NOISE, WEIGHTS = 0, 1  # the kind word of the key
MAX_AGENT = MASK32  # agent indices are one 32-bit counter word
# what a checkpoint records about the generator: a run cannot continue bit for bit under another one
SCHEME = "philox4x32-10 (sha256 stream keys), hybrid-cognition 0.2.0"
PREVIOUS_SCHEME = "numpy Philox4x64 per agent (hybrid-cognition 0.1.0)"


def plugin_stream_id(name: str) -> int:
    """The stable 56-bit id of a stream name outside ``MODULE_IDS``: the first 7 bytes of
    SHA-256(name, UTF-8), big-endian. Fixed by the name alone (not by registration order)."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:7], "big")


def stream_key(module: str) -> tuple[int, int]:
    """(module byte, name id) of the streams named ``module``."""
    if module in MODULE_IDS:
        return MODULE_IDS[module], 0
    if not isinstance(module, str) or not module:
        raise ValueError(f"stream name {module!r}: expected a non-empty module name")
    return PLUGIN_MODULE_BYTE, plugin_stream_id(module)


@functools.lru_cache(maxsize=1024)
def master_key(seed: int) -> int:
    """Mix the user's seed into one 64-bit word (numpy's SeedSequence hashing)."""
    return int(np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)[0])


@functools.lru_cache(maxsize=4096)
def philox_key(seed: int, module_byte: int, name_id: int, kind: int) -> tuple[int, int]:
    """The two 32-bit Philox key words of one stream: SHA-256 of its packed identity, first 8 bytes."""
    digest = hashlib.sha256(struct.pack(">QBQB", master_key(seed), module_byte, name_id, kind)).digest()
    return int.from_bytes(digest[:4], "big"), int.from_bytes(digest[4:8], "big")


class AgentStreams:
    """Random draws for a set of agents at one cycle, for one module, computed on ``device``.

    ``normal``/``uniform`` return numpy arrays (agents, *shape); ``normal_tensor``/``uniform_tensor``
    return float64 tensors on ``device``, with the same numbers.
    """

    def __init__(self, seed: int, agents, module: str, cycle: int, device="cpu"):
        self.agents = np.asarray(agents, dtype=np.int64)
        if self.agents.size and (self.agents.min() < 0 or self.agents.max() > MAX_AGENT):
            raise ValueError(f"agent indices must lie in 0..{MAX_AGENT}, got {self.agents.min()}..{self.agents.max()}")
        if int(cycle) < 0:
            raise ValueError(f"cycle={cycle} must be non-negative")
        self.seed, self.module, self.device = int(seed), module, torch.device(device)
        self._kind, self._words = NOISE, (int(cycle) & MASK32, int(cycle) >> 32)
        self._offset = 0  # blocks taken by earlier draws of this object

    @classmethod
    def weights(cls, seed: int, agents, module: str, weight: int, device="cpu") -> "AgentStreams":
        """The streams of a module's fixed random weight number ``weight`` (>= 0), one per agent."""
        if not 0 <= int(weight) <= MASK32:
            raise ValueError(f"weight={weight} must be a weight index in 0..{MASK32}")
        streams = cls(seed, agents, module, 0, device)
        streams._kind, streams._words = WEIGHTS, (int(weight), 0)
        return streams

    def _blocks(self, n_blocks: int) -> torch.Tensor:
        """The next ``n_blocks`` Philox blocks of every agent: (agents, n_blocks, 4) int64 words."""
        start, self._offset = self._offset, self._offset + n_blocks
        if self._offset > MASK32 + 1:
            raise ValueError(f"a stream holds 2^32 blocks; this draw would need block {self._offset - 1}")
        key = torch.tensor(philox_key(self.seed, *stream_key(self.module), self._kind), device=self.device)
        agents = torch.as_tensor(self.agents, device=self.device)
        words = torch.empty((4, len(self.agents), n_blocks), dtype=torch.int64, device=self.device)
        words[0] = torch.arange(start, start + n_blocks, device=self.device)
        words[1] = agents[:, None]
        words[2], words[3] = self._words
        return philox_words(words, key).permute(1, 2, 0)

    def _pairs(self, shape) -> tuple[int, int]:
        n = math.prod(shape)
        return n, (n + 1) // 2

    def uniform_tensor(self, low: float, high: float, *shape: int) -> torch.Tensor:
        """Uniform doubles on [low, high): a float64 tensor (agents, *shape) on the streams' device."""
        n, blocks = self._pairs(shape)
        u = blocks_to_uniforms(self._blocks(blocks)).reshape(len(self.agents), 2 * blocks)[:, :n]
        return (low + (high - low) * u).reshape(len(self.agents), *shape)

    def uniform32_tensor(self, *shape: int) -> torch.Tensor:
        """Uniforms k / 2^32 on [0, 1), four per block (32 random bits each, half the blocks of
        :meth:`uniform_tensor`): for shot sampling, where no probability below 2^-32 matters."""
        n = math.prod(shape)
        blocks = (n + 3) // 4
        u = blocks_to_uniforms32(self._blocks(blocks)).reshape(len(self.agents), 4 * blocks)[:, :n]
        return u.reshape(len(self.agents), *shape)

    def normal_tensor(self, *shape: int) -> torch.Tensor:
        """Standard normals: a float64 tensor (agents, *shape) on the streams' device."""
        n, blocks = self._pairs(shape)
        z = box_muller(blocks_to_uniforms(self._blocks(blocks))).reshape(len(self.agents), 2 * blocks)[:, :n]
        return z.reshape(len(self.agents), *shape)

    def normal(self, *shape: int) -> np.ndarray:
        return self.normal_tensor(*shape).cpu().numpy()

    def uniform(self, low: float, high: float, *shape: int) -> np.ndarray:
        return self.uniform_tensor(low, high, *shape).cpu().numpy()
