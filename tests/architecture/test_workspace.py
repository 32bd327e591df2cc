"""Workspace competition (surprise bids, access dynamics with ignition) against hand computations,
and the wiring graph's validation."""
import math

import numpy as np
import pytest
import scipy.stats
import torch

from cognition.config.settings import WorkspaceConfig
from cognition.errors import ConfigError
from cognition.modules.base import Proposal
from cognition.architecture.workspace import (NO_ACCESS, SharedWorkspace, access_step, execution_order, ignition_curve,
                                 surprise, wiring_graph)


class _Streams:
    """Stand-in for AgentStreams with noise set by the test."""

    def __init__(self, eps):
        self.eps = np.asarray(eps, dtype=np.float64)

    def normal(self, *shape):
        return self.eps

    def normal_tensor(self, *shape):
        return torch.as_tensor(self.eps)


def _proposal(content, salience):
    return Proposal(torch.tensor(content, dtype=torch.float64), torch.tensor(salience, dtype=torch.float64))


def test_surprise_is_the_normal_score_of_the_mid_rank_percentile():
    # hand computation: window [1, 2, 3, nan] holds 3 evidences (cycle 4); e = 2.5 has 2 below, 0 equal
    # -> F = (2 + 0.5) / 4; e = 2 has 1 below, 1 equal -> F = (1 + 0.5 + 0.5) / 4 (scipy's norm.ppf)
    window = torch.tensor([[[1.0, 2.0, 3.0, float("nan")], [1.0, 2.0, 3.0, float("nan")]]], dtype=torch.float64)
    z, new = surprise(torch.tensor([[2.5, 2.0]], dtype=torch.float64), window, torch.tensor(4))
    assert z[0].tolist() == pytest.approx([scipy.stats.norm.ppf(2.5 / 4), scipy.stats.norm.ppf(2.0 / 4)], abs=1e-12)
    assert new[0, 0].tolist() == [1.0, 2.0, 3.0, 2.5]  # written into slot (4 - 1) mod 4
    z1, _ = surprise(torch.tensor([[7.0, -7.0]], dtype=torch.float64), torch.full((1, 2, 4), float("nan"),
                     dtype=torch.float64), torch.tensor(1))
    assert z1.tolist() == [[0.0, 0.0]]  # nothing to compare with yet: no surprise


def test_surprise_makes_bids_commensurable_across_scales():
    # two modules whose evidence differs by a factor 1000 in scale and is skewed: the same ranks give the same bids
    rng = np.random.default_rng(0)
    e = rng.lognormal(size=200)
    window = torch.full((1, 2, 20), float("nan"), dtype=torch.float64)
    bids = []
    for t, x in enumerate(e, start=1):
        z, window = surprise(torch.tensor([[x, 1000.0 * x]], dtype=torch.float64), window, torch.tensor(t))
        bids.append(z[0].tolist())
    bids = np.array(bids)
    assert np.array_equal(bids[:, 0], bids[:, 1])
    assert abs(bids[20:, 0].mean()) < 0.2 and 0.7 < bids[20:, 0].std() < 1.2  # close to N(0, 1)


def test_access_step_matches_hand_computed_rate_dynamics():
    cfg = WorkspaceConfig(threshold=0.5, temperature=0.25, self_excitation=1.5, inhibition=1.0, adaptation=2.0,
                          adaptation_cycles=4.0)
    bids = torch.tensor([[1.0, 0.2]], dtype=torch.float64)
    access = torch.tensor([[0.5, 0.8]], dtype=torch.float64)
    fatigue = torch.tensor([[0.1, 0.4]], dtype=torch.float64)
    a, h = access_step(bids, access, fatigue, cfg)
    sig = lambda x: 1.0 / (1.0 + math.exp(-x))  # noqa: E731
    u0 = 1.0 + 1.5 * 0.5 - 1.0 * 0.8 - 2.0 * 0.1
    u1 = 0.2 + 1.5 * 0.8 - 1.0 * 0.5 - 2.0 * 0.4
    expected = [sig((u0 - 0.5) / 0.25), sig((u1 - 0.5) / 0.25)]
    assert a[0].tolist() == pytest.approx(expected, abs=1e-12)
    assert h[0].tolist() == pytest.approx([0.1 + (expected[0] - 0.1) / 4, 0.4 + (expected[1] - 0.4) / 4], abs=1e-12)


def _workspace(names=("a", "b", "c"), excluded=(), **kw):
    return SharedWorkspace(WorkspaceConfig(**kw), list(names), excluded=excluded)


def test_capacity_one_broadcasts_only_the_winner_and_nothing_fades():
    ws = _workspace(capacity=1, persistence=0.5, noise=0.0)
    props = {"a": _proposal([[1.0], [1.0]], [0.1, 0.9]), "b": _proposal([[2.0], [2.0]], [0.5, 0.2]),
             "c": _proposal([[3.0], [3.0]], [0.3, 0.1])}
    state = ws.init_state(2, torch.float64, "cpu")
    state["access"] = torch.tensor([[0.0, 0.99, 0.0], [0.0, 0.0, 0.0]], dtype=torch.float64)
    out, _ = ws.compete(props, torch.full((2, 1), 4.0, dtype=torch.float64), state, 1,
                        _Streams(np.zeros((2, 3))))
    # cycle 1: every bid is 0; agent 0's b holds the workspace by self-excitation (1.5 * 0.99 > threshold 0),
    # agent 1 has no holder and bids 0 at threshold 0: access 0.5 for all three, ties to the first
    assert out.winner.tolist() == [1, 0]
    assert out.content[:, 0].tolist() == [2.0, 1.0]
    ws2 = _workspace(capacity=1, persistence=0.5, noise=0.0, threshold=1.0)
    out2, _ = ws2.compete(props, torch.full((2, 1), 4.0, dtype=torch.float64), ws2.init_state(2, torch.float64, "cpu"),
                          1, _Streams(np.zeros((2, 3))))
    assert out2.winner.tolist() == [NO_ACCESS, NO_ACCESS]  # below threshold: no ignition, the broadcast fades
    assert out2.content[:, 0].tolist() == [2.0, 2.0]


