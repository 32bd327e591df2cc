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
default its salience and the mean of its proposed content (``content_mean``); the
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

from cognition.modules.base import cast_floats, cat_rows, cat_trees, compile_kernels, slice_tree
from cognition.modules.guard import ProtocolGuard
from cognition.architecture.controls import Population, lesioned_module
from cognition.architecture.controls import population as make_population
from cognition.architecture.streams import AgentStreams
from cognition.architecture.workspace import NO_ACCESS, WORKSPACE_STATE, SharedWorkspace, execution_order, wiring_graph

# The workspace's units: two coordinates of its broadcast state b_t (its mean over the content
# dimensions, and the contrast between even and odd dimensions). The winning bid is not one: it
# is a function of the modules' saliences at the same cycle.
WORKSPACE_SIGNALS = ("broadcast_mean", "broadcast_contrast")
SAMPLES_PER_UNIT = 4  # pooled samples per unit a per-cycle Phi estimate asks for
# Rows per launch on the CPU when runtime.batch is null. Measured on 0.3.0, one thread, IntegrationLoop.advance,
# median of 3 x 3 cycles (docs/performance.md): 4096 agents (12 288 rows) classical 133 / 112 / 99 / 97 / 94 ms per
# cycle in launches of 1024 / 2048 / 4096 / 6144 / 12 288 rows, quantum-lite 267 / 236 / 222 / 228 / 216 ms; 8192
# agents classical 238 / 212 / 279 ms in launches of 8192 / 12 288 / 24 576. (With 0.2.0's kernels, which made more
# passes over memory, 2048 was best.) Rows are independent and every row's arithmetic is the same whatever the
# launch (tests/architecture/test_batch_invariance.py), so no number changes.
CPU_ROWS_PER_LAUNCH = 12288


# runtime.autocast -> the dtype its forward maps run in
AUTOCAST_DTYPES = {None: None, "bf16": torch.bfloat16, "fp16": torch.float16}


def workspace_units(content: torch.Tensor) -> torch.Tensor:
    """The workspace's unit signals (WORKSPACE_SIGNALS) of a broadcast ``content`` (rows, D): (rows, 2)."""
    contrast = (content[:, 0::2].sum(dim=1) - content[:, 1::2].sum(dim=1)) / content.shape[1]
    return torch.stack([content.mean(dim=1), contrast], dim=1)


@dataclass
class LoopState:
    """Everything a cycle reads, one row per batch row (cognition.architecture.controls.Population).
    ``cycle`` counts completed cycles; ``workspace`` holds the access units, the running
    statistics of the evidence and the current winner with how long it has held."""

    cycle: int
    broadcast: torch.Tensor  # (rows, D)
    modules: dict  # module name -> State
    workspace: dict  # access (rows, M), evidence (rows, M, W); winner, dwell (rows,)


@dataclass
class CycleRecord:
    """What one cycle produced, reduced over the run's agents (not donors or twins), for metrics.jsonl."""

    cycle: int
    salience: dict
    winner_share: dict
    extras: dict
    phi: dict | None = None
    phi_note: str | None = None  # why phi is None after the window filled (e.g. a constant unit)
    competition: dict | None = None  # switches, bids, dwell episodes that ended (cognition.architecture.competition)
    winners: str | None = None  # every batch row's winner, one character each (winners.encode_winners)


