"""Conjunction fallacy (Busemeyer, Pothos, Franco & Trueblood 2011, Psych Review 118:193)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cognition import decision


def _ray(angle):
    """Projector onto the unit vector at ``angle`` (radians) in the real plane."""
    u = np.array([math.cos(angle), math.sin(angle)])
    return np.outer(u, u)


def _random_projector(rng, d, rank):
    z = rng.normal(size=(d, d)) + 1j * rng.normal(size=(d, d))
    q = np.linalg.qr(z)[0][:, :rank]
    return q @ q.conj().T


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(2, 8), data=st.data())
def test_double_fallacy_never_occurs(seed, d, data):
    # ||P_B P_A psi||^2 <= ||P_A psi||^2: a projection never lengthens a vector.
    rng = np.random.default_rng(seed)
    psi = rng.normal(size=d) + 1j * rng.normal(size=d)
    psi /= np.linalg.norm(psi)
    p_a = _random_projector(rng, d, data.draw(st.integers(0, d)))
    p_b = p_a if data.draw(st.booleans()) else _random_projector(rng, d, data.draw(st.integers(0, d)))
    judged = decision.conjunction_judgment(psi, p_a, p_b)
    assert not judged.double_fallacy
    assert judged.p_conjunction <= max(judged.p_a, judged.p_b) + 1e-12
    assert judged.p_a_then_b <= judged.p_a + 1e-12 and judged.p_b_then_a <= judged.p_b + 1e-12


def test_linda_single_fallacy_in_the_plane():
    # Belief state along the x axis; "feminist" (F) at 40 degrees, "bank teller" (BT) at
    # 85 degrees. P(F) = cos^2 40, P(BT) = cos^2 85; F is more likely, so judged first:
    # P(F and BT) = cos^2 40 * cos^2 45 = .2934 > P(BT) = .0076 (worked by hand).
    f, bt = math.radians(40), math.radians(85)
    judged = decision.conjunction_judgment([1.0, 0.0], _ray(f), _ray(bt))
    assert judged.p_a == pytest.approx(math.cos(f) ** 2, abs=1e-12)
    assert judged.p_b == pytest.approx(math.cos(bt) ** 2, abs=1e-12)
    assert judged.p_conjunction == pytest.approx(math.cos(f) ** 2 * math.cos(bt - f) ** 2, abs=1e-12)
    assert judged.single_fallacy and not judged.double_fallacy
    # Order matters: the other order gives cos^2 85 cos^2 45, below P(BT) (no fallacy).
    assert judged.p_b_then_a == pytest.approx(math.cos(bt) ** 2 * math.cos(bt - f) ** 2, abs=1e-12)


def test_single_fallacy_is_common_for_random_real_judgments():
    rng = np.random.default_rng(2011)
    hits = 0
    for _ in range(500):
        state_angle, a, b = rng.uniform(0, math.pi, 3)
        judged = decision.conjunction_judgment([math.cos(state_angle), math.sin(state_angle)], _ray(a), _ray(b))
        hits += judged.single_fallacy
        assert not judged.double_fallacy
    assert 0.05 < hits / 500 < 0.95


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(2, 8))
def test_commuting_projectors_are_classical_and_never_err(seed, d):
    # Classical twin: events as subsets of one basis (diagonal projectors) commute, and
    # ||P_B P_A psi||^2 is the probability of the intersection, <= both events.
    rng = np.random.default_rng(seed)
    psi = rng.normal(size=d) + 1j * rng.normal(size=d)
    psi /= np.linalg.norm(psi)
    in_a, in_b = rng.integers(0, 2, d).astype(float), rng.integers(0, 2, d).astype(float)
    judged = decision.conjunction_judgment(psi, np.diag(in_a), np.diag(in_b))
    weights = np.abs(psi) ** 2
    assert judged.p_conjunction == pytest.approx(float(weights @ (in_a * in_b)), abs=1e-12)
    assert not judged.single_fallacy
