"""Generic circuit constructions (standard, nothing cognitive about them).

Inputs x (B, n_inputs) enter as rotation angles pi * x radians, so inputs scaled to
[-1, 1] span a full turn in each direction (`input_scale` changes that).
"""
from __future__ import annotations

import numpy as np

from quantum.circuits import CircuitTemplate, Gate


def _check_sizes(builder: str, n_qubits: int, n_inputs: int, layers: int, layers_name: str) -> None:
    if int(n_qubits) < 1:
        raise ValueError(f"{builder}: n_qubits={n_qubits} must be >= 1")
    if int(n_inputs) < 1:
        raise ValueError(f"{builder}: n_inputs={n_inputs} must be >= 1")
    if int(layers) < 1:
        raise ValueError(f"{builder}: {layers_name}={layers} must be >= 1")


def _require_all_inputs_used(builder: str, gates: list[Gate], n_inputs: int, hint: str) -> None:
    used = {g.param for g in gates if g.param is not None and g.param < n_inputs}
    if len(used) < n_inputs:
        raise ValueError(f"{builder}: n_inputs={n_inputs} but only {len(used)} inputs reach the circuit; {hint}")


def _ring(n_qubits: int) -> list[tuple[int, int]]:
    """Nearest-neighbour pairs on a ring (a single pair for two qubits, none for one)."""
    if n_qubits < 2:
        return []
    if n_qubits == 2:
        return [(0, 1)]
    return [(q, (q + 1) % n_qubits) for q in range(n_qubits)]


def reservoir_angle_count(n_qubits: int, depth: int) -> int:
    """How many fixed RX/RZ angles an `angle_encoded_reservoir` has: 2 per qubit per layer."""
    return 2 * int(n_qubits) * int(depth)


def angle_encoded_reservoir(n_qubits: int, n_inputs: int, depth: int, seed: int | None = None,
                            input_scale: float = np.pi) -> CircuitTemplate:
    """A quantum reservoir with data re-uploading; read its <Z>/<ZZ> with a classical readout.

    Each of `depth` layers: on qubit q, RY(scale x[(q + l) mod n_inputs]) then
    RZ(scale x[(q + l + 1) mod n_inputs]) re-upload the inputs; fixed random RX, RZ
    angles make the reservoir; then a ring of entanglers, CZ on even layers and CX on odd ones.
    (Reservoir computing with re-uploaded inputs: Fujii & Nakajima 2017, Phys. Rev.
    Applied 8, 024030; Perez-Salinas et al. 2020, Quantum 4, 226.)

    The reservoir angles (`reservoir_angle_count(n_qubits, depth)` of them):
    seed None: parameters too, at scale 1, after the inputs: layer l, qubit q takes
    RX(params[n_inputs + 2 (l n_qubits + q)]) and RZ(params[n_inputs + 2 (l n_qubits + q) + 1]),
    so every parameter set (every agent) brings its own reservoir to one batched call.
    seed int: constants, uniform on [0, 2 pi) from default_rng(seed), in that order.
    Parameters: the input vector, then (seed None) the angles. Returns a CircuitTemplate.
    """
    _check_sizes("angle_encoded_reservoir", n_qubits, n_inputs, depth, "depth")
    fixed = None if seed is None else np.random.default_rng(seed).uniform(
        0.0, 2.0 * np.pi, size=reservoir_angle_count(n_qubits, depth))

    def reservoir_angle(name: str, qubit: int, k: int) -> Gate:
        if fixed is None:
            return Gate(name, (qubit,), param=n_inputs + k)
        return Gate(name, (qubit,), offset=float(fixed[k]))

    gates: list[Gate] = []
    for layer in range(depth):
        for q in range(n_qubits):
            gates.append(Gate("ry", (q,), param=(q + layer) % n_inputs, scale=input_scale))
            gates.append(Gate("rz", (q,), param=(q + layer + 1) % n_inputs, scale=input_scale))
            k = 2 * (layer * n_qubits + q)
            gates.append(reservoir_angle("rx", q, k))
            gates.append(reservoir_angle("rz", q, k + 1))
        entangler = "cz" if layer % 2 == 0 else "cx"
        gates.extend(Gate(entangler, pair) for pair in _ring(n_qubits))
    _require_all_inputs_used("angle_encoded_reservoir", gates, n_inputs, "raise n_qubits or depth")
    name = f"reservoir_q{n_qubits}_i{n_inputs}_d{depth}"
    if fixed is None:
        angles = reservoir_angle_count(n_qubits, depth)
        return CircuitTemplate(f"{name}_a{angles}", n_qubits, n_inputs + angles, tuple(gates))
    return CircuitTemplate(f"{name}_s{seed}", n_qubits, n_inputs, tuple(gates))


def entangling_sampler(n_qubits: int, n_inputs: int, layers: int,
                       input_scale: float = np.pi) -> CircuitTemplate:
    """An input-driven entangling circuit to sample from (an IQP-like/QAOA-like ansatz).

    Starts in |+>^n (H on every qubit); each of `layers` layers applies
    RY(scale x[(q + l) mod n_inputs]) on qubit q, then RZZ(scale x[(q + l + 1) mod n_inputs])
    between ring neighbours (q, q+1): superposition from H and RY, entanglement from RZZ.
    Parameters: n_inputs, the input vector. Returns a CircuitTemplate.
    """
    _check_sizes("entangling_sampler", n_qubits, n_inputs, layers, "layers")
    gates: list[Gate] = [Gate("h", (q,)) for q in range(n_qubits)]
    for layer in range(layers):
        gates.extend(Gate("ry", (q,), param=(q + layer) % n_inputs, scale=input_scale) for q in range(n_qubits))
        gates.extend(Gate("rzz", (a, b), param=(a + layer + 1) % n_inputs, scale=input_scale)
                     for a, b in _ring(n_qubits))
    _require_all_inputs_used("entangling_sampler", gates, n_inputs, "raise n_qubits or layers")
    return CircuitTemplate(f"sampler_q{n_qubits}_i{n_inputs}_l{layers}", n_qubits, n_inputs, tuple(gates))


def without_entanglers(circuit: CircuitTemplate) -> CircuitTemplate:
    """The same circuit with every two-qubit gate removed (named ``<name>_noent``).

    What is left is a product of single-qubit unitaries on a product state, so the state it
    prepares is a product state: no entanglement for any parameters (every bipartition's
    entanglement entropy is 0). Parameters keep their indices; an input that reached the
    circuit only through a removed gate no longer reaches it.
    """
    gates = tuple(g for g in circuit.gates if len(g.qubits) == 1)
    return CircuitTemplate(f"{circuit.name}_noent", circuit.n_qubits, circuit.n_params, gates)
