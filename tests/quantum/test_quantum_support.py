"""Shared helpers for the quantum tests (no tests here): random templates, the qiskit reference, backend params."""
from __future__ import annotations

import numpy as np
import pytest

from quantum import GATES, CircuitTemplate, Gate

ONE_QUBIT = [g for g, (arity, _) in GATES.items() if arity == 1]
TWO_QUBIT = [g for g, (arity, _) in GATES.items() if arity == 2]


def random_template(n_qubits: int, n_gates: int, n_params: int, seed: int) -> CircuitTemplate:
    """Every gate kind, random qubits, affine angles on random parameters (some fixed)."""
    rng = np.random.default_rng(seed)
    gates = [Gate("h", (q,)) for q in range(n_qubits)]  # start away from |0...0>
    for _ in range(n_gates):
        names = ONE_QUBIT + (TWO_QUBIT if n_qubits > 1 else [])
        name = names[rng.integers(len(names))]
        arity, rotation = GATES[name]
        qubits = tuple(int(q) for q in rng.choice(n_qubits, size=arity, replace=False))
        if not rotation:
            gates.append(Gate(name, qubits))
        elif n_params and rng.random() < 0.8:
            gates.append(Gate(name, qubits, param=int(rng.integers(n_params)),
                              scale=float(rng.uniform(-2, 2)), offset=float(rng.uniform(-np.pi, np.pi))))
        else:
            gates.append(Gate(name, qubits, offset=float(rng.uniform(-np.pi, np.pi))))
    return CircuitTemplate(f"random_q{n_qubits}_s{seed}", n_qubits, n_params, tuple(gates))


def reference_probabilities(circuit: CircuitTemplate, params: np.ndarray) -> np.ndarray:
    """Born probabilities from qiskit.quantum_info.Statevector, one parameter set at a time."""
    from qiskit.quantum_info import Statevector

    qc = circuit.to_qiskit()
    rows = []
    for p in params:
        bound = qc.assign_parameters({q: p[q.index] for q in qc.parameters}) if qc.parameters else qc
        rows.append(Statevector(bound).probabilities())
    return np.stack(rows)


def _aer_gpu_present() -> bool:
    from quantum import aer_info

    return aer_info()["gpu"]


BACKENDS = [
    pytest.param(("torch", "cpu"), id="torch-cpu"),
    pytest.param(("aer", "cpu"), id="aer-cpu"),
    pytest.param(("torch", "gpu"), id="torch-cuda", marks=pytest.mark.gpu),
    pytest.param(("aer", "gpu"), id="aer-gpu", marks=[
        pytest.mark.gpu, pytest.mark.skipif(not _aer_gpu_present(), reason="no Aer GPU build/device")]),
]
