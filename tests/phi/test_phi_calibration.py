"""Calibration of phi.estimate's bootstrap CI against the exact VAR(1) value (slow).

Issue 3, item 2: on 200 000 samples of a simulated VAR(1), the estimate's own 95 % CI
contains the analytical value in at least 90 % of 50 seeds. For an exactly calibrated
interval the count is Binomial(50, 0.95); P(count < 45) = 0.038.
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


@pytest.mark.slow
def test_bootstrap_ci_is_calibrated_on_200k_samples():
    exact = phi.analytical_var1(A3, np.eye(3))
    runs = phi.simulate_var1(A3, np.eye(3), 200_000, agents=50, seed=0)   # 50 independent series
    covered = {"phi_wms": 0, "phi_r": 0}
    for seed, X in enumerate(runs):
        r = estimate_pooled(X, bootstrap=200, confidence=0.95, seed=seed)
        assert r.n_samples == 199_999
        for key in covered:
            lo, hi = r.ci[key]
            covered[key] += lo <= getattr(exact, key) <= hi
    assert covered["phi_wms"] >= 45, covered
    assert covered["phi_r"] >= 45, covered
