"""Noise-matched classical stand-in and the per-module classical control (issue 16).

Independent references: the quadrature against scipy.integrate.quad and Monte Carlo; the shot
noise against the binomial variance (1 - m^2) / shots of a mean of +-1 outcomes with exact
expectation m, with m from the quantum backend's exact Born marginals.
"""
import numpy as np
import pytest
import torch
from scipy import integrate, stats

from cognition.config.settings import UnconsciousConfig, load_config
from cognition.errors import ConfigError
from cognition.modules.noise_match import matched_noise_scale, shot_noise_variance, tanh_noise_variance
from cognition.modules.unconscious import ClassicalUnconscious
from cognition.architecture.streams import AgentStreams

F64 = torch.float64


def _quad_variance(a: float, sigma: float) -> float:
    """Var[tanh(a + sigma eps)], eps ~ N(0, 1), by adaptive quadrature (scipy), an independent integral."""
    first = integrate.quad(lambda e: np.tanh(a + sigma * e) * stats.norm.pdf(e), -np.inf, np.inf, epsabs=1e-13)[0]
    second = integrate.quad(lambda e: np.tanh(a + sigma * e) ** 2 * stats.norm.pdf(e), -np.inf, np.inf,
                            epsabs=1e-13)[0]
    return second - first**2


# 20 nodes up to scale 0.5 (2e-14 at 0.3, 1e-9 at 0.5), 64 above (1e-9 at 1; at 3, where tanh is nearly a
# step over the nodes' spacing, off by 2.4e-4): measured, said in the module
@pytest.mark.parametrize("sigma, tolerance", [(0.01, 1e-14), (0.1, 1e-14), (0.3, 1e-13), (0.5, 2e-9), (1.0, 1e-9),
                                              (3.0, 5e-4)])
def test_the_quadrature_variance_equals_scipys_integral(sigma, tolerance):
    drives = np.array([[-2.5, -0.7, 0.0, 0.4, 1.3, 3.0]])
    ours = tanh_noise_variance(torch.tensor(drives, dtype=F64), sigma).item()
    assert ours == pytest.approx(np.mean([_quad_variance(a, sigma) for a in drives[0]]), abs=tolerance)


def test_large_drives_keep_their_small_variance_and_each_row_its_own_node_count():
    # at drive 12 and scale 0.05 the variance is ~1e-21: the paired form (deviations from tanh a, one
    # denominator per node pair) keeps it to rounding, where E[f^2] - E[f]^2 of f ~ 1 cancelled to noise.
    # Reference: the delta method, Var ~ sigma^2 sech^4(a) (its next term is O(sigma^4) smaller here).
    a, sigma = 12.0, 0.05
    ours = tanh_noise_variance(torch.tensor([[a]], dtype=F64), sigma).item()
    assert ours == pytest.approx(sigma**2 / np.cosh(a) ** 4, rel=1e-2)
    # a row's node count follows its own scale: a row at 0.3 gets the same bits beside a row at 2 (64 nodes)
    drive = torch.tensor([[0.4, -1.1], [0.2, 0.9]], dtype=F64)
    both = tanh_noise_variance(drive, torch.tensor([0.3, 2.0], dtype=F64))
    assert both[0] == tanh_noise_variance(drive[:1], torch.tensor([0.3], dtype=F64))[0]


def test_the_matched_scale_gives_the_target_variance_and_monte_carlo_agrees():
    rng = np.random.default_rng(5)
    drive = torch.tensor(rng.normal(0, 1.2, size=(6, 16)), dtype=F64)
    for target in (1e-4, 0.0072, 0.05, 0.3):
        sigma = matched_noise_scale(drive, target)
        assert torch.allclose(tanh_noise_variance(drive, sigma), torch.full((6,), target, dtype=F64), atol=1e-12)
        # Monte Carlo (independent of the quadrature): 100 000 draws per unit of agent 0
        eps = torch.tensor(rng.normal(size=(100_000, 1)), dtype=F64)
        h = torch.tanh(drive[0] + sigma[0] * eps)
        mc = h.var(dim=0).mean().item()
        assert mc == pytest.approx(target, rel=0.02), target  # SE of a variance from 1e5 draws: ~0.5 %


def test_an_unreachable_target_ends_at_a_saturating_scale_and_says_what_it_reached():
    drive = torch.zeros(2, 4, dtype=F64)
    sigma = matched_noise_scale(drive, 0.999)
    assert torch.all(sigma > 10.0)
    assert torch.all(tanh_noise_variance(drive, sigma) < 0.999)  # the recorded noise_var shows the shortfall


@pytest.mark.parametrize("shots", [2, 16, 128])
def test_the_shot_noise_estimate_is_unbiased_for_the_binomial_variance(shots):
    # a mean of `shots` outcomes +-1 with expectation m has variance (1 - m^2) / shots (binomial)
    rng = np.random.default_rng(shots)
    m = np.array([-0.9, -0.2, 0.0, 0.5, 0.97])
    reps = 40_000
    ones = rng.binomial(shots, (1 + m) / 2, size=(reps, m.size))
    z = torch.tensor(2.0 * ones / shots - 1.0, dtype=F64)
    estimate = shot_noise_variance(z, shots).numpy()
    exact = np.mean((1 - m**2) / shots)
    assert abs(estimate.mean() - exact) < 4 * estimate.std() / np.sqrt(reps)
    assert shot_noise_variance(z[:3], 1).isnan().all()  # one shot: no estimate, said as NaN


