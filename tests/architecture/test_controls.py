"""The causal controls inside a batch (cognition/architecture/controls.py): the rows, the yoke, the lesions.

References: the constructions themselves. A twin has its agent's weights and noise, so when the
modules ignore the broadcast (a broadcast lesion) the twin must equal its agent bit for bit, and
when they read it the twin must differ; a module whose access unit is held at 0 can never win.
"""
import numpy as np
import pytest
import torch

from cognition.simulator.build import assemble
from cognition.config.settings import load_config
from cognition.architecture.controls import population, split_rows
from cognition.errors import ConfigError


def _run(cycles=12, agents=4, batch=None, **control):
    cfg = load_config(overrides={"run": {"agents": agents, "cycles": cycles}, "quantum": {"mode": "disabled"},
                                 "control": control})
    loop = assemble(cfg).loop
    state, units, winners = loop.initial_state(), [], []
    for _ in range(cycles):
        state, per_agent, signals = loop.advance(state, batch)
        units.append(signals)
        winners.append(per_agent["winner"].numpy())
    return loop, np.stack(units, axis=1), np.stack(winners, axis=1)


def test_rows_are_agents_donors_and_twins():
    p = population(3, 1)
    # rows: agents 0-2 | donors 3-5 | yoked twins 6-8 | proposal-yoked twins 9-11
    assert p.identity.tolist() == [0, 1, 2, 3, 4, 5, 0, 1, 2, 0, 1, 2]  # twins are the agents (weights, noise)
    assert p.route.tolist() == [0, 1, 2, 3, 4, 5, 3, 4, 5, 9, 10, 11]  # yoked twins read their donors' broadcast
    assert p.source.tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8, 3, 4, 5]  # proposal-yoked: their donors' proposals
    assert p.agents == 3 and p.rerouted and p.resourced
    plain = population(3, 0)
    assert plain.identity.tolist() == [0, 1, 2] and not plain.rerouted and not plain.resourced
    two = population(2, 2)
    assert two.groups["yoked_2"] == slice(10, 12) and two.identity[8:10].tolist() == [4, 5]
    assert two.source[12:14].tolist() == [8, 9]  # the second set's relays compete over the second donors'
    fed = population(3, 1, lesion="proposals")  # every workspace but the donors' competes over a donor's proposals
    assert fed.source.tolist() == [3, 4, 5, 3, 4, 5, 3, 4, 5, 3, 4, 5] and fed.route.tolist() == p.route.tolist()
    with pytest.raises(ValueError, match="needs the yoked control"):
        population(3, 0, lesion="proposals")
    with pytest.raises(ValueError, match="9 rows of unit signals; a run of 4 agents with the yoked control records 16"):
        split_rows(np.zeros((9, 5, 7)), 4, True)


def test_twins_equal_their_agents_exactly_when_the_broadcast_is_lesioned():
    loop, units, _ = _run(lesion="broadcast")
    g = split_rows(units, 4, True)
    np.testing.assert_array_equal(g["yoked"], g["intact"])
    assert not np.array_equal(g["donor"], g["intact"])  # other agents, other weights


def test_proposal_yoked_twins_equal_their_agents_exactly_when_the_proposals_are_lesioned():
    # under the proposals lesion every workspace competes over its donor's proposals: the agent is then
    # its proposal-yoked twin's construction, so the two must agree bit for bit (in launches of 5 rows too,
    # which put an agent and its twin in different launches)
    loop, units, _ = _run(lesion="proposals")
    np.testing.assert_array_equal(_run(lesion="proposals", batch=5)[1], units)
    g = split_rows(units, 4, True)
    np.testing.assert_array_equal(g["yoked_proposals"], g["intact"])
    assert not np.array_equal(g["yoked"], g["intact"])  # the other direction is still cut for the yoked twins
    intact = _run()[1]
    np.testing.assert_array_equal(split_rows(intact, 4, True)["donor"], g["donor"])  # donors stay intact
    assert not np.array_equal(split_rows(intact, 4, True)["intact"], g["intact"])


def test_the_workspace_of_a_proposal_yoked_twin_competes_over_its_donors_proposals():
    loop, units, winners = _run()
    g = split_rows(units, 4, True)
    # the first cycle's evidence is the donor's: with nothing held every bid is 0 and the noise (the
    # agent's own workspace stream) decides, so the winner is the agent's; the content broadcast is the donor's
    contents = [n for n in loop.unit_names if n.startswith("workspace.")]
    cols = [loop.unit_names.index(n) for n in contents]
    assert not np.array_equal(g["yoked_proposals"][:, 0, cols], g["intact"][:, 0, cols])
    salience = loop.unit_names.index("expectation.salience")
    # its modules read its own broadcast, which at cycle 1 is the agents' b_0: their first error is the agent's
    np.testing.assert_array_equal(g["yoked_proposals"][:, 0, salience], g["intact"][:, 0, salience])


def test_a_proposals_lesion_needs_the_yoked_control():
    with pytest.raises(ConfigError, match=r"control.lesion.*'proposals' only with control.yoked: true"):
        load_config(overrides={"control": {"lesion": "proposals", "yoked": False}})


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
    assert runs[0].shape[0] == 20 and torch.equal(torch.as_tensor(runs[0]), torch.as_tensor(runs[1]))
    np.testing.assert_array_equal(runs[0], runs[2])



def test_the_agents_counted_for_people_are_the_runs_not_its_rows(tmp_path, capsys):
    # the batch holds 4 rows per agent with the control (agent, donor, two twins): the Simulator's repr and
    # validate --help's default speak of the run's agents (issue 34: "12 agents" for 4, "default 8" for 32)
    from cognition.api import Simulator
    from cognition.validate import build_parser

    cfg = load_config(overrides={"run": {"agents": 4, "cycles": 2}, "quantum": {"mode": "disabled"}})
    with Simulator(cfg, out=tmp_path / "run", progress=False) as sim:
        assert len(sim.loop.agents) == 16 and "; 4 agents, 2 cycles)" in repr(sim)
    assert f"default {load_config().run.agents})" in " ".join(build_parser().format_help().split())
