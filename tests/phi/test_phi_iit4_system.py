"""Exact IIT 4.0 system level (cognition.phi.iit4): hand cases, PyPhi 2.0 references, bad input."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from cognition.benchmarks.iit4 import noisy_ring
from cognition.phi.iit4 import (
    cause_repertoire,
    effect_repertoire,
    forward_cause_repertoire,
    iit4,
    iit4_batch,
    intrinsic_information,
    maximal_complex,
    partition_table,
    prepare_candidate,
    unconstrained_effect_repertoire,
    unconstrained_forward_repertoire,
)

REFERENCE = Path(__file__).parents[1] / "reference"

# rows: state index s0 + 2 s1; column j: P(unit j ON at t+1)
COPY_LOOP = [[0, 0], [0, 1], [1, 0], [1, 1]]  # unit 0 copies unit 1, unit 1 copies unit 0
# unit 0 copies unit 1, unit 1 = unit 0 XOR unit 1
COPY_XOR = [[0, 0], [0, 1], [1, 1], [1, 0]]


def _ring(rule: int, n: int):
    """Ring of noisy elementary-CA cells (P(ON) 0.9 / 0.1), as the iit4 bench suite."""
    return noisy_ring(rule, n, 0.1)


# ------------------------------------------------------------------ hand cases


def test_copy_xor_loop_by_hand():
    # state (1, 0) -> next (0, 1); the map is a bijection of the 4 states, so the
    # unconstrained forward effect repertoire is uniform: ii_e = 1 * log2(1 / (1/4)) = 2 at
    # z = (0, 1); the only past leading to (1, 0) is (1, 1): ii_c = 2 there.
    # Cutting 1 -> 0 (or 0 -> 1) leaves one unit at 1/2: phi = log2 2 = 1, normalized 1/1;
    # cutting both: q = 1/4, phi = 2, normalized 2/2 = 1. All tie at normalized 1; PyPhi
    # then prefers the larger phi (NEGATIVE_PHI): phi_s = 2 with both directions cut.
    r = iit4(COPY_XOR, (1, 0))
    assert r.phi_s == pytest.approx(2.0, abs=1e-12)
    assert r.cause_state == (1, 1) and r.effect_state == (0, 1)
    assert r.cause_ii == pytest.approx(2.0) and r.effect_ii == pytest.approx(2.0)
    assert sorted(r.partition.cut_edges) == [(0, 1), (1, 0)]
    assert r.normalized_phi == pytest.approx(1.0)
    assert r.tied_partitions == 0
    assert (r.phi_cause, r.phi_effect) == (pytest.approx(2.0), pytest.approx(2.0))


def test_copy_xor_single_cut_values_by_hand():
    # the partition table's second and third entries cut one direction each: phi = 1
    cs = prepare_candidate(COPY_XOR, (1, 0))
    for cut in (np.array([[0, 0], [1, 0]]), np.array([[0, 1], [0, 0]])):
        pe = effect_repertoire(cs, (0, 1), (0, 1))[0b10]
        qe = effect_repertoire(cs, (0, 1), (0, 1), cut=cut)[0b10]
        assert pe == 1.0 and qe == 0.5
        assert math.log2(pe / qe) == 1.0
        pc = forward_cause_repertoire(cs, (0, 1), (0, 1))[0b11]
        qc = forward_cause_repertoire(cs, (0, 1), (0, 1), cut=cut)[0b11]
        assert pc == 1.0 and qc == 0.5


def test_copy_loop_and_2026_cap():
    r = iit4(COPY_LOOP, (1, 0))
    assert r.phi_s == 2.0 and r.cause_state == (0, 1) and r.effect_state == (0, 1)
    # deterministic: p(s | z = s) is 0 or 1, so the intrinsic differentiation and the cap are 0
    r26 = iit4(COPY_LOOP, (1, 0), formalism="IIT_4_0_2026")
    assert r26.phi_s == 0.0 and r26.intrinsic_differentiation == (0.0, 0.0)
    assert r26.partition == r.partition


def test_2026_cap_is_min_of_phi_and_intrinsic_information():
    tpm, cm = _ring(30, 4)
    a = iit4(tpm, (1, 0, 0, 0), cm)
    b = iit4(tpm, (1, 0, 0, 0), cm, formalism="IIT_4_0_2026")
    cap = min(a.cause_ii, a.effect_ii, *b.intrinsic_differentiation)
    assert b.phi_s == pytest.approx(min(a.phi_s, cap), abs=1e-12)
    assert b.partition == a.partition  # the MIP is chosen uncapped (2026, Eqs. 21-23)
    cs = prepare_candidate(tpm, (1, 0, 0, 0), cm)
    p_forward = effect_repertoire(cs, (0, 1, 2, 3), (0, 1, 2, 3))[0b0001]
    assert b.intrinsic_differentiation[1] == pytest.approx(-math.log2(p_forward))


def test_reducible_systems_have_zero_phi_exactly():
    # two self-copying units: strongly connected cm, but the TPM factorizes
    tpm = [[0, 0], [1, 0], [0, 1], [1, 1]]
    r = iit4(tpm, (1, 0))
    assert r.phi_s == 0.0 and r.reason is None
    # not strongly connected: unit 0 copies itself, unit 1 copies unit 0
    r = iit4([[0, 0], [1, 1], [0, 0], [1, 1]], (1, 1), cm=[[1, 1], [0, 0]])
    assert r.phi_s == 0.0 and r.reason == "not strongly connected" and r.partition is None
    # a single unit without a self-loop
    r = iit4(COPY_LOOP, (1, 1), cm=[[0, 1], [1, 0]], nodes=(0,))
    assert r.phi_s == 0.0 and r.reason == "single unit without a self-loop"


def test_single_unit_with_self_loop_uses_the_complete_cut():
    r = iit4([[0.1], [0.9]], (1,))
    assert r.phi_s > 0 and r.partition.cut_edges == ((0, 0),)


def test_repertoires_by_hand():
    cs = prepare_candidate(COPY_XOR, (1, 0))
    assert np.allclose(cause_repertoire(cs, (0, 1), (0, 1)), [0, 0, 0, 1])
    assert np.allclose(cause_repertoire(cs, (), (0,)), [0.5, 0.5])
    assert np.allclose(effect_repertoire(cs, (0,), (1,)), [0.5, 0.5])  # b' = a ^ b, b averaged
    assert np.allclose(unconstrained_effect_repertoire(cs, (0, 1)), [0.25] * 4)
    assert np.allclose(unconstrained_forward_repertoire(cs, "effect", (0, 1), (0, 1)), [0.25] * 4)
    ii = intrinsic_information(cs, "cause", (0, 1), (0, 1))
    assert ii.ii == 2.0 and ii.states == ((1, 1),)


def test_background_conditions_on_the_cause_side():
    # unit 2 is background; the cause TPM weights its past by its posterior given the state
    rng = np.random.default_rng(3)
    tpm = rng.random((8, 3))
    cs = prepare_candidate(tpm, (1, 0, 1), nodes=(0, 1))
    st = np.array([1, 0, 1])
    like = np.where(st == 1, tpm, 1 - tpm).prod(axis=1)
    post_w = np.array([like[[r for r in range(8) if (r >> 2) & 1 == w]].sum() for w in (0, 1)]) / like.sum()
    expect = np.array([sum(tpm[s + 4 * w, 0] * post_w[w] for w in (0, 1)) for s in range(4)])
    assert np.allclose(cs.cause_on[0], expect)
    assert np.allclose(cs.effect_on[0], tpm[4:, 0])  # effect: unit 2 fixed at its state (1)


def test_partition_counts_match_pyphi():
    # distinct directed set partitions (PyPhi 2.0 DIRECTED_SET_PARTITION, deduplicated)
    assert [len(partition_table(k)) for k in (1, 2, 3, 4, 5)] == [1, 3, 22, 150, 1061]


def test_partition_order_matches_pyphi():
    # PyPhi 2.0 system_partitions((0, 1, 2)): row-major cut matrices in enumeration order
    pyphi_order = ['011100100', '000100100', '011000000', '001001110', '000000110', '001001000',
                   '010101010', '010000010', '000101000', '011101110', '010100110', '001101100',
                   '000101110', '001101110', '010101110', '011001010', '011000110', '011001110',
                   '011101000', '011101010', '011100110', '011101100']
    table = partition_table(3)
    assert ["".join(map(str, table.lex_key(p))) for p in range(len(table))] == pyphi_order
    assert list(table.n_cut) == [row.count("1") for row in pyphi_order]


def test_known_pyphi_values():
    # PyPhi 2.0 (051052105a7e), computed in its own virtualenv
    basic = [[0, 0, 0], [0, 0, 1], [1, 0, 1], [1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 1, 1], [1, 1, 0]]
    cm = [[0, 0, 1], [1, 0, 1], [1, 1, 0]]
    r = iit4(basic, (1, 0, 0), cm)
    assert r.phi_s == pytest.approx(0.41503749927884376, abs=1e-12)
    assert r.cause_state == (1, 1, 0) and r.effect_state == (0, 0, 1)
    assert r.partition.cut_edges == ((1, 0), (2, 0))
    r = iit4(basic, (1, 1, 1), cm)  # two tied cause states: the pair with larger phi_s wins
    assert r.phi_s == pytest.approx(0.20751874963942188, abs=1e-12)
    assert r.cause_ties == ((1, 0, 1), (0, 1, 1)) and r.cause_state == (0, 1, 1)
    for n, expect in ((2, 1.3737549886190192), (3, 1.2363794897571174), (4, 1.1727883018353769),
                      (5, 1.0498442077986259)):
        tpm, cm = _ring(232 if n == 2 else 30, n)
        assert iit4(tpm, (1,) + (0,) * (n - 1), cm).phi_s == pytest.approx(expect, abs=1e-9)


def _cut_values_by_definition(cs, kind):
    """The cut tables of sia._cut_values written as their definition, one PyPhi ``marginalize_out``
    (sum over the averaged-out axes / their sizes) per unit and kept set of inputs."""
    from cognition.phi.iit4.cause_effect import _marginalize, _system_values

    k, n = cs.size, cs.network_size
    raws = cs.cause_factors if kind == "cause" else cs.effect_factors
    out = np.full((k, 1 << k, 2, 1 << k), np.nan)
    masks = np.arange(1 << k)
    for j, target in enumerate(cs.nodes):
        net_inputs = [x for x in range(n) if cs.network_cm[x, target]]
        sys_inputs = [a for a in range(k) if cs.inputs[j] >> a & 1]
        for sub_mask in range(1 << len(sys_inputs)):
            kept = {cs.nodes[a] for c, a in enumerate(sys_inputs) if sub_mask >> c & 1}
            if k > 1 and j in sys_inputs and target not in kept:
                continue
            non = [x for x in range(n) if x not in net_inputs or (x in cs.nodes and x not in kept)]
            a_mask = sum(1 << a for c, a in enumerate(sys_inputs) if sub_mask >> c & 1)
            out[j, (masks & cs.inputs[j]) == a_mask] = _system_values(_marginalize(raws[j], non), cs.nodes, n)
    return out


def test_cut_tables_equal_their_definition_to_the_bit():
    # every kept set's sums at once (sia._cut_layout) must equal PyPhi's marginalize_out one set at a time
    # bit for bit, or PyPhi's exact-equality ties among partitions would be broken differently (the
    # reference MIPs of tests/reference/iit4_sia.json are equal on all 178 cases only so); random networks
    # with a background, sparse cm and 0.25-step probabilities (many exact ties)
    from cognition.phi.iit4 import sia

    rng = np.random.default_rng(46)
    checked = 0
    for trial in range(120):
        n = int(rng.integers(1, 7))
        tpm = rng.random((2**n, n))
        if trial % 3 == 0:
            tpm = np.round(tpm * 4) / 4
        cm = None
        if trial % 2:
            cm = (rng.random((n, n)) < 0.7).astype(int)
            rows = np.arange(2**n)
            for i in range(n):
                for x in np.flatnonzero(cm[:, i] == 0):  # the TPM must not depend on an omitted edge
                    low = rows[(rows >> x) & 1 == 0]
                    tpm[low, i] = tpm[low | (1 << x), i] = (tpm[low, i] + tpm[low | (1 << x), i]) / 2
        nodes = tuple(sorted(int(v) for v in rng.choice(n, int(rng.integers(1, n + 1)), replace=False)))
        state = tuple(int(v) for v in rng.integers(0, 2, n))
        cs = prepare_candidate(tpm, state, cm=cm, nodes=nodes, validate_state=False)
        for kind in ("cause", "effect"):
            np.testing.assert_array_equal(sia._cut_values(cs, kind), _cut_values_by_definition(cs, kind))
            checked += 1
    assert checked == 240


def test_batch_equals_one_by_one():
    tpm, cm = _ring(30, 5)
    states = (np.arange(32)[:, None] >> np.arange(5)) & 1
    batch = iit4_batch(tpm, states, cm)
    for row, r in zip(states, batch):
        one = iit4(tpm, row, cm)
        assert r == one
    # many TPMs, one state each
    stack = np.stack([_ring(rule, 4)[0] for rule in (30, 150, 232)])
    cm4 = _ring(30, 4)[1]
    out = iit4_batch(stack, (1, 0, 0, 0), cm4)
    assert [r.phi_s for r in out] == [iit4(t, (1, 0, 0, 0), cm4).phi_s for t in stack]


def test_batch_marks_unreachable_states():
    tpm = [[0, 0], [0, 0], [0, 0], [0, 0]]  # everything turns off: (1, 1) has no past
    out = iit4_batch(tpm, [(0, 0), (1, 1)])
    assert out[0] is not None and out[1] is None


def test_maximal_complex_copy_loop_with_a_bystander():
    # units 0, 1 copy each other; unit 2 copies itself (isolated by cm)
    tpm = np.zeros((8, 3))
    for r in range(8):
        s = [(r >> i) & 1 for i in range(3)]
        tpm[r] = [s[1], s[0], s[2]]
    cm = [[0, 1, 0], [1, 0, 0], [0, 0, 1]]
    cx = maximal_complex(tpm, (1, 0, 1), cm)
    assert cx.nodes == (0, 1) and cx.phi_s == pytest.approx(2.0)
    assert [c.nodes for c in cx.complexes][0] == (0, 1)


def test_maximal_complex_tie_at_phi_s_goes_to_big_phi():
    # a symmetric 3-unit network: {0,1} and {0,2} tie at the top phi_s and overlap; PyPhi
    # escalates to the structure Phi, which ties too, so neither is a complex (PyPhi 2.0:
    # complexes {1,2} then {0})
    pytest.importorskip("cognition.phi.iit4.structure")
    tpm = [[0.84, 0.84, 0.84], [0.95, 0.51, 0.51], [0.51, 0.95, 0.51], [0.33, 0.33, 0.36],
           [0.51, 0.51, 0.95], [0.33, 0.36, 0.33], [0.36, 0.33, 0.33], [0.21, 0.21, 0.21]]
    calls = []

    def big_phi(tpm_, state_, cm_, nodes, formalism):
        calls.append(tuple(nodes))
        return 1.0  # a tie at Phi excludes the whole clique
    cx = maximal_complex(tpm, (1, 0, 0), big_phi=big_phi)
    assert sorted(calls) == [(0, 1), (0, 2)]
    assert [c.nodes for c in cx.complexes] == [(1, 2), (0,)]
    assert [c.phi_s for c in cx.complexes] == [pytest.approx(0.11937645635306353, abs=1e-12),
                                               pytest.approx(0.06182719928530279, abs=1e-12)]
    assert [c.nodes for c in maximal_complex(tpm, (1, 0, 0)).complexes] == [(1, 2), (0,)]
    # a unique Phi maximum is accepted
    cx = maximal_complex(tpm, (1, 0, 0), big_phi=lambda t, s, c, nodes, f: float(nodes == (0, 2)))
    assert cx.nodes == (0, 2)


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("kwargs, match", [
    (dict(formalism="IIT_3_0"), "formalism"),
    (dict(state=(1, 0, 0)), "state"),
    (dict(state=(2, 0)), "state"),
    (dict(cm=[[1, 1]]), "cm"),
    (dict(cm=[[1, 0], [0, 1]]), "cm"),  # omits edges the TPM depends on
    (dict(nodes=(0, 5)), "nodes"),
    (dict(nodes=()), "nodes"),
    (dict(tpm=[[0.5, 0.5, 0.5]]), "tpm"),
    (dict(tpm=[[0, 2], [0, 1], [1, 0], [1, 1]]), "tpm"),
])
def test_bad_input(kwargs, match):
    args = dict(tpm=COPY_LOOP, state=(1, 0))
    args.update(kwargs)
    with pytest.raises(ValueError, match=match) as info:
        iit4(**args)
    assert "\n" not in str(info.value)


def test_bad_input_batch_and_complex():
    with pytest.raises(ValueError, match="states"):
        iit4_batch(COPY_LOOP, np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="^states: "):
        iit4_batch(COPY_LOOP, [(0, 1), (0, 1, 1)])
    with pytest.raises(ValueError, match="^states: entry 1: state"):
        iit4_batch(COPY_LOOP, [(0, 1), (0, 2)])
    with pytest.raises(ValueError, match="formalism"):
        maximal_complex(COPY_LOOP, (1, 0), formalism="x")
    with pytest.raises(ValueError, match="big_phi"):
        maximal_complex(COPY_LOOP, (1, 0), big_phi=3)
    with pytest.raises(ValueError, match="direction"):
        intrinsic_information(prepare_candidate(COPY_LOOP, (1, 0)), "forward", (0,), (1,))


def test_unreachable_state():
    tpm = [[0, 0], [0, 0], [0, 0], [0, 0]]
    with pytest.raises(ValueError, match="unreachable"):
        iit4(tpm, (1, 1))


# ------------------------------------------------------------------ PyPhi 2.0 reference files


def _reference_params(name: str):
    """One pytest param per (network, formalism) of a reference file (skipped if absent)."""
    path = REFERENCE / name
    if not path.exists():
        return [pytest.param(None, None, None, marks=pytest.mark.skip(reason=f"{path} not written yet"))]
    out = []
    for net in json.loads(path.read_text())["networks"]:
        size = net.get("n_system") or net["n"]
        for formalism, ref in net.get("results", {}).items():
            marks = [pytest.mark.slow] if size >= 7 else []
            out.append(pytest.param(net, formalism, ref, id=f"{net['name']}-{formalism}", marks=marks))
    return out


@pytest.mark.parametrize("net, formalism, ref", _reference_params("iit4_sia.json"))
def test_reference_sia(net, formalism, ref):
    r = iit4(net["tpm"], net["state"], net["cm"], net["nodes"], formalism, validate_state=False)
    assert r.phi_s == pytest.approx(ref["phi_s"], abs=1e-6)
    if ref.get("cause") is not None:
        assert list(r.cause_state) == ref["cause"]["state"]
        assert list(r.effect_state) == ref["effect"]["state"]
        assert r.cause_ii == pytest.approx(ref["cause"]["ii"], abs=1e-9)
        assert r.effect_ii == pytest.approx(ref["effect"]["ii"], abs=1e-9)
    else:
        assert r.cause_state is None and r.effect_state is None
    mip = ref.get("mip") or {}
    if ref.get("mip_unique") and mip.get("cut_edges") is not None:
        assert sorted(map(list, r.partition.cut_edges)) == mip["cut_edges"]
    if mip.get("kind") == "NullCut":
        assert r.partition is None
    if ref.get("phi_c") is not None and r.phi_cause is not None and ref.get("mip_unique"):
        assert r.phi_cause == pytest.approx(ref["phi_c"], abs=1e-6)
        assert r.phi_effect == pytest.approx(ref["phi_e"], abs=1e-6)


@pytest.mark.parametrize("net, formalism, ref", _reference_params("iit4_complexes.json"))
def test_reference_complexes(net, formalism, ref):
    cx = maximal_complex(net["tpm"], net["state"], cm=net["cm"], formalism=formalism, validate_state=False)
    mine = [(list(c.nodes), c.phi_s) for c in cx.complexes]
    theirs = [(c["nodes"], c["phi_s"]) for c in ref["complexes"]]
    assert [m[0] for m in mine] == [t[0] for t in theirs]
    for (_, a), (_, b) in zip(mine, theirs):
        assert a == pytest.approx(b, abs=1e-6)
    if "irreducible" in ref:
        irreducible = sorted(([list(c.nodes), c.phi_s] for c in cx.candidates if c.phi_s > 1e-13),
                             key=lambda x: (len(x[0]), x[0]))
        assert [x[0] for x in irreducible] == [x[0] for x in ref["irreducible"]]


@pytest.mark.parametrize("net, formalism, ref", _reference_params("iit4_examples.json"))
def test_reference_paper_examples(net, formalism, ref):
    """The IIT 4.0 paper's figure networks (PyPhi 2.0's values; the paper's rounded ones too)."""
    if "complexes" in ref:
        cx = maximal_complex(net["tpm"], net["state"], cm=net["cm"], formalism=formalism, validate_state=False)
        assert [list(c.nodes) for c in cx.complexes] == [c["nodes"] for c in ref["complexes"]]
        for c, theirs in zip(cx.complexes, ref["complexes"]):
            assert c.phi_s == pytest.approx(theirs["phi_s"], abs=1e-6)
        return
    r = iit4(net["tpm"], net["state"], net["cm"], net["nodes"], formalism, validate_state=False)
    assert r.phi_s == pytest.approx(ref["phi_s"], abs=1e-6)
    cause = ref.get("system_cause_state") or (ref.get("cause") or {}).get("state")
    effect = ref.get("system_effect_state") or (ref.get("effect") or {}).get("state")
    if cause is not None:
        assert list(r.cause_state) == cause and list(r.effect_state) == effect
    published = net["params"].get("published") or {}
    if formalism == "IIT_4_0_2023" and "phi_s" in published:  # the paper's rounded value
        if str(published.get("tol", "")).startswith("round 2"):
            assert round(r.phi_s, 2) == published["phi_s"]
        else:
            assert abs(r.phi_s - published["phi_s"]) <= 0.01


