"""Statevector memory arithmetic and the planner.

A statevector of n qubits holds 2^n complex amplitudes of 16 bytes (double: two
float64) or 8 bytes (single: two float32), so it takes 2^n x 16 or 2^n x 8 bytes.

The planner keeps `headroom` (a fraction of the budget) free for what simulators
allocate beside the statevector. Measured here (Aer 0.18.2, CPU, save_probabilities,
n = 20, 22, 24): peak resident memory grew by 1.51-1.62 x the statevector (the
statevector plus the 2^n x 8-byte probability vector). The default headroom 0.5
plans the statevector(s) into half the budget, so that 1.5 x fits with a quarter of
the budget to spare for Python-side copies of the results.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

BYTES_PER_AMPLITUDE = {"double": 16, "single": 8}
DEFAULT_HEADROOM = 0.5
MiB = 2**20


def bytes_per_amplitude(precision: str) -> int:
    """16 for "double" (complex128), 8 for "single" (complex64)."""
    try:
        return BYTES_PER_AMPLITUDE[precision]
    except KeyError:
        raise ValueError(f"precision={precision!r} is not allowed; allowed: double, single") from None


def statevector_bytes(n_qubits: int, precision: str = "double") -> int:
    """Bytes of one n-qubit statevector: 2^n x bytes_per_amplitude(precision)."""
    if int(n_qubits) < 0:
        raise ValueError(f"n_qubits={n_qubits} must be >= 0")
    return (1 << int(n_qubits)) * bytes_per_amplitude(precision)


@dataclass(frozen=True)
class MemoryPlan:
    """What fits a memory budget: the widest statevector and the largest batch.

    usable_bytes = floor(budget_bytes x (1 - headroom)); a batch of `batch`
    statevectors of n qubits fits when batch x 2^n x bytes_per_amplitude <= usable_bytes.
    max_width is the largest such n for the planned `batch` (0 when not even one
    qubit fits).
    """

    budget_bytes: int
    precision: str
    bytes_per_amplitude: int
    headroom: float
    usable_bytes: int
    batch: int
    max_width: int

    def max_batch_at_width(self, n_qubits: int) -> int:
        """Largest number of n-qubit statevectors that fit the usable bytes (0 if none)."""
        return self.usable_bytes // statevector_bytes(n_qubits, self.precision)

    def fits(self, n_qubits: int, batch: int = 1) -> bool:
        return batch * statevector_bytes(n_qubits, self.precision) <= self.usable_bytes

    def explain(self) -> str:
        """The arithmetic in one line, for logs and provenance."""
        return (f"budget {self.budget_bytes} B, headroom {self.headroom:g} -> usable {self.usable_bytes} B; "
                f"{self.batch} x 2^{self.max_width} x {self.bytes_per_amplitude} B = "
                f"{self.batch * statevector_bytes(self.max_width, self.precision)} B fits, "
                f"2^{self.max_width + 1} would need {self.batch * statevector_bytes(self.max_width + 1, self.precision)} B")

    def as_dict(self) -> dict:
        return {"budget_bytes": self.budget_bytes, "precision": self.precision,
                "bytes_per_amplitude": self.bytes_per_amplitude, "headroom": self.headroom,
                "usable_bytes": self.usable_bytes, "batch": self.batch, "max_width": self.max_width,
                "explain": self.explain()}


def plan(budget_bytes: int, precision: str = "double", headroom: float = DEFAULT_HEADROOM,
         batch: int = 1) -> MemoryPlan:
    """Plan statevectors into `budget_bytes` (bytes), keeping `headroom` (fraction in [0, 1)) free.

    Returns a MemoryPlan whose max_width is the widest n with
    batch x 2^n x bytes_per_amplitude(precision) <= budget_bytes x (1 - headroom).
    """
    if int(budget_bytes) <= 0:
        raise ValueError(f"budget_bytes={budget_bytes} must be > 0")
    if not 0.0 <= float(headroom) < 1.0:
        raise ValueError(f"headroom={headroom} must be in [0, 1)")
    if int(batch) < 1:
        raise ValueError(f"batch={batch} must be >= 1")
    bpa = bytes_per_amplitude(precision)
    usable = int(math.floor(int(budget_bytes) * (1.0 - float(headroom))))
    per_row = usable // (int(batch) * bpa)
    width = per_row.bit_length() - 1 if per_row >= 1 else 0  # floor(log2), exact on integers
    return MemoryPlan(budget_bytes=int(budget_bytes), precision=precision, bytes_per_amplitude=bpa,
                      headroom=float(headroom), usable_bytes=usable, batch=int(batch), max_width=max(width, 0))
