"""The Pothos & Busemeyer (2009) disjunction-effect model and its Markov twin.

Pothos, E. M. & Busemeyer, J. R. (2009). A quantum probability explanation for
violations of 'rational' decision theory. Proc. R. Soc. B 276, 2171-2178.
The quantum matrices are theirs (also Busemeyer & Bruza 2012, *Quantum Models of
Cognition and Decision*, ch. 9); their parameters reproduce their published predictions
(tests/decision/test_decision_disjunction.py). The Markov twin is this package's classical
counterpart on the same structure, in the manner of the Markov models of Busemeyer,
Wang & Townsend (2006, J. Math. Psych. 50:220).

The decision maker lives in a 4-dim space, belief about condition (A = "the other
defected", B = "the other cooperated") x own action ("act" = defect, "refrain" =
cooperate), basis order

    0: (A, act)   1: (A, refrain)   2: (B, act)   3: (B, refrain)

Quantum: amplitudes evolve under ``U = expm(-i H t)``, ``H = H_A + H_B``:

    H_A = blockdiag(h(mu), h(mu_b)),  h(m) = [[m, 1], [1, -m]] / sqrt(1 + m^2)   (payoffs: m > 0 favours act)
    H_B = -gamma / sqrt(2) * [[ 1, 0,  1, 0],
                              [ 0,-1,  0, 1],
                              [ 1, 0, -1, 0],
                              [ 0, 1,  0, 1]]   (cognitive dissonance: belief follows action)

Markov twin (same structure, classical): probabilities evolve under ``T = expm(K t)``
with a column-generator ``K = K_A + K_B`` (columns sum to 0, off-diagonals >= 0):

    K_A = blockdiag(k(mu), k(mu_b)),  k(m) = [[-1, m], [1, -m]]   (m >= 0: rate refrain -> act)
    K_B = gamma * [[0,  0,  1, 0],
                   [0, -1,  0, 0],
                   [0,  0, -1, 0],
                   [0,  1,  0, 0]]                  (gamma >= 0: rate at which belief moves to
                                                     match the action, like H_B's coupling)

``K_A`` and ``K_B`` have the zero patterns of ``H_A`` and ``H_B`` (payoffs move the
action within a belief, dissonance moves the belief within an action) and vanish with
their parameters the same way (gamma = 0: beliefs stay put in both models).

``mu_b`` is the payoff parameter under belief B; P&B's general form has one per belief
(mu_D, mu_C) and their prisoner's-dilemma fit sets both to one ``mu``, the default here
(``mu_b=None`` means ``mu_b = mu``). The Markov twin needs ``mu_b != mu`` to tell the
two known conditions apart at all: ``K_B`` only changes beliefs and ``K_A`` is then
belief-blind, so the action marginal evolves on its own and P(act | A) = P(act | B).

Initial states: condition A known = belief_a 1, B known = belief_a 0; unknown = belief_a
(P&B: 0.5). Quantum amplitudes ``sqrt(belief_a/2) * [1, 1, 0, 0] + sqrt((1-belief_a)/2) * [0, 0, 1, 1]``;
Markov probabilities ``belief_a/2 * [1, 1, 0, 0] + (1-belief_a)/2 * [0, 0, 1, 1]``, so the
Markov P(act | unknown) obeys the law of total probability by linearity.

This file holds the matrices (shared with the batched path in ``batched.py``) and the
plain single-case reference, which uses ``scipy.linalg.expm``.
"""
from __future__ import annotations

import numpy as np

from . import _validate as v

MODELS = ("quantum", "markov")

#: Indices of the basis states in which the decision maker takes the action ("act").
ACT = (0, 2)

#: Pothos & Busemeyer's (2009) fixed deliberation time.
T_DELIBERATION = np.pi / 2

_H_B = np.array([[1, 0, 1, 0], [0, -1, 0, 1], [1, 0, -1, 0], [0, 1, 0, 1]], dtype=float) / np.sqrt(2.0)
# (B, act) -> (A, act) and (A, refrain) -> (B, refrain), each at rate gamma.
_K_B = np.array([[0, 0, 1, 0], [0, -1, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0]], dtype=float)


