"""Each cognitive module checked against something independent of its code.

Sources: RLS with forgetting factor 1 equals ridge regression in closed form
(Haykin, Adaptive Filter Theory, sec. 9.3); quantum features against qiskit's
exact Statevector; shot samples against the exact Born distribution.
"""
import math

import numpy as np
import pytest
import torch

from cognition.config.settings import ExpectationConfig, HybridConfig, UnconsciousConfig
from cognition.modules.base import Proposal
from cognition.modules.expectation import ClassicalExpectation, QuantumExpectation
from cognition.modules.hybrid import Hybrid
from cognition.modules.readout import rls_init, rls_predict, rls_update
from cognition.modules.unconscious import ClassicalUnconscious, QuantumUnconscious
from cognition.architecture.streams import AgentStreams

F64 = torch.float64


def test_rls_with_unit_forgetting_equals_ridge_regression():
    rng = np.random.default_rng(0)
    X, Y, ridge = rng.normal(size=(40, 5)), rng.normal(size=(40, 3)), 0.7
    st = rls_init(1, 5, 3, ridge, F64, "cpu")
    W, P = st["W"], st["P"]
    for x, y in zip(X, Y):
        W, P = rls_update(W, P, torch.tensor(x)[None], torch.tensor(y)[None], forgetting=1.0)
    # closed form: W = (X^T X + ridge I)^-1 X^T Y
    expected = np.linalg.solve(X.T @ X + ridge * np.eye(5), X.T @ Y)
    np.testing.assert_allclose(W[0].numpy(), expected, atol=1e-9)
    np.testing.assert_allclose(rls_predict(W, torch.tensor(X[:2])).numpy()[0], X[0] @ expected, atol=1e-9)


def _torch_backend():
    from quantum import make_backend

    return make_backend("torch", device="cpu", max_qubits=16, threads=1)


def test_quantum_expectation_features_equal_exact_statevector():
    from qiskit.quantum_info import SparsePauliOp, Statevector

    D, n = 4, 3
    mod = QuantumExpectation(ExpectationConfig(qubits=n, depth=2), D, seed=5, dtype=F64, device="cpu",
                             backend=_torch_backend(), width=n)
    b = torch.tensor([[0.3, -1.2, 0.8, 0.05]], dtype=F64)
    weights = mod.init_weights(np.array([3]))
    q, _ = mod.features({}, b, weights)
    # to_qiskit() applies the builder's pi scale to the inputs; the agent's reservoir angles follow them
    params = np.concatenate([np.tanh(b.numpy())[0], weights["angles"][0].numpy()])
    qc = mod.circuit.to_qiskit()
    sv = Statevector(qc.assign_parameters(params))
    label = lambda qs: "".join("Z" if k in qs else "I" for k in reversed(range(n)))  # noqa: E731
    exact = [sv.expectation_value(SparsePauliOp(label({k}))).real for k in range(n)]
    exact += [sv.expectation_value(SparsePauliOp(label({k, (k + 1) % n}))).real for k in range(n)]
    np.testing.assert_allclose(q[0].numpy(), exact, atol=1e-10)


def test_expectation_salience_is_last_prediction_error():
    mod = ClassicalExpectation(ExpectationConfig(hidden=4), 3, seed=1, dtype=F64, device="cpu")
    agents = np.arange(2)
    st, weights = mod.init_state(agents, None), mod.init_weights(agents)
    b0 = torch.tensor([[0.1, 0.2, 0.3], [-0.3, 0.0, 0.4]], dtype=F64)
    prop, st = mod.propose(st, {"broadcast": b0}, None, weights)
    b1 = torch.tensor([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]], dtype=F64)
    st = mod.learn(st, b1)
    prop2, _ = mod.propose(st, {"broadcast": b1}, None, weights)
    np.testing.assert_allclose(prop2.salience.numpy(), ((b1 - prop.content) ** 2).mean(dim=1).numpy())


def test_quantum_sampler_matches_exact_born_distribution_within_shot_noise():
    from qiskit.quantum_info import Statevector

    D, n, shots = 4, 3, 4000
    mod = QuantumUnconscious(UnconsciousConfig(qubits=n, layers=2, shots=shots), D, seed=2, dtype=F64,
                             device="cpu", backend=_torch_backend(), width=n)
    b = torch.tensor([[0.4, -0.7, 1.1, 0.2]], dtype=F64)
    streams = AgentStreams(0, np.array([0]), "unconscious", 1)
    weights = mod.init_weights(np.array([0]))
    prop, _ = mod.propose({}, {"broadcast": b}, streams, weights)
    sv = Statevector(mod.circuit.to_qiskit().assign_parameters(np.tanh(b.numpy()[0])))
    p = sv.probabilities()  # little-endian: bit k of the index is qubit k
    z_exact = np.array([sum(p[i] * (1 - 2 * ((i >> k) & 1)) for i in range(2**n)) for k in range(n)])
    M = weights["M_T"][0].numpy().T  # the agent's association matrix (D, n)
    content_exact = np.tanh(M @ z_exact)
    # <Z> from `shots` samples has standard error sqrt((1 - z^2) / shots) <= 1/sqrt(shots);
    # tanh and M are Lipschitz with constant ||M||_inf, so the content error is bounded by 5 s.e. * ||M||_inf
    bound = 5 / math.sqrt(shots) * np.abs(M).sum(axis=1).max()
    assert np.max(np.abs(prop.content[0].numpy() - content_exact)) < bound


