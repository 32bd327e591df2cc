"""Workspace competition against hand-computed softmax, and the wiring graph's validation."""
import math

import pytest
import torch

from cognition.config import WorkspaceConfig
from cognition.errors import ConfigError
from cognition.modules.base import Proposal
from cognition.workspace import SharedWorkspace, execution_order, wiring_graph


def _proposal(content, salience):
    return Proposal(torch.tensor(content, dtype=torch.float64), torch.tensor(salience, dtype=torch.float64))


def test_soft_competition_matches_hand_computed_softmax():
    ws = SharedWorkspace(WorkspaceConfig(capacity=2, temperature=0.5, persistence=0.25), ["a", "b"])
    props = {"a": _proposal([[1.0, 0.0]], [1.0]), "b": _proposal([[0.0, 1.0]], [0.5])}
    b_prev = torch.tensor([[2.0, -2.0]], dtype=torch.float64)
    out = ws.compete(props, b_prev)
    # softmax([1, 0.5] / 0.5) = [e^2, e^1] / (e^2 + e^1), computed by hand
    wa = math.exp(2) / (math.exp(2) + math.exp(1))
    assert out.weights[0].tolist() == pytest.approx([wa, 1 - wa], abs=1e-12)
    expected = [0.25 * 2.0 + 0.75 * wa, 0.25 * -2.0 + 0.75 * (1 - wa)]
    assert out.content[0].tolist() == pytest.approx(expected, abs=1e-12)
    assert out.winner.tolist() == [0]


def test_capacity_one_broadcasts_only_the_winner_per_agent():
    ws = SharedWorkspace(WorkspaceConfig(capacity=1, temperature=1.0, persistence=0.0), ["a", "b", "c"])
    props = {"a": _proposal([[1.0], [1.0]], [0.1, 0.9]),
             "b": _proposal([[2.0], [2.0]], [0.5, 0.2]),
             "c": _proposal([[3.0], [3.0]], [0.3, 0.1])}
    out = ws.compete(props, torch.zeros(2, 1, dtype=torch.float64))
    assert out.winner.tolist() == [1, 0]
    assert out.content[:, 0].tolist() == [2.0, 1.0]
    assert out.weights.sum(dim=1).tolist() == pytest.approx([1.0, 1.0])


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
