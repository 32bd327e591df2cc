"""Single-qubit gate matrices (Qiskit conventions), batched over parameter sets.

Used by the torch statevector backend to fuse runs of single-qubit gates into one
2x2 matrix per parameter set. Matrices are numpy complex128, shape (B, 2, 2) for
parametrised gates and (1, 2, 2) for fixed ones (broadcast over the batch).
"""
from __future__ import annotations

import numpy as np

from quantum.circuits import Gate

_S2 = 1.0 / np.sqrt(2.0)
FIXED_1Q = {
    "h": np.array([[_S2, _S2], [_S2, -_S2]], dtype=complex),
    "x": np.array([[0, 1], [1, 0]], dtype=complex),
    "y": np.array([[0, -1j], [1j, 0]], dtype=complex),
    "z": np.array([[1, 0], [0, -1]], dtype=complex),
    "s": np.array([[1, 0], [0, 1j]], dtype=complex),
    "sdg": np.array([[1, 0], [0, -1j]], dtype=complex),
    "t": np.array([[1, 0], [0, np.exp(1j * np.pi / 4)]], dtype=complex),
    "tdg": np.array([[1, 0], [0, np.exp(-1j * np.pi / 4)]], dtype=complex),
    "sx": 0.5 * np.array([[1 + 1j, 1 - 1j], [1 - 1j, 1 + 1j]], dtype=complex),
}


def _rotation(name: str, theta: np.ndarray) -> np.ndarray:
    """(B, 2, 2) for angles theta (B,) radians: RX, RY, RZ = exp(-i theta P / 2), P(theta) = diag(1, e^{i theta})."""
    m = np.zeros((theta.shape[0], 2, 2), dtype=complex)
    c, s = np.cos(theta / 2), np.sin(theta / 2)
    if name == "rx":
        m[:, 0, 0] = c
        m[:, 1, 1] = c
        m[:, 0, 1] = -1j * s
        m[:, 1, 0] = -1j * s
    elif name == "ry":
        m[:, 0, 0] = c
        m[:, 1, 1] = c
        m[:, 0, 1] = -s
        m[:, 1, 0] = s
    elif name == "rz":
        m[:, 0, 0] = np.exp(-0.5j * theta)
        m[:, 1, 1] = np.exp(0.5j * theta)
    elif name == "p":
        m[:, 0, 0] = 1.0
        m[:, 1, 1] = np.exp(1j * theta)
    else:
        raise ValueError(f"{name!r} is not a single-qubit rotation")
    return m


def single_qubit_matrix(gate: Gate, params: np.ndarray) -> np.ndarray:
    """Matrix of a one-qubit `gate` for params (B, n_params): (B, 2, 2), or (1, 2, 2) if it has no parameter."""
    if not gate.is_rotation:
        return FIXED_1Q[gate.name][None]
    if gate.param is None:
        return _rotation(gate.name, np.array([float(gate.offset)]))
    return _rotation(gate.name, gate.angles(params))


def fused_matrix(gates: list[Gate], params: np.ndarray) -> np.ndarray:
    """Product U_k ... U_1 of one-qubit gates applied in list order: (B or 1, 2, 2)."""
    m = single_qubit_matrix(gates[0], params)
    for g in gates[1:]:
        m = single_qubit_matrix(g, params) @ m
    return m
