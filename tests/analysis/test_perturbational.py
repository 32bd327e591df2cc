"""IIT 4.0 of the running architecture by intervention (issue 46): the machinery, checked against constructions.

- Replay: a row assembled from an agent's recorded states at cycle c, advanced with the agent's own noise, is
  the recorded cycle c + 1 bit for bit (both modes): the interventions run the real loop.
- A known network through the module protocol (cognition/benchmarks/binary_net.py): the estimated TPM is the
  network's own within sampling error (chi-square of the standardised entries), and phi_s is found where it is
  positive (Oizumi et al. 2014's copy ring: exact phi_s 1.2364 in every state, reference ``phi.iit4`` on the true
  TPM) and not where the network is reducible (independent self-loops: exact 0).
- Bad input is one line naming what is missing.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from cognition.analysis.perturbational import (
    PerturbationalTPM,
    binarize,
    cut_null,
    iit4_by_intervention,
    independent_null,
    macro_thresholds,
    picks_for,
    state_bits,
    summarize,
    tie_tolerances,
    tpm_by_intervention,
)
from cognition.architecture.perturb import record
from cognition.benchmarks.intervention import toy_loop
from cognition.config.settings import load_config
from cognition.phi.iit4 import iit4
from cognition.modules import unregister
from cognition.simulator.build import assemble


@pytest.fixture(autouse=True, scope="module")
def _forget_the_known_networks():
    """The known networks register as plug-ins; the registry is the process's, so leave it as it was found."""
    yield
    for name in ("binary_net", "binary_net4", "xor_loop"):
        unregister(name)

@pytest.mark.parametrize("mode", ["disabled", "lite"])
def test_a_replayed_row_is_the_recorded_next_cycle_bit_for_bit(mode):
    # Reference: the run itself (the construction: same state, same weights, same noise, same cycle)
    cfg = load_config(overrides={"control": {"yoked": False}, "quantum": {"mode": mode}, "run": {"agents": 5}})
    loop = assemble(cfg).loop
    rec = record(loop, 10, 4)
    for c in (0, 6):
        state = rec.assemble(np.arange(5), {o: np.full(5, c) for o in set(rec.owners)}, rec.burn + c + 1, loop.device)
        _, _, signals = loop.rows_of(np.arange(5), loop.agents).advance(state)
        assert np.array_equal(signals, rec.units[:, c + 1])
    # rows of one agent with other noise identities differ only where the loop draws noise
    rows = np.array([2, 2, 2])
    state = rec.assemble(rows, {o: np.full(3, 6) for o in set(rec.owners)}, rec.burn + 7, loop.device)
    _, _, fresh = loop.rows_of(rows, 2**31 + np.arange(3)).advance(state)
    assert not np.array_equal(fresh[0], fresh[1])


@pytest.mark.parametrize("mode", ["disabled", "lite"])
def test_under_the_proposals_lesion_the_agents_and_their_donors_replay_the_run_bit_for_bit(mode):
    # Reference: the run itself, with the yoked control (agents, donors, two twin groups). The loop the analysis
    # records under the proposals lesion (IntegrationLoop.with_donors: agents and donors, no twins) gives the
    # run's agents' and donors' units bit for bit, and an agent's row assembled beside its donor's row from one
    # recorded cycle, each with its own noise, is the next recorded cycle of both
    from cognition.simulator.build import intervention_loop

    cfg = load_config(overrides={"control": {"lesion": "proposals"}, "quantum": {"mode": mode}, "run": {"agents": 3}})
    full = assemble(cfg).loop
    state, run = full.initial_state(), []
    for _ in range(14):
        state, _, signals = full.advance(state)
        run.append(signals)
    run = np.stack(run, axis=1)  # (rows, cycles, units)
    loop = intervention_loop(cfg)
    rec = record(loop, 10, 4)
    assert rec.lesioned and list(rec.donor) == [3, 4, 5] and rec.agents == 3
    donors = full.population.groups["donor"]
    assert np.array_equal(rec.units, np.concatenate([run[:3, 4:], run[donors, 4:]]))
    rows, source = np.arange(6), np.array([3, 4, 5, 3, 4, 5])
    for c in (0, 6):
        state = rec.assemble(rows, {o: np.full(6, c) for o in set(rec.owners)}, rec.burn + c + 1, loop.device)
        _, _, signals = loop.rows_of(rows, loop.agents, source=source).advance(state)
        assert np.array_equal(signals, rec.units[:, c + 1])


