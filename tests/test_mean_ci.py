"""The report's CI of mean per-cycle Phi: a circular block bootstrap (Politis & Romano 1992).

Its resampled means centre on the series' own mean, since every value is drawn equally often;
the moving-block bootstrap it replaced drew the ends of the series less often, so with a value
at an end the interval could end at (or short of) its own estimate.
"""
import numpy as np
import pytest

from cognition.analysis import block_bootstrap_mean_ci


@pytest.mark.parametrize("T", [8, 10, 13])
def test_an_end_heavy_series_has_its_mean_inside_the_interval(T):
    x = np.zeros(T)
    x[-1] = 1.0  # all of the series' mass at its last cycle
    lo, hi = block_bootstrap_mean_ci(x, 6, 400, 0.95, 0)
    assert lo < x.mean() < hi


def test_resampling_is_centred_and_each_value_equally_likely():
    # with 2000 resamples the bootstrap mean of the interval's centre stays near the series mean
    rng = np.random.default_rng(1)
    x = np.cumsum(rng.normal(size=30))  # a random walk: strong trend, dependent values
    lo, hi = block_bootstrap_mean_ci(x, 6, 2000, 0.95, 0)
    assert lo < x.mean() < hi
    assert abs((lo + hi) / 2 - x.mean()) < 0.25 * (hi - lo)


def test_no_interval_from_one_block():
    assert block_bootstrap_mean_ci(np.arange(6.0), 6, 100, 0.95, 0) is None
