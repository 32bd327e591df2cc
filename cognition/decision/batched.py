"""Disjunction-model choice probabilities for a batch of agents in one vectorised call.

This is what the cognitive loop's hybrid module calls every cycle: the quantum model's
propagation in closed form (``reflections.py``) or one batched matrix exponential (Markov)
over the agents, no Python loop over agents. Model: Pothos & Busemeyer (2009), see ``pothos_busemeyer.py``.
"""
from __future__ import annotations

import math

import numpy as np

from . import _validate as v
from .pothos_busemeyer import ACT, MODELS, T_DELIBERATION, check_parameters, initial_state
from .pothos_busemeyer import markov_intensity, quantum_hamiltonian
from .reflections import evolved_probabilities

# Taylor degree for the scaled exponential: with ||A|| <= 1/2 the remainder is below
# e^(1/2) 0.5**17 / 17! ~ 4e-20, far under double-precision rounding.
_TAYLOR_DEGREE = 16
_PS_BLOCK = 4  # Paterson-Stockmeyer block: x^2, x^3, x^4, then 4 Horner steps in x^4
_TAYLOR = [1.0 / math.factorial(k) for k in range(_TAYLOR_DEGREE + 1)]


def _taylor(x: np.ndarray) -> np.ndarray:
    """sum_{k <= 16} x^k / k! by Paterson & Stockmeyer (1973): 7 matrix products instead of 16.

    p(x) = B_0 + x^4 (B_1 + x^4 (B_2 + x^4 (B_3 + x^4 B_4))), B_j = sum_{i < 4} c_{4j+i} x^i, B_4 = c_16 I.
    """
    eye = np.broadcast_to(np.eye(x.shape[-1], dtype=x.dtype), x.shape)
    powers = [eye, x, x @ x]
    powers.append(powers[2] @ x)
    x4 = powers[2] @ powers[2]

    def block(j: int) -> np.ndarray:
        return sum(_TAYLOR[_PS_BLOCK * j + i] * powers[i] for i in range(_PS_BLOCK))

    result = _TAYLOR[_TAYLOR_DEGREE] * eye
    for j in range(_TAYLOR_DEGREE // _PS_BLOCK - 1, -1, -1):
        result = block(j) + x4 @ result
    return result


def batched_expm(a: np.ndarray) -> np.ndarray:
    """``expm`` of every matrix in a stack, (B, n, n) -> (B, n, n), by scaling and squaring.

    ``scipy.linalg.expm`` loops over a stack in Python, so the agents' generators are
    exponentiated here with one Taylor polynomial (Paterson-Stockmeyer) and one squaring chain
    for the whole batch (Moler & Van Loan 2003, "Nineteen dubious ways", method 3). Each matrix
    is scaled by its own 1-norm and squared its own number of times, so a row's result does not
    depend on the other rows in the stack.
    """
    a = np.asarray(a)
    norms = np.abs(a).sum(axis=-2).max(axis=-1, initial=0.0)  # max column-sum = 1-norm, (B,)
    squarings = np.ceil(np.log2(np.maximum(norms, 1e-300) / 0.5)).clip(min=0).astype(int)
    result = _taylor(a / (2.0**squarings)[:, None, None])
    for step in range(int(squarings.max(initial=0))):
        result = np.where((step < squarings)[:, None, None], result @ result, result)
    return result


def _batch(where: str, name: str, value, n: int) -> np.ndarray:
    arr = v.real_array(where, name, value)
    if arr.ndim == 0:
        return np.full(n, float(arr))
    if arr.shape != (n,):
        raise ValueError(f"{where}: {name} has shape {arr.shape}; expected a scalar or shape ({n},) like belief_a")
    return arr


def choice_probabilities(
    belief_a, mu, gamma, t=T_DELIBERATION, model: str = "quantum", mu_b=None
) -> dict[str, np.ndarray]:
    """P(act) under condition A known, B known and unknown, for B agents at once.

    Args:
        belief_a: (B,) in [0, 1], each agent's probability of condition A (e.g. "the
            other defects"); in the quantum model the unknown-condition state has belief
            amplitudes sqrt(belief_a), sqrt(1 - belief_a) (0.5 reproduces Pothos &
            Busemeyer's unknown case).
        mu: scalar or (B,), payoff parameter (quantum: any real; Markov: rate >= 0).
        gamma: scalar or (B,), dissonance parameter (quantum: any real; Markov: rate >= 0).
        t: scalar or (B,), deliberation time (dimensionless, >= 0); P&B use pi/2.
        model: "quantum" (Pothos & Busemeyer 2009) or "markov" (its classical twin).
        mu_b: None (= mu, P&B's prisoner's-dilemma fit) or scalar or (B,), the payoff
            parameter under belief B; the Markov twin needs mu_b != mu for
            P(act | A) != P(act | B) (see ``pothos_busemeyer.py``).

    Returns:
        dict of (B,) float arrays: "p_act_given_a", "p_act_given_b", "p_act" (condition
        unknown) and "interference" = p_act - (belief_a * p_act_given_a + (1 - belief_a)
        * p_act_given_b), the violation of the law of total probability; for "markov" it
        is zero up to floating-point rounding (|.| < 1e-14).
    """
    where = "choice_probabilities"
    v.choice(where, "model", model, MODELS)
    a = v.probability_array(where, "belief_a", belief_a, shape=(-1,))
    n = a.shape[0]
    mu, gamma, t = (_batch(where, name, x, n) for name, x in (("mu", mu), ("gamma", gamma), ("t", t)))
    mu_b = mu if mu_b is None else _batch(where, "mu_b", mu_b, n)
    check_parameters(where, model, t, mu=mu, gamma=gamma, mu_b=mu_b)

    if model == "quantum":
        p_state = evolved_probabilities(quantum_hamiltonian(mu, gamma, mu_b), condition_states(a, model), t)
        return act_probabilities(p_state, a)
    return markov_choice(markov_intensity(mu, gamma, mu_b), a, t)


def condition_states(belief_a: np.ndarray, model: str) -> np.ndarray:
    """(B, 4, 3) initial states as columns: condition A known, condition B known, unknown (belief_a)."""
    n = belief_a.shape[0]
    return np.stack([initial_state(np.ones(n), model), initial_state(np.zeros(n), model),
                     initial_state(belief_a, model)], -1)


def markov_choice(intensity: np.ndarray, belief_a: np.ndarray, t: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`choice_probabilities` of the Markov chain with generator ``intensity`` (B, 4, 4)
    (column convention, see ``markov_intensity``) run for ``t`` (B,) from the three start states."""
    transition = batched_expm(intensity * t[:, None, None])
    return act_probabilities(transition @ condition_states(belief_a, "markov"), belief_a)


def act_probabilities(p_state: np.ndarray, belief_a: np.ndarray) -> dict[str, np.ndarray]:
    """The returns of :func:`choice_probabilities` from the final state probabilities (B, 4, 3)."""
    p_act = p_state[:, list(ACT), :].sum(axis=1)  # (B, 3)
    p_a, p_b, p_unknown = p_act[:, 0], p_act[:, 1], p_act[:, 2]
    return {
        "p_act_given_a": p_a,
        "p_act_given_b": p_b,
        "p_act": p_unknown,
        "interference": p_unknown - (belief_a * p_a + (1.0 - belief_a) * p_b),
    }
