"""Counter-based streams: Philox4x32-10 per (seed, agent, module, cycle), drawn for all agents at once.

Sources: Salmon et al. 2011 (Philox); the Random123 known-answer vectors are in test_rng.py.
The statistical checks compare against N(0, 1) and U[0, 1) with scipy's exact tests.
"""
import numpy as np
import pytest
import torch
from scipy import stats

from cognition.architecture.rng import blocks_to_uniforms, philox4x32
from cognition.architecture.streams import AgentStreams, philox_key, stream_key


def test_agent_draws_independent_of_batch_composition():
    all_agents = AgentStreams(7, np.arange(5), "unconscious", cycle=3).normal(4)
    alone = AgentStreams(7, np.array([3]), "unconscious", cycle=3).normal(4)
    assert np.array_equal(all_agents[3], alone[0])
    shuffled = AgentStreams(7, np.array([4, 3, 0]), "unconscious", cycle=3).normal(4)
    assert np.array_equal(shuffled, all_agents[[4, 3, 0]])


def test_streams_differ_by_cycle_module_agent_seed_and_kind():
    base = AgentStreams(7, np.array([0]), "unconscious", 3).normal(8)
    for other in (AgentStreams(7, np.array([0]), "unconscious", 4), AgentStreams(7, np.array([0]), "hybrid", 3),
                  AgentStreams(7, np.array([1]), "unconscious", 3), AgentStreams(8, np.array([0]), "unconscious", 3),
                  AgentStreams(7, np.array([0]), "unconscious", 3 + 2**32),
                  AgentStreams.weights(7, np.array([0]), "unconscious", 3)):
        assert not np.array_equal(base, other.normal(8))


def test_draws_follow_the_documented_layout():
    # the reference: Philox4x32-10 of counter (block, agent, cycle lo, cycle hi) under the stream's key,
    # two words per 53-bit double, in block order (module docstring of cognition/architecture/streams.py)
    cycle, agents = 2**32 + 19, np.array([0, 5, 1024])
    key = torch.tensor(philox_key(7, *stream_key("workspace"), 0))
    expected = []
    for agent in agents:
        counter = torch.tensor([[j, agent, cycle & 0xFFFFFFFF, cycle >> 32] for j in range(3)])
        expected.append(blocks_to_uniforms(philox4x32(counter, key)).reshape(-1)[:5].numpy())
    streams = AgentStreams(7, agents, "workspace", cycle)
    assert np.array_equal(streams.uniform(0.0, 1.0, 5), np.stack(expected))


def test_successive_draws_continue_the_stream_and_a_fresh_object_repeats_it():
    first = AgentStreams(3, np.arange(4), "hybrid", 8)
    a, b = first.uniform(0.0, 1.0, 3), first.uniform(0.0, 1.0, 3)
    whole = AgentStreams(3, np.arange(4), "hybrid", 8).uniform(0.0, 1.0, 8)
    assert np.array_equal(a, whole[:, :3]) and np.array_equal(b, whole[:, 4:7])  # 3 values take 2 blocks = 4 values
    assert np.array_equal(a, AgentStreams(3, np.arange(4), "hybrid", 8).uniform(0.0, 1.0, 3))


def test_tensor_and_numpy_draws_are_the_same_numbers():
    t = AgentStreams(5, np.arange(6), "expectation", 2).normal_tensor(2, 3)
    assert t.dtype == torch.float64 and t.shape == (6, 2, 3)
    assert np.array_equal(t.numpy(), AgentStreams(5, np.arange(6), "expectation", 2).normal(2, 3))


@pytest.mark.parametrize("bad, match", [({"agents": [-1]}, "agent indices"), ({"agents": [2**32]}, "agent indices"),
                                        ({"cycle": -1}, "cycle=-1")])
def test_bad_streams_are_refused(bad, match):
    args = {"seed": 1, "agents": [0], "module": "unconscious", "cycle": 0} | bad
    with pytest.raises(ValueError, match=match):
        AgentStreams(**args)


# --- statistical properties (moments, distribution, independence across agents and cycles) ---

N_AGENTS, N_CYCLES = 2000, 8


@pytest.fixture(scope="module")
def normals():
    """(cycles, agents, 16) standard normals of one stream."""
    return np.stack([AgentStreams(11, np.arange(N_AGENTS), "unconscious", c).normal(16) for c in range(N_CYCLES)])


def test_normal_moments(normals):
    # 256 000 draws; each moment's standard error under N(0,1): mean 1/sqrt(n), var sqrt(2/n),
    # skewness sqrt(6/n), excess kurtosis sqrt(24/n); 5 standard errors each
    x = normals.ravel()
    n = x.size
    assert abs(x.mean()) < 5 / np.sqrt(n)
    assert abs(x.var() - 1) < 5 * np.sqrt(2 / n)
    assert abs(stats.skew(x)) < 5 * np.sqrt(6 / n)
    assert abs(stats.kurtosis(x)) < 5 * np.sqrt(24 / n)


