"""Matched controls of the quantum disjunction model: interference off, and a matched Markov twin.

The Markov twin of ``pothos_busemeyer.py`` at the quantum model's mu and gamma is not matched:
it answers the known conditions differently (at this package's hybrid defaults, P(act | A) 0.24
Markov vs 0.84 quantum), so a quantum-vs-Markov contrast mostly compares two action rates.
These controls keep the quantum model's conditionals P(act | A), P(act | B) and remove only the
violation of the law of total probability:

``no_interference``: p_act = belief_a P(act | A) + (1 - belief_a) P(act | B), the quantum
conditionals combined by total probability; the interference term is exactly 0.

``matched_markov``: a continuous-time Markov chain on the same four states (belief x action)
whose P(act | A), P(act | B) at time t equal the quantum ones. Within each known belief the
action is a two-state chain from (1/2, 1/2), refrain -> act at rate s pi and act -> refrain at
rate s (1 - pi), so that (master equation of a two-state chain; e.g. van Kampen, *Stochastic
Processes in Physics and Chemistry*, ch. V)

    P(act)(t) = pi + (1/2 - pi) exp(-s t).

For a target p: exp(-s t) = eps = min(p, 1 - p), pi = (p - eps/2) / (1 - eps), both rates >= 0.
Beliefs stay put (no dissonance coupling): any Markov chain started in the mixture of the two
known conditions answers the unknown one by total probability (linearity), whatever its belief
dynamics, so the twin's p_act equals ``no_interference``'s up to rounding. The two differ in what
they are, a quantum model with its interference dropped vs a classical stochastic process; not in
what the loop sees.
"""
from __future__ import annotations

import numpy as np

from . import _validate as v
from .batched import choice_probabilities, markov_choice
from .pothos_busemeyer import T_DELIBERATION

CONTROLS = ("none", "no_interference", "matched_markov")

#: A conditional within this of 0 or 1 is matched at this distance: a finite-rate chain that starts
#: with half its mass on "act" cannot reach P(act) = 0 or 1 in finite time.
MATCH_FLOOR = 1e-12


def matched_markov_intensity(p_act_given_a, p_act_given_b, t) -> np.ndarray:
    """(B, 4, 4) generator (column convention, basis of ``pothos_busemeyer.py``) of the chain whose
    P(act | A), P(act | B) at time t (B,) are the given ones, clipped to [MATCH_FLOOR, 1 - MATCH_FLOOR]."""
    t = np.asarray(t, dtype=float)
    k = np.zeros(np.shape(p_act_given_a) + (4, 4))
    for block, p in ((0, p_act_given_a), (2, p_act_given_b)):
        p = np.clip(np.asarray(p, dtype=float), MATCH_FLOOR, 1.0 - MATCH_FLOOR)
        eps = np.minimum(p, 1.0 - p)
        rate, pi = -np.log(eps) / t, (p - eps / 2.0) / (1.0 - eps)
        k[..., block, block] = -rate * (1.0 - pi)  # act leaves for refrain
        k[..., block + 1, block] = rate * (1.0 - pi)
        k[..., block, block + 1] = rate * pi  # refrain leaves for act
        k[..., block + 1, block + 1] = -rate * pi
    return k


def controlled_choice_probabilities(belief_a, mu, gamma, t=T_DELIBERATION, mu_b=None,
                                    control: str = "none") -> dict[str, np.ndarray]:
    """:func:`choice_probabilities` of the quantum model under a matched control (see above).

    control: "none" (the quantum model), "no_interference" or "matched_markov".
    Returns the same keys; "p_act_given_a", "p_act_given_b" are the quantum model's under
    "no_interference" and the twin's own under "matched_markov".
    """
    v.choice("controlled_choice_probabilities", "control", control, CONTROLS)
    out = choice_probabilities(belief_a, mu, gamma, t=t, model="quantum", mu_b=mu_b)
    a = np.asarray(belief_a, dtype=float)
    if control == "no_interference":
        p_a, p_b = out["p_act_given_a"], out["p_act_given_b"]
        p_act = a * p_a + (1.0 - a) * p_b
        return dict(out, p_act=p_act, interference=p_act - (a * p_a + (1.0 - a) * p_b))  # the term's definition
    if control == "matched_markov":
        t = np.broadcast_to(np.asarray(t, dtype=float), a.shape)
        intensity = matched_markov_intensity(out["p_act_given_a"], out["p_act_given_b"], t)
        return markov_choice(intensity, a, t)
    return out
