"""The batched choice probabilities the cognitive loop calls, against the single-case model."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm

from cognition import decision

KEYS = ("p_act_given_a", "p_act_given_b", "p_act", "interference")


def _random_agents(model: str, n: int, seed: int):
    rng = np.random.default_rng(seed)
    if model == "quantum":
        mu, mu_b, gamma = rng.uniform(-3, 3, n), rng.uniform(-3, 3, n), rng.uniform(-6, 6, n)
    else:
        mu, mu_b, gamma = rng.uniform(0, 6, n), rng.uniform(0, 6, n), rng.uniform(0, 6, n)
    return rng.uniform(0, 1, n), mu, mu_b, gamma, rng.uniform(0, 4, n)


@pytest.mark.parametrize("model", ["quantum", "markov"])
def test_each_row_equals_the_single_case_model(model):
    # Reference: disjunction_probabilities, one scipy.linalg.expm per agent.
    belief_a, mu, mu_b, gamma, t = _random_agents(model, 64, seed=11)
    out = decision.choice_probabilities(belief_a, mu, gamma, t=t, model=model, mu_b=mu_b)
    assert all(out[k].shape == (64,) for k in KEYS)
    for i in range(64):
        p_a, p_b, p_u = decision.disjunction_probabilities(mu[i], gamma[i], t=t[i], model=model,
                                                           belief_a=belief_a[i], mu_b=mu_b[i])
        np.testing.assert_allclose([out["p_act_given_a"][i], out["p_act_given_b"][i], out["p_act"][i]],
                                   [p_a, p_b, p_u], atol=1e-11)
        assert out["interference"][i] == pytest.approx(p_u - (belief_a[i] * p_a + (1 - belief_a[i]) * p_b), abs=1e-11)


def test_scalar_parameters_broadcast_and_default_to_pothos_busemeyer():
    belief_a = np.array([0.5, 0.2, 0.9])
    out = decision.choice_probabilities(belief_a, 0.51, 2.09)
    rows = decision.choice_probabilities(belief_a, np.full(3, 0.51), np.full(3, 2.09), t=np.full(3, np.pi / 2))
    for k in KEYS:
        np.testing.assert_array_equal(out[k], rows[k])
    # Pothos & Busemeyer 2009: .81 / .65 / .57 at belief_a = 0.5 (equal amplitudes).
    np.testing.assert_allclose([out["p_act_given_a"][0], out["p_act_given_b"][0], out["p_act"][0]], [0.81, 0.65, 0.57], atol=0.01)


@pytest.mark.parametrize("model", ["quantum", "markov"])
def test_certain_belief_is_the_known_condition(model):
    # belief_a = 1 (0) prepares exactly the "A known" ("B known") state, so p_act must equal it.
    mu, gamma = (0.7, 1.3) if model == "quantum" else (2.0, 0.6)
    out = decision.choice_probabilities(np.array([1.0, 0.0]), mu, gamma, model=model, mu_b=0.3)
    assert out["p_act"][0] == pytest.approx(out["p_act_given_a"][0], abs=1e-12)
    assert out["p_act"][1] == pytest.approx(out["p_act_given_b"][1], abs=1e-12)
    np.testing.assert_allclose(out["interference"], 0.0, atol=1e-12)


def test_markov_interference_is_zero_and_quantum_is_not():
    belief_a, mu, mu_b, gamma, t = _random_agents("markov", 256, seed=3)
    markov = decision.choice_probabilities(belief_a, mu, gamma, t=t, model="markov", mu_b=mu_b)
    assert np.max(np.abs(markov["interference"])) < 1e-14
    belief_a, mu, mu_b, gamma, t = _random_agents("quantum", 256, seed=3)
    quantum = decision.choice_probabilities(belief_a, mu, gamma, t=t, model="quantum", mu_b=mu_b)
    assert np.mean(np.abs(quantum["interference"]) > 0.01) > 0.25  # generic, not a corner case


def test_batched_expm_matches_scipy_per_matrix():
    rng = np.random.default_rng(5)
    scales = np.array([0.0, 1e-3, 1.0, 10.0, 60.0])[:, None, None]
    a = rng.normal(size=(5, 4, 4)) * scales
    got = decision.batched_expm(a)
    for i in range(5):
        want = expm(a[i])
        np.testing.assert_allclose(got[i], want, rtol=1e-11, atol=1e-13 * np.abs(want).max())
    # Complex stacks as well (a Hamiltonian's -iHt).
    h = rng.normal(size=(3, 4, 4)) + 1j * rng.normal(size=(3, 4, 4))
    np.testing.assert_allclose(decision.batched_expm(h), np.stack([expm(x) for x in h]), rtol=1e-11, atol=1e-12)


def test_markov_probabilities_stay_a_distribution():
    # Columns of expm(K t) are distributions when K is an intensity matrix.
    belief_a, mu, mu_b, gamma, t = _random_agents("markov", 128, seed=9)
    k = decision.markov_intensity(mu, gamma, mu_b) * t[:, None, None]
    transition = decision.batched_expm(k)
    np.testing.assert_allclose(transition.sum(axis=1), 1.0, atol=1e-12)
    assert transition.min() > -1e-12


def test_batched_expm_gives_each_row_its_own_bits():
    # each matrix is scaled and squared for its own 1-norm: a row beside a much larger one (more squarings)
    # gets the same bits as alone
    rng = np.random.default_rng(8)
    small, large = rng.normal(size=(1, 4, 4)), 40.0 * rng.normal(size=(1, 4, 4))
    both = decision.batched_expm(np.concatenate([small, large]))
    assert np.array_equal(both[0], decision.batched_expm(small)[0])
    assert np.array_equal(both[1], decision.batched_expm(large)[0])
