"""Whole-run memory planner: the bytes a configuration needs, and the batch that fits.

Two parts, in bytes:

* quantum, per launch: the widest circuit module (every module whose class declares a
  ``circuit_width``, built-in or plug-in: :func:`cognition.modules.circuit_widths`, after the
  qubit cap) simulates ``batch`` statevectors of ``2^n`` amplitudes at once, each 16 B
  (double) or 8 B (single), times the backend's working copies (``quantum.memory``);
  modules run one after the other, so the peak is the widest module's, not the sum.
  Planned into ``budget x (1 - headroom)`` as in :func:`quantum.memory.plan`.
* classical, resident for every row: the broadcast (D) and the state every enabled
  module declares (its ``state_shapes``: the expectation's features ``F``, prediction,
  RLS readout ``W`` ((F+1) x D) and inverse correlation ``P`` ((F+1)^2); the GRU and
  stochastic-RNN hidden states; a plug-in's own), all in the run's dtype. Doubled,
  because a cycle builds the new state beside the old. Plus every agent's own fixed
  random module weights (their ``weight_shapes``: :func:`weight_bytes_per_agent`),
  resident for the whole run, counted at 8 B a value (they are drawn in float64).

Host-side records are planned apart (:func:`check_host`): the run streams its
history to disk (``unit_history.npy`` and ``metrics.jsonl``, bytes per cycle), and the
end-of-run analysis holds the unit signals of every cycle (a few working copies of
agents x cycles x units float64), so run length and agents are checked against free
disk and available host memory before anything is written.
"""
from __future__ import annotations

import math
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from cognition.architecture.controls import rows_per_agent
from cognition.errors import ConfigError, UsageError

DTYPE_BYTES = {"float64": 8, "float32": 4}
DEFAULT_WORKING_COPIES = 3  # torch statevector backend: state, gate scratch, probabilities
HEADROOM = 0.5  # quantum.memory.DEFAULT_HEADROOM: half the budget kept for what simulators add


@dataclass(frozen=True)
class RunMemoryPlan:
    budget_bytes: int
    batch: int
    quantum_bytes: int
    classical_bytes: int
    max_batch: int  # largest agents-per-launch that fits (0: not even one)

    @property
    def total_bytes(self) -> int:
        return self.quantum_bytes + self.classical_bytes

    @property
    def fits(self) -> bool:
        return self.batch <= self.max_batch

    def as_dict(self) -> dict:
        return {"budget_bytes": self.budget_bytes, "batch": self.batch, "quantum_bytes": self.quantum_bytes,
                "classical_bytes": self.classical_bytes, "total_bytes": self.total_bytes,
                "max_batch": self.max_batch, "fits": self.fits}


def classical_bytes_per_agent(cfg, widths: dict | None = None) -> int:
    """Bytes of one row's resident state: the broadcast (D) and every enabled module's declared
    ``state_shapes``, in the run's dtype, doubled (old and new state).

    widths: circuit module -> qubit width after the cap (default: the declared width, capped)."""
    from cognition.modules import state_values_per_row  # torch: not before check_libraries has run

    floats = cfg.run.content_dim + state_values_per_row(cfg, widths)  # the broadcast, the modules' state
    return 2 * floats * DTYPE_BYTES[cfg.run.dtype]


def weight_bytes_per_agent(cfg, widths: dict | None = None) -> int:
    """Bytes of one agent's fixed random module weights, at 8 B a value (drawn in float64 on the host;
    a float32 run holds its classical weights in 4 B). Default configuration: 576 B quantum, 14 080 B
    classical (docs/architecture.md)."""
    from cognition.modules import weight_values_per_agent  # torch: not before check_libraries has run

    return 8 * weight_values_per_agent(cfg, widths)


def widest_circuit(cfg, widths: dict | None = None) -> int:
    """Qubits of the widest circuit module after the cap (0: none runs a circuit)."""
    from cognition.modules import capped_widths  # torch: not before check_libraries has run

    return max(capped_widths(cfg, widths).values(), default=0)


