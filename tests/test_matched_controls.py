"""Matched controls of the quantum components (issue 16; docs/quantum-effects.md), each checked
against an independent computation: qiskit's statevector (entanglement entropy, Born marginals),
the binomial law of shot noise, and scipy's matrix exponential for the decision model."""
import math
from itertools import combinations

import numpy as np
import pytest
import torch

from cognition.config import UnconsciousConfig, load_config
from cognition.errors import ConfigError
from cognition.modules.unconscious import QuantumUnconscious
from cognition.streams import AgentStreams

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


def _loop_units(unconscious):
    from looptools import run_loop

    from cognition.assemble import assemble

    cfg = load_config(overrides={"run": {"agents": 4, "cycles": 5}, "quantum": {"mode": "lite", "backend": "torch"},
                                 "modules": {"unconscious": unconscious}})
    assembly = assemble(cfg)
    return assembly.components["unconscious"], run_loop(assembly.loop, 5)[2]


def test_the_loop_runs_the_chosen_control_and_none_is_the_quantum_module_as_it_was():
    described, plain = _loop_units({})
    assert described["control"] == "none" and not described["circuit"].endswith("_noent")
    assert np.array_equal(_loop_units({"control": "none"})[1], plain)
    for control in ("no_entanglement", "classical_marginals"):
        described, units = _loop_units({"control": control})
        assert described["control"] == control
        assert described["circuit"].endswith("_noent") == (control == "no_entanglement")
        assert not np.allclose(units, plain), control  # the control changed what the agents did
