"""quantum.readout against direct sums over basis states, and the inverse-transform shot sampler.

Reference: <Z_q> = sum_k p_k (1 - 2 bit_q(k)), P(q=1) = sum_k p_k bit_q(k), <Z_a Z_b> the product of
the two signs, computed here with integer bit arithmetic per basis state.
"""
import numpy as np
import pytest
import torch
from scipy import stats

from quantum import readout


@pytest.mark.parametrize("n", [3, 6, readout.TABLE_MAX_QUBITS, readout.TABLE_MAX_QUBITS + 1])
def test_expectations_equal_direct_sums_on_both_paths(n):
    rng = np.random.default_rng(n)
    p = rng.random((5, 1 << n))
    p /= p.sum(axis=1, keepdims=True)
    pairs = [(0, 1), (n - 1, 0), (1, n - 1)]
    bits = (np.arange(1 << n)[:, None] >> np.arange(n)) & 1
    signs = 1 - 2 * bits
    np.testing.assert_allclose(readout.z_expectations(p, n), p @ signs, rtol=0, atol=1e-14)
    np.testing.assert_allclose(readout.one_probabilities(p, n), p @ bits, rtol=0, atol=1e-14)
    zz = np.stack([p @ (signs[:, a] * signs[:, b]) for a, b in pairs], axis=1)
    np.testing.assert_allclose(readout.zz_expectations(p, n, pairs), zz, rtol=0, atol=1e-14)


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_parities_are_every_subsets_sign_sum_and_leave_the_input_alone(n):
    # reference: sum_k p_k (-1)^popcount(k & m) for every subset m, by integer bit counting
    p = np.random.default_rng(n).random((4, 1 << n))
    before = p.copy()
    signs = np.array([[(-1) ** bin(k & m).count("1") for m in range(1 << n)] for k in range(1 << n)])
    np.testing.assert_allclose(readout.parities(p, n).numpy(), p @ signs, rtol=0, atol=1e-14)
    assert np.array_equal(p, before)


def test_expectations_of_a_row_do_not_depend_on_the_batch():
    rng = np.random.default_rng(1)
    p = rng.random((257, 64))
    p /= p.sum(axis=1, keepdims=True)
    whole = readout.z_zz_expectations(p, 6, [(0, 1), (2, 5)])
    for row in (0, 100, 256):
        alone = readout.z_zz_expectations(p[row:row + 1], 6, [(0, 1), (2, 5)])
        assert all(np.array_equal(w[row], a[0]) for w, a in zip(whole, alone))


def test_inverse_transform_counts_follow_the_probabilities_and_skip_impossible_outcomes():
    p = np.array([[0.5, 0.0, 0.25, 0.25], [0.0, 0.0, 0.0, 1.0]])
    u = np.random.default_rng(3).random((2, 40_000))
    counts = readout.sample_counts(p, u)
    assert counts.sum(axis=1).tolist() == [40_000, 40_000]
    assert counts[0, 1] == 0 and counts[1].tolist() == [0, 0, 0, 40_000]
    assert stats.chisquare(counts[0, [0, 2, 3]], 40_000 * np.array([0.5, 0.25, 0.25])).pvalue > 1e-3
    # the edges: u = 0 is the first possible outcome, u just below 1 the last
    edge = readout.sample_counts(p[:1], np.array([[0.0, 1.0 - 2.0**-53]]))
    assert edge[0].tolist() == [1, 0, 0, 1]


def test_product_counts_are_independent_bernoulli_qubits():
    marginals = np.array([[0.2, 0.7, 0.5]])
    u = np.random.default_rng(4).random((1, 50_000, 3))
    counts = readout.product_counts(marginals, u)
    ones = [(counts[0] * ((np.arange(8) >> q) & 1)).sum() for q in range(3)]
    for q in range(3):
        assert abs(ones[q] / 50_000 - marginals[0, q]) < 5 * np.sqrt(0.25 / 50_000)
    both = counts[0, 3] + counts[0, 7]  # qubits 0 and 1 both 1
    assert abs(both / 50_000 - 0.2 * 0.7) < 5 * np.sqrt(0.25 / 50_000)


@pytest.mark.parametrize("outcomes", [1, 2, 3, 5, 64, 128])
def test_the_branch_free_search_finds_searchsorteds_outcome(outcomes):
    # reference: torch.searchsorted(right=True), the first k with cdf[k] > v; ties with cdf entries, outcomes of
    # probability 0 (flat runs of the cdf), v = 0 and rows spanning more than one search block
    from quantum.readout import SEARCH_ROW_BLOCK, outcomes_at

    gen = torch.Generator().manual_seed(outcomes)
    rows = SEARCH_ROW_BLOCK + 37
    p = torch.rand(rows, outcomes, generator=gen, dtype=torch.float64)
    p *= torch.rand(rows, outcomes, generator=gen) < 0.6  # zeros
    p[:, 0] += 1e-3  # no all-zero row
    cdf = p.cumsum(dim=1)
    v = torch.rand(rows, 50, generator=gen, dtype=torch.float64) * cdf[:, -1:]
    ties = min(outcomes, 49)
    v[:, :ties] = cdf[:, :ties]  # exact ties with the cdf's entries
    v[:, -1] = 0.0
    want = torch.searchsorted(cdf, v, right=True).clamp_max(outcomes - 1)
    assert torch.equal(outcomes_at(cdf, v), want)


def test_parities_of_one_row_leave_it_alone():
    # a single row's transpose is already contiguous: the transform must still work on a copy
    p = np.random.default_rng(9).random((1, 8))
    before = p.copy()
    readout.parities(p, 3)
    assert np.array_equal(p, before)
