"""Quantum execution: circuits, backends, qubit caps, memory planning. Knows nothing of cognition.

    from quantum import angle_encoded_reservoir, make_backend
    circuit = angle_encoded_reservoir(n_qubits=8, n_inputs=8, depth=3, seed=0)
    backend = make_backend("auto", device="cpu", max_qubits=16, threads=4)
    z = backend.expectations_z(circuit, params)        # params (B, 8) -> (B, 8)

Importing this package imports neither qiskit nor torch and probes no hardware;
backends import what they need when they are made.
"""
from quantum.builders import angle_encoded_reservoir, entangling_sampler, reservoir_angle_count, without_entanglers
from quantum.caps import QUANTUM_LITE_MAX_QUBITS, QUANTUM_LITE_THREADS, check_width, resolve_width
from quantum.circuits import GATES, CircuitTemplate, Gate
from quantum.errors import (BackendUnavailableError, QuantumError, QuantumExecutionError, QuantumMemoryError,
                            QubitCapError)
from quantum.memory import MemoryPlan, plan, statevector_bytes
from quantum.select import available_backends, make_backend


def aer_info() -> dict:
    """Installed Aer build and devices (probed once, cached); imports qiskit_aer."""
    from quantum.backends.aer_info import aer_info as probe

    return probe()


__all__ = [
    "GATES", "BackendUnavailableError", "CircuitTemplate", "Gate", "MemoryPlan", "QUANTUM_LITE_MAX_QUBITS",
    "QUANTUM_LITE_THREADS", "QuantumError", "QuantumExecutionError", "QuantumMemoryError", "QubitCapError",
    "aer_info", "angle_encoded_reservoir", "available_backends", "check_width", "entangling_sampler",
    "make_backend", "plan", "reservoir_angle_count", "resolve_width", "statevector_bytes", "without_entanglers",
]
