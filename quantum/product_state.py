"""Closed-form <Z_q> of a circuit of single-qubit gates on |0...0>: a product state, no backend.

Without two-qubit gates every qubit keeps a pure state of its own, its Bloch vector
(x, y, z) = (<X>, <Y>, <Z>), starting at (0, 0, 1). RX, RY, RZ(a) (and P(a), RZ up to a
phase) rotate it by the angle a about x, y, z; the fixed Clifford gates permute its
components with signs (H: (x, y, z) -> (z, -y, x)); T, Tdg are RZ(+-pi/4). For a product
state every correlator factorises: <Z_a Z_b> = <Z_a><Z_b>. Imports torch (not imported
by ``quantum``'s __init__, which imports neither torch nor qiskit).
"""
from __future__ import annotations

import math

import torch

from quantum.circuits import CircuitTemplate

_AXIS = {"rx": 0, "ry": 1, "rz": 2, "p": 2}  # rotation about this Bloch axis by the gate's angle
_FIXED_ANGLE = {"t": (2, math.pi / 4), "tdg": (2, -math.pi / 4)}
# (x, y, z) -> (sign * old[index] for each new component)
_SIGNED_PERMUTATION = {
    "h": ((2, 1), (1, -1), (0, 1)), "x": ((0, 1), (1, -1), (2, -1)), "y": ((0, -1), (1, 1), (2, -1)),
    "z": ((0, -1), (1, -1), (2, 1)), "s": ((1, -1), (0, 1), (2, 1)), "sdg": ((1, 1), (0, -1), (2, 1)),
    "sx": ((0, 1), (2, -1), (1, 1)),
}


def _apply_elementwise(fn, x):
    return fn(x)


def product_state_z(circuit: CircuitTemplate, params: torch.Tensor, apply=_apply_elementwise) -> torch.Tensor:
    """<Z_q> (B, n_qubits) of `circuit` at params (B, n_params), on params' device and dtype.

    Gate angles are the template's, ``scale * params[:, param] + offset``. ``apply(fn, x)``
    evaluates cos and sin of the (B, rotations) angles (e.g. a batch-stable wrapper).
    Raises ValueError for a two-qubit gate or a gate it does not know.
    """
    for g in circuit.gates:
        if len(g.qubits) != 1:
            raise ValueError(f"product_state_z: {circuit.name!r} has the two-qubit gate {g.name} on {g.qubits}")
        if g.name not in _AXIS and g.name not in _FIXED_ANGLE and g.name not in _SIGNED_PERMUTATION:
            raise ValueError(f"product_state_z: {circuit.name!r} has the gate {g.name!r}, which it does not know")
    B = params.shape[0]
    rotations = [g for g in circuit.gates if g.name in _AXIS]
    if rotations:
        angles = torch.stack([g.scale * params[:, g.param] + g.offset if g.param is not None
                              else params.new_full((B,), float(g.offset)) for g in rotations], dim=1)
        cos, sin = apply(torch.cos, angles), apply(torch.sin, angles)
    zero, one = params.new_zeros(B), params.new_ones(B)
    bloch = [[zero, zero, one] for _ in range(circuit.n_qubits)]
    k = 0
    for g in circuit.gates:
        v = bloch[g.qubits[0]]
        if g.name in _SIGNED_PERMUTATION:
            bloch[g.qubits[0]] = [sign * v[i] for i, sign in _SIGNED_PERMUTATION[g.name]]
            continue
        if g.name in _AXIS:
            axis, c, s = _AXIS[g.name], cos[:, k], sin[:, k]
            k += 1
        else:
            axis, angle = _FIXED_ANGLE[g.name]
            c, s = math.cos(angle), math.sin(angle)
        i, j = (axis + 1) % 3, (axis + 2) % 3  # (u, v) -> (u c - v s, u s + v c), right-handed about axis
        v[i], v[j] = v[i] * c - v[j] * s, v[i] * s + v[j] * c
    return torch.stack([v[2] for v in bloch], dim=1)


def product_state_features(circuit: CircuitTemplate, params: torch.Tensor, pairs, apply=_apply_elementwise):
    """[<Z_q> for every qubit, <Z_a Z_b> = <Z_a><Z_b> for (a, b) in pairs]: (B, n_qubits + len(pairs))."""
    z = product_state_z(circuit, params, apply)
    if not pairs:
        return z
    a, b = zip(*pairs)
    return torch.cat([z, z[:, list(a)] * z[:, list(b)]], dim=1)
