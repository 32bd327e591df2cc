"""The shared (global) workspace: competition for access, then broadcast.

Global workspace theory (Baars 1988; Dehaene, Kerszberg & Changeux 1998):
modules bid with their salience; the most salient contents enter the
workspace and are broadcast back to every module. Here, per agent,

    bids = softmax(salience / temperature)         over the M modules
    w = bids with all but the `capacity` largest set to 0, renormalised
    b_t = persistence * b_{t-1} + (1 - persistence) * sum_m w_m content_m

The wiring between modules is a networkx DiGraph built from what each module
reads (see :func:`wiring_graph`); the loop validates it and runs modules in
its topological order.
"""
from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import torch

from cognition.errors import ConfigError

BROADCAST = "broadcast"
WORKSPACE = "workspace"


@dataclass
class Broadcast:
    """content (agents, D); weights (agents, M) after the capacity limit; bids (agents, M)
    the softmax before it; winner (agents,) index into module order."""

    content: torch.Tensor
    weights: torch.Tensor
    bids: torch.Tensor
    winner: torch.Tensor


def compete(contents, salience, b_prev, temperature: float, capacity: int, persistence: float):
    """Kernel: bids, capacity-limited weights, broadcast and winner; contents (A, M, D), salience (A, M)."""
    bids = torch.softmax(salience / temperature, dim=1)
    weights = bids
    if capacity < bids.shape[1]:
        top = torch.topk(weights, capacity, dim=1).indices
        mask = torch.zeros_like(weights).scatter_(1, top, 1.0)
        weights = weights * mask
        weights = weights / weights.sum(dim=1, keepdim=True)
    mix = torch.einsum("am,amd->ad", weights, contents)
    content = persistence * b_prev + (1.0 - persistence) * mix
    return content, weights, bids, torch.argmax(weights, dim=1)


class SharedWorkspace:
    kernels = ("_compete",)

    def __init__(self, cfg, module_names: list[str]):
        self.cfg, self.module_names = cfg, list(module_names)
        self._compete = compete

    def compete(self, proposals: dict, b_prev: torch.Tensor) -> Broadcast:
        contents = torch.stack([proposals[m].content for m in self.module_names], dim=1)  # (A, M, D)
        salience = torch.stack([proposals[m].salience for m in self.module_names], dim=1)  # (A, M)
        k = min(self.cfg.capacity, len(self.module_names))
        return Broadcast(*self._compete(contents, salience, b_prev, self.cfg.temperature, k,
                                        self.cfg.persistence))


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