def test_the_known_networks_tpm_is_found_within_sampling_error():
    # Reference: the network's own TPM (binary_net.NETWORKS["copy_ring3"]); each entry's sampling SE sqrt(p(1-p)/K)
    loop, true, names = toy_loop("copy_ring3", 8)
    est = tpm_by_intervention(loop, cycles=300, burn=10, draws=256, seed=3, units=names)
    z = (est.tpm - true[None]) / np.sqrt(true * (1 - true) / est.draws)[None]
    assert (z**2).sum() < stats.chi2.ppf(0.999, z.size), (z**2).sum()
    assert est.unit_names == names and est.tpm.shape == (8, 8, 3) and est.counts.sum() == 8 * 8 * 256
    again = tpm_by_intervention(loop, cycles=300, burn=10, draws=256, seed=3, units=names)
    assert np.array_equal(again.tpm, est.tpm)  # reproducible with seed=
    # the toy draws each node independently: the state-by-state TPM is the product, KL at the sampling floor
    res = iit4_by_intervention(est, bootstrap=50, null=19, seed=1, complexes=False)
    assert all(abs(e["kl_bits"] - e["kl_floor_bits"]) < 0.05 for e in res)
    # phi_s: exact 1.2364 in every state (Oizumi et al. 2014's copy ring with noise 0.1; phi.iit4 on the true TPM)
    exact = [iit4(true, tuple(e["state"].values()), validate_state=False).phi_s for e in res]
    assert np.allclose(exact, 1.2364, atol=1e-4)
    errors = np.array([e["phi_s"] for e in res]) - exact
    assert np.median(np.abs(errors)) < 0.1
    assert all(e["p_value"] == 1 / 20 for e in res)  # every agent's phi_s above all 19 nulls cut at its MIP
    # the basic bootstrap interval covered 47 of 50 agents here at 256 draws (python -m cognition.bench intervention)
    assert sum(e["phi_s_ci"][0] <= x <= e["phi_s_ci"][1] for e, x in zip(res, exact)) >= 6


def test_a_reducible_network_has_phi_s_zero_and_the_test_holds_its_level():
    # Reference: independent self-loops have exact phi_s 0 in every state (the system is a product of its units)
    loop, true, names = toy_loop("independent3", 16)
    est = tpm_by_intervention(loop, cycles=600, burn=10, draws=64, seed=4, units=names)
    res = iit4_by_intervention(est, bootstrap=0, null=39, seed=2)
    assert all(iit4(true, tuple(e["state"].values()), validate_state=False).phi_s == 0 for e in res)
    assert np.median([e["phi_s"] for e in res]) == 0.0
    assert sum(e["p_value"] <= 0.05 for e in res) <= 3  # 16 agents at the 5 % level (binomial 0.99 quantile: 3)
    summary = summarize(res)
    assert summary["agents"] == 16 and summary["tested"] == 16
    assert all(len(e["complex"]) == 1 for e in res)  # each unit is its own complex (its self-loop)


def test_the_nulls_are_reducible_and_keep_the_dependence_within_each_part():
    # Reference: the definition (each element's marginal averaged over the other parts' states); a TPM whose
    # elements depend only on their own part is reducible, exact phi_s 0 (phi.iit4)
    rng = np.random.default_rng(0)
    tpm = rng.uniform(0.05, 0.95, size=(16, 4))
    bits = state_bits(4)
    null = cut_null(tpm, [(0, 2), (1,), (3,)])
    for s in range(16):
        same = [t for t in range(16) if bits[t, 0] == bits[s, 0] and bits[t, 2] == bits[s, 2]]
        assert np.isclose(null[s, 0], tpm[same, 0].mean()) and np.isclose(null[s, 2], tpm[same, 2].mean())
        assert np.isclose(null[s, 1], tpm[bits[:, 1] == bits[s, 1], 1].mean())
    assert iit4(null, (0, 1, 0, 1), validate_state=False).phi_s == 0.0
    assert np.allclose(independent_null(tpm), cut_null(tpm, [(0,), (1,), (2,), (3,)]))
    assert np.allclose(cut_null(tpm, [(0, 1, 2, 3)]), tpm)  # one part: nothing cut
    # a directed cut noises only the cut connections: {0}-> | {1,2,3}<- cuts 0 -> {1,2,3}, keeps {1,2,3} -> 0
    directed = cut_null(tpm, [(0,), (1, 2, 3)], ["effect", "cause"])
    assert np.allclose(directed[:, 0], tpm[:, 0])
    for s in range(16):
        same = [t for t in range(16) if (bits[t, 1:] == bits[s, 1:]).all()]
        assert np.isclose(directed[s, 2], tpm[same, 2].mean())
    assert iit4(directed, (1, 0, 0, 1), validate_state=False).phi_s == 0.0