def test_a_system_above_the_size_limit_is_refused_at_once_unless_asked_for():
    # issue 43: an 8-node phi_structure ran past 120 s, a 10-node iit4 took 3.7 GB, a 16-node one asked for 32 GiB.
    # Reference: the measured limits of cognition/phi/iit4/limits.py (docs/iit4.md, "Size limits")
    import time

    from cognition import phi
    from cognition.phi.iit4.limits import MAX_STRUCTURE_NODES, MAX_SYSTEM_NODES

    assert (MAX_SYSTEM_NODES, MAX_STRUCTURE_NODES) == (8, 6)
    for n in (10, 12, 16):
        tpm = np.full((2 ** n, n), 0.5)
        for f, limit in ((phi.iit4, 8), (phi.phi_structure, 6), (phi.maximal_complex, 8)):
            started = time.perf_counter()
            with pytest.raises(ValueError) as info:
                f(tpm, (0,) * n, validate_state=False)
            message = str(info.value)
            assert time.perf_counter() - started < 1.0 and "\n" not in message
            assert f"{n} nodes is above {f.__name__}'s limit of {limit}" in message
            assert f"pass max_nodes={n}" in message
    # a subsystem within the limit of a larger network is computed; asking raises the limit. A constant TPM has
    # no cause-effect power, so phi_s and big Phi are exactly 0 (the definitions: every repertoire is unconstrained)
    tpm = np.full((2 ** 7, 7), 0.5)
    with pytest.raises(ValueError, match="above phi_structure's limit of 6"):
        phi.phi_structure(tpm, (0,) * 7, validate_state=False)
    assert phi.phi_structure(tpm, (0,) * 7, nodes=(0, 1, 2), validate_state=False).big_phi == 0.0
    assert phi.iit4(tpm, (0,) * 7, validate_state=False, max_nodes=7).phi_s == 0.0
    with pytest.raises(ValueError, match="max_nodes: got 0"):
        phi.iit4(tpm, (0,) * 7, max_nodes=0)