def test_normal_and_uniform_distributions_pass_ks():
    z = AgentStreams(2, np.arange(4000), "workspace", 1).normal(10).ravel()
    u = AgentStreams(2, np.arange(4000), "workspace", 1).uniform(0.0, 1.0, 10).ravel()
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert stats.kstest(u, "uniform").pvalue > 1e-3
    assert u.min() >= 0.0 and u.max() < 1.0
    # the test has teeth: a shift of 0.04 SD is caught at this sample size
    assert stats.kstest(z + 0.04, "norm").pvalue < 1e-3


def _max_abs_correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Largest |Pearson r| between column j of a and column j of b, over columns (rows are samples)."""
    a = (a - a.mean(0)) / a.std(0)
    b = (b - b.mean(0)) / b.std(0)
    return float(np.abs((a * b).mean(0)).max())


def test_independence_across_agents_cycles_and_positions(normals):
    # under independence each r is ~ N(0, 1/n) with n = samples; the bound 5/sqrt(n) over <= 16 columns
    # has a false alarm rate below 1e-5
    bound_agents = 5 / np.sqrt(N_CYCLES * (N_AGENTS // 2))
    pairs = normals.reshape(N_CYCLES * N_AGENTS // 2, 2, 16)  # agent 2i vs 2i + 1, same cycle
    assert _max_abs_correlation(pairs[:, 0], pairs[:, 1]) < bound_agents
    bound_cycles = 5 / np.sqrt((N_CYCLES - 1) * N_AGENTS)
    now, nxt = normals[:-1].reshape(-1, 16), normals[1:].reshape(-1, 16)  # one agent, cycle c vs c + 1
    assert _max_abs_correlation(now, nxt) < bound_cycles
    flat = normals.reshape(-1, 16)  # position k vs k + 1 within a draw (the two normals of one block)
    assert _max_abs_correlation(flat[:, :-1], flat[:, 1:]) < 5 / np.sqrt(flat.shape[0])
    # the check has teeth: streams that share numbers across agents are caught
    assert _max_abs_correlation(pairs[:, 0], pairs[:, 0] + 0.5 * pairs[:, 1]) > bound_agents


def test_neighbouring_agents_and_cycles_share_no_uniform_bits():
    # 32-bit words of neighbouring counters: each bit is set half the time and agrees with its neighbour's
    # half the time (binomial, 5 SE over 32 bits x 64 000 words)
    key = torch.tensor(philox_key(0, *stream_key("hybrid"), 0))
    agents = torch.arange(64_000)
    words = [philox4x32(torch.stack((torch.zeros_like(agents), agents + d, torch.zeros_like(agents) + c,
                                     torch.zeros_like(agents)), -1), key)[:, 0] for d, c in ((0, 0), (1, 0), (0, 1))]
    bits = [((w[:, None] >> torch.arange(32)) & 1).double() for w in words]
    se = 5 * 0.5 / np.sqrt(len(agents))
    assert (bits[0].mean(0) - 0.5).abs().max() < se
    for other in bits[1:]:
        assert ((bits[0] == other).double().mean(0) - 0.5).abs().max() < se


def test_uniform32_takes_one_word_per_number_in_block_order():
    # shots' uniforms: word k of the agent's blocks / 2^32 (four per block, docs/modules.md)
    key = torch.tensor(philox_key(4, *stream_key("unconscious"), 0))
    counter = torch.tensor([[j, 9, 6, 0] for j in range(2)])
    words = philox4x32(counter, key).reshape(-1)[:7]
    drawn = AgentStreams(4, np.array([9]), "unconscious", 6).uniform32_tensor(7)[0]
    assert torch.equal(drawn, words.double() / 2**32)


def test_the_init_streams_modules_draw_from_start_after_the_initial_broadcast():
    # before 0.2.0 every draw of a fresh "init" object repeated the initial broadcast's numbers
    from cognition.simulator.build import assemble
    from cognition.config.settings import load_config

    loop = assemble(load_config(overrides={"run": {"agents": 3}, "quantum": {"mode": "disabled"},
                                           "runtime": {"device": "cpu"}})).loop
    init, b0 = loop._init_streams()
    assert torch.equal(b0, loop.initial_state().broadcast)
    D = b0.shape[1]
    fresh = AgentStreams(loop.cfg.run.seed, loop.agents, "init", 0)
    assert torch.equal(2 * b0, fresh.normal_tensor(D))  # the broadcast is the stream's first draw
    assert torch.equal(init.normal_tensor(D), fresh.normal_tensor(D))  # modules get the second
