"""The shared (global) workspace: competition for access with ignition, then broadcast.

Global workspace theory (Baars 1988; Dehaene, Kerszberg & Changeux 1998; Dehaene &
Changeux 2011): specialised modules compete for access to a limited-capacity
workspace; access is all-or-none ("ignition"), sustained by reverberation once won,
and the winning content is broadcast back to every module. Per agent, at cycle t:

1. **One currency.** Module m reports its evidence e_m (its salience in its own
   units: a prediction error, a novelty, a decisiveness). The workspace turns it
   into a surprise relative to the module's own recent evidence: its mid-rank
   percentile among the module's last ``surprise_window`` evidences (ties half,
   F = (below + equal / 2 + 1/2) / (k + 1) with k held), mapped to a normal score,

       z_m = Phi^-1(F),

   the probability integral transform (Rosenblatt 1952) of an empirical CDF. Under
   stationary evidence z_m is close to N(0, 1) for every module whatever the scale,
   skew or tails of its evidence, so bids from different modules are commensurable:
   a signal wins by being large for its source, not in its units (precision
   weighting of prediction errors, Feldman & Friston 2010, with a rank estimate of
   the precision). A module that stays surprised adapts (its window fills with
   large evidence) and yields, like the adaptation of rivalry models (Laing & Chow
   2002). The first cycle bids 0; |z| is at most Phi^-1((W + 1/2) / (W + 1)) for a
   window of W (1.98 at W = 20).
2. **Ignition.** Each module has an access unit a_m in [0, 1] with self-excitation
   and lateral inhibition (a rate model of the workspace's reverberating
   coalitions, Dehaene, Sergent & Changeux 2003; Wong & Wang 2006):

       u_m = z_m + self_excitation * a_m,t-1 - inhibition * sum_{n != m} a_n,t-1
             - adaptation * h_m,t-1 + noise * eps_m
       a_m,t = sigmoid((u_m - threshold) / temperature)
       h_m,t = h_m,t-1 + (a_m,t - h_m,t-1) / adaptation_cycles

   h_m is the fatigue of module m's access: holding the workspace builds it up, so a
   winner eventually yields even when its evidence stays where it was (the slow
   adaptation of the rivalry models of Laing & Chow 2002 and Wilson 2003; without it a
   module whose evidence is constant, a decision already taken, would hold forever).
   eps_m is standard normal noise from the agent's own "workspace" stream (stochastic
   ignition near threshold, Dehaene & Changeux 2005; it also breaks the ties of
   modules that reach the same rank, which would otherwise all go to the first one).
   With self_excitation / temperature > 4 a lone unit is bistable: the ignition
   curve (input strength -> access) jumps up at a higher input than it falls back at
   (hysteresis; :func:`ignition_curve`).
3. **Access and broadcast.** The at most ``capacity`` most active units with
   a_m >= 0.5 have ignited. If some did, the broadcast is their content, weighted by
   access: b_t = sum_ignited a_m c_m / sum_ignited a_m (all or none: no blend with
   the past). If none did, the last broadcast fades: b_t = persistence * b_{t-1}.
   ``winner`` is the most active ignited module, or -1 (no access this cycle).

The wiring between modules is a networkx DiGraph built from what each module
reads (see :func:`wiring_graph`); the loop validates it and runs modules in
its topological order.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import networkx as nx
import numpy as np
import torch

from cognition.architecture.winners import NO_ACCESS  # noqa: F401 (the workspace's winner when none ignited)
from cognition.errors import ConfigError
from cognition.modules.base import batch_stable

BROADCAST = "broadcast"
WORKSPACE = "workspace"
WORKSPACE_STATE = ("access", "fatigue", "evidence")  # the competition's state tensors (beside winner and dwell)


@dataclass
class Broadcast:
    """content (agents, D); bids (agents, M) the surprises z; access (agents, M) the access units
    after this cycle; ignited (agents, M) bool; winner (agents,) index into module order or -1."""

    content: torch.Tensor
    bids: torch.Tensor
    access: torch.Tensor
    ignited: torch.Tensor
    winner: torch.Tensor


def surprise(evidence, window, cycle):
    """Kernel: z of ``evidence`` (A, M) against the last evidences ``window`` (A, M, W), and the
    window with ``evidence`` written into slot (cycle - 1) mod W. ``cycle`` (a 0-d integer tensor,
    so that a compiled kernel does not specialise on it) is 1 for the first; slots not yet
    written hold NaN and compare false, so with nothing held F = 1/2 and z = 0."""
    W = window.shape[2]
    held = torch.clamp(cycle - 1, max=W).to(evidence.dtype)
    e = evidence[:, :, None]
    below = (window < e).sum(dim=2).to(evidence.dtype)
    equal = (window == e).sum(dim=2).to(evidence.dtype)
    z = batch_stable(torch.special.ndtri, (below + 0.5 * equal + 0.5) / (held + 1.0))
    slot = torch.arange(W, device=window.device) == torch.remainder(cycle - 1, W)
    return z, torch.where(slot, e, window)


def access_step(bids, access, fatigue, c):
    """Kernel: the access units and their fatigue after one cycle of the rate dynamics; bids (with
    their noise), access and fatigue (A, M); ``c`` the workspace configuration."""
    others = access.sum(dim=1, keepdim=True) - access
    drive = bids + c.self_excitation * access - c.inhibition * others - c.adaptation * fatigue
    access = batch_stable(torch.sigmoid, (drive - c.threshold) / c.temperature)
    return access, fatigue + (access - fatigue) / c.adaptation_cycles


def ignite(access, contents, b_prev, capacity: int, persistence: float):
    """Kernel: which modules ignited, the broadcast, and the winner; contents (A, M, D)."""
    rank = torch.argsort(torch.argsort(access, dim=1, descending=True, stable=True), dim=1)
    ignited = (access >= 0.5) & (rank < capacity)
    w = access * ignited
    total = w.sum(dim=1, keepdim=True)
    any_access = total > 0
    mix = torch.einsum("am,amd->ad", w / torch.where(any_access, total, torch.ones_like(total)), contents)
    content = torch.where(any_access, mix, persistence * b_prev)
    winner = torch.where(any_access[:, 0], torch.argmax(w, dim=1), torch.full_like(rank[:, 0], NO_ACCESS))
    return content, ignited, winner


class SharedWorkspace:
    """The competition of :mod:`cognition.architecture.workspace` for a fixed list of modules.

    Its state, per agent: ``access`` and ``fatigue`` (A, M) and the last evidences
    ``evidence`` (A, M, W). ``excluded``: module names that may not win (a ``module:NAME`` lesion): their
    access unit is held at 0, so they neither ignite nor inhibit.
    """

    kernels = ("_surprise", "_access", "_ignite")

    def __init__(self, cfg, module_names: list[str], excluded: tuple[str, ...] = ()):
        self.cfg, self.module_names = cfg, list(module_names)
        self.allowed = torch.tensor([m not in excluded for m in self.module_names])
        self._surprise, self._access, self._ignite = surprise, access_step, ignite

    def init_state(self, agents: int, dtype, device) -> dict:
        M, W = len(self.module_names), self.cfg.surprise_window
        return {"access": torch.zeros(agents, M, dtype=dtype, device=device),
                "fatigue": torch.zeros(agents, M, dtype=dtype, device=device),
                "evidence": torch.full((agents, M, W), float("nan"), dtype=dtype, device=device)}

    def compete(self, proposals: dict, b_prev: torch.Tensor, state: dict, cycle: int,
                streams) -> tuple[Broadcast, dict]:
        """This cycle's competition (cycle = 1 for the first); returns the broadcast and the new state.

        streams: the agents' "workspace" :class:`cognition.architecture.streams.AgentStreams` of this cycle."""
        c = self.cfg
        contents = torch.stack([proposals[m].content for m in self.module_names], dim=1)  # (A, M, D)
        evidence = torch.stack([proposals[m].salience for m in self.module_names], dim=1)  # (A, M)
        z, window = self._surprise(evidence, state["evidence"], torch.tensor(cycle, device=evidence.device))
        eps = streams.normal_tensor(len(self.module_names)).to(dtype=z.dtype, device=z.device)
        access, fatigue = self._access(z + c.noise * eps, state["access"], state["fatigue"], c)
        access = access * self.allowed.to(access.device)
        k = min(c.capacity, len(self.module_names))
        content, ignited, winner = self._ignite(access, contents, b_prev, k, c.persistence)
        return (Broadcast(content, z, access, ignited, winner),
                {"access": access, "fatigue": fatigue, "evidence": window})


