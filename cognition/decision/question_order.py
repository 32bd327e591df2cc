"""Question-order effects: sequential projective (Lueders) measurements and a classical twin.

Two yes/no questions A and B asked in either order. Quantum model (Busemeyer & Bruza
2012, ch. 4; Wang & Busemeyer 2013, Topics Cogn. Sci. 5:689): a belief state ``psi``,
answers are projectors ``P_A`` (yes) and ``I - P_A`` (no), and an answer collapses the
state (Lueders rule), so

    p(A = x, then B = y) = || P_B^y  P_A^x  psi ||^2 .

Its answer tables obey the QQ equality exactly (Wang, Solloway, Shiffrin & Busemeyer
2014, PNAS 111:9431), see ``qq.py``. Classical twin: one joint distribution over the
two answers, the same whichever question comes first (no order effect at all).

Cells are always ordered [yes-yes, yes-no, no-yes, no-no], first-asked question first.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _validate as v
from ._fit import multistart_minimize

MODELS = ("quantum", "classical")

# Reorders a joint table over (A, B) into a B-first table, and back (it is an involution).
_SWAP = np.array([0, 2, 1, 3])


def sequential_probabilities(state, proj_a, proj_b) -> tuple[np.ndarray, np.ndarray]:
    """Answer tables for both orders under the Lueders rule.

    Args:
        state: (d,) unit vector of amplitudes (complex allowed).
        proj_a, proj_b: (d, d) orthogonal projectors onto the "yes" subspaces.

    Returns:
        (cells_ab, cells_ba), each (4,): [yes-yes, yes-no, no-yes, no-no] with the
        first-asked question first; each sums to 1.
    """
    where = "sequential_probabilities"
    psi = v.state_vector(where, "state", state)
    p_a = v.projector(where, "proj_a", proj_a, dim=psi.size)
    p_b = v.projector(where, "proj_b", proj_b, dim=psi.size)
    return _lueders_table(psi, p_a, p_b), _lueders_table(psi, p_b, p_a)


def _lueders_table(psi: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    eye = np.eye(psi.size)
    cells = []
    for p1 in (first, eye - first):  # first answer yes, then no
        collapsed = p1 @ psi
        for p2 in (second, eye - second):
            cells.append(float(np.vdot(p2 @ collapsed, p2 @ collapsed).real))
    return np.array(cells)


@dataclass(frozen=True)
class QuestionOrderFit:
    """Result of :func:`fit_question_order`.

    Attributes:
        model: "quantum" or "classical".
        predicted_ab, predicted_ba: (4,) cells [yes-yes, yes-no, no-yes, no-no], first-asked first.
        params: quantum: "state" (d,), "proj_a" (d, d), "proj_b" (d, d) (real);
            classical: "joint" (4,), the distribution over (A, B) in A-first cell order.
        loss: sum of squared errors over the 8 cells.
    """

    model: str
    predicted_ab: np.ndarray
    predicted_ba: np.ndarray
    params: dict[str, np.ndarray] = field(default_factory=dict)
    loss: float = 0.0


def _quantum_parts(x: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unconstrained parameters -> (state, P_A, P_B).

    P_A projects on the first dim//2 axes; P_B on the span of the orthonormalised (QR)
    columns of a free (dim, dim//2) matrix, which stays a rank-dim//2 projector even
    where the matrix is rank-deficient; the state is a free vector, normalised.
    """
    rank = dim // 2
    state = x[:dim] / np.linalg.norm(x[:dim])
    basis = np.linalg.qr(x[dim:].reshape(dim, rank))[0]
    p_a = np.diag((np.arange(dim) < rank).astype(float))
    return state, p_a, basis @ basis.T


def fit_question_order(
    cells_ab,
    cells_ba,
    model: str = "quantum",
    dim: int = 4,
    n_starts: int = 8,
    seed: int = 0,
    sum_atol: float = v.CELLS_SUM_ATOL,
) -> QuestionOrderFit:
    """Least-squares fit of an answer-order model to the two observed answer tables.

    Args:
        cells_ab: (4,) observed [yes-yes, yes-no, no-yes, no-no] with A asked first.
        cells_ba: (4,) the same with B asked first (B's answer first).
        model: "quantum" (Lueders rule; real state and rank-dim//2 "yes" projectors in a
            ``dim``-dimensional space) or "classical" (one joint distribution; its
            least-squares fit is the average of the two tables, in closed form).
        dim: quantum space dimension (>= 2). The default 4 gives the model a state
            direction (3 free parameters) and the B "yes" plane (a point of the
            Grassmannian Gr(2, 4): 4 free parameters; the A plane is fixed by symmetry).
        n_starts, seed: number of L-BFGS-B runs from seeded random starts (deterministic).
        sum_atol: allowed |sum(cells) - 1|; tables are renormalised before fitting.
    """
    where = "fit_question_order"
    v.choice(where, "model", model, MODELS)
    ab = v.answer_cells(where, "cells_ab", cells_ab, sum_atol)
    ba = v.answer_cells(where, "cells_ba", cells_ba, sum_atol)
    ab, ba = ab / ab.sum(), ba / ba.sum()
    if model == "classical":
        joint = (ab + ba[_SWAP]) / 2.0
        loss = float(((joint - ab) ** 2).sum() + ((joint[_SWAP] - ba) ** 2).sum())
        return QuestionOrderFit(model, joint.copy(), joint[_SWAP], {"joint": joint}, loss)

    v.integer_at_least(where, "dim", dim, 2)
    v.integer_at_least(where, "n_starts", n_starts, 1)

    def loss(x: np.ndarray) -> float:
        state, p_a, p_b = _quantum_parts(x, dim)
        return float(((_lueders_table(state, p_a, p_b) - ab) ** 2).sum() + ((_lueders_table(state, p_b, p_a) - ba) ** 2).sum())

    n_params = dim + dim * (dim // 2)
    starts = np.random.default_rng(seed).normal(size=(n_starts, n_params))
    x, best = multistart_minimize(loss, starts)
    state, p_a, p_b = _quantum_parts(x, dim)
    return QuestionOrderFit(
        model,
        _lueders_table(state, p_a, p_b),
        _lueders_table(state, p_b, p_a),
        {"state": state, "proj_a": p_a, "proj_b": p_b},
        best,
    )
