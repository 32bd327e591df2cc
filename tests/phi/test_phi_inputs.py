"""Bad input to cognition.phi is a ValueError that names the problem, never a silent NaN."""
from __future__ import annotations

import functools

import json
import subprocess
import sys

import numpy as np
import pytest

from cognition import phi

# These tests pin the pooled-centring estimator (single series and few agents, docs/phi.md);
# the per-agent ensemble path is tested in tests/phi/test_phi_ensemble.py.
estimate_pooled = functools.partial(phi.estimate, centre="pooled")


def test_non_stationary_A_is_rejected():
    with pytest.raises(ValueError, match=r"not stationary: spectral radius 1\.1 >= 1"):
        phi.analytical_var1(np.diag([1.1, 0.2]), np.eye(2))
    with pytest.raises(ValueError, match="spectral radius 1 >= 1"):
        phi.analytical_var1(np.array([[0.0, 1.0], [1.0, 0.0]]), np.eye(2))


def test_non_positive_definite_noise_is_rejected():
    with pytest.raises(ValueError, match="noise_cov is not positive definite"):
        phi.analytical_var1(0.1 * np.eye(2), np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="noise_cov is not symmetric"):
        phi.analytical_var1(0.1 * np.eye(2), np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match=r"noise_cov must have shape \(2, 2\)"):
        phi.analytical_var1(0.1 * np.eye(2), np.eye(3))


def test_nan_in_data_is_rejected():
    X = np.random.default_rng(0).normal(size=(100, 3))
    X[17, 2] = np.nan
    with pytest.raises(ValueError, match=r"X contains 1 NaN value\(s\) \(first at index \(0, 17, 2\)"):
        estimate_pooled(X)
    X[17, 2] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        estimate_pooled(X)


def test_fewer_samples_than_variables_is_rejected():
    X = np.random.default_rng(0).normal(size=(8, 6))  # 7 lagged pairs for 12 variables
    with pytest.raises(ValueError, match=r"7 lagged samples for 12 variables .* at least 13"):
        estimate_pooled(X)
    with pytest.raises(ValueError, match="lagged samples"):
        estimate_pooled(X, shrinkage="ledoit-wolf")


def test_degenerate_data_is_rejected():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    X[:, 1] = 4.0
    with pytest.raises(ValueError, match="node 1 of X is constant"):
        estimate_pooled(X)
    X[:, 1] = X[:, 0] + X[:, 2]
    with pytest.raises(ValueError, match="singular .* shrinkage='ledoit-wolf'"):
        estimate_pooled(X)
    # shrinkage regularises the same data into a finite answer
    assert np.isfinite(estimate_pooled(X, shrinkage=0.1).phi_wms)


@pytest.mark.parametrize("kwargs, message", [
    ({"lag": 0}, "lag must be an integer >= 1"),
    ({"shrinkage": 1.5}, "shrinkage must be None, 'ledoit-wolf' or a float in"),
    ({"shrinkage": "oas"}, "shrinkage must be"),
    ({"bootstrap": -1}, "bootstrap must be an integer from 0 to 10000"),
    ({"surrogates": 2.5}, "surrogates must be an integer from 0 to 10000"),
    ({"surrogates": 10**8}, "surrogates must be an integer from 0 to 10000, got 100000000"),  # issue 43
    ({"confidence": 1.0}, r"confidence must be a float in \(0, 1\)"),
    ({"search": "greedy"}, "search must be one of"),
    ({"bootstrap": 10, "resample": "agents"}, "at least 2 agents"),
])
def test_bad_options_are_rejected(kwargs, message):
    X = np.random.default_rng(0).normal(size=(100, 3))
    with pytest.raises(ValueError, match=message):
        estimate_pooled(X, **kwargs)


def test_bad_shapes_are_rejected():
    with pytest.raises(ValueError, match=r"shape \(T, n\) or \(agents, T, n\)"):
        estimate_pooled(np.zeros(10))
    with pytest.raises(ValueError, match="needs at least 2 nodes"):
        estimate_pooled(np.zeros((10, 1)))
    with pytest.raises(ValueError, match="A must be a square"):
        phi.analytical_var1(np.zeros((2, 3)), np.eye(2))


def test_result_is_json_serialisable():
    X = phi.simulate_var1(0.3 * np.ones((3, 3)) / 3, np.eye(3), 300, seed=1)
    d = estimate_pooled(X, bootstrap=20, surrogates=20, seed=2).to_dict()
    back = json.loads(json.dumps(d))
    assert back["mib"][0][0] == 0
    assert set(back["ci"]) == {"phi_wms", "phi_r"} and set(back["p_value"]) == {"phi_wms", "phi_r"}


def test_import_stays_light():
    # cognition.phi is math on arrays: no torch, qiskit or matplotlib at import time
    code = ("import sys, cognition.phi; "
            "print([m for m in ('torch', 'qiskit', 'matplotlib') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
