"""Matched controls of the quantum components (issue 16; docs/quantum-effects.md), each checked
against an independent computation: qiskit's statevector (entanglement entropy, Born marginals),
the binomial law of shot noise, and scipy's matrix exponential for the decision model."""
import math
from itertools import combinations

import numpy as np
import pytest
import torch

from cognition.config.settings import UnconsciousConfig, load_config
from cognition.errors import ConfigError
from cognition.modules.base import Proposal
from cognition.modules.unconscious import QuantumUnconscious
from cognition.architecture.streams import AgentStreams

F64 = torch.float64
N, D = 4, 4


def _backend():
    from quantum import make_backend

    return make_backend("torch", device="cpu", max_qubits=16, threads=1)


def _sampler(control, shots=128, seed=3):
    return QuantumUnconscious(UnconsciousConfig(qubits=N, layers=2, shots=shots, control=control), D, seed=seed,
                              dtype=F64, device="cpu", backend=_backend(), width=N)


def _statevector(circuit, x):
    from qiskit.quantum_info import Statevector

    return Statevector(circuit.to_qiskit().assign_parameters(np.tanh(x)))  # the module feeds tanh(b)


def _entropies(sv):
    """Von Neumann entropy (bits) of every bipartition A | rest of the n qubits (qiskit)."""
    from qiskit.quantum_info import entropy, partial_trace

    n = sv.num_qubits
    return [entropy(partial_trace(sv, [q for q in range(n) if q not in part]), base=2)
            for size in range(1, n // 2 + 1) for part in combinations(range(n), size)]


INPUTS = np.random.default_rng(11).normal(size=(5, D))


def test_no_entanglement_leaves_zero_entanglement_entropy_for_every_bipartition():
    full, cut = _sampler("none").circuit, _sampler("no_entanglement").circuit
    assert not any(len(g.qubits) == 2 for g in cut.gates) and any(g.name == "rzz" for g in full.gates)
    for x in INPUTS:
        assert max(_entropies(_statevector(cut, x))) < 1e-10
        assert max(_entropies(_statevector(full, x))) > 0.1  # the test can fail: the full circuit entangles


def test_classical_marginals_equal_the_circuits_exact_born_marginals():
    mod = _sampler("classical_marginals")
    angles = np.tanh(INPUTS)
    marginals = mod.backend.marginals(mod.circuit, angles)
    for row, x in enumerate(INPUTS):
        sv = _statevector(mod.circuit, x)
        exact = [sv.probabilities([q])[1] for q in range(N)]  # qiskit: P(qubit q = 1)
        np.testing.assert_allclose(marginals[row], exact, atol=1e-12)


def _normalised_errors(control, shots, rows=400):
    """(f - p) / sqrt(p (1 - p) / shots) for every row and qubit: f a sampler's frequency of 1,
    p the circuit's exact marginal; rows are agents with the same input and their own streams."""
    from quantum.readout import one_probabilities

    mod = _sampler(control, shots)
    angles = np.repeat(np.tanh(INPUTS[:1]), rows, axis=0)
    counts = mod.sample(angles, AgentStreams(5, np.arange(rows), "unconscious", 1))
    f = one_probabilities(counts / shots, N)
    p = mod.backend.marginals(mod.circuit, angles)
    return (f - p) / np.sqrt(p * (1 - p) / shots), f


@pytest.mark.parametrize("shots", [16, 256, 4096])
def test_classical_marginals_have_the_circuits_shot_noise_binomial_rate(shots):
    # Each qubit's count over the shots is Binomial(shots, p) for the circuit's multinomial sample
    # and for the independent Bernoulli draws alike, so the normalised error has mean 0 and variance 1
    # (400 rows x 4 qubits: standard error of the variance about 0.035, of the mean 0.025).
    for control in ("none", "classical_marginals"):
        z, _ = _normalised_errors(control, shots)
        assert abs(z.mean()) < 0.1, control
        assert 0.85 < z.var() < 1.15, (control, z.var())


def test_classical_marginals_remove_the_correlations_between_qubits():
    # The circuit's qubits are correlated (through entanglement); the independent draws are not.
    # Over 400 rows of 256 shots the sample correlation of two independent frequencies is ~ N(0, 1/400).
    _, f_circuit = _normalised_errors("none", 256)
    _, f_classical = _normalised_errors("classical_marginals", 256)
    off = ~np.eye(N, dtype=bool)
    assert np.abs(np.corrcoef(f_circuit.T)[off]).max() > 0.3
    assert np.abs(np.corrcoef(f_classical.T)[off]).max() < 0.2


@pytest.mark.parametrize("control", ["no_entanglement", "classical_marginals"])
def test_a_controlled_sampler_gives_each_agent_the_same_numbers_whatever_the_batch(control):
    mod = _sampler(control)
    agents = np.arange(5)
    b = torch.tensor(INPUTS, dtype=F64)
    weights = mod.init_weights(agents)
    whole, _ = mod.propose({}, {"broadcast": b}, AgentStreams(1, agents, "unconscious", 2), weights)
    for a in agents:
        one, _ = mod.propose({}, {"broadcast": b[a:a + 1]}, AgentStreams(1, agents[a:a + 1], "unconscious", 2),
                             {k: w[a:a + 1] for k, w in weights.items()})
        assert torch.equal(one.content[0], whole.content[a]) and torch.equal(one.salience[0], whole.salience[a])


def test_a_bad_control_is_refused_naming_field_value_and_choices():
    with pytest.raises(ConfigError, match=r"modules\.unconscious\.control = 'entangled'.*'none', "
                                          r"'no_entanglement', 'classical_marginals'"):
        load_config(overrides={"modules": {"unconscious": {"control": "entangled"}}})


def test_a_control_in_a_classical_run_is_refused():
    with pytest.raises(ConfigError, match=r"modules\.unconscious\.control = 'no_entanglement'.*quantum\.mode"):
        load_config(overrides={"quantum": {"mode": "disabled"},
                               "modules": {"unconscious": {"control": "no_entanglement"}}})


def _loop_units(module="unconscious", settings=None):
    """The module's describe() and the unit signals (agents, cycles, units) of a 5-cycle lite run."""
    from looptools import run_loop

    from cognition.simulator.build import assemble

    cfg = load_config(overrides={"run": {"agents": 4, "cycles": 5}, "quantum": {"mode": "lite", "backend": "torch"},
                                 "modules": {module: settings or {}}})
    assembly = assemble(cfg)
    return assembly.components[module], run_loop(assembly.loop, 5)[2]


@pytest.mark.parametrize("module, controls", [("unconscious", ("no_entanglement", "classical_marginals")),
                                              ("hybrid", ("no_interference", "matched_markov"))])
def test_the_loop_runs_the_chosen_control_and_none_is_the_quantum_module_as_it_was(module, controls):
    described, plain = _loop_units(module)
    assert described["control"] == "none" and described["variant"] == "quantum"
    assert np.array_equal(_loop_units(module, {"control": "none"})[1], plain)
    for control in controls:
        described, units = _loop_units(module, {"control": control})
        assert described["control"] == control
        if module == "unconscious":
            assert described["circuit"].endswith("_noent") == (control == "no_entanglement")
        assert not np.allclose(units, plain), control  # the control changed what the agents did


# -- hybrid: the quantum decision's controls -------------------------------------------------------

def _reference_conditionals(mu, gamma, t, mu_b):
    """P(act | A), P(act | B) of the quantum model by scipy.linalg.expm, one agent at a time
    (decision.disjunction_probabilities, the plain reference path; the loop's uses eigh)."""
    from cognition.decision import disjunction_probabilities

    return np.array([disjunction_probabilities(m, g, s, "quantum", 0.5, mb)[:2]
                     for m, g, s, mb in zip(mu, gamma, t, mu_b)]).T


def _decision_cases(n=300):
    rng = np.random.default_rng(8)
    return rng.uniform(size=n), rng.uniform(-3, 3, n), rng.uniform(0, 4, n), rng.uniform(0.2, 3, n), \
        rng.uniform(-3, 3, n)


def test_matched_markov_twin_has_the_quantum_conditionals_to_1e_12():
    from cognition.decision import controlled_choice_probabilities, matched_markov_intensity

    belief, mu, gamma, t, mu_b = _decision_cases()
    p_a, p_b = _reference_conditionals(mu, gamma, t, mu_b)
    twin = controlled_choice_probabilities(belief, mu, gamma, t=t, mu_b=mu_b, control="matched_markov")
    assert np.abs(twin["p_act_given_a"] - p_a).max() < 1e-12
    assert np.abs(twin["p_act_given_b"] - p_b).max() < 1e-12
    assert np.ptp(p_a) > 0.5  # the cases span the range, not one corner of it
    # a Markov chain: off-diagonal rates >= 0, columns sum to 0; it obeys total probability
    k = matched_markov_intensity(p_a, p_b, t)
    off = ~np.eye(4, dtype=bool)
    assert (k[:, off] >= 0).all() and np.abs(k.sum(axis=1)).max() < 1e-12
    assert np.abs(twin["interference"]).max() < 1e-14
    # ... so it acts as the quantum conditionals combined by total probability
    off_interference = controlled_choice_probabilities(belief, mu, gamma, t=t, mu_b=mu_b, control="no_interference")
    assert np.abs(twin["p_act"] - off_interference["p_act"]).max() < 1e-12


@pytest.mark.parametrize("p", [0.0, 1e-9, 0.3, 0.5, 0.9, 1.0 - 1e-9, 1.0])
def test_matched_markov_reaches_any_conditional(p):
    # P(act)(t) = pi + (1/2 - pi) exp(-s t) of the two-state chain, to the floor at 0 and 1
    from cognition.decision.batched import markov_choice
    from cognition.decision.matched import MATCH_FLOOR, matched_markov_intensity

    t = np.array([1.3])
    out = markov_choice(matched_markov_intensity(np.array([p]), np.array([1.0 - p]), t), np.array([0.5]), t)
    assert out["p_act_given_a"][0] == pytest.approx(p, abs=MATCH_FLOOR + 1e-14)
    assert out["p_act_given_b"][0] == pytest.approx(1.0 - p, abs=MATCH_FLOOR + 1e-14)


def test_interference_off_is_total_probability_of_the_quantum_conditionals_and_exactly_0():
    from cognition.decision import choice_probabilities, controlled_choice_probabilities

    belief, mu, gamma, t, mu_b = _decision_cases()
    p_a, p_b = _reference_conditionals(mu, gamma, t, mu_b)
    off = controlled_choice_probabilities(belief, mu, gamma, t=t, mu_b=mu_b, control="no_interference")
    assert (off["interference"] == 0.0).all()
    np.testing.assert_allclose(off["p_act"], belief * p_a + (1 - belief) * p_b, atol=1e-12)
    quantum = choice_probabilities(belief, mu, gamma, t=t, mu_b=mu_b)
    assert np.abs(quantum["interference"]).max() > 0.1  # the quantum model does interfere here


def _hybrid(control, gamma=2.09):
    from cognition.config.settings import HybridConfig
    from cognition.modules.hybrid import Hybrid

    return Hybrid(HybridConfig(control=control, gamma=gamma), 2, 0, F64, "cpu", model="quantum")


def test_the_hybrid_module_under_each_control():
    # Orthogonal contents: agreement 0, belief 1/2; expectation salience s: mu_a = 1 - tanh(s), mu_b = tanh(s)
    s_e = np.array([0.0, 0.3, 1.0, 3.0])
    n = len(s_e)
    zeros = torch.zeros(n, 2, dtype=F64)
    e, u = zeros.clone(), zeros.clone()
    e[:, 0], u[:, 1] = 1.0, 1.0
    inputs = {"broadcast": zeros, "expectation": Proposal(e, torch.tensor(s_e)),
              "unconscious": Proposal(u, torch.zeros(n, dtype=F64))}
    mu_a, mu_b = 1.0 - np.tanh(s_e), np.tanh(s_e)
    p_a, p_b = _reference_conditionals(mu_a, np.full(n, 2.09), np.full(n, np.pi / 2), mu_b)
    expected = 0.5 * p_a + 0.5 * p_b
    for control in ("no_interference", "matched_markov"):
        mod = _hybrid(control)
        prop, _ = mod.propose({}, inputs, None, mod.init_weights(np.arange(n)))
        np.testing.assert_allclose(prop.extras["p_act"].numpy(), expected, atol=1e-12)
        assert np.abs(prop.extras["interference"].numpy()).max() < 1e-14
        assert mod.describe()["control"] == control
    mod = _hybrid("none")
    prop, _ = mod.propose({}, inputs, None, mod.init_weights(np.arange(n)))
    assert np.abs(prop.extras["p_act"].numpy() - expected).max() > 0.05  # the quantum module is not the control


def test_a_bad_hybrid_control_is_refused_naming_field_value_and_choices():
    with pytest.raises(ConfigError, match=r"modules\.hybrid\.control = 'markov'.*'none', 'no_interference', "
                                          r"'matched_markov'"):
        load_config(overrides={"modules": {"hybrid": {"control": "markov"}}})
    with pytest.raises(ConfigError, match=r"modules\.hybrid\.control = 'matched_markov'.*quantum\.mode"):
        load_config(overrides={"quantum": {"mode": "disabled"}, "modules": {"hybrid": {"control": "matched_markov"}}})


def test_the_matched_twin_gives_an_agent_the_same_bits_beside_any_other_agent():
    # gamma = 0, mu = 1 gives P(act | A) = 1 (see test_modules' hand-computed 2x2), matched at the
    # floor by a fast chain (rate ~ 18); a squaring count shared by the batch (batched_expm before
    # 0.3.0) moved agent 0's numbers by 1e-15 to 6e-15 beside it (measured); per-matrix squarings keep
    # agent 0's rounding its own
    from cognition.decision import controlled_choice_probabilities

    belief, mu, mu_b = np.array([0.4, 0.4]), np.array([0.5, 1.0]), np.array([0.2, 1.0])
    both = controlled_choice_probabilities(belief, mu, 0.0, mu_b=mu_b, control="matched_markov")
    alone = controlled_choice_probabilities(belief[:1], mu[:1], 0.0, mu_b=mu_b[:1], control="matched_markov")
    for key in ("p_act", "p_act_given_a", "p_act_given_b", "interference"):
        assert both[key][0] == alone[key][0], key