def test_macro_states_split_each_unit_at_its_median_and_keep_discrete_units_binary():
    units = np.array([[[0.0, 1.0], [1.0, 1.0], [2.0, 1.0], [3.0, 0.0]]])  # (1 agent, 4 cycles, 2 units)
    thr, strict = macro_thresholds(units)
    assert np.allclose(thr, [[1.5, 1.0]]) and strict.tolist() == [[True, False]]
    assert binarize(units[0], thr[0], strict[0]).tolist() == [[0, 1], [0, 1], [1, 1], [1, 0]]


def test_bad_input_is_one_line_naming_what_is_missing():
    loop, _, names = toy_loop("copy_ring3", 2)
    for units, match in ((["nope"], "'nope' is not one of the run's units"), (names[:1], "1 elements; allowed 2 to 7"),
                         ([names[0], names[0]], "names a unit twice")):
        with pytest.raises(ValueError, match=match):
            tpm_by_intervention(loop, cycles=20, units=units)
    with pytest.raises(ValueError, match="draws: got 0"):
        tpm_by_intervention(loop, cycles=20, draws=0, units=names)
    stuck, _, stuck_names = toy_loop("stuck3", 2)
    with pytest.raises(ValueError, match="agent 0: unit 'binary_net.A' is constant over the 40 recorded cycles"):
        tpm_by_intervention(stuck, cycles=40, burn=2, units=stuck_names)
    # an owner whose two units never held (0, 0) together in the recorded cycles cannot be set to it
    macro = np.array([[[1, 0, 0], [0, 1, 1], [1, 1, 0]]], dtype=np.int8)  # 1 agent, 3 cycles, 3 units
    with pytest.raises(ValueError, match=r"agent 0: no recorded cycle has m.a=0, m.b=0 \(owner 'm', 3 cycles"):
        picks_for(macro, ["m", "m", "workspace"], [0, 1, 2], 4, np.random.default_rng(0), ["m.a", "m.b", "ws.c"])
    picks = picks_for(macro, ["m", "n", "workspace"], [0, 1, 2], 4, np.random.default_rng(0), ["m.a", "n.b", "ws.c"])
    bits = state_bits(3)
    for o, u in (("m", 0), ("n", 1), ("workspace", 2)):  # every pick holds the state's value of the owner's unit
        assert all((macro[0, picks[o][0, s], u] == bits[s, u]).all() for s in range(8))


def _sampled(true: np.ndarray, state: int, agents: int, draws: int, seed: int) -> PerturbationalTPM:
    """A PerturbationalTPM of ``agents`` TPMs sampled from ``true`` (each marginal Binomial(draws, p) / draws, as the
    loop's interventions count them), every agent's modal state ``state``."""
    rng = np.random.default_rng(seed)
    S, n = true.shape
    visits = np.zeros((agents, S), dtype=np.int64)
    visits[:, state] = 1
    return PerturbationalTPM(unit_names=list("ABC")[:n], owners=["m"], tpm=rng.binomial(draws, true, (agents, S, n)) / draws,
                             counts=np.zeros((agents, S, S), dtype=np.int64), visits=visits, draws=draws, cycles=0,
                             burn=0, thresholds=np.zeros((agents, n)), kl_bits=np.zeros(agents))


