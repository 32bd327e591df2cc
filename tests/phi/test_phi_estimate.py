"""phi.estimate from data: convergence to the exact VAR(1) values, ensembles, options.

Reference values come from phi.analytical_var1, itself checked against hand-derived
closed forms in test_phi_closed_forms.py; sample covariances are recomputed here with
numpy.cov, independently of cognition.phi's estimator.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

from cognition import phi

# These tests pin the pooled-centring estimator (single series and few agents, docs/phi.md);
# the per-agent ensemble path is tested in tests/phi/test_phi_ensemble.py.
estimate_pooled = functools.partial(phi.estimate, centre="pooled")

A3 = np.array([[0.4, 0.3, 0.0], [0.0, 0.3, 0.4], [0.3, 0.0, 0.2]])
KEYS = ("tdmi", "phi_wms", "phi_r", "stochastic_interaction")


def test_monte_carlo_converges_to_analytical():
    exact = phi.analytical_var1(A3, np.eye(3))
    X = phi.simulate_var1(A3, np.eye(3), 400_000, seed=3)
    errors = []
    for T in (4_000, 40_000, 400_000):
        r = estimate_pooled(X[:T])
        assert r.n_samples == T - 1
        errors.append(max(abs(getattr(r, k) - getattr(exact, k)) for k in KEYS))
    # plug-in error shrinks ~ T^-1/2: a tenfold T should cut it well below half
    assert errors[2] < 0.01
    assert errors[2] < errors[0] / 3
    assert estimate_pooled(X).mib == exact.mib


def test_estimate_equals_measures_of_numpy_sample_covariance():
    X = phi.simulate_var1(A3, np.eye(3), 2_000, seed=1)
    pairs = np.concatenate([X[:-1], X[1:]], axis=1)           # rows (X_{t-1}, X_t)
    cov = np.cov(pairs, rowvar=False)                          # N - 1 normalisation
    r = estimate_pooled(X)
    m = phi.measures_at(cov[None], phi.mib_to_mask(r.mib[0], 3)[None])
    for key in KEYS:
        assert getattr(r, key) == pytest.approx(m[key][0], rel=1e-10)


def test_ensemble_pairs_are_formed_within_agents_and_pooled():
    X = phi.simulate_var1(A3, np.eye(3), 60, agents=5, seed=2)
    pairs = np.concatenate([np.concatenate([x[:-1], x[1:]], axis=1) for x in X])  # never across agents
    cov = np.cov(pairs, rowvar=False)
    r = estimate_pooled(X)
    assert r.n_samples == 5 * 59
    m = phi.measures_at(cov[None], phi.mib_to_mask(r.mib[0], 3)[None])
    assert r.phi_wms == pytest.approx(m["phi_wms"][0], rel=1e-10)


def test_fixed_shrinkage_is_the_convex_combination_with_scaled_identity():
    X = phi.simulate_var1(A3, np.eye(3), 500, seed=4)
    pairs = np.concatenate([X[:-1], X[1:]], axis=1)
    cov = np.cov(pairs, rowvar=False)
    lam = 0.3
    target = (1 - lam) * cov + lam * np.trace(cov) / 6 * np.eye(6)
    r = estimate_pooled(X, shrinkage=lam)
    m = phi.measures_at(target[None], phi.mib_to_mask(r.mib[0], 3)[None])
    assert r.phi_wms == pytest.approx(m["phi_wms"][0], rel=1e-10)
    assert "intensity 0.3" in r.method["covariance"]


def test_ledoit_wolf_intensity_matches_the_published_formula():
    # Ledoit & Wolf 2004, Lemma 3.3/Thm 3.1 written out directly on the centred pairs
    X = phi.simulate_var1(A3, np.eye(3), 150, seed=5)
    z = np.concatenate([X[:-1], X[1:]], axis=1)
    z = z - z.mean(0)
    N, p = z.shape
    S = z.T @ z / N
    mu = np.trace(S) / p
    d2 = np.sum((S - mu * np.eye(p)) ** 2)
    b2 = min(d2, sum(np.sum((np.outer(x, x) - S) ** 2) for x in z) / N**2)
    lam = b2 / d2
    r = estimate_pooled(X, shrinkage="ledoit-wolf")
    assert f"intensity {lam:.4g}" in r.method["covariance"]
    assert 0 < lam < 1


def test_bootstrap_interval_covers_the_truth_on_a_long_run():
    exact = phi.analytical_var1(A3, np.eye(3))
    X = phi.simulate_var1(A3, np.eye(3), 20_000, seed=6)
    r = estimate_pooled(X, bootstrap=100, seed=0)
    for key in ("phi_wms", "phi_r"):
        lo, hi = r.ci[key]
        assert lo < getattr(r, key) < hi
        assert lo < getattr(exact, key) < hi
    assert "blocks" in r.method["ci"]
    ensemble = estimate_pooled(phi.simulate_var1(A3, np.eye(3), 300, agents=20, seed=7), bootstrap=50, seed=0)
    assert "resampling agents" in ensemble.method["ci"]


def test_seed_makes_resampling_reproducible():
    X = phi.simulate_var1(A3, np.eye(3), 400, seed=8)
    a = estimate_pooled(X, bootstrap=30, surrogates=30, seed=11)
    b = estimate_pooled(X, bootstrap=30, surrogates=30, seed=11)
    assert a.ci == b.ci and a.p_value == b.p_value


def test_windows_match_estimate_on_each_window():
    X = phi.simulate_var1(A3, np.eye(3), 40, agents=4, seed=9)
    w = phi.estimate_windows(X, window=15, step=5, shrinkage="ledoit-wolf")
    assert list(w.starts) == [0, 5, 10, 15, 20, 25]
    for i, s in enumerate(w.starts):
        r = estimate_pooled(X[:, s:s + 15], shrinkage="ledoit-wolf")
        assert w.phi_wms[i] == pytest.approx(r.phi_wms, rel=1e-9)
        assert w.mib(i) == r.mib


def test_torch_device_matches_numpy():
    pytest.importorskip("torch")
    A = 0.8 * np.roll(np.eye(6), 1, axis=1) + 0.1
    A *= 0.9 / np.max(np.abs(np.linalg.eigvals(A)))
    X = phi.simulate_var1(A, np.eye(6), 3_000, seed=10)
    a = estimate_pooled(X, bootstrap=10, seed=1)
    b = estimate_pooled(X, bootstrap=10, seed=1, device="cpu")
    assert a.mib == b.mib
    for key in KEYS:
        assert getattr(b, key) == pytest.approx(getattr(a, key), rel=1e-9)
    assert b.ci["phi_wms"] == pytest.approx(a.ci["phi_wms"], rel=1e-9)


def test_the_defaults_are_reproducible_and_the_repr_leads_with_the_headline():
    # issue 44: two calls with the defaults gave 0.1233 and 0.1259 bits (the bias correction drew with seed=None)
    rng = np.random.default_rng(44)
    X = np.cumsum(rng.normal(size=(8, 120, 4)), axis=1) * 0.05 + rng.normal(size=(8, 120, 4))
    first, second = phi.estimate(X), phi.estimate(X)
    assert first.to_dict() == second.to_dict() and first.headline_bits == second.headline_bits
    assert phi.estimate(X, seed=None).headline_bits != phi.estimate(X, seed=None).headline_bits  # fresh entropy
    assert first.headline_bits == first.headline("phi_r") == first.bias_corrected["phi_r"] != first.phi_r
    text = repr(first)
    assert text.startswith(f"PhiResult(phi_r {first.headline_bits:.4g} bits (bias-corrected, mean of 8 agents'")
    assert f"plug-in phi_r {first.phi_r:.4g}" in text and "\n" not in text
