"""Conjunction fallacy as sequential projection (Busemeyer, Pothos, Franco & Trueblood 2011).

Busemeyer, J. R., Pothos, E. M., Franco, R. & Trueblood, J. S. (2011). A quantum
theoretical explanation for probability judgment errors. Psychological Review 118, 193-218.

A conjunction "A and B" is judged as the sequence "A, and then B", with the more likely
event evaluated first:

    P(A and B) = || P_B P_A psi ||^2   when P(A) >= P(B)   (else the other order).

Single fallacy, P(A and B) > min(P(A), P(B)) (Linda: "feminist bank teller" judged more
likely than "bank teller"), happens when the projectors do not commute. The double
fallacy, P(A and B) > max(P(A), P(B)), is impossible: a projection never increases
the squared length, ||P_B P_A psi||^2 <= ||P_A psi||^2 = P(A). With commuting
projectors (the classical twin) ||P_B P_A psi||^2 is a joint probability, so not even
the single fallacy occurs.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _validate as v

#: Differences below this are floating-point rounding, not a judgment error: when the
#: state already lies in a "yes" subspace, ||P x||^2 and ||x||^2 can differ by an ulp.
ROUNDING_ATOL = 1e-12


@dataclass(frozen=True)
class ConjunctionJudgment:
    """Judged probabilities of two events and of their conjunction.

    Attributes:
        p_a, p_b: ||P_A psi||^2 and ||P_B psi||^2.
        p_a_then_b, p_b_then_a: ||P_B P_A psi||^2 and ||P_A P_B psi||^2.
        p_conjunction: the judged P(A and B), more likely event first.
    """

    p_a: float
    p_b: float
    p_a_then_b: float
    p_b_then_a: float
    p_conjunction: float

    @property
    def single_fallacy(self) -> bool:
        """P(A and B) exceeds the less likely of the two events."""
        return self.p_conjunction > min(self.p_a, self.p_b) + ROUNDING_ATOL

    @property
    def double_fallacy(self) -> bool:
        """P(A and B) exceeds both events (impossible under this model)."""
        return self.p_conjunction > max(self.p_a, self.p_b) + ROUNDING_ATOL


def _squared_norm(x: np.ndarray) -> float:
    return float(np.vdot(x, x).real)


def conjunction_judgment(state, proj_a, proj_b) -> ConjunctionJudgment:
    """Judge A, B and "A and B" from a belief ``state`` (d,) and "yes" projectors (d, d)."""
    where = "conjunction_judgment"
    psi = v.state_vector(where, "state", state)
    p_a_op = v.projector(where, "proj_a", proj_a, dim=psi.size)
    p_b_op = v.projector(where, "proj_b", proj_b, dim=psi.size)
    p_a, p_b = _squared_norm(p_a_op @ psi), _squared_norm(p_b_op @ psi)
    a_then_b = _squared_norm(p_b_op @ (p_a_op @ psi))
    b_then_a = _squared_norm(p_a_op @ (p_b_op @ psi))
    return ConjunctionJudgment(
        p_a=p_a,
        p_b=p_b,
        p_a_then_b=a_then_b,
        p_b_then_a=b_then_a,
        p_conjunction=a_then_b if p_a >= p_b else b_then_a,
    )
