"""The qubit cap: Aer does not enforce one (`set_max_qubits` is ignored), so we do.

`check_width` is called by every backend before anything runs; `resolve_width` is
for circuit builders that may lower a requested width to the cap and record why.
"""
from __future__ import annotations

# --quantum-lite: same circuits, capped width and Aer thread count (both configurable).
QUANTUM_LITE_MAX_QUBITS = 16
QUANTUM_LITE_THREADS = 4

WIDTH_POLICIES = ("error", "reduce")


def check_width(circuit: str, width: int, max_qubits: int) -> None:
    """Raise QubitCapError when `width` qubits exceed the cap `max_qubits`."""
    from quantum.errors import QubitCapError

    if width > max_qubits:
        raise QubitCapError(circuit, width, max_qubits)


def resolve_width(requested: int, max_qubits: int, policy: str = "error") -> tuple[int, str | None]:
    """The width a builder should use for a `requested` qubit count under the cap.

    policy="error": a request over the cap raises QubitCapError;
    policy="reduce": the width is lowered to the cap and the returned note says so
    (record it in provenance). Returns (width, note or None when unchanged).
    """
    from quantum.errors import QubitCapError

    if policy not in WIDTH_POLICIES:
        raise ValueError(f"policy={policy!r} is not allowed; allowed: {', '.join(WIDTH_POLICIES)}")
    if int(requested) < 1:
        raise ValueError(f"requested={requested} qubits must be >= 1")
    if int(max_qubits) < 1:
        raise ValueError(f"max_qubits={max_qubits} must be >= 1")
    if requested <= max_qubits:
        return int(requested), None
    if policy == "error":
        raise QubitCapError(f"requested width {requested}", requested, max_qubits)
    return int(max_qubits), f"width reduced from {requested} to {max_qubits} qubits by the qubit cap (policy='reduce')"
