"""The shared course removed at each agent's latency (cognition.phi.agents.remove_shared_course, issue 42).

Sources: the generator's construction (a drive reaching each agent with a lag drawn per agent, no coupling
within agents, so every within-agent correlation between units is 0 beyond the drive); Woody (1967) for the
alignment; the false-positive rates of the estimate on this family are measured by
``python -m cognition.bench calibration`` (docs/calibration.md), not here.
"""
from __future__ import annotations

import numpy as np

from cognition.phi import calibration as C
from cognition.phi.agents import aligned_latencies, remove_shared_course, shifted, standardise_per_agent


def _within_minus_across(Z: np.ndarray) -> float:
    """T x (mean squared correlation between units within agents - the same between agents)."""
    A, T, n = Z.shape
    off = ~np.eye(n, dtype=bool)
    within = np.mean([np.mean((Z[a].T @ Z[a] / T)[off] ** 2) for a in range(A)])
    across = np.mean([np.mean((Z[a].T @ Z[b] / T)[off] ** 2) for a in range(A) for b in range(A) if a != b])
    return float(T * (within - across))


def test_shifted_moves_each_agent_by_its_own_lag_and_holds_the_edges():
    Z = np.arange(2 * 5 * 1, dtype=float).reshape(2, 5, 1)
    out = shifted(Z, np.array([1, -2]))
    assert out[0, :, 0].tolist() == [1, 2, 3, 4, 4]
    assert out[1, :, 0].tolist() == [5, 5, 5, 6, 7]
    # against the definition, one index per agent and time step (what shifted computed before issue 45), with
    # leading batch dimensions and a template broadcast over the agents
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((3, 6, 40, 2))
    lags = rng.integers(-3, 4, size=(3, 6))
    index = np.clip(np.arange(40) + lags[..., None], 0, 39)
    expected = np.take_along_axis(Z, np.broadcast_to(index[..., None], Z.shape), axis=-2)
    assert np.array_equal(shifted(Z, lags), expected)
    one = Z[:, :1]
    assert np.array_equal(shifted(np.broadcast_to(one, Z.shape), lags),
                          np.take_along_axis(np.broadcast_to(one, Z.shape), np.broadcast_to(index[..., None], Z.shape),
                                             axis=-2))


def test_woody_alignment_recovers_known_latencies():
    # a strong common course, each agent shifted by a known lag: the alignment finds the lags up to one offset
    rng = np.random.default_rng(0)
    course = np.convolve(rng.standard_normal(130), [1.0, 0.5, 0.25], mode="same")
    lags = rng.integers(0, 4, size=12)
    X = np.stack([course[10 - l:10 - l + 100] for l in lags])[:, :, None] + 0.2 * rng.standard_normal((12, 100, 3))
    found = aligned_latencies(standardise_per_agent(X), 3)
    assert np.all(np.diff(found - lags) == 0)          # the same offset for every agent (alignment is relative)


def test_a_drive_with_per_agent_latency_is_removed_where_the_same_step_template_leaves_it():
    # issue 42: the same-step template (max_latency=0) leaves a lagged copy in every agent; measured at this
    # seed 5.4 (same step) against -0.4 (aligned), in units of T x squared correlation (independent: ~0)
    rng = np.random.default_rng(3)
    X = C.lagged_drive(rng, 32, 500, 6, lags=(0, 1, 2))
    assert _within_minus_across(remove_shared_course(X, max_latency=0)) > 3.0
    assert abs(_within_minus_across(remove_shared_course(X))) < 1.0


def test_nothing_of_an_agent_enters_its_own_template():
    # cross-fitting: agent 0 builds only the templates of the other half, so replacing its series leaves
    # every other agent of its own half exactly as it was
    rng = np.random.default_rng(5)
    X = C.lagged_drive(rng, 9, 60, 3)
    Y = X.copy()
    Y[0] = rng.standard_normal((60, 3))
    a, b = remove_shared_course(X), remove_shared_course(Y)
    same_half = np.arange(9) % 2 == 0
    # agents of agent 0's half are prepared from the other half's templates, which agent 0 is not in
    np.testing.assert_array_equal(a[same_half][1:], b[same_half][1:])


def test_lagged_products_are_the_sums_over_overlapping_times():
    # the latency search's products against their definition, sum over t of Z(t + c) m(t) where both exist,
    # at lengths below, at and above the shared middle's threshold (4 L + 2)
    from cognition.phi.agents import _lagged_products

    rng = np.random.default_rng(0)
    for T in (9, 13, 14, 50, 301):
        Z, m = rng.standard_normal((2, 3, T)), rng.standard_normal((2, 3, T))
        expected = np.stack([sum(Z[..., t + c] * m[..., t] for t in range(T) if 0 <= t + c < T)
                             for c in range(-3, 4)], axis=-1)
        np.testing.assert_allclose(_lagged_products(Z, m, 3), expected, rtol=0, atol=1e-12)


def test_shifted_in_either_layout_when_every_agent_has_the_same_lag():
    # the single-lag path (every agent selected at once) in both layouts, against the index definition
    rng = np.random.default_rng(2)
    Z = rng.standard_normal((3, 5, 30, 2))
    for lag in (-3, 0, 2):
        lags = np.full((3, 5), lag)
        index = np.clip(np.arange(30) + lag, 0, 29)
        assert np.array_equal(shifted(Z, lags), Z[:, :, index, :])
        time_last = np.swapaxes(Z, -1, -2)
        assert np.array_equal(shifted(time_last, lags, axis=-1), time_last[..., index])


def test_shifted_per_agent_on_long_series_in_either_layout():
    # series of at least SHIFT_ROW_VALUES values an agent are copied agent by agent: the same values as the index
    from cognition.phi.agents import SHIFT_ROW_VALUES

    rng = np.random.default_rng(4)
    T = SHIFT_ROW_VALUES // 2 + 3
    Z = rng.standard_normal((2, 4, T, 2))
    lags = rng.integers(-3, 4, size=(2, 4))
    index = np.clip(np.arange(T) + lags[..., None], 0, T - 1)
    expected = np.take_along_axis(Z, np.broadcast_to(index[..., None], Z.shape), axis=-2)
    assert np.array_equal(shifted(Z, lags), expected)
    assert np.array_equal(shifted(np.swapaxes(Z, -1, -2), lags, axis=-1), np.swapaxes(expected, -1, -2))
    one = Z[:, :1]   # a template broadcast over the agents
    assert np.array_equal(shifted(np.broadcast_to(one, Z.shape), lags),
                          np.take_along_axis(np.broadcast_to(one, Z.shape), np.broadcast_to(index[..., None], Z.shape),
                                             axis=-2))
