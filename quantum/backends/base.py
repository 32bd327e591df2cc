"""The backend interface: one abstract hook, `_probabilities`; the rest is shared.

Every public call validates its inputs, enforces the qubit cap and the memory
budget before anything runs, then asks the subclass for exact Born probabilities.
Expectations and sampling are computed from those probabilities (quantum.readout),
so every backend samples the same way: row b's shots are drawn by inverse transform from
p_b with the caller's uniforms (quantum.readout.sample_counts).
"""
from __future__ import annotations

import abc
import importlib.metadata

import numpy as np

from quantum.caps import check_width
from quantum.circuits import CircuitTemplate
from quantum.errors import QuantumMemoryError
from quantum.memory import DEFAULT_HEADROOM, MiB, MemoryPlan, plan, statevector_bytes
from quantum.readout import one_probabilities, sample_counts, validate_pairs, validate_uniforms, z_zz_expectations

# Without a budget a backend gets what its cap needs, and at least this much.
DEFAULT_MIN_BUDGET_BYTES = 256 * MiB


def default_budget_bytes(max_qubits: int, precision: str, headroom: float, working_copies: int) -> int:
    """Budget sized to the cap: one statevector at max_qubits (x working copies) with headroom, >= 256 MiB.

    Simulators such as Aer otherwise default to all of RAM; sizing to the cap makes the
    cap the memory limit instead.
    """
    need = statevector_bytes(max_qubits, precision) * working_copies
    return max(DEFAULT_MIN_BUDGET_BYTES, int(np.ceil(need / (1.0 - headroom))))


def package_version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


