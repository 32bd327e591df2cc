"""Causal controls run inside a batch: the yoked twin, and lesions.

Global workspace theory says the broadcast integrates the modules. The test of that
claim inside a run is a **yoked control** (the yoked design of Brady 1958 and of
learned-helplessness studies: a twin receives the same stimulation as its master,
but not contingent on its own behaviour). Every agent a of the run gets:

* a **donor**, an agent of the same seed's population that is not in the run
  (agent index A + a for A agents): an independent, intact architecture;
* a **yoked twin** with agent a's weights and noise streams (the same agent index,
  so the same :class:`cognition.architecture.streams.AgentStreams`), whose modules read and learn
  from the donor's broadcast instead of their own workspace's. Its workspace still
  competes over its modules' proposals; its broadcast just reaches no module. It cuts
  the direction workspace -> modules;
* a **proposal-yoked twin**, again with agent a's weights and noise streams, whose
  workspace competes over the donor's proposals instead of its own modules'. Its modules
  still read and learn from its own broadcast, so it is a relay: the direction modules ->
  workspace is cut, workspace -> modules kept.

So each twin has everything the agent has except one direction of the loop through its own
workspace, and the part that is cut is driven by signals with the statistics of real ones.
Each direction's directed information in the agents minus that in the twins that cut it (agents as
paired replications) is what that direction carries; the loop is closed only when both are shown
(cognition.phi.loop_test, which the run's criterion calls).
When modules ignore the broadcast, the yoked twin is the agent bit for bit; when the workspace
ignores the proposals, the proposal-yoked twin is.

Lesions, for single-condition runs (``control.lesion``):

* ``broadcast``: every module reads and learns from the run's initial broadcast
  b_0, held fixed; the workspace still competes;
* ``proposals``: every workspace but the donors' competes over its donor's proposals (the
  donors stay intact: they are the independent agents); the modules still read their own
  broadcast. A purely feedforward workspace in the real architecture, the loop criterion's
  negative control: the proposal-yoked twins are then the agents bit for bit. It needs the
  yoked control (the donors);
* ``module:NAME``: NAME's access unit is held at 0, so it never ignites.

The batch holds rows [agents | donors | yoked twins | proposal-yoked twins] (4 A rows) with
the control, else the A agents alone; :class:`Population` says which row is whom.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GROUPS = ("intact", "donor", "yoked", "yoked_proposals")
SET = GROUPS[1:]  # the groups of one twin set, in row order


@dataclass(frozen=True)
class Population:
    """identity (R,): each row's agent index (its weights and noise streams); route (R,): the
    row whose broadcast each row's modules read; source (R,): the row whose modules' proposals
    each row's workspace competes over; groups: name -> slice of rows."""

    identity: np.ndarray
    route: np.ndarray
    source: np.ndarray
    groups: dict

    @property
    def agents(self) -> int:
        """The run's agents (the intact rows)."""
        s = self.groups["intact"]
        return s.stop - s.start

    @property
    def rerouted(self) -> bool:
        """Some row's modules read another row's broadcast."""
        return not np.array_equal(self.route, np.arange(len(self.route)))

    @property
    def resourced(self) -> bool:
        """Some row's workspace competes over another row's proposals."""
        return not np.array_equal(self.source, np.arange(len(self.source)))


def population(agents: int, twin_sets: int, lesion: str | None = None) -> Population:
    """The rows of a run of ``agents`` agents and ``twin_sets`` sets of donors and twins.

    The control has one set (groups "donor", "yoked", "yoked_proposals"); a second set
    ("donor_2", "yoked_2", "yoked_proposals_2": the same agents yoked to other donors, agents
    2A..3A - 1) gives twins that differ only in their donors, the null of ``python -m
    cognition.bench workspace``. ``lesion="proposals"``: every row but the donors competes over
    its set's donors' proposals (the intact rows over the first set's).
    """
    A = int(agents)
    if lesion == "proposals" and twin_sets < 1:
        raise ValueError("the proposals lesion needs the yoked control: its donors are the independent agents "
                         "whose proposals each workspace competes over")
    own = np.arange(A)
    identity, route, source, groups = [own], [own], [own], {"intact": slice(0, A)}
    lesioned = lesion == "proposals"
    for k in range(twin_sets):
        start = A * (1 + len(SET) * k)
        donor, yoked, relay = (np.arange(start + i * A, start + (i + 1) * A) for i in range(len(SET)))
        identity += [np.arange((k + 1) * A, (k + 2) * A), own, own]
        route += [donor, donor, relay]
        source += [donor, donor if lesioned else yoked, donor]
        if k == 0 and lesioned:
            source[0] = donor
        suffix = "" if k == 0 else f"_{k + 1}"
        groups.update({name + suffix: slice(start + i * A, start + (i + 1) * A) for i, name in enumerate(SET)})
    return Population(np.concatenate(identity), np.concatenate(route), np.concatenate(source), groups)


def rows_per_agent(cfg) -> int:
    """Rows the batch holds per agent of the run (4 with the yoked control: agent, donor and two twins)."""
    return 1 + len(SET) * int(cfg.control.yoked)


def lesioned_module(cfg) -> str | None:
    """NAME of a ``module:NAME`` lesion, else None."""
    lesion = cfg.control.lesion
    return lesion.split(":", 1)[1] if lesion and lesion.startswith("module:") else None


def split_rows(units: np.ndarray, agents: int, twin_sets: int) -> dict[str, np.ndarray]:
    """Per group of :func:`population` ("intact", and "donor", "yoked", ... per twin set), its rows
    of ``units`` (rows, ...). ``twin_sets``: 1 with the yoked control (a bool says so too), 0 without."""
    groups = population(agents, int(twin_sets)).groups
    rows = max(s.stop for s in groups.values())
    if units.shape[0] != rows:
        control = f"{int(twin_sets)} set(s) of yoked twins" if twin_sets > 1 else \
            ("the yoked control" if twin_sets else "no yoked control")
        raise ValueError(f"{units.shape[0]} rows of unit signals; a run of {agents} agents with {control} "
                         f"records {rows}")
    return {name: units[rows] for name, rows in groups.items()}


def intact_rows(units: np.ndarray, config: dict) -> np.ndarray:
    """The run's own agents' rows of ``units``, from a resolved configuration (config.yaml's mapping)."""
    control = config.get("control") or {}
    return split_rows(units, config["run"]["agents"], bool(control.get("yoked", False)))["intact"]
