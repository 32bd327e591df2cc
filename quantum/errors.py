"""Typed errors of the quantum layer.

Every error a caller can act on has its own class, so the runtime can catch exactly
what it handles: `QuantumMemoryError` is the one its OOM handling retries with a
smaller batch or width; `QubitCapError` and `BackendUnavailableError` are
configuration errors that no retry can fix.
"""
from __future__ import annotations


class QuantumError(Exception):
    """Base class of every error raised by `quantum`."""


class QubitCapError(QuantumError, ValueError):
    """A circuit is wider than the qubit cap; raised before anything runs.

    Attributes: circuit (name), width (qubits), max_qubits (the cap).
    """

    def __init__(self, circuit: str, width: int, max_qubits: int):
        self.circuit = circuit
        self.width = int(width)
        self.max_qubits = int(max_qubits)
        super().__init__(
            f"circuit {circuit!r} has {self.width} qubits, over the qubit cap max_qubits={self.max_qubits}; "
            f"lower the circuit's width, raise max_qubits, or build it with resolve_width(..., policy='reduce')"
        )


class QuantumMemoryError(QuantumError, MemoryError):
    """A simulation does not fit its memory budget.

    Raised by the package's own check before a run (source="budget"), or translated
    from a simulator's failed result, e.g. Aer's "Insufficient memory ... Required
    memory: XM, max memory: YM" (source="aer").

    Attributes: required_mb, max_mb (MiB, None where the simulator did not say),
    source, detail (the simulator's message, or the budget arithmetic).
    """

    def __init__(self, required_mb: float | None, max_mb: float | None, *, source: str, detail: str = ""):
        self.required_mb = required_mb
        self.max_mb = max_mb
        self.source = source
        self.detail = detail
        need = "?" if required_mb is None else f"{required_mb:g}"
        have = "?" if max_mb is None else f"{max_mb:g}"
        super().__init__(
            f"insufficient memory ({source}): required {need} MiB, max {have} MiB"
            + (f": {detail}" if detail else "")
        )


class BackendUnavailableError(QuantumError, RuntimeError):
    """The requested backend or device cannot be used here; the message says why."""


class QuantumExecutionError(QuantumError, RuntimeError):
    """A simulator failed for a reason other than memory; carries its message."""
