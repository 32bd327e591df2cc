"""The torch statevector backend's compiled programs and fused one-qubit matrices.

References: Qiskit's gate matrices (qiskit.circuit.library, Gate.to_matrix) for the fused runs; the
gate lists of quantum.circuits for the schedule. End-to-end probabilities are checked against
qiskit.quantum_info.Statevector in tests/quantum/test_quantum_conformance.py.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from quantum import Gate, angle_encoded_reservoir, entangling_sampler, make_backend
from quantum.program import compile_program, probability_steps
from test_quantum_support import random_template

torch = pytest.importorskip("torch")
ANGLE = 0.7


def _qiskit_matrix(name: str) -> np.ndarray:
    from qiskit.circuit import library

    rotations = {"rx": library.RXGate, "ry": library.RYGate, "rz": library.RZGate, "p": library.PhaseGate}
    if name in rotations:
        return rotations[name](ANGLE).to_matrix()
    fixed = {"h": library.HGate, "x": library.XGate, "y": library.YGate, "z": library.ZGate, "s": library.SGate,
             "sdg": library.SdgGate, "t": library.TGate, "tdg": library.TdgGate, "sx": library.SXGate}
    return fixed[name]().to_matrix()


def test_every_run_of_three_gates_fuses_to_qiskits_product():
    # quaternion and phase fusion against the product of Qiskit's own 2x2 matrices, every ordered triple
    from quantum.circuits import GATES
    from quantum.gate_matrices import run_matrices

    names = [n for n, (arity, _) in GATES.items() if arity == 1]
    runs = [tuple(Gate(n, (0,), param=0 if GATES[n][1] else None) for n in triple)
            for triple in itertools.product(names, repeat=3)]
    got = run_matrices(runs, torch.tensor([[ANGLE]], dtype=torch.float64), torch.complex128)
    for run, m in zip(runs, got):
        a, b, c = (_qiskit_matrix(g.name) for g in run)
        np.testing.assert_allclose(m[:, :, 0].numpy(), c @ b @ a, rtol=0, atol=1e-15, err_msg=str(run))


def test_leading_gates_become_the_product_state_and_two_qubit_gates_merge():
    reservoir = compile_program(angle_encoded_reservoir(6, 8, 2))
    assert all([g.name for g in reservoir.product[q]] == ["ry", "rz", "rx", "rz"] for q in range(6))
    kinds = [s[0] for s in reservoir.steps]
    assert kinds == ["diag"] + ["u"] * 6 + ["perm"] and len(reservoir.steps[0][1]) == 6  # 6 CZ in one step
    sampler = compile_program(entangling_sampler(6, 8, 2))
    assert [s[0] for s in sampler.steps] == ["diag"] + ["u"] * 6 + ["diag"]
    assert [s[0] for s in probability_steps(sampler)] == ["diag"] + ["u"] * 6  # the last RZZ layer: phases only


def test_a_row_gets_the_same_bits_in_any_batch():
    # the batch is the state's innermost axis and is padded to a multiple of ALIGN, so no row ever runs in a
    # vectorised loop's scalar remainder: a row's numbers do not depend on the rows beside it
    backend = make_backend("torch", max_qubits=6, threads=1)
    circuit = random_template(6, n_gates=40, n_params=3, seed=4)
    params = np.random.default_rng(0).uniform(-np.pi, np.pi, size=(100, 3))
    full = backend.probabilities(circuit, params)
    for rows in (slice(0, 1), slice(0, 33), slice(7, 71)):
        np.testing.assert_array_equal(backend.probabilities(circuit, params[rows]), full[rows])


def test_a_tail_of_permutations_and_phases_reorders_the_probabilities():
    # reference: qiskit.quantum_info.Statevector. The tail (CX, RZZ, SWAP, CZ, CX) runs on the probabilities as one
    # composed reordering; the phases in it change nothing
    from quantum import CircuitTemplate
    from quantum.program import state_steps_and_reorder
    from test_quantum_support import reference_probabilities

    gates = [Gate("ry", (q,), param=q, scale=1.3, offset=0.2) for q in range(4)] + [Gate("cz", (0, 1)),
             Gate("rx", (1,), param=1), Gate("cx", (0, 2)), Gate("rzz", (1, 3), param=2), Gate("swap", (2, 3)),
             Gate("cz", (0, 3)), Gate("cx", (3, 1))]
    circuit = CircuitTemplate("tail", 4, 4, tuple(gates))
    steps, reorder = state_steps_and_reorder(compile_program(circuit))
    assert [s[0] for s in steps] == ["diag", "u"] and reorder is not None
    params = np.random.default_rng(5).uniform(-np.pi, np.pi, size=(40, 4))
    got = make_backend("torch", max_qubits=4, threads=1).probabilities(circuit, params)
    np.testing.assert_allclose(got, reference_probabilities(circuit, params), rtol=0, atol=1e-14)


@pytest.mark.parametrize("precision", ["double", "single"])
def test_chunked_z_zz_equal_those_of_the_probabilities(precision):
    # the torch backend takes <Z> and <ZZ> from each chunk's batch-last probabilities; reference: the same
    # read-outs from the (B, 2^n) probabilities (quantum.readout), bit for bit, over three chunks
    from quantum.readout import z_zz_expectations

    backend = make_backend("torch", max_qubits=6, threads=1, precision=precision)
    circuit = random_template(6, n_gates=30, n_params=4, seed=8)
    params = np.random.default_rng(2).uniform(-np.pi, np.pi, size=(2 * backend.rows_per_chunk(6) + 5, 4))
    pairs = [(0, 1), (5, 2)]
    z, zz = backend.expectations_z_zz(circuit, params, pairs)
    want_z, want_zz = z_zz_expectations(backend.probabilities(circuit, params), 6, pairs)
    assert np.array_equal(z, want_z) and np.array_equal(zz, want_zz)
    assert np.array_equal(backend.expectations_z(circuit, params), want_z)
