"""The causal controls inside a batch (cognition/controls.py): the rows, the yoke, the lesions.

References: the constructions themselves. A twin has its agent's weights and noise, so when the
modules ignore the broadcast (a broadcast lesion) the twin must equal its agent bit for bit, and
when they read it the twin must differ; a module whose access unit is held at 0 can never win.
"""
import numpy as np
import pytest
import torch

from cognition.assemble import assemble
from cognition.config import load_config
from cognition.controls import population, split_rows
from cognition.errors import ConfigError


def _run(cycles=12, agents=4, **control):
    cfg = load_config(overrides={"run": {"agents": agents, "cycles": cycles}, "quantum": {"mode": "disabled"},
                                 "control": control})
    loop = assemble(cfg).loop
    state, units, winners = loop.initial_state(), [], []
    for _ in range(cycles):
        state, per_agent, signals = loop.advance(state)
        units.append(signals)
        winners.append(per_agent["winner"].numpy())
    return loop, np.stack(units, axis=1), np.stack(winners, axis=1)


def test_rows_are_agents_donors_and_twins():
    p = population(3, 1)
    assert p.identity.tolist() == [0, 1, 2, 3, 4, 5, 0, 1, 2]  # twins are the agents (weights, noise)
    assert p.route.tolist() == [0, 1, 2, 3, 4, 5, 3, 4, 5]  # twins read their donors' broadcast
    assert p.agents == 3 and p.rerouted
    plain = population(3, 0)
    assert plain.identity.tolist() == [0, 1, 2] and not plain.rerouted
    two = population(2, 2)
    assert two.groups["yoked_2"] == slice(8, 10) and two.identity[6:8].tolist() == [4, 5]
    with pytest.raises(ValueError, match="9 rows of unit signals; a run of 4 agents with the yoked control records 12"):
        split_rows(np.zeros((9, 5, 7)), 4, True)


def test_twins_equal_their_agents_exactly_when_the_broadcast_is_lesioned():
    loop, units, _ = _run(lesion="broadcast")
    g = split_rows(units, 4, True)
    np.testing.assert_array_equal(g["yoked"], g["intact"])
    assert not np.array_equal(g["donor"], g["intact"])  # other agents, other weights


def test_twins_differ_from_their_agents_when_the_modules_read_the_broadcast():
    loop, units, _ = _run()
    g = split_rows(units, 4, True)
    assert not np.array_equal(g["yoked"], g["intact"])
    # the twin reads its donor's broadcast from cycle 1: its expectation's first error, mean_d b^2 against
    # a prediction still 0, is its donor's, not its agent's
    first_error = loop.unit_names.index("expectation.salience")
    np.testing.assert_array_equal(g["yoked"][:, 0, first_error], g["donor"][:, 0, first_error])
    assert not np.array_equal(g["yoked"][:, 0, first_error], g["intact"][:, 0, first_error])


def test_a_lesioned_module_never_holds_the_workspace_in_a_run():
    loop, _, winners = _run(cycles=30, lesion="module:hybrid")
    hybrid = loop.declared.index("hybrid")
    assert not np.any(winners == hybrid)
    assert all(np.any(winners == loop.declared.index(m)) for m in ("expectation", "unconscious"))


def test_a_bad_lesion_is_a_config_error_naming_what_is_allowed():
    with pytest.raises(ConfigError, match=r"control.lesion.*'module:NAME' with NAME one of expectation, unconscious"):
        load_config(overrides={"control": {"lesion": "module:oscillator"}})


def test_the_yoked_agents_rows_do_not_depend_on_the_batch():
    cfg = load_config(overrides={"run": {"agents": 5}, "quantum": {"mode": "disabled"}})
    loop = assemble(cfg).loop
    runs = []
    for batch in (None, 4, 1):
        state, rows = loop.initial_state(), []
        for _ in range(8):
            state, _, signals = loop.advance(state, batch)
            rows.append(signals)
        runs.append(np.stack(rows, axis=1))
    assert runs[0].shape[0] == 15 and torch.equal(torch.as_tensor(runs[0]), torch.as_tensor(runs[1]))
    np.testing.assert_array_equal(runs[0], runs[2])
