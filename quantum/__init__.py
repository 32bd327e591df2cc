"""Quantum execution: circuits, backends, qubit caps, memory planning. Knows nothing of cognition.

    from quantum import angle_encoded_reservoir, make_backend
    circuit = angle_encoded_reservoir(n_qubits=8, n_inputs=8, depth=3, seed=0)
    backend = make_backend("auto", device="cpu", max_qubits=16, threads=4)
    z = backend.expectations_z(circuit, params)        # params (B, 8) -> (B, 8)

Importing this package imports neither qiskit nor torch (nor numpy, until a name is used) and probes no hardware;
backends import what they need when they are made.
"""
import importlib

#: public name -> the module that defines it, imported on first use (PEP 562): importing this package (as
#: the configuration does, through the module registry) loads not even numpy until a name is used
_PUBLIC = {
    **{name: "quantum.builders" for name in ("angle_encoded_reservoir", "entangling_sampler",
                                             "reservoir_angle_count", "without_entanglers")},
    **{name: "quantum.caps" for name in ("QUANTUM_LITE_MAX_QUBITS", "QUANTUM_LITE_THREADS", "check_width",
                                         "resolve_width")},
    **{name: "quantum.circuits" for name in ("GATES", "CircuitTemplate", "Gate")},
    **{name: "quantum.errors" for name in ("BackendUnavailableError", "QuantumError", "QuantumExecutionError",
                                           "QuantumMemoryError", "QubitCapError")},
    **{name: "quantum.memory" for name in ("MemoryPlan", "plan", "statevector_bytes")},
    **{name: "quantum.select" for name in ("available_backends", "make_backend")},
}


def __getattr__(name: str):
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'quantum' has no attribute {name!r}")


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
