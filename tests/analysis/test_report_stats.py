"""The tests between runs: Welch's t across runs; the z test of two runs' headlines with their agents'
standard errors; Holm."""
from __future__ import annotations

import math

import numpy as np
import pytest

from cognition.analysis.statistics import holm, independent_difference, welch_difference


def test_independent_difference_matches_the_wald_test_by_hand():
    # The Wald test of two independent means (Wasserman 2004, All of Statistics, sec. 10.1):
    # se = sqrt(se_a^2 + se_b^2) = sqrt(0.03^2 + 0.04^2) = 0.05 (a 3-4-5 triangle), z = 0.08 / 0.05 = 1.6,
    # two-sided p = 2 (1 - Phi(1.6)) = erfc(1.6 / sqrt 2) = 0.1096 (normal table: Phi(1.6) = 0.9452),
    # 95 % interval 0.08 +- 1.959964 * 0.05
    r = independent_difference(0.30, 0.03, 0.22, 0.04)
    assert r["difference"] == pytest.approx(0.08, abs=1e-15)
    assert r["standard_error"] == pytest.approx(0.05, abs=1e-15) and r["z"] == pytest.approx(1.6, abs=1e-12)
    assert r["p_value"] == pytest.approx(math.erfc(1.6 / math.sqrt(2)), rel=1e-12)
    assert r["p_value"] == pytest.approx(0.1096, abs=5e-5)
    assert r["ci"] == pytest.approx([0.08 - 1.959964 * 0.05, 0.08 + 1.959964 * 0.05], abs=1e-8)
    assert r["confidence"] == 0.95 and "sqrt(se_a^2 + se_b^2)" in r["method"]
    # a 90 % interval uses z_0.95 = 1.6448536; the sign follows a - b
    r = independent_difference(0.22, 0.04, 0.30, 0.03, confidence=0.90)
    assert r["z"] == pytest.approx(-1.6, abs=1e-12)
    assert r["ci"] == pytest.approx([-0.08 - 1.6448536 * 0.05, -0.08 + 1.6448536 * 0.05], abs=1e-8)


def test_independent_difference_without_spread():
    r = independent_difference(0.2, 0.0, 0.2, 0.0)
    assert (r["difference"], r["ci"], r["z"], r["p_value"]) == (0.0, [0.0, 0.0], 0.0, 1.0)
    r = independent_difference(0.3, 0.0, 0.2, 0.0)
    assert r["z"] == math.inf and r["p_value"] == 0.0


@pytest.mark.parametrize("args", [(float("nan"), 0.1, 0.2, 0.1), (0.1, None, 0.2, 0.1), (0.1, 0.1, 0.2, -0.1),
                                  (0.1, 0.1, 0.2, float("inf"))])
def test_independent_difference_needs_finite_inputs(args):
    with pytest.raises(ValueError, match="finite estimates and standard errors >= 0"):
        independent_difference(*args)


def test_independent_difference_size_with_32_agents_per_run():
    """Two runs of 32 agents each from one distribution, each run's headline the agents' mean and its standard
    error sd / sqrt(32): the z test rejects at alpha = 0.05 in about 5 %. With estimated standard errors the
    statistic is Welch's t with about 62 df, so the normal approximation's exact level is
    2 P(T_62 > 1.959964) = 0.0545; 4000 draws: binomial 95 % range of the rate about [0.047, 0.062]."""
    rng = np.random.default_rng(0)
    values = rng.normal(0.1, 0.2, size=(4000, 2, 32))
    means, ses = values.mean(axis=2), values.std(axis=2, ddof=1) / math.sqrt(32)
    ps = [independent_difference(m[0], s[0], m[1], s[1])["p_value"] for m, s in zip(means, ses)]
    assert 0.04 <= np.mean(np.array(ps) < 0.05) <= 0.07


def test_holm_by_hand():
    # Holm (1979): sorted p (0.01, 0.03, 0.04) times (3, 2, 1), made monotone: 0.03, 0.06, 0.06
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.6, 0.5]) == pytest.approx([1.0, 1.0])


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
