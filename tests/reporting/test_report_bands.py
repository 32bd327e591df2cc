"""Per-cycle bands of Phi on systems whose Phi is known in closed form (stationary Gaussian VAR(1),
cognition.phi.analytical_var1: Barrett & Seth 2011): zero for independent units, positive for coupled ones."""
from __future__ import annotations

import numpy as np
import pytest

from cognition import phi
from cognition.phi.resampling import circular_shift
from cognition.reporting.bands import phi_bands

N = 4
INDEPENDENT = 0.5 * np.eye(N)
COUPLED = 0.12 * np.ones((N, N)) + 0.3 * np.eye(N)  # every unit drives every other; spectral radius 0.78
SETTINGS = dict(measure="phi_r", window=20, lag=1, shrinkage="ledoit-wolf", seed=0, bootstrap=100,
                surrogates=100, confidence=0.95)


def simulate(A, agents=8, T=60, seed=1, burn=100):
    """(agents, T, n) samples of X_t = A X_{t-1} + e_t, e_t ~ N(0, I), after a burn-in."""
    rng = np.random.default_rng(seed)
    X = np.zeros((agents, T + burn, len(A)))
    for t in range(1, T + burn):
        X[:, t] = X[:, t - 1] @ A.T + rng.normal(size=(agents, len(A)))
    return X[:, burn:]


def test_circular_shift_rotates_each_unit_of_each_agent():
    X = np.random.default_rng(0).normal(size=(3, 30, 4))
    S = circular_shift(X, np.random.default_rng(1))
    m = 30 // 10
    for a in range(3):
        np.testing.assert_array_equal(S[a, :, 0], X[a, :, 0])  # unit 0 stays put
        for i in range(1, 4):
            offsets = [k for k in range(30) if np.array_equal(S[a, :, i], np.roll(X[a, :, i], -k))]
            assert len(offsets) == 1 and m <= offsets[0] <= 30 - m


def test_independent_units_stay_inside_the_null_band():
    assert phi.analytical_var1(INDEPENDENT, np.eye(N), lag=1).phi_r == pytest.approx(0.0, abs=1e-12)
    b = phi_bands(simulate(INDEPENDENT), **SETTINGS)
    assert b["cycles"] == list(range(20, 61, b["step_cycles"])) and b["n_cycles"] == len(b["cycles"])
    assert b["cycles_above_null"] <= 2  # each cycle has a 2.5 % chance under H0
    assert np.median(b["p_values"]) > 0.2
    lo, hi = np.array(b["ci_bits"]).T
    assert np.mean((lo <= 0.0) & (0.0 <= hi)) >= 0.8  # the band covers the true value, 0 bits


def test_coupled_units_rise_above_the_null_band():
    truth = phi.analytical_var1(COUPLED, np.eye(N), lag=1).phi_r
    assert truth > 0.1
    b = phi_bands(simulate(COUPLED), **SETTINGS)
    assert b["cycles_above_null"] >= 0.75 * b["n_cycles"]
    assert np.median(b["p_values"]) < 0.05
    assert "100 replicates resampling agents" in b["ci_method"] and len(b["ci_bits"]) == b["n_cycles"]


def test_bands_are_a_deterministic_function_of_data_and_seed():
    X = simulate(COUPLED, T=30)
    assert phi_bands(X, **SETTINGS) == phi_bands(X, **SETTINGS)
    assert phi_bands(X, **{**SETTINGS, "seed": 1})["null_bits"] != phi_bands(X, **SETTINGS)["null_bits"]


def test_few_agents_get_no_bootstrap_band_but_a_null_band():
    b = phi_bands(simulate(COUPLED, agents=4, T=40), **{**SETTINGS, "window": 30})
    assert b["ci_bits"] is None and "at least 8 agents" in b["ci_method"]
    assert b["null_bits"] is not None


def test_a_run_shorter_than_the_window_has_a_note():
    b = phi_bands(simulate(COUPLED, T=10), **SETTINGS)
    assert set(b) == {"note"} and "fewer than the Phi window of 20" in b["note"]
