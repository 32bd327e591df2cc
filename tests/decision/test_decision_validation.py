"""Bad input to the decision models: one clear ValueError naming the argument."""
from __future__ import annotations

import numpy as np
import pytest

from cognition import decision

GOOD = [0.4899, 0.0447, 0.1767, 0.2886]
OTHER = [0.5625, 0.1991, 0.0255, 0.2130]


@pytest.mark.parametrize(
    "call, match",
    [
        # probabilities outside [0, 1]
        (lambda: decision.fit_disjunction((1.2, 0.5, 0.5)), r"probs\[0\] = 1.2 is outside \[0, 1\]"),
        (lambda: decision.fit_disjunction((0.5, -0.1, 0.5)), r"probs\[1\] = -0.1 is outside \[0, 1\]"),
        (lambda: decision.fit_disjunction((0.5, 0.5, float("nan"))), r"probs .* NaN"),
        (lambda: decision.qq_statistic([1.1, -0.1, 0.0, 0.0], OTHER), r"cells_ab\[0\] = 1.1"),
        (lambda: decision.choice_probabilities(np.array([0.5, 1.5]), 0.5, 2.0), r"belief_a\[1\] = 1.5"),
        (lambda: decision.disjunction_probabilities(0.5, 2.0, belief_a=2.0), r"belief_a = 2.0 is outside"),
        # cells that do not sum to 1 beyond CELLS_SUM_ATOL
        (lambda: decision.qq_statistic([0.5, 0.2, 0.2, 0.2], OTHER), r"cells_ab sums to 1.1; .* within 0.01"),
        (lambda: decision.qq_test(GOOD, [0.2, 0.2, 0.2, 0.2], 10, 10), r"cells_ba sums to 0.8"),
        (lambda: decision.fit_question_order(GOOD, [0.1, 0.1, 0.1, 0.1]), r"fit_question_order: cells_ba sums to 0.4"),
        # wrong shapes
        (lambda: decision.fit_disjunction((0.5, 0.5)), r"probs has shape \(2,\); expected shape \(3,\)"),
        (lambda: decision.qq_statistic(GOOD[:3], OTHER), r"cells_ab has shape \(3,\); expected shape \(4,\)"),
        (lambda: decision.fit_question_order(np.array([GOOD]), OTHER), r"cells_ab has shape \(1, 4\)"),
        (lambda: decision.choice_probabilities(np.full((2, 2), 0.5), 0.5, 2.0), r"belief_a has shape \(2, 2\); expected shape \(n,\)"),
        (lambda: decision.choice_probabilities(np.full(3, 0.5), np.ones(2), 2.0), r"mu has shape \(2,\); expected a scalar or shape \(3,\)"),
        (lambda: decision.sequential_probabilities([1, 0, 0], np.eye(2), np.eye(2)), r"proj_a has shape \(2, 2\); expected .* \(3, 3\)"),
        (lambda: decision.conjunction_judgment([1, 0], [[1, 1], [0, 0]], np.eye(2)), r"proj_a is not an orthogonal projector"),
        (lambda: decision.conjunction_judgment([1, 1], np.eye(2), np.eye(2)), r"state has norm 1.41421"),
        # other arguments
        (lambda: decision.fit_disjunction((0.5, 0.5, 0.5), model="bayes"), r"model = 'bayes'; allowed: 'quantum', 'markov'"),
        (lambda: decision.fit_question_order(GOOD, OTHER, model="markov"), r"model = 'markov'; allowed: 'quantum', 'classical'"),
        (lambda: decision.choice_probabilities(np.array([0.5]), -1.0, 2.0, model="markov"), r"mu = -1.0 is negative; Markov transition rates"),
        (lambda: decision.disjunction_probabilities(0.5, 2.0, t=-1.0), r"t = -1.0 is negative"),
        (lambda: decision.qq_test(GOOD, OTHER, 0, 10), r"n_ab = 0; expected a positive integer"),
        (lambda: decision.qq_test(GOOD, OTHER, 447, 43.2), r"n_ba = 43.2; expected a positive integer"),
        (lambda: decision.fit_question_order(GOOD, OTHER, dim=1), r"dim = 1; expected an integer >= 2"),
    ],
)
def test_bad_input_is_a_clear_value_error(call, match):
    with pytest.raises(ValueError, match=match) as info:
        call()
    assert "\n" not in str(info.value)  # one line


def test_rounded_published_tables_are_accepted():
    # Moore 2002 as tabled sums to .9999 and 1.0001: inside the stated tolerance.
    assert decision.CELLS_SUM_ATOL == 0.01
    decision.qq_statistic(GOOD, OTHER)
    decision.qq_statistic([0.5, 0.2, 0.2, 0.105], OTHER)  # 1.005: rounding-sized, accepted


def test_rounding_sized_excursions_are_clipped_not_rejected():
    out = decision.qq_test([1 + 1e-15, 0.0, 0.0, -1e-16], [1.0, 0.0, 0.0, 0.0], 5, 5)
    assert out.q == 0.0
