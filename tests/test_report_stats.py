"""The tests between runs: Welch's t across runs; bootstrap standard error over agents, normal interval; Holm."""
from __future__ import annotations

import math

import numpy as np
import pytest
from test_report_bands import COUPLED, INDEPENDENT, simulate

from cognition.reporting.bands import phi_bands
from cognition.reporting.stats import bootstrap_difference, holm, welch_difference

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


# R's t.test(extra ~ group, data = sleep) on Student's (1908) sleep data, as printed in R's documentation
# and countless textbooks: t = -1.8608, df = 17.776, p-value = 0.07939, 95 % CI -3.3654832 0.2054832
SLEEP_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
SLEEP_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]


def test_welch_matches_rs_t_test_on_the_sleep_data():
    r = welch_difference(SLEEP_1, SLEEP_2)
    assert r["difference"] == pytest.approx(0.75 - 2.33, abs=1e-12)
    assert r["t"] == pytest.approx(-1.8608, abs=5e-5) and r["df"] == pytest.approx(17.776, abs=5e-4)
    assert r["p_value"] == pytest.approx(0.07939, abs=5e-6)
    assert r["ci"] == pytest.approx([-3.3654832, 0.2054832], abs=5e-8)
    assert r["n"] == [10, 10]


def test_welch_needs_two_finite_values_per_condition():
    with pytest.raises(ValueError, match="at least 2 finite per-run values"):
        welch_difference([0.1], [0.2, 0.3])
    with pytest.raises(ValueError, match="at least 2 finite per-run values"):
        welch_difference([0.1, float("nan")], [0.2, 0.3])


def test_welch_size_on_normal_groups_of_five():
    """Welch's t on 5 vs 5 draws of one normal distribution (H0 true, equal spreads): rejects
    at alpha = 0.05 in about 5 % (2000 draws: binomial 95 % range of the rate [0.041, 0.060])."""
    rng = np.random.default_rng(0)
    ps = [welch_difference(rng.normal(size=5), rng.normal(size=5))["p_value"] for _ in range(2000)]
    assert 0.035 <= np.mean(np.array(ps) < 0.05) <= 0.06
