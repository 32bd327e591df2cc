"""The QQ equality for question-order effects and its significance test.

Wang, Solloway, Shiffrin & Busemeyer (2014). Context effects produced by question
orders reveal quantum nature of human judgments. PNAS 111, 9431-9436.

With p_AB(x, y) the probability of answering x to A and then y to B (A first) and
p_BA(y, x) that of answering y to B then x to A (B first),

    q = [p_AB(y, n) + p_AB(n, y)] - [p_BA(y, n) + p_BA(n, y)]
      = p(Ay,Bn) - p(By,An) + p(An,By) - p(Bn,Ay),

the difference between the two orders in the probability of disagreeing answers.
Every sequence of two projective (Lueders) measurements gives q = 0 exactly, for any
state and any pair of projectors; most other models of order effects do not.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import _validate as v

# Disagreeing answers (yes-no, no-yes) in the cell order [yes-yes, yes-no, no-yes, no-no].
_DISAGREE = [1, 2]


@dataclass(frozen=True)
class QQTest:
    """Result of :func:`qq_test`: q, its z statistic and the two-sided p-value (H0: q = 0)."""

    q: float
    z: float
    p_value: float
    standard_error: float


def qq_statistic(cells_ab, cells_ba, sum_atol: float = v.CELLS_SUM_ATOL) -> float:
    """q from two answer tables (4 cells each, first-asked first), as defined above.

    Moore's (2002) Gallup Clinton/Gore tables (Wang & Busemeyer 2013) give q = -0.0032.
    """
    ab = v.answer_cells("qq_statistic", "cells_ab", cells_ab, sum_atol)
    ba = v.answer_cells("qq_statistic", "cells_ba", cells_ba, sum_atol)
    return float(ab[_DISAGREE].sum() - ba[_DISAGREE].sum())


def qq_test(cells_ab, cells_ba, n_ab: int, n_ba: int, sum_atol: float = v.CELLS_SUM_ATOL) -> QQTest:
    """z test of the QQ equality from two independent samples of n_ab and n_ba respondents.

    q is a difference of two independent proportions (disagreeing answers in each
    order), so its standard error is the unpooled binomial one,

        SE = sqrt(d_AB (1 - d_AB) / n_AB + d_BA (1 - d_BA) / n_BA),

    with d the proportion of disagreeing answers; z = q / SE, p = 2 (1 - Phi(|z|)).
    (z^2 is the chi-square statistic with 1 df that Wang et al. 2014 report.)
    A table in which nobody (or everybody) disagreed in both orders has SE = 0: then
    z = 0 and p = 1 when q = 0, and z = +-inf and p = 0 otherwise.
    """
    where = "qq_test"
    ab = v.answer_cells(where, "cells_ab", cells_ab, sum_atol)
    ba = v.answer_cells(where, "cells_ba", cells_ba, sum_atol)
    n_ab, n_ba = v.sample_size(where, "n_ab", n_ab), v.sample_size(where, "n_ba", n_ba)
    d_ab, d_ba = float(np.clip(ab[_DISAGREE].sum(), 0, 1)), float(np.clip(ba[_DISAGREE].sum(), 0, 1))
    q = d_ab - d_ba
    se = math.sqrt(d_ab * (1 - d_ab) / n_ab + d_ba * (1 - d_ba) / n_ba)
    if se == 0.0:
        z = 0.0 if q == 0.0 else math.copysign(math.inf, q)
    else:
        z = q / se
    p_value = math.erfc(abs(z) / math.sqrt(2.0))  # = 2 (1 - Phi(|z|)), accurate in the tail
    return QQTest(q=q, z=z, p_value=p_value, standard_error=se)
