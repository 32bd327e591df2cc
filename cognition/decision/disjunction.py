"""Fit the disjunction-effect models (quantum and Markov) to observed choice proportions.

Data: (P(act | A known), P(act | B known), P(act | unknown)), e.g. the prisoner's
dilemma of Shafir & Tversky (1992): P(defect | other defected) = .97,
P(defect | other cooperated) = .84, P(defect | unknown) = .63. The unknown case
below both known cases is the disjunction effect: a violation of the law of total
probability, which the Markov twin cannot produce and the quantum model can
(Pothos & Busemeyer 2009).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _validate as v
from ._fit import multistart_minimize
from .batched import choice_probabilities
from .pothos_busemeyer import MODELS, T_DELIBERATION

# Search box per parameter. Quantum: H_A is normalised, so |mu| beyond ~10 changes
# nothing; the probabilities oscillate in gamma with shrinking amplitude, and the
# oscillations beyond |gamma| = 6 repeat behaviour found inside. Markov: rates >= 0.
_BOUNDS = {
    "quantum": {"mu": (-10.0, 10.0), "mu_b": (-10.0, 10.0), "gamma": (-6.0, 6.0)},
    "markov": {"mu": (0.0, 20.0), "mu_b": (0.0, 20.0), "gamma": (0.0, 20.0)},
}
_GRID_POINTS = {2: 61, 3: 25}  # per axis, for 2 or 3 free parameters


@dataclass(frozen=True)
class DisjunctionFit:
    """Result of :func:`fit_disjunction`.

    Attributes:
        model: "quantum" or "markov".
        observed: (P(act | A), P(act | B), P(act | unknown)) as given.
        predicted: the same three probabilities under the fitted parameters.
        params: {"mu": float, "gamma": float} plus "mu_b" when it was fitted.
        loss: sum of squared errors between ``predicted`` and ``observed``.
        t: the (fixed) deliberation time; belief_a: probability of A in the unknown case.
    """

    model: str
    observed: tuple[float, float, float]
    predicted: tuple[float, float, float]
    params: dict[str, float] = field(default_factory=dict)
    loss: float = 0.0
    t: float = T_DELIBERATION
    belief_a: float = 0.5

    @property
    def interference(self) -> float:
        """Predicted P(act | unknown) minus its law-of-total-probability value."""
        p_a, p_b, p_u = self.predicted
        return p_u - (self.belief_a * p_a + (1.0 - self.belief_a) * p_b)


def _predict(model: str, names: tuple[str, ...], x: np.ndarray, t: float, belief_a: float) -> np.ndarray:
    """(n, k) parameter rows named ``names`` -> (n, 3) predicted probabilities (batched path)."""
    x = np.atleast_2d(x)
    kw = dict(zip(names, x.T))
    out = choice_probabilities(np.full(x.shape[0], belief_a), kw["mu"], kw["gamma"], t=t, model=model, mu_b=kw.get("mu_b"))
    return np.stack([out["p_act_given_a"], out["p_act_given_b"], out["p_act"]], axis=-1)


def _grid_starts(model, names, observed, t, belief_a, n_starts: int) -> np.ndarray:
    """The ``n_starts`` lowest local minima of the loss on a grid over the search box."""
    axes = [np.linspace(*_BOUNDS[model][name], _GRID_POINTS[len(names)]) for name in names]
    mesh = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1)  # (g, ..., g, k)
    flat = mesh.reshape(-1, len(names))
    loss = ((_predict(model, names, flat, t, belief_a) - observed) ** 2).sum(-1).reshape(mesh.shape[:-1])
    is_min = np.ones(loss.shape, dtype=bool)
    padded = np.pad(loss, 1, constant_values=np.inf)
    core = tuple(slice(1, -1) for _ in names)
    for axis in range(len(names)):  # a local minimum is no higher than its 2k axis neighbours
        for step in (-1, 1):
            shifted = list(core)
            shifted[axis] = slice(1 + step, padded.shape[axis] - 1 + step)
            is_min &= loss <= padded[tuple(shifted)]
    idx = np.flatnonzero(is_min)
    idx = idx[np.argsort(loss.ravel()[idx], kind="stable")][:n_starts]
    return flat[idx]


def fit_disjunction(
    probs,
    model: str = "quantum",
    t: float = T_DELIBERATION,
    belief_a: float = 0.5,
    fit_mu_b: bool | None = None,
    n_starts: int = 8,
) -> DisjunctionFit:
    """Least-squares fit of (mu, gamma[, mu_b]) to (P(act | A), P(act | B), P(act | unknown)).

    Args:
        probs: 3 probabilities in [0, 1] (e.g. Shafir & Tversky 1992: (.97, .84, .63)).
        model: "quantum" (Pothos & Busemeyer 2009) or "markov" (classical twin).
        t: deliberation time, fixed during the fit (P&B: pi/2).
        belief_a: probability of condition A in the unknown case (P&B: 0.5).
        fit_mu_b: fit a separate payoff parameter under belief B. Default (None): False
            for "quantum" (P&B's two-parameter fit), True for "markov" (with one mu its
            action process ignores belief, so it could not even separate the known cases).
        n_starts: number of L-BFGS-B runs, started from the lowest local minima of the
            loss on a grid over the search box (deterministic: no random draws).
    """
    where = "fit_disjunction"
    v.choice(where, "model", model, MODELS)
    observed = v.probability_array(where, "probs", probs, shape=(3,))
    t = float(v.real_array(where, "t", t, shape=()))
    v.nonnegative(where, "t", np.asarray(t), "the deliberation time")
    belief_a = float(v.probability_array(where, "belief_a", belief_a, shape=()))
    v.integer_at_least(where, "n_starts", n_starts, 1)
    if fit_mu_b is None:
        fit_mu_b = model == "markov"
    names = ("mu", "mu_b", "gamma") if fit_mu_b else ("mu", "gamma")

    def loss(x: np.ndarray) -> float:
        return float(((_predict(model, names, x, t, belief_a)[0] - observed) ** 2).sum())

    starts = _grid_starts(model, names, observed, t, belief_a, n_starts)
    x, best = multistart_minimize(loss, starts, bounds=[_BOUNDS[model][name] for name in names])
    return DisjunctionFit(
        model=model,
        observed=tuple(float(p) for p in observed),
        predicted=tuple(float(p) for p in _predict(model, names, x, t, belief_a)[0]),
        params={name: float(value) for name, value in zip(names, x)},
        loss=best,
        t=t,
        belief_a=belief_a,
    )
