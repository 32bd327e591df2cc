"""Interventions on the running loop: record each agent's states, set them, advance one cycle (issue 46).

The elements of the perturbational analysis are the loop's units of Phi (``IntegrationLoop.unit_names``). Each
unit is a read-out of one **owner**, a node whose state crosses the cycle boundary: a module (its state tree,
``LoopState.modules[name]``, after learning) or the workspace (the broadcast b_t, which the workspace's two
units are functions of, with its access, fatigue, evidence window, winner and dwell). An owner's units are
read-outs of one micro state and cannot be set apart; owners can.

:func:`record` runs the agents' own loop and keeps every owner's state and every unit at each cycle after a
burn-in. :class:`Intervention` then advances rows whose owners' states are taken from recorded cycles, one
cycle, with fresh noise: row r is agent ``agents[r]`` (its weights, its anatomy) with each owner's state from
that agent's recorded cycle ``picks[owner][r]``, and its own noise streams (identities ``NOISE_BASE + r``, which
no run's agent uses), so rows of one agent draw independent noise. What to pick (the macro states and the
maximum-entropy perturbation) is :mod:`cognition.analysis.perturbational`'s.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from cognition.architecture.loop import IntegrationLoop, LoopState
from cognition.architecture.workspace import WORKSPACE_STATE
from cognition.modules.base import slice_tree

WORKSPACE = "workspace"
NOISE_BASE = 2**31  # stream identities of the intervention rows: above any run's agents and donors
WORKSPACE_KEYS = (*WORKSPACE_STATE, "winner", "dwell")
ROWS_PER_LAUNCH = 8192  # intervention rows advanced at once: the assembled states of a launch stay small


def owners_of(loop: IntegrationLoop) -> list[str]:
    """The owner of each unit of ``loop.unit_names``: the module whose read-out it is, or "workspace"."""
    return [name.split(".", 1)[0] for name in loop.unit_names]


def _tree_map(tree, fn):
    if isinstance(tree, dict):
        return {k: _tree_map(v, fn) for k, v in tree.items()}
    return fn(tree)


def _stack(trees: list):
    """Per-cycle trees of (agents, ...) tensors -> one tree of (cycles, agents, ...) tensors."""
    first = trees[0]
    if isinstance(first, dict):
        return {k: _stack([t[k] for t in trees]) for k in first}
    return torch.stack(trees)


@dataclass
class Recording:
    """Each agent's recorded cycles after the burn-in: ``units`` (agents, cycles, n_units) float64, and every
    owner's state, a tree of (cycles, agents, ...) tensors: ``modules`` (name -> its state tree) and
    ``workspace`` (the broadcast under "broadcast" and the workspace's state)."""

    units: np.ndarray
    modules: dict
    workspace: dict
    unit_names: list
    owners: list
    burn: int

    @property
    def agents(self) -> int:
        return self.units.shape[0]

    def assemble(self, agents: np.ndarray, picks: dict, cycle: int, device) -> LoopState:
        """The loop state of rows whose owners' states are agent ``agents[r]``'s at recorded cycle
        ``picks[owner][r]`` (0-based, after the burn-in); ``cycle``: the completed cycles it stands for."""
        a = torch.as_tensor(np.asarray(agents), device=device)
        def rows(tree, owner):  # rows (picks[owner][r], agents[r]) of a tree of (cycles, agents, ...) tensors
            return slice_tree(tree, (torch.as_tensor(np.asarray(picks[owner]), device=device), a))

        modules = {name: rows(tree, name) for name, tree in self.modules.items()}
        ws = rows(self.workspace, WORKSPACE)
        return LoopState(int(cycle), ws["broadcast"], modules, {k: ws[k] for k in WORKSPACE_KEYS})

    @property
    def cycles(self) -> int:
        return self.units.shape[1]


def record(loop: IntegrationLoop, cycles: int, burn: int) -> Recording:
    """Run ``loop`` (its agents alone: a population without twins) ``burn + cycles`` cycles from its initial
    state and keep the last ``cycles``: every unit and every owner's state at the end of each cycle."""
    if loop.population.rerouted or loop.population.resourced or len(loop.agents) != loop.population.agents:
        raise ValueError("record: a loop of the agents alone (no donors or twins) is needed")
    state, units, modules, workspace = loop.initial_state(), [], [], []
    for t in range(burn + cycles):
        state, _, signals = loop.advance(state)
        if t >= burn:
            units.append(signals)
            modules.append(_tree_map(state.modules, lambda x: x.detach().clone()))
            workspace.append({"broadcast": state.broadcast.detach().clone(),
                              **{k: state.workspace[k].detach().clone() for k in WORKSPACE_KEYS}})
    return Recording(np.stack(units, axis=1), _stack(modules), _stack(workspace), list(loop.unit_names),
                     owners_of(loop), burn)


class Intervention:
    """Advance rows assembled from recorded owner states one cycle, with fresh noise per row.

    ``loop``: the agents' own loop, whose rows are the recording's agents (:meth:`IntegrationLoop.rows_of`
    gives each launch of at most ``rows_per_launch`` rows their agents' weights without drawing them again)."""

    def __init__(self, loop: IntegrationLoop, recording: Recording, rows_per_launch: int = ROWS_PER_LAUNCH):
        self.loop, self.recording, self.launch = loop, recording, int(rows_per_launch)

    def advance(self, agents: np.ndarray, picks: dict, first_row: int = 0) -> np.ndarray:
        """The unit signals (rows, n_units) float64 one cycle after each row's assembled state.

        agents: (rows,) the agent of each row; picks: owner -> (rows,) the recorded cycle (0-based, after the
        burn-in) whose state of that owner row r starts from. ``first_row`` offsets the rows' noise identities
        (a caller advancing in several calls keeps every row's noise its own)."""
        agents = np.asarray(agents, dtype=np.int64)
        out = []
        for start in range(0, len(agents), self.launch):
            part = slice(start, min(start + self.launch, len(agents)))
            out.append(self._advance(agents[part], {o: np.asarray(p)[part] for o, p in picks.items()},
                                     first_row + start))
        return np.concatenate(out, axis=0)

    def _advance(self, agents: np.ndarray, picks: dict, first_row: int) -> np.ndarray:
        rec = self.recording
        noise = NOISE_BASE + first_row + np.arange(len(agents), dtype=np.int64)
        state = rec.assemble(agents, picks, rec.burn + rec.cycles, self.loop.device)
        _, _, signals = self.loop.rows_of(agents, noise).advance(state)
        return signals
