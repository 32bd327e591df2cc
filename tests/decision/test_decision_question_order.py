"""Question order: Lueders-rule sequences, the QQ equality and its test, the classical twin."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cognition import decision

# Moore 2002 Gallup poll ("Is Clinton / Gore honest and trustworthy?"), joint tables from
# Wang & Busemeyer 2013 (Topics Cogn Sci 5:689); Wang et al. 2014 (PNAS 111:9431): q = -.0032.
CLINTON_FIRST = [0.4899, 0.0447, 0.1767, 0.2886]  # [C yes G yes, C yes G no, C no G yes, C no G no], n = 447
GORE_FIRST = [0.5625, 0.1991, 0.0255, 0.2130]  # [G yes C yes, G yes C no, G no C yes, G no C no], n = 432
N_CLINTON_FIRST, N_GORE_FIRST = 447, 432


def random_unitary(rng, d):
    z = rng.normal(size=(d, d)) + 1j * rng.normal(size=(d, d))
    q, r = np.linalg.qr(z)
    return q * (np.diag(r) / np.abs(np.diag(r)))


def random_projector(rng, d, rank):
    u = random_unitary(rng, d)[:, :rank]
    return u @ u.conj().T


def random_state(rng, d):
    psi = rng.normal(size=d) + 1j * rng.normal(size=d)
    return psi / np.linalg.norm(psi)


@pytest.fixture(scope="module")
def clinton_gore_quantum():
    return decision.fit_question_order(CLINTON_FIRST, GORE_FIRST, model="quantum")


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(2, 8), data=st.data())
def test_qq_equality_holds_exactly_for_lueders_sequences(seed, d, data):
    # Wang et al. 2014: any state and any pair of projectors give q = 0.
    rank_a, rank_b = data.draw(st.integers(0, d)), data.draw(st.integers(0, d))
    rng = np.random.default_rng(seed)
    psi, p_a, p_b = random_state(rng, d), random_projector(rng, d, rank_a), random_projector(rng, d, rank_b)
    ab, ba = decision.sequential_probabilities(psi, p_a, p_b)
    assert ab.sum() == pytest.approx(1.0, abs=1e-12) and ba.sum() == pytest.approx(1.0, abs=1e-12)
    assert abs(decision.qq_statistic(ab, ba)) < 1e-12


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sequential_probabilities_match_qiskit_deferred_measurement(seed):
    # Independent reference: each question is measured by copying its answer into an
    # ancilla with a CNOT in the question's eigenbasis (deferred measurement), simulated by
    # qiskit's Statevector; the ancillas' joint distribution is the answer table.
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import UnitaryGate
    from qiskit.quantum_info import Statevector

    rng = np.random.default_rng(seed)
    u_a, u_b = random_unitary(rng, 4), random_unitary(rng, 4)
    yes = np.diag([1.0, 1.0, 0.0, 0.0])  # qubit 1 = 0 in qiskit's little-endian order
    p_a, p_b = u_a @ yes @ u_a.conj().T, u_b @ yes @ u_b.conj().T
    psi = random_state(rng, 4)

    def table(first, second):
        qc = QuantumCircuit(4)
        for ancilla, u in ((2, first), (3, second)):
            qc.append(UnitaryGate(u.conj().T), [0, 1])  # into the question's eigenbasis
            qc.cx(1, ancilla)  # ancilla = 1 means "no"
            qc.append(UnitaryGate(u), [0, 1])
        probs = Statevector(np.kron(np.eye(4)[0], psi)).evolve(qc).probabilities([2, 3])
        return probs[[0, 2, 1, 3]]  # index = first + 2*second -> [yy, yn, ny, nn]

    ab, ba = decision.sequential_probabilities(psi, p_a, p_b)
    np.testing.assert_allclose(ab, table(u_a, u_b), atol=1e-12)
    np.testing.assert_allclose(ba, table(u_b, u_a), atol=1e-12)


def test_clinton_gore_q_statistic():
    # (.0447 + .1767) - (.1991 + .0255) = .2214 - .2246 = -.0032
    assert decision.qq_statistic(CLINTON_FIRST, GORE_FIRST) == pytest.approx(-0.0032, abs=1e-12)


def test_qq_test_finds_no_violation_for_clinton_gore():
    result = decision.qq_test(CLINTON_FIRST, GORE_FIRST, N_CLINTON_FIRST, N_GORE_FIRST)
    # Worked by hand: SE = sqrt(.2214*.7786/447 + .2246*.7754/432) = sqrt(3.8564e-4 + 4.0313e-4)
    # = .028085; z = -.0032/.028085 = -.1139; two-sided p = .909.
    assert result.q == pytest.approx(-0.0032, abs=1e-12)
    assert result.standard_error == pytest.approx(0.028085, abs=1e-6)
    assert result.z == pytest.approx(-0.1139, abs=1e-4)
    assert result.p_value == pytest.approx(0.909, abs=1e-3)
    assert result.p_value > 0.05  # the QQ equality is not rejected


def test_qq_test_detects_a_real_violation():
    # Disagreement .30 when A is asked first, .20 when B is: q = .10. With n = 1000 each,
    # SE = sqrt(.3*.7/1000 + .2*.8/1000) = .019235, z = 5.199, p = 2.0e-7 (normal tail).
    result = decision.qq_test([0.4, 0.2, 0.1, 0.3], [0.5, 0.1, 0.1, 0.3], 1000, 1000)
    assert result.z == pytest.approx(5.199, abs=1e-3)
    from scipy.stats import norm

    assert result.p_value == pytest.approx(2 * norm.sf(result.z), rel=1e-9)
    assert result.p_value < 1e-6


def test_qq_test_of_a_table_without_variance():
    assert decision.qq_test([1, 0, 0, 0], [0, 0, 0, 1], 10, 10).p_value == 1.0
    flagged = decision.qq_test([0, 1, 0, 0], [1, 0, 0, 0], 10, 10)
    assert flagged.z == math.inf and flagged.p_value == 0.0


def test_quantum_fit_to_clinton_gore_reaches_the_qq_limit(clinton_gore_quantum):
    fit = clinton_gore_quantum
    ab = np.array(CLINTON_FIRST) / sum(CLINTON_FIRST)
    ba = np.array(GORE_FIRST) / sum(GORE_FIRST)
    # Any QQ-obeying model lives on the plane q = 0 (and sums = 1); the least squared error
    # is q^2 / ||n||^2 with n = (-1/2, 1/2, 1/2, -1/2 | 1/2, -1/2, -1/2, 1/2), ||n||^2 = 2.
    q = (ab[1] + ab[2]) - (ba[1] + ba[2])
    bound = q**2 / 2
    assert bound - 1e-12 <= fit.loss <= bound + 1e-8
    assert abs(decision.qq_statistic(fit.predicted_ab, fit.predicted_ba)) < 1e-12
    # The order effect itself: P(Clinton yes) is .5346 asked first, .5880 asked second.
    assert fit.predicted_ab[0] + fit.predicted_ab[1] == pytest.approx(0.5346, abs=0.003)
    assert fit.predicted_ba[0] + fit.predicted_ba[2] == pytest.approx(0.5880, abs=0.003)
    # The fitted parts are a genuine state and projectors.
    psi, p_a, p_b = (fit.params[k] for k in ("state", "proj_a", "proj_b"))
    assert np.linalg.norm(psi) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(p_b @ p_b, p_b, atol=1e-10)
    np.testing.assert_allclose(np.trace(p_b), 2.0, atol=1e-10)


def test_classical_twin_has_no_order_effect_and_fits_worse(clinton_gore_quantum):
    fit = decision.fit_question_order(CLINTON_FIRST, GORE_FIRST, model="classical")
    ab = np.array(CLINTON_FIRST) / sum(CLINTON_FIRST)
    ba_as_ab = (np.array(GORE_FIRST) / sum(GORE_FIRST))[[0, 2, 1, 3]]  # reorder to (Clinton, Gore)
    # One joint table for both orders; least squares = the mean, error = ||ab - ba||^2 / 2.
    np.testing.assert_allclose(fit.predicted_ab, (ab + ba_as_ab) / 2, atol=1e-15)
    np.testing.assert_allclose(fit.predicted_ba[[0, 2, 1, 3]], fit.predicted_ab, atol=0)
    assert fit.loss == pytest.approx(((ab - ba_as_ab) ** 2).sum() / 2, abs=1e-15)
    assert fit.loss > 100 * clinton_gore_quantum.loss


def test_question_order_fit_is_deterministic(clinton_gore_quantum):
    again = decision.fit_question_order(CLINTON_FIRST, GORE_FIRST, model="quantum")
    assert again.loss == clinton_gore_quantum.loss
    np.testing.assert_array_equal(again.predicted_ab, clinton_gore_quantum.predicted_ab)
