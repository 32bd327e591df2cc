"""The matched classical control of the quantum expectation's reservoir
(``modules.expectation.control: classical_reservoir``; docs/quantum-effects.md), checked against
independent computations: qiskit's statevector (expectation values, entanglement entropy), the
spectrum of re-uploading models (Schuld, Sweke & Meyer 2021, Phys. Rev. A 103, 032430), the loop
with ``control: none`` and the configuration's validation."""
import math

import numpy as np
import pytest
import torch
from looptools import run_loop
from test_matched_controls import _entropies

import quantum.circuits
from cognition.config.settings import ExpectationConfig, load_config
from cognition.errors import ConfigError
from cognition.modules.expectation import QuantumExpectation
from quantum import GATES, CircuitTemplate, Gate, angle_encoded_reservoir, without_entanglers
from quantum.product_state import product_state_features, product_state_z

F64 = torch.float64
N, D, DEPTH = 6, 8, 2  # 6 qubits, 8 inputs, 2 layers: 6 + 6 ring features
AGENTS = np.arange(5)
BROADCASTS = torch.tensor(np.random.default_rng(21).normal(size=(len(AGENTS), D)), dtype=F64)


class _NoBackend:
    """A quantum backend that must not be called: the control computes classically."""

    name = "must-not-run"

    def __getattr__(self, attr):
        raise AssertionError(f"the classical reservoir called the quantum backend's {attr}")


def _module(control, seed=3, backend=None):
    from quantum import make_backend

    backend = backend or make_backend("torch", device="cpu", max_qubits=16, threads=1)
    return QuantumExpectation(ExpectationConfig(qubits=N, depth=DEPTH, control=control), D, seed=seed,
                              dtype=F64, device="cpu", backend=backend, width=N)


def _params(mod, broadcast=BROADCASTS):
    """The module's circuit parameters: [tanh(b) inputs, the agent's own reservoir angles] (float64)."""
    return torch.cat([torch.tanh(broadcast), mod.init_weights(AGENTS[:len(broadcast)])["angles"]], dim=1)


def _qiskit_features(circuit, params, pairs):
    """<Z_q> and <Z_a Z_b> of `circuit` at each row of params, by qiskit's Statevector (independent of the
    simulator under test); qiskit's Pauli labels are little-endian: qubit q is the label's (n-1-q)th letter."""
    from qiskit.quantum_info import SparsePauliOp, Statevector

    n = circuit.n_qubits

    def label(qubits):
        return "".join("Z" if n - 1 - i in qubits else "I" for i in range(n))

    ops = [SparsePauliOp(label({q})) for q in range(n)] + [SparsePauliOp(label({a, b})) for a, b in pairs]
    qc = circuit.to_qiskit()
    rows = []
    for p in np.asarray(params):
        sv = Statevector(qc.assign_parameters(p))
        rows.append([sv.expectation_value(op).real for op in ops])
    return np.array(rows)


def test_product_state_features_equal_qiskits_expectations_of_the_entangler_free_circuit():
    # Source: qiskit.quantum_info.Statevector of without_entanglers(circuit), Z_q and Z_q Z_q+1 by SparsePauliOp.
    mod = _module("classical_reservoir", backend=_NoBackend())
    full = angle_encoded_reservoir(N, D, DEPTH)
    assert mod.circuit == without_entanglers(full) and mod.circuit.name.endswith("_noent")
    assert mod.n_features == 12 and mod.backend_name == "torch-product-state-reservoir"
    params = _params(mod)
    reference = _qiskit_features(mod.circuit, params, mod.pairs)
    assert np.abs(product_state_z(mod.circuit, params).numpy() - reference[:, :N]).max() < 1e-12
    q, extra = mod.features({}, BROADCASTS, mod.init_weights(AGENTS))  # no backend call (_NoBackend)
    assert extra == {} and q.shape == (len(AGENTS), 12) and q.dtype == F64
    assert np.abs(q.numpy() - reference).max() < 1e-12
    assert np.abs(reference[:, N:]).max() > 0.1  # the ring features are not trivially 0
    # the entanglers matter: the full circuit's features (qiskit) are not the control's
    assert np.abs(_qiskit_features(full, params, mod.pairs) - reference).max() > 0.1


def test_every_single_qubit_gate_matches_qiskit_and_two_qubit_or_unknown_gates_are_refused(monkeypatch):
    # Source: qiskit's Statevector for a random circuit over every one-qubit gate of quantum.GATES.
    rng = np.random.default_rng(5)
    names = [name for name, (arity, _) in GATES.items() if arity == 1]
    gates = []
    for i in range(120):
        name, qubit = names[i % len(names)], int(rng.integers(3))
        if GATES[name][1]:
            param = None if i % 7 == 0 else int(rng.integers(4))
            gates.append(Gate(name, (qubit,), param=param, scale=float(rng.normal(0, 2)), offset=float(rng.normal())))
        else:
            gates.append(Gate(name, (qubit,)))
    circuit = CircuitTemplate("every_gate", 3, 4, tuple(gates))
    params = torch.tensor(rng.normal(size=(6, 4)), dtype=F64)
    z = product_state_z(circuit, params)
    assert np.abs(z.numpy() - _qiskit_features(circuit, params, [])).max() < 1e-12
    # the device and dtype of the parameters: float32 stays float32, a meta tensor stays on meta
    assert product_state_z(circuit, params.float()).dtype == torch.float32
    assert product_state_z(circuit, params.to("meta")).device.type == "meta"
    with pytest.raises(ValueError, match="two-qubit gate cz"):
        product_state_z(angle_encoded_reservoir(N, D, DEPTH), params)
    monkeypatch.setitem(quantum.circuits.GATES, "u_new", (1, False))
    with pytest.raises(ValueError, match="'u_new', which it does not know"):
        product_state_z(CircuitTemplate("new", 1, 0, (Gate("u_new", (0,)),)), params[:, :0])


