"""Causal controls run inside a batch: the yoked twin, and lesions.

Global workspace theory says the broadcast integrates the modules. The test of that
claim inside a run is a **yoked control** (the yoked design of Brady 1958 and of
learned-helplessness studies: a twin receives the same stimulation as its master,
but not contingent on its own behaviour). Every agent a of the run gets:

* a **donor**, an agent of the same seed's population that is not in the run
  (agent index A + a for A agents): an independent, intact architecture;
* a **yoked twin** with agent a's weights and noise streams (the same agent index,
  so the same :class:`cognition.streams.AgentStreams`), whose modules read and learn
  from the donor's broadcast instead of their own workspace's. Its workspace still
  competes over its modules' proposals; its broadcast just reaches no module.

So the twin has everything the agent has except the loop through its own workspace,
and its modules are driven by a broadcast with the statistics of a real one. Phi of
the agents minus Phi of their twins (agents as paired replications) is the
integration the broadcast adds. When modules ignore the broadcast the twin is the
agent, bit for bit, and the difference is exactly 0.

Lesions, for single-condition runs (``control.lesion``):

* ``broadcast``: every module reads and learns from the run's initial broadcast
  b_0, held fixed; the workspace still competes;
* ``module:NAME``: NAME's access unit is held at 0, so it never ignites.

The batch holds rows [agents | donors | twins] (3 A rows) with the control, else
the A agents alone; :class:`Population` says which row is whom.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GROUPS = ("intact", "donor", "yoked")


@dataclass(frozen=True)
class Population:
    """identity (R,): each row's agent index (its weights and noise streams); route (R,): the
    row whose broadcast each row's modules read; groups: name -> slice of rows."""

    identity: np.ndarray
    route: np.ndarray
    groups: dict

    @property
    def agents(self) -> int:
        """The run's agents (the intact rows)."""
        s = self.groups["intact"]
        return s.stop - s.start

    @property
    def rerouted(self) -> bool:
        return not np.array_equal(self.route, np.arange(len(self.route)))


def population(agents: int, twin_sets: int) -> Population:
    """The rows of a run of ``agents`` agents and ``twin_sets`` sets of donors and yoked twins.

    The control has one set (groups "donor", "yoked"); a second set ("donor_2", "yoked_2":
    the same agents yoked to other donors, agents 2A..3A - 1) gives twins that differ only
    in their donors, the null of ``python -m cognition.bench workspace``.
    """
    A = int(agents)
    own = np.arange(A)
    identity, route, groups = [own], [own], {"intact": slice(0, A)}
    for k in range(twin_sets):
        donors = np.arange((k + 1) * A, (k + 2) * A)
        suffix = "" if k == 0 else f"_{k + 1}"
        start = A * (1 + 2 * k)
        identity += [donors, own]
        route += [np.arange(start, start + A), np.arange(start, start + A)]
        groups[f"donor{suffix}"] = slice(start, start + A)
        groups[f"yoked{suffix}"] = slice(start + A, start + 2 * A)
    return Population(np.concatenate(identity), np.concatenate(route), groups)


def rows_per_agent(cfg) -> int:
    """Rows the batch holds per agent of the run (3 with the yoked control: agent, donor, twin)."""
    return 1 + 2 * int(cfg.control.yoked)


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
