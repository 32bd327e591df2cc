"""Whole-run memory planner: the bytes a configuration needs, and the batch that fits.

Two parts, in bytes:

* quantum, per launch: the widest circuit module simulates ``batch`` statevectors
  of ``2^n`` amplitudes at once, each 16 B (double) or 8 B (single), times the
  backend's working copies (``quantum.memory``); modules run one after the other,
  so the peak is the widest module's, not the sum. Planned into
  ``budget x (1 - headroom)`` as in :func:`quantum.memory.plan`.
* classical, resident for every agent: the expectation module's features ``F``,
  RLS readout ``W`` ((F+1) x D) and inverse correlation ``P`` ((F+1)^2), its
  prediction; the GRU and stochastic-RNN hidden states; the broadcast (D); all
  in the run's dtype. Doubled, because a cycle builds the new state beside the old.
  Plus every agent's own fixed random module weights (:func:`weight_bytes_per_agent`),
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

from cognition.errors import ConfigError

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


def classical_bytes_per_agent(cfg) -> int:
    from cognition.modules import variant_of

    D, m = cfg.run.content_dim, cfg.modules
    floats = D  # the broadcast
    if "expectation" in m.enabled:
        if variant_of(cfg, "expectation") == "classical":
            F = m.expectation.hidden
            floats += F  # GRU hidden state
        else:
            w = m.expectation.qubits
            F = w + (w if w > 1 else 0)  # <Z_q> and ring <Z_q Z_q+1>
        floats += F + (F + 1) * D + (F + 1) ** 2 + D + 1
    if "unconscious" in m.enabled and variant_of(cfg, "unconscious") == "classical":
        floats += m.unconscious.hidden
    return 2 * floats * DTYPE_BYTES[cfg.run.dtype]


def weight_bytes_per_agent(cfg, widths: dict | None = None) -> int:
    """Bytes of one agent's fixed random module weights, at 8 B a value (drawn in float64 on the host;
    a float32 run holds its classical weights in 4 B). Default configuration: 576 B quantum, 14 080 B
    classical (docs/architecture.md)."""
    from cognition.modules import weight_values_per_agent

    return 8 * weight_values_per_agent(cfg, widths)


def widest_circuit(cfg, widths: dict | None = None) -> int:
    from cognition.modules import variant_of

    names = [n for n in ("expectation", "unconscious") if n in cfg.modules.enabled and variant_of(cfg, n) == "quantum"]
    widths = widths or {n: min(getattr(cfg.modules, n).qubits, cfg.quantum.qubit_cap) for n in names}
    return max((widths[n] for n in names), default=0)


def plan_run(cfg, budget_bytes: int, *, widths: dict | None = None,
             working_copies: int = DEFAULT_WORKING_COPIES) -> RunMemoryPlan:
    """Bytes the run needs at its configured batch, and the largest batch that fits."""
    from quantum.memory import statevector_bytes

    from cognition.controls import rows_per_agent

    agents = cfg.run.agents * rows_per_agent(cfg)  # batch rows: the agents, and their donors and twins
    batch = min(cfg.runtime.batch or agents, agents)
    classical = agents * (classical_bytes_per_agent(cfg) + weight_bytes_per_agent(cfg, widths))
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
    """Raise ConfigError, before cycle 1, when the configured batch does not fit the budget."""
    p = plan_run(cfg, budget_bytes, **kwargs)
    if not p.fits:
        field = "runtime.batch" if cfg.runtime.batch else "run.agents"
        allowed = (f"at most {p.max_batch} agents per launch (rows: with the yoked control an agent, its donor "
                   f"and its two twins are 4) for a {budget_bytes / 2**20:.0f} MiB budget "
                   f"({p.total_bytes / 2**20:.1f} MiB needed at batch {p.batch}, half the budget kept as "
                   f"headroom); set runtime.batch or lower the qubit widths")
        if p.max_batch == 0:
            allowed = (f"a configuration whose per-agent state fits a {budget_bytes / 2**20:.0f} MiB budget; "
                       f"lower run.agents, the hidden sizes or the qubit widths")
        raise ConfigError(field, p.batch, allowed)
    return p


# working copies of the unit history in the final analysis (measured: ~3 for the bands, ~2 for the lagged pairs)
ANALYSIS_COPIES = 6
METRICS_LINE_BYTES = 1024  # one metrics.jsonl line, rounded up (about 460 B with 3 modules and CPU telemetry)


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


def check_host(cfg, n_units: int, *, available: int | None) -> dict:
    """ConfigError, before anything is allocated or written, when run.agents or run.cycles cannot fit
    host memory (per-agent state, and the final analysis over every cycle). Returns the plan (bytes)."""
    from cognition.controls import rows_per_agent

    agents, cycles = cfg.run.agents, cfg.run.cycles
    rows = agents * rows_per_agent(cfg)  # the agents, and their donors and twins
    history = rows * n_units * 8  # bytes of unit signals per cycle
    state = rows * (classical_bytes_per_agent(cfg) + weight_bytes_per_agent(cfg))
    plan = {"host_bytes": state + ANALYSIS_COPIES * history * cycles, "available_host_bytes": available}
    if available is not None and plan["host_bytes"] > available:
        # the agents' state alone too large: name the agents; else the analysis over every cycle
        analysis = f"whose final analysis ({agents} agents x {n_units} units x cycles)"
        field, value, what = (("run.agents", agents, "whose state") if state > available else
                              ("run.cycles", cycles, analysis))
        raise ConfigError(field, value, f"a run {what} fits host memory: it needs about "
                                        f"{_gib(plan['host_bytes'])}, {_gib(available)} is available")
    return plan


def check_disk(cfg, n_units: int, *, run_dir, free_disk: int | None, done: int = 0) -> dict:
    """ConfigError, before anything is written, when the per-cycle files of the cycles still to run
    (after ``done``) cannot fit the free disk. Returns the plan (bytes)."""
    cycles = cfg.run.cycles - done
    from cognition.controls import rows_per_agent

    rows = cfg.run.agents * rows_per_agent(cfg)
    plan = {"disk_bytes": cycles * (rows * n_units * 8 + METRICS_LINE_BYTES), "free_disk_bytes": free_disk}
    if free_disk is not None and plan["disk_bytes"] > free_disk:
        raise ConfigError("run.cycles", cfg.run.cycles, f"a run whose unit history and metrics ({cycles} cycles to "
                                                        f"go) fit the disk of {run_dir}: they need about "
                                                        f"{_gib(plan['disk_bytes'])}, {_gib(free_disk)} is free")
    return plan