def test_the_refusal_needs_no_memory_under_a_1_gb_address_space_limit():
    # issue 43, item 3: no case above 1 GB without the user's asking, checked under RLIMIT_AS (ulimit -v)
    import resource
    import subprocess
    import sys

    code = ("import numpy as np\nfrom cognition import phi\n"
            "for n in (8, 10, 12, 16):\n"
            "    tpm = np.full((2 ** n, n), 0.5)\n"
            "    for f in (phi.iit4, phi.phi_structure):\n"
            "        try:\n            f(tpm, (0,) * n, validate_state=False)\n            print(f.__name__, n, 'computed')\n"
            "        except ValueError as e:\n            print(f.__name__, n, 'refused')\n")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 ** 30, 2 ** 30))

    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, preexec_fn=limit,
                          cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split("\n")[:8] == ["iit4 8 computed", "phi_structure 8 refused", "iit4 10 refused",
                                           "phi_structure 10 refused", "iit4 12 refused", "phi_structure 12 refused",
                                           "iit4 16 refused", "phi_structure 16 refused"]


def test_the_host_memory_check_names_the_need_the_limit_and_the_largest_size_that_fits():
    # issue 43: a raised max_nodes is the caller's asking for the size, not for the OOM killer. Reference: the
    # measured costs in cognition/phi/iit4/limits.py (iit4 8 nodes 383 MB, 9 nodes 2.0 GB; docs/iit4.md)
    from cognition.phi.iit4.limits import MEASURED_COST, check_size, estimated_cost
    from cognition.runtime.memlimits import HostLimit

    for kind, table in MEASURED_COST.items():
        assert all(estimated_cost(n, kind) == cost for n, cost in table.items())
        costs = [estimated_cost(n, kind) for n in range(2, 20)]
        assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(costs, costs[1:]))  # never cheaper with a node
    one_gb = [HostLimit("MemAvailable", 10**9, 10**9, "resident")]
    check_size(8, "iit4", None, limits=one_gb)  # 383 MB fits
    with pytest.raises(ValueError) as info:
        check_size(9, "iit4", 9, limits=one_gb)
    message = str(info.value)
    assert "9 nodes needs about 2 GB for iit4" in message and "MemAvailable" in message
    assert message.endswith("the largest system that fits is 8 nodes") and "\n" not in message
    with pytest.raises(ValueError, match="largest system that fits is 6 nodes"):
        check_size(7, "phi_structure", 7, limits=one_gb)
    tiny = [HostLimit("RLIMIT_AS", 2 * 10**8, 10**7, "virtual")]
    with pytest.raises(ValueError, match="no system fits"):
        check_size(3, "iit4", None, limits=tiny)


