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

Host-side records (the units history, metrics) are not on the device and not counted.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

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
    D, m = cfg.run.content_dim, cfg.modules
    floats = D  # the broadcast
    if "expectation" in m.enabled:
        if cfg.quantum.mode == "disabled":
            F = m.expectation.hidden
            floats += F  # GRU hidden state
        else:
            w = m.expectation.qubits
            F = w + (w if w > 1 else 0)  # <Z_q> and ring <Z_q Z_q+1>
        floats += F + (F + 1) * D + (F + 1) ** 2 + D + 1
    if "unconscious" in m.enabled and cfg.quantum.mode == "disabled":
        floats += m.unconscious.hidden
    return 2 * floats * DTYPE_BYTES[cfg.run.dtype]


def widest_circuit(cfg, widths: dict | None = None) -> int:
    if cfg.quantum.mode == "disabled":
        return 0
    names = [n for n in ("expectation", "unconscious") if n in cfg.modules.enabled]
    widths = widths or {n: min(getattr(cfg.modules, n).qubits, cfg.quantum.qubit_cap) for n in names}
    return max((widths[n] for n in names), default=0)


def plan_run(cfg, budget_bytes: int, *, widths: dict | None = None,
             working_copies: int = DEFAULT_WORKING_COPIES) -> RunMemoryPlan:
    """Bytes the run needs at its configured batch, and the largest batch that fits."""
    from quantum.memory import statevector_bytes

    agents = cfg.run.agents
    batch = min(cfg.runtime.batch or agents, agents)
    classical = agents * classical_bytes_per_agent(cfg)
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
        allowed = (f"at most {p.max_batch} agents per launch for a {budget_bytes / 2**20:.0f} MiB budget "
                   f"({p.total_bytes / 2**20:.1f} MiB needed at batch {p.batch}, half the budget kept as "
                   f"headroom); set runtime.batch or lower the qubit widths")
        if p.max_batch == 0:
            allowed = (f"a configuration whose per-agent state fits a {budget_bytes / 2**20:.0f} MiB budget; "
                       f"lower run.agents, the hidden sizes or the qubit widths")
        raise ConfigError(field, p.batch, allowed)
    return p