def test_the_quantum_samplers_recorded_noise_matches_its_exact_born_marginals():
    from quantum import make_backend

    from cognition.modules.unconscious import QuantumUnconscious

    backend = make_backend("torch", device="cpu", max_qubits=16, threads=1)
    mod = QuantumUnconscious(UnconsciousConfig(qubits=4, layers=2, shots=64), 4, seed=2, dtype=F64, device="cpu",
                             backend=backend, width=4)
    agents = np.arange(400)
    b = torch.tensor(np.tile(np.random.default_rng(3).normal(size=(1, 4)), (400, 1)), dtype=F64)  # one cue
    proposal, _ = mod.propose({}, {"broadcast": b}, AgentStreams(1, agents, "unconscious", 2),
                              mod.init_weights(agents))
    p1 = backend.marginals(mod.circuit, np.tanh(b[:1].numpy()))[0]  # exact P(q = 1)
    exact = np.mean((1 - (1 - 2 * p1) ** 2) / 64)
    recorded = proposal.extras["noise_var"].numpy()
    assert abs(recorded.mean() - exact) < 4 * recorded.std() / np.sqrt(400)


def _classical(noise_variance, agents):
    mod = ClassicalUnconscious(UnconsciousConfig(noise_variance=noise_variance), 8, seed=4, dtype=F64, device="cpu")
    weights = mod.init_weights(agents)
    b = torch.tensor(np.random.default_rng(6).normal(size=(len(agents), 8)), dtype=F64)
    hidden = torch.tensor(np.random.default_rng(7).normal(size=(len(agents), 16)), dtype=F64).tanh()
    return mod, weights, b, hidden


def test_the_noise_matched_rnn_has_the_target_variance_and_each_agent_its_own_bits():
    agents = np.arange(5)
    mod, weights, b, hidden = _classical(0.007, agents)
    whole, _ = mod.propose({"hidden": hidden}, {"broadcast": b}, AgentStreams(1, agents, "unconscious", 3), weights)
    assert torch.allclose(whole.extras["noise_var"], torch.full((5,), 0.007, dtype=F64), atol=1e-12)
    assert torch.all(whole.extras["noise_scale"] < 0.3)  # far below the default scale: the default is noisier
    for a in agents:
        one, _ = mod.propose({"hidden": hidden[a:a + 1]}, {"broadcast": b[a:a + 1]},
                             AgentStreams(1, agents[a:a + 1], "unconscious", 3),
                             {k: w[a:a + 1] for k, w in weights.items()})
        for key in ("content", "salience"):
            assert torch.equal(getattr(one, key)[0], getattr(whole, key)[a]), key
        assert torch.equal(one.extras["noise_scale"][0], whole.extras["noise_scale"][a])


def test_the_fixed_scale_rnn_records_its_own_noise_variance():
    agents = np.arange(3)
    mod, weights, b, hidden = _classical(None, agents)
    proposal, _ = mod.propose({"hidden": hidden}, {"broadcast": b}, AgentStreams(1, agents, "unconscious", 3), weights)
    drive = mod._drive(hidden, b, weights["W_T"], weights["U_T"])
    expected = [np.mean([_quad_variance(a, 0.3) for a in row]) for row in drive.numpy()]
    assert np.allclose(proposal.extras["noise_var"].numpy(), expected, atol=1e-9)
    assert "noise_scale" not in proposal.extras


@pytest.mark.parametrize("value", [0, -0.1, 1.0, 2.0])
def test_a_bad_noise_variance_is_refused_naming_field_value_and_bounds(value):
    with pytest.raises(ConfigError, match=r"modules\.unconscious\.noise_variance"):
        load_config(overrides={"modules": {"unconscious": {"noise_variance": value}}})


def _assemble(quantum_mode, modules):
    from cognition.simulator.build import assemble

    return assemble(load_config(overrides={"run": {"agents": 4, "cycles": 4},
                                           "quantum": {"mode": quantum_mode, "backend": "torch"},
                                           "modules": modules}))


@pytest.mark.parametrize("module", ["expectation", "unconscious", "hybrid"])
def test_control_classical_runs_the_classical_stand_in_inside_a_quantum_run(module):
    from looptools import run_loop

    from cognition.simulator.provenance import collect

    assembly = _assemble("lite", {module: {"control": "classical"}})
    variants = {name: d["variant"] for name, d in assembly.components.items()}
    assert variants[module] == "classical"
    assert all(v == "quantum" for name, v in variants.items() if name != module)
    prov = collect(assembly.loop.cfg, device={}, components=assembly.components, quantum_backend=None, notes=[],
                   argv=[])
    assert prov["classical_components"] == [module] and not prov["classical_fallback"]  # asked for: no fallback
    units = run_loop(assembly.loop, 4)[2]
    reference = run_loop(_assemble("disabled", {}).loop, 4)[2]
    assert np.isfinite(units).all() and not np.array_equal(units, reference)  # not the all-classical run
    with pytest.raises(ConfigError, match=rf"modules\.{module}\.control = 'classical'.*quantum\.mode"):
        load_config(overrides={"quantum": {"mode": "disabled"}, "modules": {module: {"control": "classical"}}})
