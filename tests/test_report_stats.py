"""The test between runs: bootstrap standard error over agents, normal interval, Holm adjustment."""
from __future__ import annotations

import math

import numpy as np
import pytest
from test_report_bands import COUPLED, INDEPENDENT, simulate

from cognition.reporting.bands import phi_bands
from cognition.reporting.stats import bootstrap_difference, holm

SETTINGS = dict(measure="phi_r", window=12, lag=1, shrinkage="ledoit-wolf", seed=0, bootstrap=100,
                surrogates=0, confidence=0.95)


def test_normal_interval_and_p_value_match_the_closed_form():
    rng = np.random.default_rng(0)
    a_reps, b_reps = 0.30 + 0.03 * rng.normal(size=400), 0.22 + 0.04 * rng.normal(size=300)
    r = bootstrap_difference(0.30, a_reps, 0.22, b_reps)
    se = math.sqrt(np.var(a_reps, ddof=1) + np.var(b_reps, ddof=1))
    # two-sided normal p-value and 95 % interval written out: p = erfc(|z| / sqrt 2), z_0.975 = 1.959964
    assert r["p_value"] == pytest.approx(math.erfc(0.08 / se / math.sqrt(2)), rel=1e-9)
    assert r["ci"] == pytest.approx([0.08 - 1.959964 * se, 0.08 + 1.959964 * se], rel=1e-6)
    assert se == pytest.approx(0.05, rel=0.1)  # sqrt(0.03^2 + 0.04^2)


def test_too_few_replicates_is_an_error():
    with pytest.raises(ValueError, match="at least 2 bootstrap replicates"):
        bootstrap_difference(0.1, [0.1], 0.2, [0.2, 0.3])


def test_holm_by_hand():
    # Holm (1979): sorted p (0.01, 0.03, 0.04) times (3, 2, 1), made monotone: 0.03, 0.06, 0.06
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.6, 0.5]) == pytest.approx([1.0, 1.0])


def _test(A, B, seeds):
    a, b = (phi_bands(simulate(M, T=50, seed=s), **SETTINGS) for M, s in zip((A, B), seeds))
    return bootstrap_difference(a["mean_bits"], a["replicate_means_bits"], b["mean_bits"], b["replicate_means_bits"])


def test_an_independent_and_a_coupled_system_differ():
    r = _test(INDEPENDENT, COUPLED, (1, 2))
    assert r["difference"] < 0 and r["ci"][1] < 0 and r["p_value"] < 0.05


@pytest.mark.slow
def test_size_under_the_null_hypothesis():
    """Two runs of the same system: the test rejects at alpha = 0.05 about 5 % of the time
    (binomial, 120 pairs: 95 % of rates fall in [0.017, 0.092])."""
    rejections = [_test(COUPLED, COUPLED, (100 + 2 * i, 101 + 2 * i))["p_value"] < 0.05 for i in range(120)]
    assert 0.01 <= np.mean(rejections) <= 0.10