def test_classical_sampler_follows_its_update_equation():
    cfg = UnconsciousConfig(hidden=5, noise=0.3)
    mod = ClassicalUnconscious(cfg, 3, seed=4, dtype=F64, device="cpu")
    weights = mod.init_weights(np.arange(1))
    W, U, M = (weights[k][0].numpy().T for k in ("W_T", "U_T", "M_T"))  # stored transposed
    assert np.abs(np.linalg.eigvals(W)).max() == pytest.approx(0.9)
    st = mod.init_state(np.arange(1), None)
    b = torch.tensor([[0.5, -0.5, 0.1]], dtype=F64)
    streams = AgentStreams(9, np.array([0]), "unconscious", 1)
    prop, st2 = mod.propose(st, {"broadcast": b}, streams, weights)
    eps = AgentStreams(9, np.array([0]), "unconscious", 1).normal(5)[0]
    h = np.tanh(U @ b.numpy()[0] + 0.3 * eps)  # h_0 = 0
    np.testing.assert_allclose(st2["hidden"][0].numpy(), h, atol=1e-12)
    np.testing.assert_allclose(prop.content[0].numpy(), np.tanh(M @ h), atol=1e-12)


def _hybrid_inputs(e, u, s_e):
    mk = lambda c, s: Proposal(torch.tensor(c, dtype=F64), torch.tensor(s, dtype=F64))  # noqa: E731
    return {"broadcast": torch.zeros(len(s_e), len(e[0]), dtype=F64), "expectation": mk(e, s_e),
            "unconscious": mk(u, [0.0] * len(s_e))}


def test_markov_hybrid_obeys_total_probability():
    mod = Hybrid(HybridConfig(), 2, 0, F64, "cpu", model="markov")
    weights = mod.init_weights(np.arange(2))
    prop, _ = mod.propose({}, _hybrid_inputs([[1.0, 0.2], [0.3, -1.0]], [[0.5, 0.5], [1.0, 1.0]], [0.1, 2.0]), None,
                          weights)
    np.testing.assert_allclose(prop.extras["interference"].numpy(), 0.0, atol=1e-14)
    assert np.ptp(prop.extras["p_act"].numpy()) > 0.01  # the twin does respond to belief and salience


def test_quantum_hybrid_without_dissonance_matches_hand_computed_2x2():
    # gamma = 0 leaves each 2x2 belief block alone: H = (mu Z + X)/sqrt(1+mu^2), H^2 = I, so at t = pi/2
    # U = -iH and the start state (1,1)/sqrt(2) gives P(act | block) = f(mu) = (1+mu)^2 / (2 (1+mu^2)).
    # Orthogonal contents give agreement 0, so belief = sigmoid(0) = 1/2 and
    # p_act = f(mu_a)/2 + f(mu_b)/2 with mu_a = 1 - tanh(s), mu_b = tanh(s).
    mod = Hybrid(HybridConfig(gamma=0.0, mu_scale=1.0), 2, 0, F64, "cpu", model="quantum")
    e, u, s_e = [[1.0, 0.0]], [[0.0, 1.0]], [0.3]
    weights = mod.init_weights(np.arange(1))
    prop, _ = mod.propose({}, _hybrid_inputs(e, u, s_e), None, weights)
    f = lambda mu: (1 + mu) ** 2 / (2 * (1 + mu**2))  # noqa: E731
    p_hand = 0.5 * f(1.0 - math.tanh(0.3)) + 0.5 * f(math.tanh(0.3))
    p = float(prop.extras["p_act"][0])
    assert p == pytest.approx(p_hand, abs=1e-12)
    assert float(prop.extras["interference"][0]) == pytest.approx(0.0, abs=1e-12)
    # its content is its decision on its own action vector, and its evidence the content's distance from b = 0
    action = weights["action"][0].numpy()
    np.testing.assert_allclose(prop.content[0].numpy(), (2 * p - 1) * action, atol=1e-12)
    assert float(prop.salience[0]) == pytest.approx(np.mean(((2 * p - 1) * action) ** 2), abs=1e-12)


@pytest.mark.parametrize("shots", [1, 7, 128, 1000])
def test_sample_entropy_terms_are_f_log_f_of_the_counts(shots):
    # reference: f log2 f of c / shots computed elementwise over a large (agents x outcomes) tensor, as the
    # module did before the table; the table must give the same bits
    from cognition.modules.unconscious import frequency_log_frequency

    counts = torch.from_numpy(np.random.default_rng(shots).integers(0, shots + 1, size=(4096, 64)))
    freq = counts.to(torch.float64) / shots
    direct = freq * torch.log2(freq.clamp_min(1e-300))
    assert torch.equal(frequency_log_frequency(shots)[counts], direct)
