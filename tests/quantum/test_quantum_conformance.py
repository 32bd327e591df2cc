"""Conformance suite run against every backend available here (issue 4, item 1).

Reference: qiskit.quantum_info.Statevector (independent of every backend under test).
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from quantum import angle_encoded_reservoir, entangling_sampler, make_backend
from test_quantum_support import BACKENDS, random_template, reference_probabilities

WIDTHS = [1, 2, 3, 5, 7, 10]


@pytest.fixture(params=BACKENDS)
def backend(request):
    kind, device = request.param
    return make_backend(kind, device=device, max_qubits=16, threads=2, precision="double")


def _params(n_rows: int, n_params: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-np.pi, np.pi, size=(n_rows, n_params))


@pytest.mark.parametrize("width", WIDTHS)
def test_exact_probabilities_match_statevector(backend, width):
    circuit = random_template(width, n_gates=6 * width, n_params=3, seed=100 + width)
    params = _params(4, 3, seed=width)
    got = backend.probabilities(circuit, params)
    assert got.shape == (4, 2**width) and got.dtype == np.float64
    np.testing.assert_allclose(got, reference_probabilities(circuit, params), rtol=0, atol=1e-10)


@pytest.mark.parametrize("builder", ["reservoir", "reservoir_angles", "sampler"])
def test_builders_match_statevector(backend, builder):
    circuit = {"reservoir": lambda: angle_encoded_reservoir(6, 5, depth=3, seed=7),
               "reservoir_angles": lambda: angle_encoded_reservoir(6, 5, depth=3),  # every row its own angles
               "sampler": lambda: entangling_sampler(6, 5, layers=3)}[builder]()
    params = np.random.default_rng(3).uniform(-1, 1, size=(3, circuit.n_params))
    np.testing.assert_allclose(backend.probabilities(circuit, params), reference_probabilities(circuit, params),
                               rtol=0, atol=1e-10)


def test_template_without_parameters(backend):
    circuit = random_template(4, n_gates=20, n_params=0, seed=5)
    got = backend.probabilities(circuit, np.zeros((2, 0)))
    np.testing.assert_allclose(got, np.repeat(reference_probabilities(circuit, np.zeros((1, 0))), 2, axis=0),
                               rtol=0, atol=1e-10)


def test_expectations_match_pauli_operators(backend):
    # reference: Statevector.expectation_value of SparsePauliOp Z_q and Z_a Z_b (qiskit labels are big-endian)
    from qiskit.quantum_info import SparsePauliOp, Statevector

    circuit = random_template(5, n_gates=30, n_params=2, seed=11)
    params = _params(3, 2, seed=12)
    pairs = [(0, 1), (4, 2), (1, 3)]
    z, zz = backend.expectations_z(circuit, params), backend.expectations_zz(circuit, params, pairs)
    qc = circuit.to_qiskit()
    for row, p in enumerate(params):
        state = Statevector(qc.assign_parameters({q: p[q.index] for q in qc.parameters}))
        for q in range(5):
            op = SparsePauliOp.from_sparse_list([("Z", [q], 1.0)], num_qubits=5)
            assert z[row, q] == pytest.approx(state.expectation_value(op).real, abs=1e-10)
        for i, (a, b) in enumerate(pairs):
            op = SparsePauliOp.from_sparse_list([("ZZ", [a, b], 1.0)], num_qubits=5)
            assert zz[row, i] == pytest.approx(state.expectation_value(op).real, abs=1e-10)


def _chi_square_pvalue(counts: np.ndarray, probabilities: np.ndarray) -> float:
    """Pearson chi-square, bins with expected count < 5 pooled into one (the usual validity rule)."""
    expected = counts.sum() * probabilities
    big = expected >= 5
    observed = np.append(counts[big], counts[~big].sum())
    expected = np.append(expected[big], expected[~big].sum())
    if expected[-1] == 0:
        observed, expected = observed[:-1], expected[:-1]
    return chisquare(observed, expected * observed.sum() / expected.sum()).pvalue


@pytest.mark.parametrize("width", [3, 6, 10])
def test_sampled_counts_pass_chi_square(backend, width):
    circuit = random_template(width, n_gates=5 * width, n_params=2, seed=200 + width)
    params = _params(3, 2, seed=width + 1)
    shots = 20_000
    counts = backend.sample(circuit, params, np.random.default_rng(11).random((3, shots)))
    reference = reference_probabilities(circuit, params)
    assert counts.shape == (3, 2**width) and counts.dtype == np.int64
    assert (counts.sum(axis=1) == shots).all()
    for row in range(3):
        assert _chi_square_pvalue(counts[row], reference[row]) > 1e-3
    # the test has teeth: the same counts against a different circuit's distribution fail it
    other = reference_probabilities(random_template(width, 5 * width, 2, seed=999), params)
    assert _chi_square_pvalue(counts[0], other[0]) < 1e-6


def test_same_uniforms_same_counts_whatever_the_batch(backend):
    circuit = entangling_sampler(5, 5, layers=2)
    params = _params(4, 5, seed=3)
    uniforms = np.random.default_rng(1).random((4, 500))
    batch = backend.sample(circuit, params, uniforms)
    np.testing.assert_array_equal(batch, backend.sample(circuit, params, uniforms))
    for row in range(4):  # one at a time, and reversed order: each row depends only on its own uniforms
        np.testing.assert_array_equal(batch[row], backend.sample(circuit, params[row:row + 1], uniforms[row:row + 1])[0])
    np.testing.assert_array_equal(batch[::-1], backend.sample(circuit, params[::-1], uniforms[::-1]))
    other = np.random.default_rng(2).random((1, 500))
    assert not np.array_equal(batch[0], backend.sample(circuit, params[:1], other)[0])


def test_single_precision_is_close(backend):
    kind, device = backend.kind, ("gpu" if backend.device in ("gpu", "cuda") else "cpu")
    single = make_backend(kind, device=device, max_qubits=16, threads=2, precision="single")
    circuit = random_template(6, n_gates=40, n_params=2, seed=21)
    params = _params(3, 2, seed=22)
    np.testing.assert_allclose(single.probabilities(circuit, params), reference_probabilities(circuit, params),
                               rtol=0, atol=1e-5)
