"""Counter-based streams: an agent's draws do not depend on its batch-mates."""
import numpy as np
import pytest

from cognition.streams import AgentStreams


def test_agent_draws_independent_of_batch_composition():
    all_agents = AgentStreams(7, np.arange(5), "unconscious", cycle=3).normal(4)
    alone = AgentStreams(7, np.array([3]), "unconscious", cycle=3).normal(4)
    assert np.array_equal(all_agents[3], alone[0])


def test_streams_differ_by_cycle_module_agent_and_seed():
    base = AgentStreams(7, np.array([0]), "unconscious", 3).normal(8)
    for other in (AgentStreams(7, np.array([0]), "unconscious", 4), AgentStreams(7, np.array([0]), "hybrid", 3),
                  AgentStreams(7, np.array([1]), "unconscious", 3), AgentStreams(8, np.array([0]), "unconscious", 3)):
        assert not np.array_equal(base, other.normal(8))


def test_draws_are_standard_normal():
    # 4000 draws: the sample mean and variance of N(0,1) within 5 standard errors
    x = AgentStreams(1, np.arange(500), "unconscious", 1).normal(8).ravel()
    assert abs(x.mean()) < 5 / np.sqrt(x.size)
    assert abs(x.var() - 1) < 5 * np.sqrt(2 / x.size)


@pytest.mark.parametrize("draw", [lambda g: g.standard_normal((3, 2)), lambda g: g.uniform(-1.0, 2.0, (4,)),
                                  lambda g: g.integers(0, 2**63 - 1, dtype=np.uint64),
                                  lambda g: g.integers(0, 10, size=5, dtype=np.uint32)])  # 32-bit: buffered halves
def test_draw_gives_each_agent_exactly_a_fresh_philox_generators_numbers(draw):
    # reference: numpy's own Philox(key=, counter=) built afresh per agent (what draw reuses one bit generator for)
    streams = AgentStreams(7, np.array([0, 5, 3, 1024, 5]), "workspace", 19)
    expected = np.stack([draw(streams._generator(a)) for a in streams.agents])
    assert np.array_equal(streams.draw(draw), expected)
