"""EMD solvers behind `iit3`, checked against independent references.

- The exact Hamming EMD (Lipschitz-polytope vertices, network simplex) and the integer
  transport simplex are compared with SciPy's HiGHS linear programs.
- The PyPhi-compatible EMD is compared with values printed by pyemd 1.1.0's C++
  backend, `pyemd.emd(p, q, D, backend='cpp')`, the backend PyPhi 1.2 used; those numbers
  are copied from a run of that library and show its 1e-6 quantisation (1.2 -> 1.1999995).
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse
from scipy.optimize import linprog

from cognition.phi.iit3.emd import bernoulli_product_emd, hamming_emd_diffs, strong_lower_bound
from cognition.phi.iit3.fastemd import (
    cost_rounding_relative,
    pyemd_emd,
    pyemd_hamming,
    quantization_bound,
    quantization_margins,
)
from cognition.phi.iit3.hypercube import lipschitz_vertices
from cognition.phi.iit3.network_simplex import hamming_emd_simplex
from cognition.phi.iit3.transport import min_cost_transport

# HiGHS stops within its default feasibility tolerances; its optimum agrees to ~1e-10.
LP_TOL = 1e-8


def lp_emd(p: np.ndarray, q: np.ndarray, k: int) -> float:
    """Reference: min-cost flow on the hypercube graph (unit cost per edge), by HiGHS.

    With the Hamming metric a transport plan is a flow along shortest paths, so this LP
    has the EMD as its optimum (Beckmann's formulation of optimal transport on a graph).
    """
    n = 1 << k
    edges = [(x, x | 1 << i) for x in range(n) for i in range(k) if not x >> i & 1]
    inc = np.zeros((n, len(edges)))
    for e, (u, v) in enumerate(edges):
        inc[u, e], inc[v, e] = 1.0, -1.0
    res = linprog(np.ones(2 * len(edges)), A_eq=np.hstack([inc, -inc]), b_eq=p - q, bounds=(0, None),
                  method="highs")
    assert res.status == 0, res.message
    return float(res.fun)


def random_pair(rng, k: int, kind: int) -> tuple[np.ndarray, np.ndarray]:
    n = 1 << k
    if kind == 0:
        p, q = rng.random(n), rng.random(n)
    elif kind == 1:  # sparse supports, like deterministic repertoires
        p, q = (rng.random(n) < 0.3) + 1e-3 * (rng.random(n) < 0.1), (rng.random(n) < 0.4) * 1.0
    else:
        p, q = rng.random(n) ** 4, rng.random(n) ** 4
    p, q = p + (p.sum() == 0), q + (q.sum() == 0)
    return p / p.sum(), q / q.sum()


def test_vertex_counts_of_the_hypercube_lipschitz_polytope():
    # Q_1: +-1; Q_2 (a 4-cycle): 6 vertices; counts by enumeration of integer 1-Lipschitz
    # functions whose tight edges span (the vertex criterion for a network polytope).
    assert [len(lipschitz_vertices(k)) for k in range(1, 5)] == [2, 6, 38, 990]


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_vertex_emd_equals_linear_program(k):
    rng = np.random.default_rng(k)
    for trial in range(20):
        p, q = random_pair(rng, k, trial % 3)
        exact = hamming_emd_diffs((p - q)[None, :])[0]
        assert exact == pytest.approx(lp_emd(p, q, k), abs=LP_TOL)


@pytest.mark.parametrize("k", [5, 6])
def test_network_simplex_equals_linear_program(k):
    rng = np.random.default_rng(10 + k)
    for trial in range(6):
        p, q = random_pair(rng, k, trial % 3)
        exact = hamming_emd_simplex(p - q, k)
        assert exact == pytest.approx(lp_emd(p, q, k), abs=LP_TOL)
        assert strong_lower_bound(p - q) <= exact + 1e-12


def test_product_distributions_have_closed_form_emd():
    # Two products of independent bits: EMD = sum over bits of |P1(ON) - P2(ON)|.
    on_1, on_2 = np.array([0.2, 0.9, 0.5]), np.array([0.6, 0.1, 0.5])
    bits = (np.arange(8)[:, None] >> np.arange(3)) & 1
    p = np.prod(np.where(bits == 1, on_1, 1 - on_1), axis=1)
    q = np.prod(np.where(bits == 1, on_2, 1 - on_2), axis=1)
    assert bernoulli_product_emd(on_1, on_2) == pytest.approx(lp_emd(p, q, 3), abs=1e-12)


def test_integer_transport_simplex_equals_linear_program():
    rng = np.random.default_rng(7)
    for _ in range(40):
        m, n = rng.integers(1, 9, size=2)
        a = rng.integers(0, 10**6, m).astype(float)
        b = rng.integers(0, 10**6, n).astype(float)
        b = np.floor(b * min(1.0, a.sum() / max(b.sum(), 1)))  # supplies >= demands
        cost = rng.integers(0, 10**6, (m, n)).astype(float)
        res = linprog(cost.ravel(), A_ub=sparse.kron(sparse.eye(m), np.ones((1, n))), b_ub=a,
                      A_eq=sparse.kron(np.ones((1, m)), sparse.eye(n)), b_eq=b, bounds=(0, None),
                      method="highs")
        assert min_cost_transport(a, b, cost) == res.fun


def test_pyemd_cpp_reference_values():
    # Outputs of pyemd 1.1.0, backend='cpp' (printed with repr).
    cost = np.array([[0, 5, 1, 2], [5, 0, 3, 1.5], [1, 3, 0, 4], [2, 1.5, 4, 0.0]])
    assert pyemd_emd(np.array([0.5, 0, 0, 0.2]), np.array([0, 0.3, 0.4, 0.0]), cost) == 1.1999994999999999
    # A negative bin (PyPhi's null concept when phi appears) is pre-flowed to the other side.
    assert pyemd_emd(np.array([0.5, 0, 0, 0.0]), np.array([0, 0.3, 0.4, -0.2]), cost) == 1.2000000000000002
    p, q = np.arange(1, 9) / 36.0, np.array([8, 1, 1, 1, 1, 1, 1, 22.0]) / 36.0
    assert pyemd_hamming(p, q) == 0.583332416667
    assert pyemd_hamming(np.array([1, 0, 0, 1, 0, 1, 1, 0.0]) / 4, np.full(8, 1 / 8)) == 0.49999950000000004
    p = np.arange(1, 33) / 528.0
    q = np.arange(32, 0, -1) ** 2 / np.sum(np.arange(32, 0, -1) ** 2.0)
    assert pyemd_hamming(p, q) == 1.185079


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_pyemd_rounding_stays_within_its_bound(k):
    rng = np.random.default_rng(20 + k)
    for trial in range(8):
        p, q = random_pair(rng, k, trial % 3)
        exact = lp_emd(p, q, k)
        assert abs(pyemd_hamming(p, q) - exact) <= quantization_bound(k)


@pytest.mark.parametrize("k", [1, 2, 4, 5])
def test_hypercube_simplex_with_free_excess_equals_transport(k):
    # pyemd's EMD-hat: the heavier histogram leaves its excess anywhere for free. With
    # costs proportional to the Hamming distance the hypercube network simplex with a
    # sink must give the transportation simplex's integer optimum.
    rng = np.random.default_rng(40 + k)
    hamming = (np.abs((np.arange(1 << k)[:, None] ^ np.arange(1 << k)[None, :])[..., None] >> np.arange(k) & 1)
               .sum(-1).astype(float))
    for _ in range(30):
        a = np.floor(rng.random(1 << k) ** 3 * 1e5)
        b = np.floor(rng.random(1 << k) ** 3 * 1e5)
        common = np.minimum(a, b)
        a, b = a - common, b - common  # disjoint supports, as pyemd leaves them
        if a.sum() < b.sum():
            a, b = b, a
        expected = min_cost_transport(a[a > 0], b[b > 0], hamming[np.ix_(a > 0, b > 0)]) if b.any() else 0.0
        assert hamming_emd_simplex(a - b, k, free_excess=True) == expected


def test_cost_rounding_is_relative_to_the_emd():
    # 1e6 / k rounded: exact multiples for k = 1, 2, 4, 5; off by 1e-6 of the distance at
    # k = 3 (333333, 666667, 1000000) and 2e-6 at k = 6.
    assert [cost_rounding_relative(k) for k in (1, 2, 4, 5)] == [0.0] * 4
    assert cost_rounding_relative(3) == pytest.approx(1e-6, rel=1e-3)
    assert cost_rounding_relative(6) == pytest.approx(2e-6, rel=1e-3)
    # pyemd's value is within the masses' rounding margin plus that fraction of the EMD.
    rng = np.random.default_rng(3)
    for k in (3, 4):
        for trial in range(8):
            p, q = random_pair(rng, k, trial % 3)
            exact = lp_emd(p, q, k)
            mass = float(quantization_margins(p, q[None, :], costs=False)[0])
            bound = mass + cost_rounding_relative(k) * (exact + mass)
            assert abs(pyemd_hamming(p, q) - exact) <= bound
            assert bound < quantization_bound(k)