def test_the_control_state_has_no_entanglement_where_the_full_reservoir_has_some():
    # Source: qiskit partial_trace and entropy of every bipartition (test_matched_controls._entropies).
    from qiskit.quantum_info import Statevector

    mod = _module("classical_reservoir")
    full = angle_encoded_reservoir(N, D, DEPTH)
    for p in _params(mod).numpy():
        assert max(_entropies(Statevector(mod.circuit.to_qiskit().assign_parameters(p)))) < 1e-10
        assert max(_entropies(Statevector(full.to_qiskit().assign_parameters(p)))) > 0.1  # the test can fail


def _spectrum_excess(circuit, pairs, d, n_d, rng):
    """Along theta_d on 64 points over [-pi, pi) (the circuit reads x = theta / pi, others fixed at random):
    for each feature, the power above integer frequency n_d relative to its total, and the largest relative
    power at frequencies >= 1."""
    points = 64
    theta = -math.pi + 2 * math.pi * np.arange(points) / points
    base = np.concatenate([rng.uniform(-1, 1, D), rng.uniform(0, 2 * math.pi, circuit.n_params - D)])
    params = np.repeat(base[None], points, axis=0)
    params[:, d] = theta / math.pi
    f = product_state_features(circuit, torch.tensor(params, dtype=F64), pairs).numpy()  # (points, features)
    power = np.abs(np.fft.rfft(f, axis=0)) ** 2
    total = power.sum(axis=0)
    return (power[n_d + 1:].sum(axis=0) / total).max(), (power[1:] / total).max()


def test_the_features_hold_only_the_encodings_frequencies():
    # Source: Schuld, Sweke & Meyer 2021 (Phys. Rev. A 103, 032430): a model that encodes x through n
    # gates exp(-i x G / 2) with G's eigenvalues +-1 is a trigonometric polynomial of degree <= n in x.
    rng = np.random.default_rng(13)
    mod = _module("classical_reservoir")
    reading = [g for g in mod.circuit.gates if g.param is not None and g.param < D]
    assert all(g.scale == math.pi for g in reading)  # theta = pi x is the gates' angle: integer frequencies
    for d in range(D):
        n_d = sum(g.param == d for g in reading)
        above, largest = _spectrum_excess(mod.circuit, mod.pairs, d, n_d, rng)
        assert above < 1e-12, (d, n_d, above)
        assert largest > 1e-6, (d, largest)  # not trivial along theta_d (measured >= 3e-4; rounding: ~1e-31)
    # the check can fail: encoding at twice the angle (input_scale 2 pi) doubles the frequencies
    fast = without_entanglers(angle_encoded_reservoir(N, D, DEPTH, input_scale=2 * math.pi))
    n_0 = sum(g.param == 0 for g in fast.gates)
    assert _spectrum_excess(fast, mod.pairs, 0, n_0, rng)[0] > 1e-3


def _loop(settings):
    from cognition.simulator.build import assemble

    cfg = load_config(overrides={"run": {"agents": 4, "cycles": 5}, "quantum": {"mode": "lite", "backend": "torch"},
                                 "modules": {"expectation": settings}})
    assembly = assemble(cfg)
    return assembly.components["expectation"], run_loop(assembly.loop, 5)


def test_the_loop_runs_the_classical_reservoir_and_none_is_the_quantum_reservoir_as_it_was():
    # Source: the loop with control none and without the key (the quantum backend's path, unchanged).
    described, (state, _, units) = _loop({"control": "classical_reservoir"})
    assert described["control"] == "classical_reservoir" and described["variant"] == "quantum"
    assert described["backend"] == "torch-product-state-reservoir" and described["circuit"].endswith("_noent")
    features = state.modules["expectation"]["features"]
    assert features.shape[1] == 12 and torch.isfinite(features).all() and features.abs().max() > 0
    plain_described, (_, _, plain) = _loop({})
    assert plain_described["control"] == "none" and plain_described["backend"] != described["backend"]
    assert np.array_equal(_loop({"control": "none"})[1][2], plain)
    assert not np.allclose(units, plain)


def test_an_agent_gets_the_same_features_alone_and_in_any_batch():
    # Source: the same module run on each agent alone (one row per launch).
    mod = _module("classical_reservoir")
    weights = mod.init_weights(AGENTS)
    whole, _ = mod.features({}, BROADCASTS, weights)
    for a in AGENTS:
        for rows in (slice(a, a + 1), slice(0, a + 1)):
            part, _ = mod.features({}, BROADCASTS[rows], {k: w[rows] for k, w in weights.items()})
            assert torch.equal(part[-1], whole[a]), (a, rows)


def test_a_bad_reservoir_control_is_refused_naming_field_value_and_choices():
    # Source: cognition.config.settings's validation of the Literal and the quantum-modes-only rule.
    with pytest.raises(ConfigError, match=r"modules\.expectation\.control = 'gru'.*'none', "
                                          r"'classical_reservoir', 'classical'"):
        load_config(overrides={"modules": {"expectation": {"control": "gru"}}})
    with pytest.raises(ConfigError, match=r"modules\.expectation\.control = 'classical_reservoir'.*quantum\.mode"):
        load_config(overrides={"quantum": {"mode": "disabled"},
                               "modules": {"expectation": {"control": "classical_reservoir"}}})
    assert load_config(overrides={"modules": {"expectation": {"control": "classical_reservoir"}}}) \
        .modules.expectation.control == "classical_reservoir"
