"""Per-agent architectures (issue 14): every agent draws its own fixed random module weights from its
own streams, a pure function of (seed, agent, module, weight), so agents are independent replications
and the seed fixes the whole population. Each test names what it checks against.
"""
import numpy as np
import pytest
import torch

from cognition.simulator.build import assemble
from cognition.config.settings import load_config
from cognition.architecture.streams import AgentStreams
from quantum import angle_encoded_reservoir, make_backend, reservoir_angle_count

MODES = ["disabled", "lite"]  # classical modules; quantum modules on the torch statevector backend


def _loop(mode, agents=8, seed=0):
    quantum = {"mode": mode} if mode == "disabled" else {"mode": mode, "backend": "torch"}
    return assemble(load_config(overrides={"run": {"agents": agents, "seed": seed}, "quantum": quantum,
                                           "control": {"yoked": False}})).loop


def _weights(loop):
    return [(name, key, w) for name, ws in loop.weights.items() for key, w in ws.items()]


@pytest.mark.parametrize("mode", MODES)
def test_two_agents_have_different_weights(mode):
    # against the old shared draw: then every agent's weights were one tensor, equal row for row
    loop = _loop(mode)
    names = {(name, key) for name, key, _ in _weights(loop)}
    classical = {("unconscious", k) for k in ("M_T", "W_T", "U_T")} | \
        {("expectation", k) for k in ("w_ih_T", "w_hh_T", "b_ih", "b_hh")}
    expected = ({("unconscious", "M_T"), ("expectation", "angles")} if mode == "lite" else classical) | \
        {("hybrid", "action")}
    assert names == expected
    for name, key, w in _weights(loop):
        assert w.shape[0] == 8, (name, key)
        for a in range(1, 8):
            assert not torch.equal(w[0], w[a]), (name, key, a)


@pytest.mark.parametrize("mode", MODES)
def test_agents_under_identical_inputs_follow_different_unit_trajectories(mode):
    # against a population of clones: the same broadcasts into every agent give every agent the same
    # units only if their weights are equal. The expectation module draws no noise, so its units
    # (salience, content mean) differ between agents only through their weights.
    loop = _loop(mode)
    mod, weights = loop.modules["expectation"], loop.weights["expectation"]
    state = mod.init_state(loop.agents, None)
    rng = np.random.default_rng(1)
    trajectory = []
    for _ in range(5):
        b = torch.as_tensor(np.repeat(rng.uniform(-1, 1, size=(1, 8)), 8, axis=0))  # one broadcast, every agent
        proposal, state = mod.propose(state, {"broadcast": b}, None, weights)
        state = mod.learn(state, torch.as_tensor(np.repeat(rng.uniform(-1, 1, size=(1, 8)), 8, axis=0)))
        trajectory.append(mod.units(proposal, b))
    units = torch.stack(trajectory, dim=1)  # (agents, cycles, 2)
    # cycle 1: every prediction is still 0, so every agent's error on the same broadcast is the same
    assert torch.equal(units[:, 0, 0], units[0, 0, 0].expand(8))
    for a in range(1, 8):
        assert not torch.equal(units[0, 1:], units[a, 1:]), a


@pytest.mark.parametrize("mode", MODES)
def test_agent_weights_equal_between_an_8_and_a_16_agent_run(mode):
    # against the same agents in a larger population: weights are a pure function of (seed, agent, module,
    # weight), never of the run's size; and against one agent drawn alone (agent index only)
    small, large = _loop(mode, agents=8), _loop(mode, agents=16)
    for (name, key, w8), (_, _, w16) in zip(_weights(small), _weights(large)):
        assert w16.shape[0] == 16
        assert torch.equal(w8, w16[:8]), (name, key)
        alone = large.modules[name].init_weights(np.array([11]))[key]
        assert torch.equal(alone[0], w16[11]), (name, key)


@pytest.mark.parametrize("mode", MODES)
def test_a_different_seed_gives_different_weights(mode):
    # against the seed fixing the population: another seed, another population (every agent, every weight)
    for (name, key, w0), (_, _, w1) in zip(_weights(_loop(mode, seed=0)), _weights(_loop(mode, seed=1))):
        for a in range(8):
            assert not torch.equal(w0[a], w1[a]), (name, key, a)


def test_weight_streams_are_disjoint_from_noise_streams():
    # against the stream layout (cognition/architecture/streams.py): weights counter (0, 0, w, 1), noise (0, cycle, 0, 0)
    agents = np.arange(3)
    noise = [AgentStreams(5, agents, "unconscious", c).normal(6) for c in range(3)]
    weights = [AgentStreams.weights(5, agents, "unconscious", w).normal(6) for w in range(3)]
    for i, w in enumerate(weights):
        assert not any(np.array_equal(w, x) for x in noise + weights[:i] + weights[i + 1:])


def test_classical_recurrent_weights_have_spectral_radius_09_per_agent():
    # against the echo-state scaling: each agent's own W is rescaled, not one shared W
    W_T = _loop("disabled").weights["unconscious"]["W_T"].numpy()
    radii = np.abs(np.linalg.eigvals(W_T)).max(axis=1)
    np.testing.assert_allclose(radii, 0.9, rtol=1e-12)