def test_the_estimate_is_tie_aware_where_exact_phi_s_jumps():
    # Reference: phi.iit4 on the true TPM. Oizumi et al. 2014's OR / AND / XOR network with flips 0.1, state (1, 0, 0):
    # three partitions tie on normalized phi and PyPhi's rule takes the largest phi, 0.2937; any perturbation (every
    # sampled TPM) breaks the tie to 0.1468 (tests/phi/test_phi_iit4_ties.py). The estimate treats partitions and
    # states within sqrt(ln draws) standard errors as tied (tie_tolerances), so it finds the tied value
    bits = state_bits(3)
    true = 0.1 + 0.8 * np.array([[b[1] | b[2], b[0] & b[2], b[0] ^ b[1]] for b in bits], dtype=float)
    exact = iit4(true, (1, 0, 0), validate_state=False).phi_s
    assert exact == pytest.approx(0.2937, abs=1e-4)
    est = _sampled(true, 1, agents=12, draws=1024, seed=5)
    plain = [iit4(t, (1, 0, 0), validate_state=False).phi_s for t in est.tpm]
    assert np.median(plain) == pytest.approx(0.1468, abs=0.02)  # PyPhi's rule on a sampled TPM: the wrong side
    res = iit4_by_intervention(est, bootstrap=40, null=0, seed=1, complexes=False)
    phi = np.array([e["phi_s"] for e in res])
    assert abs(np.median(phi) - exact) < 0.03, phi
    assert sum(e["phi_s_ci"][0] <= exact <= e["phi_s_ci"][1] for e in res) >= 9  # 12 agents at 95 %
    assert all(e["tied"]["cause_states"] == 2 for e in res)  # the two exactly tied maximal cause states, kept
    again = iit4_by_intervention(est, bootstrap=40, null=0, seed=1, complexes=False)
    assert [e["phi_s"] for e in again] == list(phi)  # reproducible with seed=
    fewer = iit4_by_intervention(est, bootstrap=5, null=0, seed=1, complexes=False)
    assert [e["phi_s"] for e in fewer] == list(phi)  # the tolerances do not depend on the bootstrap asked


def test_tie_tolerances_shrink_with_the_draws():
    # Reference: the rule's definition, kappa = sqrt(ln draws) times an SE that falls like 1/sqrt(draws): consistent
    bits = state_bits(3)
    true = 0.1 + 0.8 * np.array([[b[1] | b[2], b[0] & b[2], b[0] ^ b[1]] for b in bits], dtype=float)
    widths = []
    for draws in (64, 1024, 16384):
        tpm = np.random.default_rng(draws).binomial(draws, true) / draws
        t = tie_tolerances(tpm, bits[1], draws, np.random.default_rng(0))
        widths.append(float(np.median(t["partition_tolerance"])))
    assert widths[0] > 2 * widths[1] > 4 * widths[2] > 0, widths


@pytest.mark.parametrize("lesion", ["broadcast", "proposals"])
def test_each_lesion_removes_a_loop_through_the_workspace(lesion):
    # The lesion analysis's control that can fail. Reference: the construction of binary_net.XorLoop: the module's
    # next bit is its bit XOR the broadcast's sign (integrated with the workspace); with the broadcast lesion it reads
    # the fixed initial broadcast, so the workspace only follows the module; with the proposals lesion the workspace
    # competes over an independent donor's proposals, so the module only follows the workspace (feedforward either
    # way: exact phi_s 0)
    from cognition.benchmarks.intervention import TOY
    from cognition.simulator.build import intervention_loop

    found = {}
    for condition in (None, lesion):
        cfg = load_config(overrides={"modules": {"plugins": [f"{TOY}:XorLoop"], "enabled": ["xor_loop"]},
                                     "control": {"yoked": condition == "proposals", "lesion": condition},
                                     "quantum": {"mode": "disabled"}, "run": {"agents": 12}})
        est = tpm_by_intervention(intervention_loop(cfg), cycles=300, burn=20, draws=128, seed=0,
                                  units=["xor_loop.bit", "workspace.broadcast_mean"])
        found[condition] = iit4_by_intervention(est, bootstrap=0, null=19, seed=1, complexes=False)
    assert sum(e["p_value"] <= 0.05 for e in found[None]) >= 11
    assert np.median([e["phi_s"] for e in found[None]]) > 0.1
    assert sum(e["p_value"] <= 0.05 for e in found[lesion]) <= 2
    assert np.median([e["phi_s"] for e in found[lesion]]) < 0.02


def test_a_state_unreachable_under_the_sampled_tpm_is_reported_undefined_not_a_crash():
    # Reference: the definition (no state leads to a state whose element 0 is 0 when every row sets it to 1)
    from cognition.analysis.perturbational import PerturbationalTPM

    tpm = np.tile([1.0, 0.5], (4, 1))[None]  # 1 agent, 2 elements: element 0 is always 1 next
    visits = np.array([[9, 0, 1, 0]])  # modal state 0: element 0 is 0, unreachable
    est = PerturbationalTPM(["a.x", "b.y"], ["a", "b"], tpm, np.zeros((1, 4, 4), dtype=np.int64), visits, 4, 10, 0,
                            np.zeros((1, 2)), np.zeros(1))
    (entry,) = iit4_by_intervention(est, bootstrap=3, null=3)
    assert entry["phi_s"] is None and "unreachable" in entry["note"]
    assert summarize([entry])["undefined"] == 1
