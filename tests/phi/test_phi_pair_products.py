"""cut_test.agent_pair_products: the sums over time of every agent pair's products, in bounded memory
(issue 45: 50 agents x 28 000 steps asked for 5.13 GiB). Reference: the definition, one product per pair
(numpy einsum over time), on both paths (dense pairs: blocks of a Gram matrix; sparse: blocks of pairs) and
at budgets that force one block per agent or per pair."""
import numpy as np
import pytest

from cognition.phi.cut_test import agent_pair_products


@pytest.mark.parametrize("budget", [1, 4000, 2**25])
def test_every_pair_product_is_its_definition_on_both_paths_at_any_budget(budget):
    rng = np.random.default_rng(2)
    X, Y = rng.standard_normal((9, 40, 3)), rng.standard_normal((9, 40, 4))
    left, right = np.divmod(rng.permutation(81), 9)                      # every pair, in no order: dense
    expected = np.einsum("ktp,ktq->kpq", X[left], Y[right])
    np.testing.assert_allclose(agent_pair_products(X, Y, left, right, budget), expected, rtol=1e-13, atol=1e-13)
    few = slice(0, 11)                                                    # 11 of 81 pairs: the sparse path
    np.testing.assert_allclose(agent_pair_products(X, Y, left[few], right[few], budget), expected[few],
                               rtol=1e-13, atol=1e-13)
    assert agent_pair_products(X, Y, left[:0], right[:0], budget).shape == (0, 3, 4)
    # X is Y: one symmetric product where it fits the budget (2**25), the blocks where not (1, 4000)
    np.testing.assert_allclose(agent_pair_products(X, X, left, right, budget),
                               np.einsum("ktp,ktq->kpq", X[left], X[right]), rtol=1e-13, atol=1e-13)