def ignition_curve(cfg, strengths: np.ndarray, rivals: int = 0, settle: int = 30, fatigue: bool = False) -> dict:
    """Access of one module whose bid sweeps ``strengths`` up and then back down.

    By default the fast access dynamics alone (fatigue held at 0, as on time scales shorter
    than ``adaptation_cycles``): the ignition curve of the reverberating circuit. With
    ``fatigue`` the settled access includes the adaptation, which releases a held workspace.
    The module's bid is held at each strength for ``settle`` cycles (rivals bid 0) and its
    settled access recorded, carrying the state from one strength to the next, as in a
    psychophysics staircase. Hysteresis: on the way up access jumps at a higher strength
    than the one it falls back at. Returns {"strength", "rising", "falling",
    "threshold_rising", "threshold_falling"} (thresholds: first strength with access >= 0.5
    going up, last with access >= 0.5 coming down; None if never crossed).
    """
    c = cfg if fatigue else dataclasses.replace(cfg, adaptation=0.0)
    s = np.asarray(strengths, dtype=np.float64)
    a = torch.zeros(1, 1 + rivals, dtype=torch.float64)
    fatigue = torch.zeros_like(a)

    def sweep(values):
        nonlocal a, fatigue
        out = []
        for v in values:
            bids = torch.zeros_like(a)
            bids[0, 0] = float(v)
            for _ in range(settle):
                a, fatigue = access_step(bids, a, fatigue, c)
            out.append(float(a[0, 0]))
        return np.array(out)

    rising = sweep(s)
    falling = sweep(s[::-1])[::-1]
    up = np.flatnonzero(rising >= 0.5)
    down = np.flatnonzero(falling >= 0.5)
    return {"strength": s.tolist(), "rising": rising.tolist(), "falling": falling.tolist(),
            "threshold_rising": float(s[up[0]]) if len(up) else None,
            "threshold_falling": float(s[down[0]]) if len(down) else None}