def test_capacity_temperature_and_threshold_change_the_outcome():
    # the old softmax-argmax ignored the temperature at capacity 1; the access dynamics do not
    props = {"a": _proposal([[1.0, 0.0]], [0.0]), "b": _proposal([[0.0, 1.0]], [0.0])}
    state = {"access": torch.tensor([[0.6, 0.55]], dtype=torch.float64),
             "fatigue": torch.zeros(1, 2, dtype=torch.float64),
             "evidence": torch.full((1, 2, 20), float("nan"), dtype=torch.float64)}
    b = torch.zeros(1, 2, dtype=torch.float64)
    run = lambda **kw: _workspace(("a", "b"), noise=0.0, **kw).compete(props, b, state, 1, _Streams([[0.0, 0.0]]))[0]  # noqa: E731
    one, two = run(capacity=1, inhibition=0.0), run(capacity=2, inhibition=0.0)
    assert one.ignited.sum().item() == 1 and two.ignited.sum().item() == 2
    assert not torch.equal(one.content, two.content)
    cold, warm = run(temperature=0.1), run(temperature=1.0)
    assert not torch.allclose(cold.access, warm.access)
    low, high = run(threshold=-0.5), run(threshold=2.0)
    assert low.winner.tolist() == [0] and high.winner.tolist() == [NO_ACCESS]


def _fold_points(w, T, theta):
    """Analytical saddle-node points of a = sigmoid((s + w a - theta) / T): s = theta + T logit(a) - w a has
    its local max and min where a (1 - a) = T / w; the low branch ends (ignition) at the max, the high
    branch (sustained access) at the min."""
    r = math.sqrt(1.0 - 4.0 * T / w)
    g = lambda a: theta + T * math.log(a / (1 - a)) - w * a  # noqa: E731
    return g((1 - r) / 2), g((1 + r) / 2)


def test_ignition_curve_has_hysteresis_at_the_analytical_fold_points():
    s = np.round(np.linspace(-1.0, 0.5, 151), 10)  # step 0.01
    cfg = WorkspaceConfig(self_excitation=1.5, temperature=0.25, threshold=0.3, adaptation=0.0)
    up, down = _fold_points(1.5, 0.25, 0.3)  # -0.346 and -0.554
    curve = ignition_curve(cfg, s, settle=100)
    assert up - 0.01 <= curve["threshold_rising"] <= up + 0.011
    assert down - 0.01 <= curve["threshold_falling"] <= down + 0.011
    assert curve["threshold_rising"] - curve["threshold_falling"] > 0.15


def test_no_hysteresis_below_the_bistability_bound():
    # w / T <= 4: the logistic's slope (at most 1/4) cannot make a second stable state
    s = np.round(np.linspace(-3.0, 3.0, 121), 10)
    mono = ignition_curve(WorkspaceConfig(self_excitation=0.5, temperature=0.25, adaptation=0.0), s, settle=200)
    assert mono["threshold_rising"] == mono["threshold_falling"]
    assert np.allclose(mono["rising"], mono["falling"], atol=1e-6)


def test_a_lesioned_module_never_wins():
    ws = _workspace(("a", "b"), excluded=("a",), noise=0.0)
    props = {"a": _proposal([[1.0]], [5.0]), "b": _proposal([[2.0]], [0.0])}
    state = ws.init_state(1, torch.float64, "cpu")
    state["access"][:] = torch.tensor([[1.0, 0.0]])
    out, new = ws.compete(props, torch.zeros(1, 1, dtype=torch.float64), state, 3, _Streams([[0.0, 0.0]]))
    assert out.winner.tolist() != [0] and new["access"][0, 0].item() == 0.0


class _M:
    def __init__(self, name, reads, variant="classical"):
        self.name, self.reads, self.variant = name, reads, variant


def test_wiring_orders_readers_after_writers():
    mods = [_M("hybrid", ("broadcast", "expectation", "unconscious")), _M("expectation", ("broadcast",)),
            _M("unconscious", ("broadcast",))]
    g = wiring_graph(mods)
    order = execution_order(g, [m.name for m in mods])
    assert order.index("hybrid") > order.index("expectation")
    assert order.index("hybrid") > order.index("unconscious")
    assert g.has_edge("workspace", "expectation") and g.has_edge("hybrid", "workspace")


def test_reader_without_writer_is_a_config_error():
    with pytest.raises(ConfigError, match="'hybrid' reads 'expectation', which is not enabled"):
        wiring_graph([_M("hybrid", ("broadcast", "expectation")), _M("unconscious", ("broadcast",))])


def test_same_cycle_loop_is_rejected():
    mods = [_M("a", ("b",)), _M("b", ("a",))]
    with pytest.raises(ConfigError, match="acyclic"):
        execution_order(wiring_graph(mods), ["a", "b"])