def _reservoir_by_hand(n, n_inputs, depth, x, angles):
    """The reservoir's state built gate by gate from textbook matrices (qubit q = bit q, Qiskit's RX, RZ)."""
    I2 = np.eye(2)
    ry = lambda t: np.array([[np.cos(t / 2), -np.sin(t / 2)], [np.sin(t / 2), np.cos(t / 2)]])  # noqa: E731
    rz = lambda t: np.diag([np.exp(-0.5j * t), np.exp(0.5j * t)])  # noqa: E731
    rx = lambda t: np.array([[np.cos(t / 2), -1j * np.sin(t / 2)], [-1j * np.sin(t / 2), np.cos(t / 2)]])  # noqa: E731

    def on(q, u):  # kron order: qubit n-1 leftmost
        out = np.array([[1.0]])
        for k in reversed(range(n)):
            out = np.kron(out, u if k == q else I2)
        return out

    def controlled(c, t, u):
        P0, P1 = np.diag([1.0, 0.0]), np.diag([0.0, 1.0])
        return on(c, P0) + on(c, P1) @ on(t, u)

    ring = [(0, 1)] if n == 2 else [(q, (q + 1) % n) for q in range(n)]
    psi = np.zeros(2**n, dtype=complex)
    psi[0] = 1.0
    for layer in range(depth):
        for q in range(n):
            k = 2 * (layer * n + q)
            for u in (ry(np.pi * x[(q + layer) % n_inputs]), rz(np.pi * x[(q + layer + 1) % n_inputs]),
                      rx(angles[k]), rz(angles[k + 1])):
                psi = on(q, u) @ psi
        gate = np.diag([1.0, -1.0]) if layer % 2 == 0 else np.array([[0.0, 1.0], [1.0, 0.0]])
        for a, b in ring:
            psi = controlled(a, b, gate) @ psi
    return np.abs(psi) ** 2


def test_reservoir_with_per_agent_angles_torch_equals_aer_and_a_hand_built_statevector():
    # against qiskit Aer and against a statevector multiplied out gate by gate here (independent of quantum/)
    n, n_inputs, depth, agents = 3, 4, 2, 3
    circuit = angle_encoded_reservoir(n, n_inputs, depth)
    assert circuit.n_params == n_inputs + reservoir_angle_count(n, depth) == 4 + 12
    assert circuit.name == "reservoir_q3_i4_d2_a12"
    x = np.random.default_rng(0).uniform(-1, 1, size=(agents, n_inputs))
    angles = AgentStreams.weights(0, np.arange(agents), "expectation", 0).uniform(0, 2 * np.pi, 12)
    params = np.concatenate([x, angles], axis=1)
    torch_p = make_backend("torch", device="cpu", max_qubits=8, threads=1).probabilities(circuit, params)
    for a in range(agents):
        np.testing.assert_allclose(torch_p[a], _reservoir_by_hand(n, n_inputs, depth, x[a], angles[a]),
                                   rtol=0, atol=1e-12)
    assert not np.allclose(torch_p[0], torch_p[1])
    pytest.importorskip("qiskit_aer")
    aer_p = make_backend("aer", device="cpu", max_qubits=8, threads=1).probabilities(circuit, params)
    np.testing.assert_allclose(torch_p, aer_p, rtol=0, atol=1e-12)


def test_the_reservoir_runs_every_agent_in_one_backend_call():
    # against one launch per agent: each cycle the expectation module asks the backend once, for <Z> and
    # <ZZ> together, for all agents, each row carrying that agent's inputs and angles
    loop = _loop("lite")
    mod = loop.modules["expectation"]
    calls = []
    for attr in ("_z_zz", "_probabilities"):  # the backend's simulation hooks (the torch backend's _z_zz runs its own)
        original = getattr(mod.backend, attr)

        def spy(circuit, params, *rest, _original=original):
            calls.append((circuit.name, np.asarray(params).shape))
            return _original(circuit, params, *rest)

        setattr(mod.backend, attr, spy)
    state = loop.initial_state()
    loop.advance(state)
    reservoir = [call for call in calls if call[0] == mod.circuit.name]  # the backend also runs the sampler
    assert reservoir == [("reservoir_q6_i8_d2_a24", (8, 8 + 24))]  # <Z> and <ZZ> of one simulation
    angles = loop.weights["expectation"]["angles"]
    assert angles.dtype == torch.float64 and angles.shape == (8, 24)


def test_weights_stay_out_of_the_loop_state():
    # against checkpoints carrying the anatomy: the LoopState a checkpoint saves (runner._checkpoint: its
    # broadcast and module states) holds no weight tensor; a resumed run draws the weights again
    loop = _loop("disabled")
    state = loop.initial_state()
    held = {id(w) for _, _, w in _weights(loop)}
    saved = [v for st in state.modules.values() for v in st.values()] + [state.broadcast]
    assert not held & {id(v) for v in saved}
    assert not any(key in st for st in state.modules.values() for key in ("W_T", "U_T", "M_T", "w_ih_T", "angles"))

