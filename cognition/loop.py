"""IntegrationLoop: one cycle of the architecture, and Phi over the recorded units.

One cycle, for a batch of agents (leading dimension of every tensor):

1. each module, in the wiring graph's topological order, reads the previous
   broadcast (and any same-cycle proposal it declares) and proposes content
   with a salience;
2. the shared workspace runs the competition and broadcasts;
3. modules learn from the broadcast; the loop records every unit's signal
   and updates Phi over a trailing window.

The system's units for Phi are state variables of the nodes of the wiring graph,
none a deterministic function of the others at the same cycle (docs/architecture.md,
"Units of Phi"): each module declares its own (``CognitiveModule.unit_signals``; by
default its salience and the alignment of its proposal with the broadcast it read; the
hybrid module its decision p_act), and the workspace adds two coordinates of its
broadcast state. For the default architecture that is n = 7 units.

Every agent has its own fixed random module weights (its anatomy), drawn once here
from the seed (``CognitiveModule.init_weights``), a pure function of (seed, agent,
module, weight): the seed fixes the whole population and agent i's weights do not
depend on how many agents the run has. The loop holds them, outside :class:`LoopState`
(so never in a checkpoint: a resumed loop draws them again), and hands each launch its
own agents' slice, as it does with their state.

The loop is pure with respect to its state: :meth:`step` takes a
:class:`LoopState` and returns a new one, so a cycle can be retried from the
state before it and a run resumed from a checkpoint bit for bit. The loop keeps
no history: :meth:`step` is handed the trailing window of unit signals that the
per-cycle Phi needs and returns the new cycle's signals; the runner records them
(:mod:`cognition.runtime.unit_history`), so a cycle costs the same however long
the run.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass

import numpy as np
import torch

from cognition.modules.base import cast_floats, cat_trees, compile_kernels, slice_tree
from cognition.streams import AgentStreams
from cognition.workspace import SharedWorkspace, execution_order, wiring_graph

# The workspace's units: two coordinates of its broadcast state b_t (its mean over the content
# dimensions, and the contrast between even and odd dimensions). The winning bid is not one: it
# is a function of the modules' saliences at the same cycle.
WORKSPACE_SIGNALS = ("broadcast_mean", "broadcast_contrast")
SAMPLES_PER_UNIT = 4  # pooled samples per unit a per-cycle Phi estimate asks for


@dataclass
class LoopState:
    """Everything a cycle reads. ``cycle`` counts completed cycles."""

    cycle: int
    broadcast: torch.Tensor  # (agents, D)
    modules: dict  # module name -> State


@dataclass
class CycleRecord:
    """What one cycle produced, reduced over agents, for metrics.jsonl."""

    cycle: int
    salience: dict
    winner_share: dict
    extras: dict
    phi: dict | None = None
    phi_note: str | None = None  # why phi is None after the window filled (e.g. a constant unit)


class IntegrationLoop:
    def __init__(self, cfg, modules, *, device, dtype):
        self.cfg, self.device, self.dtype = cfg, device, dtype
        self.modules = {m.name: m for m in modules}
        self.declared = [m.name for m in modules]
        self.graph = wiring_graph(modules)
        self.order = execution_order(self.graph, self.declared)
        self.workspace = SharedWorkspace(cfg.workspace, self.declared)
        self.unit_names = [f"{m.name}.{s}" for m in modules for s in m.unit_signals] + \
                          [f"workspace.{s}" for s in WORKSPACE_SIGNALS]
        self.agents = np.arange(cfg.run.agents)
        self.weights = {m.name: m.init_weights(self.agents) for m in modules}  # name -> (agents, ...) tensors

    def compile_kernels(self, compile_fn) -> None:
        """Wrap every module's and the workspace's tensor kernels (``runtime.compile``)."""
        for owner in (*self.modules.values(), self.workspace):
            compile_kernels(owner, compile_fn)

    def _autocast(self):
        """Mixed precision for the modules' forward maps (runtime.autocast: bf16 or fp16)."""
        if self.cfg.runtime.autocast is None:
            return contextlib.nullcontext()
        low = {"bf16": torch.bfloat16, "fp16": torch.float16}[self.cfg.runtime.autocast]
        return torch.autocast(device_type=torch.device(self.device).type, dtype=low)

    @property
    def n_units(self) -> int:
        return len(self.unit_names)

    @property
    def phi_window(self) -> int:
        """Cycles per per-cycle Phi estimate: the configured window, widened for few agents."""
        lagged = math.ceil(SAMPLES_PER_UNIT * self.n_units / len(self.agents))
        return max(self.cfg.phi.window, lagged + self.cfg.phi.lag)

    def initial_state(self) -> LoopState:
        D = self.cfg.run.content_dim
        init = AgentStreams(self.cfg.run.seed, self.agents, "init", 0)
        b0 = torch.as_tensor(0.5 * init.normal(D), dtype=self.dtype, device=self.device)
        states = {n: m.init_state(self.agents, init) for n, m in self.modules.items()}
        return LoopState(0, b0, states)

    def _chunk(self, state: LoopState, index: slice, cycle: int):
        """Run one cycle for the agents ``index``; return (broadcast, module states, signals, proposals)."""
        agents = self.agents[index]
        b_prev = state.broadcast[index]
        inputs, new_states = {"broadcast": b_prev}, {}
        for name in self.order:
            streams = AgentStreams(self.cfg.run.seed, agents, name, cycle)
            with self._autocast():
                proposal, new_state = self.modules[name].propose(
                    slice_tree(state.modules[name], index), inputs, streams, slice_tree(self.weights[name], index))
            # outputs return to the run's dtype: only the modules' forward maps run in low precision
            inputs[name], new_states[name] = cast_floats(proposal, self.dtype), cast_floats(new_state, self.dtype)
        proposals = {n: inputs[n] for n in self.declared}
        bc = self.workspace.compete(proposals, b_prev)
        for name in self.declared:
            new_states[name] = self.modules[name].learn(new_states[name], bc.content)
        signals = [self.modules[n].units(p, b_prev) for n, p in proposals.items()]
        contrast = (bc.content[:, 0::2].sum(dim=1) - bc.content[:, 1::2].sum(dim=1)) / bc.content.shape[1]
        signals.append(torch.stack([bc.content.mean(dim=1), contrast], dim=1))
        per_agent = {"winner": bc.winner, **{f"{n}.salience": p.salience for n, p in proposals.items()},
                     **{f"{n}.{k}": v for n, p in proposals.items() for k, v in p.extras.items()}}
        return bc.content, new_states, torch.cat(signals, dim=1), per_agent

    def step(self, state: LoopState, window: np.ndarray | None, batch: int | None = None
             ) -> tuple[LoopState, CycleRecord, np.ndarray]:
        """Advance one cycle, ``batch`` agents per launch (None: all at once), and update Phi.

        window: the unit signals of the cycles before this one, (agents, k, n_units) float64,
        oldest first; Phi needs the last ``phi_window - 1`` of them (None or fewer: no Phi yet).
        Returns the new state, the cycle's record and its signals (agents, n_units) float64.
        """
        new_state, per_agent, signals = self.advance(state, batch)
        return new_state, self._record(new_state.cycle, per_agent, window, signals), signals

    def advance(self, state: LoopState, batch: int | None = None) -> tuple[LoopState, dict, np.ndarray]:
        """The cycle without Phi: modules, workspace, learning; returns the state, the per-agent
        diagnostics and the unit signals (agents, n_units) float64."""
        cycle = state.cycle + 1
        A = len(self.agents)
        batch = A if batch is None else max(1, min(batch, A))
        parts = [self._chunk(state, slice(s, min(s + batch, A)), cycle) for s in range(0, A, batch)]
        broadcast = torch.cat([p[0] for p in parts])
        modules = {n: cat_trees([p[1][n] for p in parts]) for n in self.declared}
        signals = torch.cat([p[2] for p in parts]).detach().cpu().double().numpy()
        per_agent = cat_trees([p[3] for p in parts])
        return LoopState(cycle, broadcast, modules), per_agent, signals

    def _record(self, cycle: int, per_agent: dict, window, signals: np.ndarray) -> CycleRecord:
        winners = per_agent["winner"].cpu().numpy()
        share = {n: float(np.mean(winners == i)) for i, n in enumerate(self.declared)}
        means = {k: float(v.double().mean()) for k, v in per_agent.items() if k != "winner"}
        salience = {k.split(".")[0]: v for k, v in means.items() if k.endswith(".salience")}
        extras = {k: v for k, v in means.items() if not k.endswith(".salience")}
        try:
            phi_now, note = self.phi_at(window, signals), None
        except ValueError as exc:  # e.g. a unit constant over the window: Phi undefined, not a crash
            phi_now, note = None, str(exc)
        return CycleRecord(cycle, salience, share, extras, phi=phi_now, phi_note=note)

    def phi_at(self, window: np.ndarray | None, signals: np.ndarray) -> dict | None:
        """Phi over the trailing ``phi_window`` cycles ending with ``signals`` (None while it fills)."""
        from cognition import phi

        W = self.phi_window
        if window is None or window.shape[1] < W - 1:
            return None
        X = np.concatenate([window[:, window.shape[1] - (W - 1):], signals[:, None, :]], axis=1)
        # the per-cycle series is descriptive and matches estimate_windows (the report's bands): pooled
        # centring; the calibrated per-agent estimator is the whole-run headline (cognition/analysis.py)
        r = phi.estimate(X, lag=self.cfg.phi.lag, shrinkage=self.cfg.phi.shrinkage, centre="pooled")
        return {"phi_wms": r.phi_wms, "phi_r": r.phi_r, "tdmi": r.tdmi,
                "mib": [list(r.mib[0]), list(r.mib[1])]}