class QuantumBackend(abc.ABC):
    """Runs CircuitTemplates for batches of parameter sets.

    Attributes: name ("aer-cpu", "torch-cuda", ...), kind, device, method,
    precision, threads, max_qubits, memory_plan (MemoryPlan of the budget), reason
    (why it was chosen; recorded in provenance).
    """

    kind: str = "?"
    method: str = "statevector"
    # statevector-sized buffers one parameter set needs while it runs, beside the headroom
    working_copies: int = 1

    def __init__(self, *, device: str, max_qubits: int, threads: int, precision: str,
                 memory_budget_bytes: int | None, headroom: float = DEFAULT_HEADROOM, reason: str = ""):
        if int(max_qubits) < 1:
            raise ValueError(f"max_qubits={max_qubits} must be >= 1")
        if int(threads) < 1:
            raise ValueError(f"threads={threads} must be >= 1")
        if precision not in ("double", "single"):
            raise ValueError(f"precision={precision!r} is not allowed; allowed: double, single")
        self.device = device
        self.max_qubits = int(max_qubits)
        self.threads = int(threads)
        self.precision = precision
        if memory_budget_bytes is None:
            memory_budget_bytes = default_budget_bytes(self.max_qubits, precision, headroom, self.working_copies)
        self.memory_plan: MemoryPlan = plan(memory_budget_bytes, precision, headroom)
        self.reason = reason or f"{self.kind} requested explicitly"

    @property
    def name(self) -> str:
        return f"{self.kind}-{self.device}"

    # -- the one hook -------------------------------------------------------------
    @abc.abstractmethod
    def _probabilities(self, circuit: CircuitTemplate, params: np.ndarray) -> np.ndarray:
        """Exact Born probabilities (B, 2^n) float64 for validated params (B, n_params) float64."""

    # -- shared checks ------------------------------------------------------------
    def check(self, circuit: CircuitTemplate, params) -> np.ndarray:
        """Validate a call before anything runs: type, qubit cap, params shape, memory budget.

        Returns params as a (B, n_params) float64 array.
        """
        if not isinstance(circuit, CircuitTemplate):
            raise TypeError(f"circuit must be a CircuitTemplate, got {type(circuit).__name__}")
        check_width(circuit.name, circuit.n_qubits, self.max_qubits)
        arr = np.asarray(params, dtype=np.float64)
        if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] != circuit.n_params:
            raise ValueError(f"params has shape {arr.shape}; circuit {circuit.name!r} needs (B, {circuit.n_params})"
                             f" with B >= 1")
        if not np.isfinite(arr).all():
            raise ValueError(f"params for circuit {circuit.name!r} contain NaN or infinity")
        self.check_memory(circuit.n_qubits)
        return arr

    def max_width(self) -> int:
        """Widest circuit whose working statevectors fit the usable budget (never above max_qubits)."""
        per_copy = self.memory_plan.usable_bytes // (self.working_copies * self.memory_plan.bytes_per_amplitude)
        return min(self.max_qubits, max(per_copy.bit_length() - 1, 0))

    def check_memory(self, n_qubits: int) -> None:
        """QuantumMemoryError unless one n-qubit parameter set fits the usable budget."""
        need = statevector_bytes(n_qubits, self.precision) * self.working_copies
        usable = self.memory_plan.usable_bytes
        if need > usable:
            raise QuantumMemoryError(
                need / MiB, usable / MiB, source="budget",
                detail=(f"{self.name}: {n_qubits} qubits need {self.working_copies} x 2^{n_qubits} x "
                        f"{self.memory_plan.bytes_per_amplitude} B; planner allows {self.memory_plan.max_width} "
                        f"qubits ({self.memory_plan.explain()})"))

    # -- the public interface -----------------------------------------------------
    def probabilities(self, circuit: CircuitTemplate, params) -> np.ndarray:
        """params (B, n_params) -> (B, 2^n) float64, little-endian (bit q of the index = qubit q)."""
        return self._probabilities(circuit, self.check(circuit, params))

    def expectations_z(self, circuit: CircuitTemplate, params) -> np.ndarray:
        """<Z_q> per parameter set: (B, n) float64."""
        return self._z_zz(circuit, self.check(circuit, params), [])[0]

    def marginals(self, circuit: CircuitTemplate, params) -> np.ndarray:
        """The single-qubit Born marginals P(q=1) per parameter set: (B, n) float64."""
        return one_probabilities(self.probabilities(circuit, params), circuit.n_qubits)

    def expectations_zz(self, circuit: CircuitTemplate, params, pairs) -> np.ndarray:
        """<Z_a Z_b> for each (a, b) in pairs: (B, len(pairs)) float64."""
        pairs = validate_pairs(pairs, circuit.n_qubits)
        return self._z_zz(circuit, self.check(circuit, params), pairs)[1]

    def expectations_z_zz(self, circuit: CircuitTemplate, params, pairs) -> tuple[np.ndarray, np.ndarray]:
        """``expectations_z`` and ``expectations_zz`` of one simulation: the circuit runs once, not twice."""
        pairs = validate_pairs(pairs, circuit.n_qubits)
        return self._z_zz(circuit, self.check(circuit, params), pairs)

    def _z_zz(self, circuit: CircuitTemplate, params: np.ndarray, pairs) -> tuple[np.ndarray, np.ndarray]:
        """(<Z_q> (B, n), <Z_a Z_b> (B, len(pairs))) for validated params, from the exact probabilities
        (quantum.readout); a backend may compute them without materialising the (B, 2^n) probabilities."""
        return z_zz_expectations(self._probabilities(circuit, params), circuit.n_qubits, pairs)

    def sample(self, circuit: CircuitTemplate, params, uniforms) -> np.ndarray:
        """Counts (B, 2^n) int64 of ``shots`` measurements per parameter set, from uniforms (B, shots) on [0, 1).

        Exact probabilities, then inverse-transform sampling with row b's uniforms
        (quantum.readout.sample_counts): the same uniforms give the same counts whatever else
        is in the batch.
        """
        params = self.check(circuit, params)
        uniforms = validate_uniforms(uniforms, params.shape[0])
        return sample_counts(self._probabilities(circuit, params), uniforms)

    def versions(self) -> dict:
        return {"numpy": np.__version__}

    def describe(self) -> dict:
        """JSON-able description for provenance."""
        return {
            "name": self.name, "kind": self.kind, "device": self.device, "method": self.method,
            "precision": self.precision, "threads": self.threads, "max_qubits": self.max_qubits,
            "memory_budget_bytes": self.memory_plan.budget_bytes,
            "max_memory_mb": self.memory_plan.usable_bytes // MiB, "memory_plan": self.memory_plan.as_dict(),
            "working_copies": self.working_copies, "max_width": self.max_width(),
            "reason": self.reason, "versions": self.versions(),
        }
