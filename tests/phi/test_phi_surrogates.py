"""The circular-shift null model and the bootstrap CI on data whose nodes are independent.

Independent nodes have Phi_WMS = Phi_R = 0 for every bipartition (the whole's TDMI is the
sum of the parts', and cross-part information is zero), so a valid null model gives
p-values that are uniform on (0, 1] (Davison & Hinkley 1997, Sec. 4.2) and a valid CI
covers 0 about as often as its confidence level says.
"""
from __future__ import annotations

import functools

import numpy as np
import scipy.stats

from cognition import phi

# These tests pin the pooled-centring estimator (single series and few agents, docs/phi.md);
# the per-agent ensemble path is tested in tests/phi/test_phi_ensemble.py.
estimate_pooled = functools.partial(phi.estimate, centre="pooled")

# three independent AR(1) nodes with strong, different autocorrelations: the null must
# keep each node's own dynamics (a plain shuffle would not)
INDEPENDENT = np.diag([0.6, 0.3, -0.5])


def test_p_value_is_uniform_on_independent_single_series():
    p = [estimate_pooled(phi.simulate_var1(INDEPENDENT, np.eye(3), 200, seed=s), surrogates=49, seed=10_000 + s)
         .p_value for s in range(150)]
    for key in ("phi_wms", "phi_r"):
        values = np.array([v[key] for v in p])
        assert scipy.stats.kstest(values, "uniform").pvalue > 0.01
        assert 0.02 < np.mean(values <= 0.1) < 0.2      # about 10 % below 0.1


def test_p_value_is_uniform_on_independent_ensemble():
    p = [estimate_pooled(phi.simulate_var1(INDEPENDENT, np.eye(3), 30, agents=8, seed=s),
                      surrogates=49, shrinkage="ledoit-wolf", seed=20_000 + s).p_value["phi_wms"]
         for s in range(120)]
    assert scipy.stats.kstest(p, "uniform").pvalue > 0.01


def test_ci_covers_zero_on_independent_nodes():
    covered = []
    for s in range(60):
        X = phi.simulate_var1(INDEPENDENT, np.eye(3), 300, seed=30_000 + s)
        r = estimate_pooled(X, bootstrap=99, seed=s)
        covered.append(all(r.ci[k][0] <= 0.0 <= r.ci[k][1] for k in ("phi_wms", "phi_r")))
    assert np.mean(covered) >= 0.85
    ensemble = [estimate_pooled(phi.simulate_var1(INDEPENDENT, np.eye(3), 40, agents=10, seed=40_000 + s),
                             bootstrap=99, seed=s).ci["phi_wms"] for s in range(40)]
    assert np.mean([lo <= 0.0 <= hi for lo, hi in ensemble]) >= 0.85


def test_coupled_system_is_distinguished_from_zero():
    A = np.array([[0.3, 0.4, 0.0], [0.0, 0.3, 0.4], [0.4, 0.0, 0.3]])
    r = estimate_pooled(phi.simulate_var1(A, np.eye(3), 2_000, seed=1), bootstrap=99, surrogates=99, seed=2)
    assert r.p_value["phi_wms"] == 0.01 and r.p_value["phi_r"] == 0.01   # (1 + 0) / (1 + 99)
    assert r.ci["phi_wms"][0] > 0 and r.ci["phi_r"][0] > 0
    assert "circular-shift" in r.method["null_model"]
