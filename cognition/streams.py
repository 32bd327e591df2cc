"""Counter-based random streams: one per (agent, module, cycle), and one per (agent, module, weight).

The noise an agent's module draws at a cycle is a pure function of
``(master seed, agent index, module id, cycle)``, using numpy's Philox
counter-based generator (Salmon et al. 2011, "Parallel random numbers: as easy
as 1, 2, 3"). An agent's fixed random weights (its anatomy, drawn once when the
loop is assembled) come from streams of their own, a pure function of
``(master seed, agent index, module id, weight index)`` (:meth:`AgentStreams.weights`).
Consequences the package relies on:

* an agent's numbers do not depend on how many other agents share its batch,
  so a batch of N agents equals N runs of one agent;
* retrying a cycle after an out-of-memory error, or resuming from a checkpoint,
  redraws exactly the same numbers, with no generator state to save;
* agent i's weights are the same in a run of 8 agents and one of 65 536, so the
  seed fixes the whole population and agents are independent replications.

Philox4x64 key: (seed word, agent << 8 | module byte). Counter: (0, cycle, 0, name << 8 | 0)
for noise, (0, 0, weight, name << 8 | 1) for weights; a stream only advances word 0, so no
two streams meet. The built-in streams (``MODULE_IDS``: expectation 1, unconscious 2,
hybrid 3, workspace 4, init 5) have their own module byte and ``name`` 0, so their draws are
those of every run before plug-in modules existed. Every other name (a plug-in module,
:mod:`cognition.plugins`) has module byte 0, which no built-in uses, and ``name`` =
:func:`plugin_stream_id`, the first 56 bits of its name's SHA-256: its streams cannot meet a
built-in's, and two plug-ins' can only meet if their names' 56-bit ids are equal, which the
registry refuses at registration.
"""
from __future__ import annotations

import hashlib

import numpy as np

MODULE_IDS = {"expectation": 1, "unconscious": 2, "hybrid": 3, "workspace": 4, "init": 5}
PLUGIN_MODULE_BYTE = 0  # the key's module byte for every name outside MODULE_IDS


def plugin_stream_id(name: str) -> int:
    """The stable 56-bit id of a stream name outside ``MODULE_IDS``: the first 7 bytes of
    SHA-256(name, UTF-8), big-endian. Fixed by the name alone (not by registration order)."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:7], "big")


def stream_key(module: str) -> tuple[int, int]:
    """(module byte of the Philox key, name word of the counter) of the streams named ``module``."""
    if module in MODULE_IDS:
        return MODULE_IDS[module], 0
    if not isinstance(module, str) or not module:
        raise ValueError(f"stream name {module!r}: expected a non-empty module name")
    return PLUGIN_MODULE_BYTE, plugin_stream_id(module)


def master_key(seed: int) -> np.uint64:
    """Mix the user's seed into a 64-bit Philox key word (SeedSequence hashing)."""
    return np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)[0]


class AgentStreams:
    """Random draws for a set of agents at one cycle, for one module."""

    def __init__(self, seed: int, agents: np.ndarray, module: str, cycle: int):
        self._key0 = master_key(seed)
        self.agents = np.asarray(agents, dtype=np.int64)
        self._module, self._name = stream_key(module)
        self._counter = (0, int(cycle), 0, self._name << 8)

    @classmethod
    def weights(cls, seed: int, agents: np.ndarray, module: str, weight: int) -> "AgentStreams":
        """The streams of a module's fixed random weight number ``weight`` (>= 0), one per agent."""
        if int(weight) < 0:
            raise ValueError(f"weight={weight} must be a non-negative weight index")
        streams = cls(seed, agents, module, 0)
        streams._counter = (0, 0, int(weight), streams._name << 8 | 1)
        return streams

    def _generator(self, agent: int) -> np.random.Generator:
        """A fresh generator of one agent's stream (the reference :meth:`draw` reproduces)."""
        counter = np.array(self._counter, dtype=np.uint64)
        return np.random.Generator(np.random.Philox(key=self._key(agent), counter=counter))

    def draw(self, fn) -> np.ndarray:
        """Stack ``fn(generator)`` over agents: shape (agents, *fn's shape).

        One Philox bit generator serves every agent: its state is set to the agent's key and the
        stream's counter with an empty buffer, which is exactly a fresh ``Philox(key=, counter=)``
        (the same numbers, tests/test_streams.py) at a quarter of the cost, since a fresh one also
        builds a seed sequence from OS entropy that an explicit key never uses.
        """
        if len(self.agents) == 0:
            return np.stack([fn(self._generator(0))])[:0]
        bitgen = np.random.Philox(key=self._key(self.agents[0]), counter=np.array(self._counter, dtype=np.uint64))
        generator, fresh = np.random.Generator(bitgen), bitgen.state
        out = []
        for agent in self.agents:
            fresh["state"]["key"] = self._key(agent)
            bitgen.state = fresh
            out.append(fn(generator))
        return np.stack(out)

    def _key(self, agent) -> np.ndarray:
        return np.array([self._key0, (int(agent) << 8) | self._module], dtype=np.uint64)

    def normal(self, *shape: int) -> np.ndarray:
        return self.draw(lambda g: g.standard_normal(shape))

    def uniform(self, low: float, high: float, *shape: int) -> np.ndarray:
        return self.draw(lambda g: g.uniform(low, high, shape))

    def seeds(self) -> np.ndarray:
        """One uint64 seed per agent (e.g. for a shot sampler)."""
        return self.draw(lambda g: g.integers(0, 2**63 - 1, dtype=np.uint64))