def _per_belief(mu, gamma, mu_b):
    mu_b = mu if mu_b is None else mu_b
    return np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (mu, mu_b, gamma)))


def quantum_hamiltonian(mu, gamma, mu_b=None) -> np.ndarray:
    """Hamiltonian ``H_A(mu, mu_b) + H_B(gamma)``; scalars or (B,) -> (4, 4) or (B, 4, 4)."""
    mu_a, mu_b, gamma = _per_belief(mu, gamma, mu_b)
    h = np.zeros(gamma.shape + (4, 4))
    for block, m in ((0, mu_a), (2, mu_b)):
        norm = 1.0 / np.sqrt(1.0 + m**2)
        h[..., block, block] = m * norm
        h[..., block + 1, block + 1] = -m * norm
        h[..., block, block + 1] = h[..., block + 1, block] = norm
    return h - gamma[..., None, None] * _H_B


def markov_intensity(mu, gamma, mu_b=None) -> np.ndarray:
    """Intensity matrix ``K_A(mu, mu_b) + K_B(gamma)``; scalars or (B,) -> (4, 4) or (B, 4, 4).

    Column convention: ``dp/dt = K p``, ``K[i, j]`` = rate from state j to state i.
    """
    mu_a, mu_b, gamma = _per_belief(mu, gamma, mu_b)
    k = np.zeros(gamma.shape + (4, 4))
    for block, m in ((0, mu_a), (2, mu_b)):
        k[..., block, block] = -1.0
        k[..., block + 1, block] = 1.0
        k[..., block, block + 1] = m
        k[..., block + 1, block + 1] = -m
    return k + gamma[..., None, None] * _K_B


def initial_state(belief_a, model: str) -> np.ndarray:
    """Initial amplitudes (quantum) or probabilities (markov); belief_a scalar or (B,) -> (4,) or (B, 4)."""
    a = np.asarray(belief_a, dtype=float)
    w_a, w_b = (np.sqrt(a / 2.0), np.sqrt((1.0 - a) / 2.0)) if model == "quantum" else (a / 2.0, (1.0 - a) / 2.0)
    return np.stack([w_a, w_a, w_b, w_b], axis=-1)


def check_parameters(where: str, model: str, t, **rates) -> None:
    """Markov rates and the deliberation time must be non-negative; quantum mu, gamma any real."""
    v.nonnegative(where, "t", np.asarray(t, dtype=float), "the deliberation time")
    if model == "markov":
        for name, value in rates.items():
            if value is not None:
                v.nonnegative(where, name, np.asarray(value, dtype=float), "Markov transition rates")


def disjunction_probabilities(
    mu: float,
    gamma: float,
    t: float = T_DELIBERATION,
    model: str = "quantum",
    belief_a: float = 0.5,
    mu_b: float | None = None,
) -> tuple[float, float, float]:
    """(P(act | A known), P(act | B known), P(act | unknown)) for one decision maker.

    The plain reference path: one ``scipy.linalg.expm`` per call. ``belief_a`` is the
    probability (squared amplitude, quantum) of condition A in the unknown case.
    For many decision makers at once use :func:`cognition.decision.choice_probabilities`.
    """
    from scipy.linalg import expm

    where = "disjunction_probabilities"
    v.choice(where, "model", model, MODELS)
    mu, gamma, t = (float(v.real_array(where, n, x, shape=())) for n, x in (("mu", mu), ("gamma", gamma), ("t", t)))
    mu_b = mu if mu_b is None else float(v.real_array(where, "mu_b", mu_b, shape=()))
    a = float(v.probability_array(where, "belief_a", belief_a, shape=()))
    check_parameters(where, model, t, mu=mu, gamma=gamma, mu_b=mu_b)
    states = initial_state(np.array([1.0, 0.0, a]), model).T  # (4, 3): A known, B known, unknown
    if model == "quantum":
        amplitudes = expm(-1j * t * quantum_hamiltonian(mu, gamma, mu_b)) @ states
        p_act = np.sum(np.abs(amplitudes[list(ACT)]) ** 2, axis=0)
    else:
        p_act = np.sum((expm(t * markov_intensity(mu, gamma, mu_b)) @ states)[list(ACT)], axis=0)
    return float(p_act[0]), float(p_act[1]), float(p_act[2])