def plan_run(cfg, budget_bytes: int, *, widths: dict | None = None,
             working_copies: int = DEFAULT_WORKING_COPIES) -> RunMemoryPlan:
    """Bytes the run needs at its configured batch, and the largest batch that fits."""
    from quantum.memory import statevector_bytes

    agents = cfg.run.agents * rows_per_agent(cfg)  # batch rows: the agents, and their donors and twins
    batch = min(cfg.runtime.batch or agents, agents)
    classical = agents * (classical_bytes_per_agent(cfg, widths) + weight_bytes_per_agent(cfg, widths))
    width = widest_circuit(cfg, widths)
    per_row = statevector_bytes(width, cfg.quantum.precision) * working_copies if width else 0
    usable = math.floor(budget_bytes * (1.0 - HEADROOM)) - classical
    if usable < 0:
        max_batch = 0
    elif per_row == 0:
        max_batch = agents
    else:
        max_batch = min(agents, usable // per_row)
    return RunMemoryPlan(int(budget_bytes), batch, batch * per_row, classical, int(max_batch))


def check_fits(cfg, budget_bytes: int, **kwargs) -> RunMemoryPlan:
    """Raise ConfigError, before cycle 1, when the configured batch does not fit the budget. A batch is
    counted in rows (the agents, and with the yoked control their donors and twins: 4 rows an agent); the
    error names the user's agents and says rows where they differ."""
    p = plan_run(cfg, budget_bytes, **kwargs)
    if not p.fits:
        per = rows_per_agent(cfg)
        field, value = ("runtime.batch", p.batch) if cfg.runtime.batch else ("run.agents", cfg.run.agents)
        rows = "" if per == 1 else (f", {p.batch} rows: with the yoked control an agent, its donor and its two "
                                    f"twins are {per}")
        allowed = (f"at most {p.max_batch // per} agents per launch ({p.max_batch} rows) for a "
                   f"{budget_bytes / 2**20:.0f} MiB budget ({p.total_bytes / 2**20:.1f} MiB needed at "
                   f"{cfg.run.agents} agents{rows}; half the budget kept as headroom); set runtime.batch or "
                   f"lower the qubit widths")
        if p.max_batch == 0:
            allowed = (f"a configuration whose per-agent state fits a {budget_bytes / 2**20:.0f} MiB budget "
                       f"({cfg.run.agents} agents{rows}); lower run.agents, the hidden sizes or the qubit widths")
        raise ConfigError(field, value, allowed)
    return p


# working copies of the unit history in the final analysis (measured: ~3 for the bands, ~2 for the lagged pairs)
ANALYSIS_COPIES = 6
METRICS_LINE_BYTES = 1024  # one metrics.jsonl line, rounded up (about 460 B with 3 modules and CPU telemetry),
# beside one byte per batch row for its winner (``winners``)


def available_host_bytes() -> int | None:
    """Memory the OS can give this process now (psutil, else /proc/meminfo MemAvailable)."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except ImportError:
        pass
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def free_disk_bytes(path: str | os.PathLike) -> int | None:
    """Free bytes on the file system that holds ``path`` (or its nearest existing parent); None if unknown."""
    path = Path(path).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        usage = shutil.disk_usage(path)
    except OSError:
        return None
    return int(usage.free) if usage.total else None  # /proc and the like: not a disk, nothing to plan


def _gib(n: float) -> str:
    return f"{n / 2**30:.3g} GiB"


# What a run maps and touches beyond the plan's bytes after the limits are read (before torch is imported):
# torch and the BLAS libraries, the simulator, thread stacks and glibc arenas, matplotlib for the report.
# Measured on the 2-core development machine (docs/runtime.md, "Host memory limits": VmPeak and VmHWM less
# VmSize and VmRSS at the check): virtual 648 (disabled), 697 (lite), 1 915 MiB (full, Aer); resident
# 261-309 MiB. Of these, importing torch with the loop and modules: 492 MiB virtual, 199 MiB resident.
RUN_MAPS_BYTES = {"disabled": 704 * 2**20, "lite": 768 * 2**20, "full": 2048 * 2**20}
RUN_RESIDENT_BYTES = 320 * 2**20
TORCH_BYTES = {"virtual": 492 * 2**20, "resident": 199 * 2**20}
# a cycle's temporaries and a checkpoint's encoding, as a share of the agents' state (measured 0.57 at
# 8 000 classical agents: 49 KiB an agent beyond the plan's 86 KiB)
WORKING_SHARE = 0.75


def _change(limit) -> str:
    if limit.source == "RLIMIT_AS":
        return "raise the address-space limit (ulimit -v)"
    if limit.source.startswith("cgroup"):
        return "raise the job's memory limit (the cgroup's: e.g. Slurm --mem, MemoryMax=)"
    return "free host memory, or run on a machine with more"


def _fixed_bytes(cfg, torch_loaded: bool) -> dict:
    fixed = {"resident": RUN_RESIDENT_BYTES, "virtual": RUN_MAPS_BYTES.get(cfg.quantum.mode, RUN_MAPS_BYTES["full"])}
    return {kind: b - TORCH_BYTES[kind] for kind, b in fixed.items()} if torch_loaded else fixed


def check_libraries(cfg, limits: list, *, torch_loaded: bool = False) -> None:
    """UsageError (one line), before torch is imported, when the tightest host memory limit cannot hold even
    what a run's libraries map before its first agent (:data:`RUN_MAPS_BYTES`); under a tight ``ulimit -v``
    importing torch would fail with "failed to map segment from shared object"."""
    from cognition.runtime.memlimits import describe, tightest

    fixed = _fixed_bytes(cfg, torch_loaded)
    limit = tightest(limits, fixed)
    if limit is None or fixed[limit.kind] <= limit.headroom_bytes:
        return
    flags = {"lite": "--quantum-lite", "disabled": "--disable-quantum"}
    lighter = [f"quantum.mode {mode} ({flags[mode]}, about {_gib(RUN_MAPS_BYTES[mode])})" for mode in flags
               if limit.kind == "virtual" and RUN_MAPS_BYTES[mode] < RUN_MAPS_BYTES.get(cfg.quantum.mode, 0)]
    raise UsageError(f"host memory: the tightest limit, {describe(limit)}, cannot hold what a run in "
                     f"{cfg.quantum.mode} mode {'maps' if limit.kind == 'virtual' else 'uses'} before its first "
                     f"agent (torch, the BLAS libraries, the simulator: about {_gib(fixed[limit.kind])}); "
                     f"{_change(limit)}" + (f", or use {' or '.join(lighter)}" if lighter else ""))


def check_host(cfg, n_units: int, *, available: int | None = None, limits: list | None = None,
               torch_loaded: bool = False) -> dict:
    """ConfigError, before anything is allocated or written, when run.agents or run.cycles cannot fit
    the tightest host memory limit (MemAvailable, the cgroup's limit, RLIMIT_AS: ``limits``, read by
    :func:`cognition.runtime.memlimits.host_limits`; ``available`` alone stands for MemAvailable). Counts
    the per-agent state with a cycle's working copies, the final analysis over every cycle, and what the
    libraries map (:data:`RUN_MAPS_BYTES`: virtual memory, against RLIMIT_AS) or touch
    (:data:`RUN_RESIDENT_BYTES`: against the others), less torch's share when the limits were read after
    it was imported (``torch_loaded``). Returns the plan (bytes) with the limit it used."""
    from cognition.runtime.memlimits import HostLimit, describe, tightest

    if limits is None:
        limits = [] if available is None else [HostLimit("MemAvailable", available, available, "resident")]
    agents, cycles = cfg.run.agents, cfg.run.cycles
    per = rows_per_agent(cfg)
    rows = agents * per  # the agents, and their donors and twins
    history = rows * n_units * 8  # bytes of unit signals per cycle
    state = rows * (classical_bytes_per_agent(cfg) + weight_bytes_per_agent(cfg))
    host = state + ANALYSIS_COPIES * history * cycles
    working = state + math.ceil(WORKING_SHARE * state)
    fixed = _fixed_bytes(cfg, torch_loaded)
    need = {kind: fixed[kind] + host + working - state for kind in fixed}
    mem_available = next((lim.headroom_bytes for lim in limits if lim.source == "MemAvailable"), None)
    limit = tightest(limits, need)
    plan = {"host_bytes": host, "available_host_bytes": mem_available, "need_bytes": need,
            "limit": limit.as_dict() if limit else None, "limits": [lim.as_dict() for lim in limits]}
    if limit is None or need[limit.kind] <= limit.headroom_bytes:
        return plan
    room = limit.headroom_bytes - fixed[limit.kind]
    rows_note = "" if per == 1 else f", {rows} rows with their donors and twins"
    whose = (f"it needs about {_gib(need[limit.kind])} ({agents} agents{rows_note}: {_gib(working)} of state "
             f"with a cycle's working copies, {_gib(host - state)} for the final analysis over {cycles} cycles, "
             f"{_gib(fixed[limit.kind])} {'mapped' if limit.kind == 'virtual' else 'used'} by the libraries "
             f"in {cfg.quantum.mode} mode)")
    if working > room:  # the agents' state alone too large: name the agents; else the analysis over every cycle
        per_agent = (host + working - state) / agents
        fit = max(0, int(room // per_agent)) if room > 0 else 0
        lower = f"at most {fit} agents fit: lower run.agents, or" if fit else "not even 1 agent fits:"
        field, value, what = "run.agents", agents, "whose state"
    else:
        fit = int((room - working) // (ANALYSIS_COPIES * history))
        lower, field, value = f"at most {fit} cycles fit: lower run.cycles, or", "run.cycles", cycles
        what = f"whose final analysis ({agents} agents x {n_units} units x cycles)"
    raise ConfigError(field, value, f"a run {what} fits host memory, whose tightest limit is {describe(limit)}: "
                                    f"{whose}; {lower} {_change(limit)}")


def check_disk(cfg, n_units: int, *, run_dir, free_disk: int | None, done: int = 0) -> dict:
    """ConfigError, before anything is written, when the per-cycle files of the cycles still to run
    (after ``done``) cannot fit the free disk. Returns the plan (bytes)."""
    cycles = cfg.run.cycles - done
    rows = cfg.run.agents * rows_per_agent(cfg)
    plan = {"disk_bytes": cycles * (rows * (n_units * 8 + 1) + METRICS_LINE_BYTES), "free_disk_bytes": free_disk}
    if free_disk is not None and plan["disk_bytes"] > free_disk:
        raise ConfigError("run.cycles", cfg.run.cycles, f"a run whose unit history and metrics ({cycles} cycles to "
                                                        f"go) fit the disk of {run_dir}: they need about "
                                                        f"{_gib(plan['disk_bytes'])}, {_gib(free_disk)} is free")
    return plan