class IntegrationLoop:
    def __init__(self, cfg, modules, *, device, dtype, population: Population | None = None,
                 noise_ids: np.ndarray | None = None):
        self.cfg, self.device, self.dtype = cfg, device, dtype
        self.modules = {m.name: m for m in modules}
        self.declared = [m.name for m in modules]
        self.graph = wiring_graph(modules)
        self.order = execution_order(self.graph, self.declared)
        lesioned = lesioned_module(cfg)
        self.workspace = SharedWorkspace(cfg.workspace, self.declared, excluded=(lesioned,) if lesioned else ())
        self.unit_names = [f"{m.name}.{s}" for m in modules for s in m.unit_signals] + \
                          [f"workspace.{s}" for s in WORKSPACE_SIGNALS]
        self.population = population or make_population(cfg.run.agents, int(cfg.control.yoked), cfg.control.lesion)
        self.agents = self.population.identity  # each batch row's agent index: its weights and streams
        # each row's noise streams of the cycles: its agent's, unless an intervention (cognition.architecture.perturb)
        # gives rows of one agent fresh noise each
        self.noise_ids = self.agents if noise_ids is None else np.asarray(noise_ids, dtype=np.int64)
        self.intact = self.population.groups["intact"]
        guard = self.guard(None)  # a module's fault in its weights: one line, before anything is written
        self.weights = {}  # name -> (rows, ...) tensors
        # name -> its per-cycle methods that are passed cycle= (read once: a call costs a set lookup)
        self.cycle_methods = {m.name: guard.cycle_methods(m) for m in modules}
        for m in modules:
            self.weights[m.name] = guard.call(m.name, "init_weights", m.init_weights, self.agents)
            guard.weights(m, self.weights[m.name], len(self.agents))
        guard.settle()
        self._route = torch.as_tensor(self.population.route, device=device)
        self._source = torch.as_tensor(self.population.source, device=device)
        self._b0 = self._initial_broadcast()

    def rows_of(self, agents: np.ndarray, noise_ids: np.ndarray, source: np.ndarray | None = None,
                intact: int | None = None) -> "IntegrationLoop":
        """A loop over rows of this loop's rows: row r has the weights (and initial broadcast) of this loop's row
        ``agents[r]`` and the noise streams of identity ``noise_ids[r]``; modules and workspace are shared and
        nothing is drawn again. For interventions (cognition.architecture.perturb): many rows of one agent,
        each with fresh noise. Every row reads its own broadcast; its workspace competes over the proposals of
        row ``source[r]`` of the new rows (default its own: the proposals lesion gives the agents' rows their
        donors'). ``intact``: how many leading rows are the agents (default all; the rest, their donors)."""
        import copy

        agents = np.asarray(agents, dtype=np.int64)
        rows = np.arange(len(agents))
        source = rows if source is None else np.asarray(source, dtype=np.int64)
        other = copy.copy(self)
        groups = {"intact": slice(0, len(agents) if intact is None else int(intact))}
        if intact is not None and intact < len(agents):
            groups["donor"] = slice(int(intact), len(agents))
        other.population = Population(self.agents[agents], rows, source, groups)
        other.agents, other.intact = other.population.identity, other.population.groups["intact"]
        other.noise_ids = np.asarray(noise_ids, dtype=np.int64)
        index = torch.as_tensor(agents, device=self.device)
        other.weights = {name: slice_tree(w, index) for name, w in self.weights.items()}
        other._route = torch.as_tensor(rows, device=self.device)
        other._source = torch.as_tensor(source, device=self.device)
        other._b0 = self._b0[index]
        return other

    def with_donors(self) -> "IntegrationLoop":
        """The agents and their donors alone (no twins): rows [agents | donors] with the run's own weights and
        noise, the agents' workspaces competing over their donors' proposals under the proposals lesion (what
        the intervention analysis records and perturbs; cognition.architecture.perturb). This loop must hold
        the yoked control's donors."""
        donors = self.population.groups.get("donor")
        if donors is None:
            raise ValueError("with_donors: this loop has no donors (control.yoked: false)")
        A = self.population.agents
        rows = np.concatenate([np.arange(A), np.arange(donors.start, donors.stop)])
        renumber = np.full(len(self.agents), -1)
        renumber[rows] = np.arange(len(rows))
        source = renumber[self.population.source[rows]]  # an agent's or a donor's proposals come from one of them
        return self.rows_of(rows, self.noise_ids[rows], source=source, intact=A)

    def compile_kernels(self, compile_fn) -> None:
        """Wrap every module's and the workspace's tensor kernels (``runtime.compile``)."""
        for owner in (*self.modules.values(), self.workspace):
            compile_kernels(owner, compile_fn)

    @property
    def low_precision(self):
        """runtime.autocast's dtype (bf16 or fp16), or None."""
        return AUTOCAST_DTYPES[self.cfg.runtime.autocast]

    def _autocast(self):
        """Mixed precision for the modules' forward maps (runtime.autocast: bf16 or fp16)."""
        if self.cfg.runtime.autocast is None:
            return contextlib.nullcontext()
        return torch.autocast(device_type=torch.device(self.device).type,
                              dtype=AUTOCAST_DTYPES[self.cfg.runtime.autocast])

    def guard(self, cycle: int | None) -> ProtocolGuard:
        """The module protocol's checks for ``cycle`` (None: the build), in the run's dtype and device."""
        return ProtocolGuard(self.dtype, self.device, cycle, self.low_precision)

    @property
    def n_units(self) -> int:
        return len(self.unit_names)

    @property
    def phi_window(self) -> int:
        """Cycles per per-cycle Phi estimate: the configured window, widened for few agents."""
        lagged = math.ceil(SAMPLES_PER_UNIT * self.n_units / self.population.agents)
        return max(self.cfg.phi.window, lagged + self.cfg.phi.lag)

    def _init_streams(self) -> tuple[AgentStreams, torch.Tensor]:
        """The run's "init" streams and the initial broadcast, their first draw. The streams come back
        past that draw, so what a module's ``init_state`` draws from them is new numbers."""
        init = AgentStreams(self.cfg.run.seed, self.agents, "init", 0)
        b0 = 0.5 * init.normal_tensor(self.cfg.run.content_dim)
        return init, b0.to(dtype=self.dtype, device=self.device)

    def _initial_broadcast(self) -> torch.Tensor:
        return self._init_streams()[1]

    def initial_state(self) -> LoopState:
        init = self._init_streams()[0]
        rows, guard, states = len(self.agents), self.guard(None), {}
        for n, m in self.modules.items():
            states[n] = guard.call(n, "init_state", m.init_state, self.agents, init)
            guard.initial_state(n, states[n], rows)
        guard.settle()
        ws = self.workspace.init_state(rows, self.dtype, self.device)
        ws["winner"] = torch.full((rows,), NO_ACCESS, dtype=torch.long, device=self.device)
        ws["dwell"] = torch.zeros(rows, dtype=torch.long, device=self.device)
        return LoopState(0, self._b0.clone(), states, ws)

    def _call(self, guard: ProtocolGuard, name: str, method: str, cycle: int, *args):
        """Module ``name``'s per-cycle ``method`` on ``args`` through the guard, with ``cycle=`` (the cycle being
        computed, one int for every row) when the method names it (CognitiveModule, "The cycle")."""
        keywords = {"cycle": cycle} if method in self.cycle_methods[name] else {}
        return guard.call(name, method, getattr(self.modules[name], method), *args, **keywords)

    def _read(self, broadcast: torch.Tensor) -> torch.Tensor:
        """The broadcast each row's modules read: their own workspace's, their donor's (yoked
        twins), or the fixed initial one (a broadcast lesion)."""
        if self.cfg.control.lesion == "broadcast":
            return self._b0
        return broadcast[self._route] if self.population.rerouted else broadcast

    def _propose(self, state: LoopState, read: torch.Tensor, index: slice, cycle: int, guard: ProtocolGuard
                 ) -> tuple[dict, dict]:
        """The modules of the rows ``index``, in wiring order: (new module states, proposals)."""
        inputs, new_states = {"broadcast": read[index]}, {}
        rows = len(inputs["broadcast"])
        for name in self.order:
            streams = AgentStreams(self.cfg.run.seed, self.noise_ids[index], name, cycle, self.device)
            mine = slice_tree(state.modules[name], index)
            with self._autocast():
                out = self._call(guard, name, "propose", cycle, mine, inputs, streams,
                                 slice_tree(self.weights[name], index))
            guard.proposal(name, out, mine, rows, self.cfg.run.content_dim)
            proposal, new_state = out
            # outputs return to the run's dtype: only the modules' forward maps run in low precision
            inputs[name], new_states[name] = cast_floats(proposal, self.dtype), cast_floats(new_state, self.dtype)
        return new_states, {n: inputs[n] for n in self.declared}

    def _compete(self, state: LoopState, proposals: dict, index: slice, cycle: int):
        """The competition of the rows ``index`` over ``proposals`` (theirs, or those of the rows their
        workspaces are yoked to): (broadcast, workspace state)."""
        core = {k: state.workspace[k][index] for k in WORKSPACE_STATE}
        streams = AgentStreams(self.cfg.run.seed, self.noise_ids[index], "workspace", cycle, self.device)
        return self.workspace.compete(proposals, state.broadcast[index], core, cycle, streams)

    def _learn(self, part, read_prev: torch.Tensor, read_new: torch.Tensor, index: slice, cycle: int,
               guard: ProtocolGuard):
        """Learning from the broadcast each row's modules read, and the rows' unit signals."""
        (bc, _), new_states, proposals = part
        rows, states, signals = len(bc.content), {}, []
        for n in self.declared:
            states[n] = self._call(guard, n, "learn", cycle, new_states[n], read_new[index])
            guard.state(n, "learn", states[n], new_states[n])
        for n, p in proposals.items():
            signals.append(self._call(guard, n, "units", cycle, p, read_prev[index]))
            guard.units(n, signals[-1], rows, len(self.modules[n].unit_signals))
        signals.append(workspace_units(bc.content))
        return states, torch.cat(signals, dim=1)

    def step(self, state: LoopState, window: np.ndarray | None, batch: int | None = None
             ) -> tuple[LoopState, CycleRecord, np.ndarray]:
        """Advance one cycle, ``batch`` rows per launch (None: all at once, or CPU_ROWS_PER_LAUNCH on
        the CPU), and update Phi.

        window: the unit signals of the cycles before this one, (rows, k, n_units) float64,
        oldest first; Phi needs the last ``phi_window - 1`` of them (None or fewer: no Phi yet).
        Returns the new state, the cycle's record and its signals (rows, n_units) float64.
        """
        new_state, per_agent, signals = self.advance(state, batch)
        return new_state, self._record(new_state.cycle, per_agent, window, signals), signals

    def advance(self, state: LoopState, batch: int | None = None) -> tuple[LoopState, dict, np.ndarray]:
        """The cycle without Phi: modules, workspace, learning; returns the state, the per-row
        diagnostics and the unit signals (rows, n_units) float64. A module that breaks the protocol
        in it (raises, or returns NaN, inf, a wrong shape, dtype or device) raises ModuleFault."""
        guard = self.guard(state.cycle + 1)
        try:
            out = self._advance(state, batch, guard)
        except Exception:
            guard.settle()  # NaN or inf that a module returned earlier in the cycle is the cause of the error
            raise
        guard.settle()
        return out

    def _advance(self, state: LoopState, batch: int | None, guard: ProtocolGuard):
        cycle = state.cycle + 1
        R = len(self.agents)
        if batch is None:
            batch = CPU_ROWS_PER_LAUNCH if torch.device(self.device).type == "cpu" else R
        batch = max(1, min(batch, R))
        chunks = [slice(s, min(s + batch, R)) for s in range(0, R, batch)]
        read_prev = self._read(state.broadcast)
        proposed = [self._propose(state, read_prev, index, cycle, guard) for index in chunks]
        if self.population.resourced:  # proposal-yoked workspaces compete over other rows' proposals
            every = cat_trees([p for _, p in proposed])
            offered = [slice_tree(every, self._source[index]) for index in chunks]
        else:
            offered = [p for _, p in proposed]
        parts = [(self._compete(state, o, index, cycle), s, p) for o, (s, p), index in zip(offered, proposed, chunks)]
        broadcast = cat_rows([p[0][0].content for p in parts])
        read_new = self._read(broadcast)
        learned = [self._learn(p, read_prev, read_new, index, cycle, guard) for p, index in zip(parts, chunks)]
        modules = {n: cat_trees([s[n] for s, _ in learned]) for n in self.declared}
        signals = cat_rows([sig for _, sig in learned]).detach().cpu().double().numpy()
        winner = cat_rows([p[0][0].winner for p in parts])
        held = winner == state.workspace["winner"]
        workspace = {**{k: cat_rows([p[0][1][k] for p in parts]) for k in WORKSPACE_STATE},
                     "winner": winner, "dwell": torch.where(held, state.workspace["dwell"] + 1, 1)}
        per_agent = {"winner": winner, "previous_winner": state.workspace["winner"],
                     "ended_dwell": state.workspace["dwell"], "bids": cat_rows([p[0][0].bids for p in parts]),
                     **cat_trees([{f"{n}.salience": p.salience for n, p in part[2].items()} |
                                  {f"{n}.{k}": v for n, p in part[2].items() for k, v in p.extras.items()}
                                  for part in parts])}
        return LoopState(cycle, broadcast, modules, workspace), per_agent, signals

    def _record(self, cycle: int, per_agent: dict, window, signals: np.ndarray) -> CycleRecord:
        from cognition.architecture.competition import cycle_competition
        from cognition.architecture.winners import encode_winners

        mine = slice_tree(per_agent, self.intact)
        share = self.winner_share(per_agent["winner"])
        means = {k: float(v.double().mean()) for k, v in mine.items() if v.dim() == 1 and v.is_floating_point()}
        salience = {k.split(".")[0]: v for k, v in means.items() if k.endswith(".salience")}
        extras = {k: v for k, v in means.items() if not k.endswith(".salience")}
        competition = cycle_competition(mine, self.declared, cycle)
        try:
            phi_now, note = self.phi_at(window, signals), None
        except ValueError as exc:  # e.g. a unit constant over the window: Phi undefined, not a crash
            phi_now, note = None, str(exc)
        return CycleRecord(cycle, salience, share, extras, phi=phi_now, phi_note=note, competition=competition,
                           winners=encode_winners(per_agent["winner"].cpu().numpy()))

    def winner_share(self, winner: torch.Tensor) -> dict:
        """Each module's share of the run's agents' winners (``winner``: every row's), as metrics.jsonl has it."""
        winners = winner[self.intact].cpu().numpy()
        return {n: float(np.mean(winners == i)) for i, n in enumerate(self.declared)}

    def phi_at(self, window: np.ndarray | None, signals: np.ndarray) -> dict | None:
        """Phi over the trailing ``phi_window`` cycles ending with ``signals`` (None while it fills)."""
        from cognition import phi

        W = self.phi_window
        if window is None or window.shape[1] < W - 1:
            return None
        rows = self.intact  # the run's agents; donors and twins enter the end-of-run analysis only
        X = np.concatenate([window[rows, window.shape[1] - (W - 1):], signals[rows, None, :]], axis=1)
        # the per-cycle series is descriptive and matches estimate_windows (the report's bands): pooled
        # centring; the calibrated per-agent estimator is the whole-run headline (cognition/analysis/summary.py)
        r = phi.estimate(X, lag=self.cfg.phi.lag, shrinkage=self.cfg.phi.shrinkage, centre="pooled")
        return {"phi_wms": r.phi_wms, "phi_r": r.phi_r, "tdmi": r.tdmi,
                "mib": [list(r.mib[0]), list(r.mib[1])]}