PROBE = """
import resource, sys, time
import numpy as np
from cognition import phi
n, asked, name = int(sys.argv[1]), sys.argv[2] == "ask", sys.argv[3]
tpm = np.full((2 ** n, n), 0.5)
started = time.perf_counter()
try:
    getattr(phi, name)(tpm, (0,) * n, validate_state=False, max_nodes=n if asked else None)
    outcome = "result"
except ValueError as exc:
    outcome = "refused " + str(exc)
print(f"{time.perf_counter() - started:.3f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024} {outcome}")
"""


@pytest.mark.integration
@pytest.mark.parametrize("n", [8, 10, 12, 16])
def test_under_a_1_gb_address_space_limit_each_size_is_a_result_or_a_refusal_within_a_second(n):
    # issue 43, "what it must show" 3: phi.iit4 / phi_structure at 8, 10, 12 and 16 nodes, asked for or not
    import resource
    import subprocess
    import sys

    from tests.clitools import _env

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))

    for name in ("iit4", "phi_structure"):
        for asked in ("ask", "default"):
            got = subprocess.run([sys.executable, "-c", PROBE, str(n), asked, name], capture_output=True, text=True,
                                 env=_env(), preexec_fn=limit, timeout=120)
            assert got.returncode == 0 and "Traceback" not in got.stderr, got.stderr[-2000:]
            seconds, peak, outcome = got.stdout.strip().split(" ", 2)
            assert int(peak) < 2**30, (name, asked, outcome)
            if outcome.startswith("refused"):
                assert float(seconds) < 1.0 and "\n" not in outcome, (name, asked, seconds)
                assert "needs about" in outcome or "it needs about" in outcome, outcome
            else:  # computed: only what fits, within the default limits or the host's
                assert n <= (8 if name == "iit4" else 6) or asked == "ask", (name, asked)
