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

Under the proposals lesion each agent's workspace competes over its donor's proposals, so the loop recorded is
the agents' and their donors' (:meth:`IntegrationLoop.with_donors`), and every intervention row of an agent
is advanced beside a row of its donor, in a state the donor held at a recorded cycle (its whole state, one
cycle: the donor is outside the agent's system, a background drawn from its own run), with fresh noise
(identities ``DONOR_NOISE_BASE + r``).
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
DONOR_NOISE_BASE = 3 * 2**30  # those of the donor rows beside them (the proposals lesion), above the first 2^30
#                              intervention rows (streams take identities below 2^32)
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
    """Each row's recorded cycles after the burn-in: ``units`` (rows, cycles, n_units) float64, and every
    owner's state, a tree of (cycles, rows, ...) tensors: ``modules`` (name -> its state tree) and
    ``workspace`` (the broadcast under "broadcast" and the workspace's state). The first ``agents`` rows are the
    agents; ``donor`` (agents,), where the loop had donors, the row whose proposals each agent's workspace
    competes over (its donor's under the proposals lesion, else its own), else None."""

    units: np.ndarray
    modules: dict
    workspace: dict
    unit_names: list
    owners: list
    burn: int
    agents: int
    donor: np.ndarray | None = None

    @property
    def lesioned(self) -> bool:
        """The agents' workspaces compete over their donors' proposals (the proposals lesion)."""
        return self.donor is not None and not np.array_equal(self.donor, np.arange(self.agents))

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
    """Run ``loop`` (its agents alone, or its agents and their donors: :meth:`IntegrationLoop.with_donors`)
    ``burn + cycles`` cycles from its initial state and keep the last ``cycles``: every unit and every owner's
    state at the end of each cycle."""
    pop = loop.population
    A, donors = pop.agents, pop.groups.get("donor")
    alone = len(loop.agents) == A and not pop.resourced
    paired = donors == slice(A, 2 * A) and len(loop.agents) == 2 * A
    if pop.rerouted or not (alone or paired):
        raise ValueError("record: a loop of the agents alone, or of the agents and their donors "
                         "(IntegrationLoop.with_donors), is needed")
    state, units, modules, workspace = loop.initial_state(), [], [], []
    for t in range(burn + cycles):
        state, _, signals = loop.advance(state)
        if t >= burn:
            units.append(signals)
            modules.append(_tree_map(state.modules, lambda x: x.detach().clone()))
            workspace.append({"broadcast": state.broadcast.detach().clone(),
                              **{k: state.workspace[k].detach().clone() for k in WORKSPACE_KEYS}})
    return Recording(np.stack(units, axis=1), _stack(modules), _stack(workspace), list(loop.unit_names),
                     owners_of(loop), burn, A, pop.source[:A].copy() if paired else None)


class Intervention:
    """Advance rows assembled from recorded owner states one cycle, with fresh noise per row.

    ``loop``: the loop the recording was made of, whose rows are the recording's (:meth:`IntegrationLoop.rows_of`
    gives each launch of at most ``rows_per_launch`` rows their agents' weights without drawing them again).

    The cycle advanced is the one after the recording, ``burn + cycles + 1``, for every row whichever recorded
    cycles its owners' states come from (an owner's may differ from another's in one row): its noise streams'
    cycle, the workspace's, and the ``cycle=`` handed to the modules' methods that name it (docs/modules.md,
    "The cycle"). A module that follows a schedule is advanced as it is after the recording."""

    def __init__(self, loop: IntegrationLoop, recording: Recording, rows_per_launch: int = ROWS_PER_LAUNCH):
        self.loop, self.recording, self.launch = loop, recording, int(rows_per_launch)

    def advance(self, agents: np.ndarray, picks: dict, first_row: int = 0,
                donor_cycles: np.ndarray | None = None) -> np.ndarray:
        """The unit signals (rows, n_units) float64 one cycle after each row's assembled state.

        agents: (rows,) the agent of each row; picks: owner -> (rows,) the recorded cycle (0-based, after the
        burn-in) whose state of that owner row r starts from. ``first_row`` offsets the rows' noise identities
        (a caller advancing in several calls keeps every row's noise its own). ``donor_cycles`` (rows,): under
        the proposals lesion (a recording with donors), the recorded cycle whose whole state row r's donor
        starts from."""
        agents = np.asarray(agents, dtype=np.int64)
        lesioned = self.recording.lesioned
        if lesioned and donor_cycles is None:
            raise ValueError("advance: the agents compete over their donors' proposals; donor_cycles is needed")
        launch = max(1, self.launch // 2) if lesioned else self.launch  # an agent's row and its donor's, together
        out = []
        for start in range(0, len(agents), launch):
            part = slice(start, min(start + launch, len(agents)))
            out.append(self._advance(agents[part], {o: np.asarray(p)[part] for o, p in picks.items()},
                                     first_row + start, None if not lesioned else np.asarray(donor_cycles)[part]))
        return np.concatenate(out, axis=0)

    def _advance(self, agents: np.ndarray, picks: dict, first_row: int, donor_cycles) -> np.ndarray:
        rec = self.recording
        noise = NOISE_BASE + first_row + np.arange(len(agents), dtype=np.int64)
        source = None
        if donor_cycles is not None:  # each row's donor beside it: rows [agents' | their donors']
            R = len(agents)
            noise = np.concatenate([noise, DONOR_NOISE_BASE + first_row + np.arange(R, dtype=np.int64)])
            picks = {o: np.concatenate([p, donor_cycles]) for o, p in picks.items()}
            agents = np.concatenate([agents, rec.donor[agents]])
            source = np.concatenate([R + np.arange(R), R + np.arange(R)])
        state = rec.assemble(agents, picks, rec.burn + rec.cycles, self.loop.device)
        _, _, signals = self.loop.rows_of(agents, noise, source=source).advance(state)
        return signals[:len(noise) // (2 if source is not None else 1)]