def wiring_graph(modules) -> nx.DiGraph:
    """Directed graph of who feeds whom: module -> workspace, workspace -> readers.

    Edge attribute ``same_cycle`` is True for a module reading another module's
    proposal of the same cycle; those edges fix the execution order.
    """
    g = nx.DiGraph()
    g.add_node(WORKSPACE, kind="workspace")
    names = {m.name for m in modules}
    for m in modules:
        g.add_node(m.name, kind="module", variant=m.variant)
        g.add_edge(m.name, WORKSPACE, signal="proposal", same_cycle=True)
    for m in modules:
        for source in m.reads:
            if source == BROADCAST:
                g.add_edge(WORKSPACE, m.name, signal=BROADCAST, same_cycle=False)
            elif source in names:
                g.add_edge(source, m.name, signal="proposal", same_cycle=True)
            else:
                raise ConfigError("modules.enabled", sorted(names),
                                  f"a set in which every reader has a writer: '{m.name}' reads "
                                  f"'{source}', which is not enabled")
    return g


def execution_order(graph: nx.DiGraph, declared: list[str]) -> list[str]:
    """Topological order of the same-cycle dependencies, ties broken by declared order."""
    same = nx.DiGraph()
    same.add_nodes_from(declared)
    same.add_edges_from((u, v) for u, v, d in graph.edges(data=True)
                        if d["same_cycle"] and u in declared and v in declared)
    if not nx.is_directed_acyclic_graph(same):
        cycle = nx.find_cycle(same)
        raise ConfigError("modules.enabled", declared, f"acyclic same-cycle reads; found {cycle}")
    rank = {name: i for i, name in enumerate(declared)}
    return list(nx.lexicographical_topological_sort(same, key=rank.__getitem__))
