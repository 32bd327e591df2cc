"""The closed-form propagation of Pothos & Busemeyer's Hamiltonian (cognition/decision/reflections.py).

References: scipy.linalg.expm per matrix (Al-Mohy & Higham's scaling and squaring, independent of the
closed form) for the probabilities; mpmath at 50 digits for the sinc divided difference.
"""
from __future__ import annotations

import mpmath
import numpy as np
import pytest
from scipy.linalg import expm

from cognition.decision.batched import condition_states
from cognition.decision.pothos_busemeyer import quantum_hamiltonian
from cognition.decision.reflections import _sinc_divided_difference, evolved_probabilities

# (mu scale, gamma scale, largest t): the hybrid's range, tiny and large parameters, long deliberation
REGIMES = [(1.0, 1.0, 2.0), (5.0, 3.0, 2.0), (0.01, 0.01, 2.0), (1.0, 1.0, 20.0), (30.0, 30.0, 3.0)]


def _hamiltonians(n, mu_scale, gamma_scale, seed):
    rng = np.random.default_rng(seed)
    h = quantum_hamiltonian(rng.normal(0, mu_scale, n), rng.normal(0, gamma_scale, n), rng.normal(0, mu_scale, n))
    return h, condition_states(rng.uniform(0, 1, n), "quantum"), rng


@pytest.mark.parametrize("mu_scale, gamma_scale, t_max", REGIMES)
def test_the_square_has_two_eigenvalues(mu_scale, gamma_scale, t_max):
    # the premise (Jordan's lemma for two reflections): (H^2 - m I)^2 = half_gap^2 I
    h, _, _ = _hamiltonians(500, mu_scale, gamma_scale, seed=1)
    z = h @ h
    centred = z - (np.trace(z, axis1=1, axis2=2) / 4)[:, None, None] * np.eye(4)
    half_gap_sq = (centred**2).sum(axis=(1, 2)) / 4
    residual = centred @ centred - half_gap_sq[:, None, None] * np.eye(4)
    scale = np.abs(z).max(axis=(1, 2)) ** 2
    assert (np.abs(residual).max(axis=(1, 2)) <= 1e-14 * scale).all()


@pytest.mark.parametrize("mu_scale, gamma_scale, t_max", REGIMES)
def test_probabilities_match_expm(mu_scale, gamma_scale, t_max):
    h, psi, rng = _hamiltonians(200, mu_scale, gamma_scale, seed=2)
    t = rng.uniform(0, t_max, 200)
    got = evolved_probabilities(h, psi, t)
    for i in range(200):
        expected = np.abs(expm(-1j * t[i] * h[i]) @ psi[i]) ** 2
        norm = t[i] * np.abs(h[i]).sum(axis=0).max()
        np.testing.assert_allclose(got[i], expected, rtol=0, atol=2e-15 * (4 + norm))


@pytest.mark.parametrize("mu, gamma", [(0.0, 1.0), (0.0, -1.0), (0.7, 0.0), (0.0, 0.0), (0.4, 1.0), (2.0, 1e-9)])
@pytest.mark.parametrize("t", [0.0, 1e-9, np.pi / 2, 7.0])
def test_degenerate_and_boundary_cases_match_expm(mu, gamma, t):
    # gamma = 0: H^2 = I (one eigenvalue); gamma = +-1, mu = 0: an eigenvalue of H^2 at 0; t = 0: the identity
    h = quantum_hamiltonian(np.array([mu]), np.array([gamma]), np.array([mu]))
    psi = condition_states(np.array([0.3]), "quantum")
    expected = np.abs(expm(-1j * t * h[0]) @ psi[0]) ** 2
    np.testing.assert_allclose(evolved_probabilities(h, psi, np.array([t]))[0], expected, rtol=0, atol=1e-14)


def _reference_divided_difference(y1: float, y2: float) -> float:
    mpmath.mp.dps = 50
    y1, y2 = mpmath.mpf(y1), mpmath.mpf(y2)
    sinc = lambda y: mpmath.sin(y) / y if y != 0 else mpmath.mpf(1)  # noqa: E731
    if y1 == y2:  # the derivative of sinc(sqrt w) in w
        return float(mpmath.diff(lambda w: sinc(mpmath.sqrt(w)), y1 * y1)) if y1 else -1.0 / 6.0
    return float((sinc(y1) - sinc(y2)) / (y1 * y1 - y2 * y2))


# each regime and both sides of its boundaries: w_gap = y1^2 - y2^2 around 1, y1^2 around 4, y2 = 0, y1 = y2
PAIRS = [(0.0, 0.0), (1e-8, 0.0), (0.5, 0.5), (1.0, 0.0), (1.0, 1e-3), (1.118, 0.5), (1.1181, 0.5),
         (2.0, 1.999), (1.9999, 1.9), (2.0001, 1.9), (2.3, 2.29), (2.3, 2.05), (2.3, 2.0), (3.0, 2.9),
         (10.0, 9.99), (10.0, 9.94), (10.0, 0.0), (50.0, 49.9999), (0.3, 0.0), (2.2360, 0.0), (2.2361, 0.0)]


@pytest.mark.parametrize("y1, y2", PAIRS)
def test_sinc_divided_difference_matches_mpmath(y1, y2):
    w_gap = np.array([(y1 - y2) * (y1 + y2)])
    got = _sinc_divided_difference(np.array([y1]), np.array([y2]), w_gap)[0]
    assert got == pytest.approx(_reference_divided_difference(y1, y2), rel=1e-13, abs=1e-16)


def test_a_row_does_not_depend_on_its_batch():
    h, psi, rng = _hamiltonians(1000, 1.0, 1.0, seed=3)
    t = rng.uniform(0, 2, 1000)
    whole = evolved_probabilities(h, psi, t)
    for size in (1, 7, 31, 33, 257):
        for start in (0, 500):
            part = slice(start, start + size)
            np.testing.assert_array_equal(evolved_probabilities(h[part], psi[part], t[part]), whole[part])
