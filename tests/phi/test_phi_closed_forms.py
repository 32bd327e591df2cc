"""Gaussian Phi against values derived independently of cognition.phi.

Sources: the two-node model of Mediano, Seth & Barrett (2019), Entropy 21:17, Sec. 3.1
(A = a [[1, 1], [1, 1]], unit noise), solved by hand below; a block-diagonal system whose
modules are independent (Phi = 0 on their split by definition); and a brute-force
reference that loops over bipartitions with numpy's slogdet, written from the
definitions in Barrett & Seth (2011), PLoS Comput Biol 7:e1001052.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.linalg

from cognition import phi


def two_node_closed_form(a: float) -> dict[str, float]:
    """By hand, for X_t = A X_{t-1} + eps, A = a 11^T, eps ~ N(0, I), |a| < 1/2.

    Lyapunov: S = A S A^T + I = I + a^2 (1^T S 1) 11^T, so S = I + c 11^T with
    c = a^2 (2 + 4c), i.e. c = 2a^2 / (1 - 4a^2).
    TDMI: X_t | X_{t-1} has covariance I, so I = 1/2 log det S = 1/2 log(1 + 2c)
    = -1/2 log(1 - 4a^2).
    Lagged covariance A S = a (1 + 2c) 11^T: every node's lag-1 correlation with every
    node is rho = a (1 + 2c) / (1 + c) = a / (1 - 2a^2).
    Parts {0}, {1}: I(X^i_{t-1}; X^i_t) = -1/2 log(1 - rho^2), and the MMI redundancy is
    the same (all four lagged correlations equal rho).
    Phi_WMS = TDMI + log(1 - rho^2); Phi_R = Phi_WMS - 1/2 log(1 - rho^2).
    SI = sum_i H(X^i_t | X^i_{t-1}) - H(X_t | X_{t-1}) = log((1 + c)(1 - rho^2)).
    """
    c = 2 * a * a / (1 - 4 * a * a)
    rho = a / (1 - 2 * a * a)
    tdmi = -0.5 * math.log2(1 - 4 * a * a)
    self_mi = -0.5 * math.log2(1 - rho * rho)
    return {
        "c": c,
        "tdmi": tdmi,
        "phi_wms": tdmi - 2 * self_mi,
        "phi_r": tdmi - self_mi,
        "stochastic_interaction": math.log2((1 + c) * (1 - rho * rho)),
    }


@pytest.mark.parametrize("a", [0.05, 0.2, 0.3, 0.45, -0.35])
def test_two_node_model_matches_hand_derivation(a):
    expected = two_node_closed_form(a)
    A = a * np.ones((2, 2))
    # the hand-solved Lyapunov solution, checked against scipy's solver
    sigma = np.eye(2) + expected["c"] * np.ones((2, 2))
    np.testing.assert_allclose(scipy.linalg.solve_discrete_lyapunov(A, np.eye(2)), sigma, rtol=1e-12)
    np.testing.assert_allclose(phi.stationary_covariance(A, np.eye(2)), sigma, rtol=1e-12)

    r = phi.analytical_var1(A, np.eye(2))
    assert r.mib == ((0,), (1,))
    for key in ("tdmi", "phi_wms", "phi_r", "stochastic_interaction"):
        assert getattr(r, key) == pytest.approx(expected[key], rel=1e-10, abs=1e-13), key


def test_two_node_model_phi_wms_turns_negative_but_phi_r_does_not():
    # Mediano, Seth & Barrett 2019, Sec. 3.1: with strong coupling the redundancy between
    # the nodes outweighs the whole-system information and Phi_WMS goes negative, which
    # the MMI correction of Phi_R removes. (Signs from the closed form above.)
    strong = phi.analytical_var1(0.45 * np.ones((2, 2)), np.eye(2))
    assert two_node_closed_form(0.45)["phi_wms"] < 0
    assert strong.phi_wms < 0 < strong.phi_r
    for a in (0.1, 0.2, 0.3, 0.4, 0.45):
        r = phi.analytical_var1(a * np.ones((2, 2)), np.eye(2))
        assert r.phi_r >= r.phi_wms


def block_diagonal_system():
    """Two uncoupled modules {0, 1, 2} and {3, 4}, each strongly coupled inside."""
    A = np.zeros((5, 5))
    A[:3, :3] = [[0.4, 0.3, 0.0], [0.2, 0.1, 0.4], [0.3, 0.0, 0.3]]
    A[3:, 3:] = [[0.2, 0.5], [0.4, 0.3]]
    noise = np.eye(5)
    noise[0, 1] = noise[1, 0] = 0.3
    noise[3, 4] = noise[4, 3] = -0.2
    return A, noise


def test_block_diagonal_split_has_zero_phi():
    A, noise = block_diagonal_system()
    cov = phi.lagged_joint_covariance(A, noise)
    split = phi.mib_to_mask((0, 1, 2), 5)
    m = phi.measures_at(cov[None], split[None])
    # independent modules: I(X;X') = I(M1;M1') + I(M2;M2') and every cross term is 0
    assert m["phi_wms"][0] == pytest.approx(0.0, abs=1e-12)
    assert m["phi_r"][0] == pytest.approx(0.0, abs=1e-12)
    assert m["stochastic_interaction"][0] == pytest.approx(0.0, abs=1e-12)
    r = phi.analytical_var1(A, noise)
    assert r.mib == ((0, 1, 2), (3, 4))
    assert r.phi_wms == pytest.approx(0.0, abs=1e-12)
    assert r.phi_r == pytest.approx(0.0, abs=1e-12)
    assert phi.analytical_var1(A, noise, search="queyranne").mib == ((0, 1, 2), (3, 4))


def reference_measures(cov: np.ndarray, part: tuple[int, ...]) -> dict[str, float]:
    """Brute force from the definitions, with slogdet on explicitly built submatrices."""
    n = cov.shape[0] // 2
    other = tuple(i for i in range(n) if i not in part)

    def h(idx):  # entropy in bits
        sub = cov[np.ix_(idx, idx)]
        sign, ld = np.linalg.slogdet(sub)
        assert sign > 0
        return 0.5 * (len(idx) * math.log(2 * math.pi * math.e) + ld) / math.log(2)

    past = lambda m: [i for i in m]  # noqa: E731
    present = lambda m: [n + i for i in m]  # noqa: E731
    mi = lambda x, y: h(x) + h(y) - h(x + y)  # noqa: E731
    whole = tuple(range(n))
    tdmi = mi(past(whole), present(whole))
    wms = tdmi - mi(past(part), present(part)) - mi(past(other), present(other))
    mmi = min(mi(past(i), present(j)) for i in (part, other) for j in (part, other))
    si = (h(past(part) + present(part)) - h(past(part)) + h(past(other) + present(other)) - h(past(other))
          - h(past(whole) + present(whole)) + h(past(whole)))
    k = min(h(present(part)), h(present(other)))
    return {"tdmi": tdmi, "phi_wms": wms, "phi_r": wms + mmi, "stochastic_interaction": si, "k": k}


@pytest.mark.parametrize("seed", range(4))
def test_exhaustive_search_matches_brute_force_reference(seed):
    rng = np.random.default_rng(seed)
    n = 5
    A = rng.normal(size=(n, n))
    A *= 0.9 / np.max(np.abs(np.linalg.eigvals(A)))
    noise = np.cov(rng.normal(size=(n, 3 * n)))
    cov = phi.lagged_joint_covariance(A, noise)
    parts = [p for k in range(1, n) for p in itertools.combinations(range(n), k) if 0 in p]
    ref = [reference_measures(cov, p) for p in parts]
    assert all(r["k"] > 0 for r in ref)
    best = min(range(len(parts)), key=lambda i: ref[i]["phi_wms"] / ref[i]["k"])
    r = phi.analytical_var1(A, noise, search="exhaustive")
    assert r.mib[0] == parts[best]
    for key in ("tdmi", "phi_wms", "phi_r", "stochastic_interaction"):
        assert getattr(r, key) == pytest.approx(ref[best][key], rel=1e-9, abs=1e-12), key


def test_lag_two_uses_the_squared_transition():
    # cov(X_t, X_{t-2}) = A^2 S: TDMI at lag 2 equals 1/2 log det S / det(S - A^2 S A^2T)
    a = 0.3
    A = a * np.ones((2, 2))
    sigma = phi.stationary_covariance(A, np.eye(2))
    A2 = A @ A
    expected = 0.5 * math.log2(np.linalg.det(sigma) / np.linalg.det(sigma - A2 @ sigma @ A2.T))
    assert phi.analytical_var1(A, np.eye(2), lag=2).tdmi == pytest.approx(expected, rel=1e-10)


def test_ties_pick_the_balanced_bipartition_with_node_0_first():
    # all-to-all identical coupling: every bipartition with the same sizes ties exactly
    A = 0.2 * np.ones((4, 4))
    r = phi.analytical_var1(A, np.eye(4))
    sizes = {len(r.mib[0]), len(r.mib[1])}
    assert sizes == {2}
    assert r.mib == ((0, 1), (2, 3))


def test_gaussian_helpers_match_textbook_formulas():
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    # Cover & Thomas Thm 8.4.1 and Sec. 8.5: H = 1/2 log2((2 pi e)^k det S); I = -1/2 log2(1 - r^2)
    assert phi.gaussian_entropy(cov) == pytest.approx(0.5 * math.log2((2 * math.pi * math.e) ** 2 * 1.64))
    r2 = 0.36 / 2.0
    assert phi.mutual_information(cov, [0], [1]) == pytest.approx(-0.5 * math.log2(1 - r2))
    np.testing.assert_allclose(phi.conditional_covariance(cov, [0], [1]), [[2.0 - 0.36]])
