"""IIT 3.0 big Phi against PyPhi 1.2.0's published answers.

Expected values are copied from PyPhi 1.2.0's test suite, `test/test_big_phi.py`
(standard_answer, noised_answer, big_answer, big_subsys_0_thru_3_answer,
rule152_answer, micro_answer) and `test/test_macro_blackbox.py` (XOR, 1.874999), for
the networks of `pyphi/examples.py` and `test/example_networks.py`, reproduced below.
PyPhi's parallel and sequential runs can differ in the last printed decimal, hence the
2e-6 tolerance on big Phi; small phi values are compared to PyPhi's 6-decimal values
with the same tolerance.
"""
from __future__ import annotations

import numpy as np
import pytest

from cognition.phi.iit3 import SystemCut, iit3

TOL = 2e-6

# pyphi/examples.py: basic_network (OR, COPY, XOR), state (1, 0, 0).
BASIC_TPM = np.array([[0, 0, 0], [0, 0, 1], [1, 0, 1], [1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 1, 1], [1, 1, 0]])
BASIC_CM = np.array([[0, 0, 1], [1, 0, 1], [1, 1, 0]])

# pyphi/examples.py: xor_network, three XOR gates, state (0, 0, 0).
XOR_TPM = np.array([[0, 0, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
XOR_CM = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]])

# test/example_networks.py: noised(), state (1, 0, 0), all-to-all connectivity.
NOISED_TPM = np.array([
    [0.0, 0.0, 0.0], [0.0, 0.0, 0.8], [0.7, 0.0, 1.0], [1.0, 0.0, 0.0],
    [0.2, 0.8, 0.0], [1.0, 1.0, 1.0], [1.0, 1.0, 0.3], [0.1, 1.0, 0.0],
])

# test/example_networks.py: big(), 5 nodes, cm=None (all-to-all), state all ON.
BIG_TPM = np.array([
    [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 1, 1, 0], [0, 0, 0, 0, 0],
    [0, 0, 0, 1, 0], [0, 0, 0, 1, 1], [0, 0, 1, 1, 1], [0, 0, 0, 0, 0], [0, 1, 0, 0, 0],
    [0, 0, 0, 0, 1], [0, 1, 1, 1, 1], [1, 0, 0, 0, 1], [1, 1, 0, 1, 1], [1, 0, 0, 1, 1],
    [1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [0, 1, 1, 0, 0], [0, 0, 1, 0, 0], [0, 1, 1, 1, 0],
    [1, 0, 0, 0, 0], [1, 1, 1, 1, 0], [1, 0, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 0, 0, 0],
    [1, 1, 1, 0, 0], [1, 1, 1, 0, 1], [1, 1, 1, 1, 1], [1, 1, 0, 0, 1], [1, 1, 1, 1, 1],
    [1, 1, 1, 1, 1], [1, 1, 1, 1, 1],
])

# test/example_networks.py: rule152(), 5-node ring of elementary CA rule 152, all OFF.
RULE152_TPM = np.array([
    [0, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [1, 0, 1, 0, 0], [0, 0, 0, 1, 0],
    [0, 0, 0, 1, 0], [0, 1, 0, 1, 0], [1, 1, 0, 1, 0], [0, 0, 0, 0, 1], [0, 1, 0, 0, 0],
    [0, 0, 0, 0, 1], [1, 0, 0, 0, 0], [0, 0, 1, 0, 1], [0, 0, 1, 0, 0], [0, 1, 1, 0, 1],
    [1, 1, 1, 0, 0], [1, 0, 0, 0, 0], [0, 1, 0, 0, 1], [0, 0, 1, 0, 0], [1, 0, 1, 0, 1],
    [1, 0, 0, 0, 0], [0, 0, 0, 0, 1], [0, 1, 0, 0, 0], [1, 1, 0, 0, 1], [1, 0, 0, 1, 0],
    [0, 1, 0, 1, 1], [0, 0, 0, 1, 0], [1, 0, 0, 1, 1], [1, 0, 1, 1, 0], [0, 0, 1, 1, 1],
    [0, 1, 1, 1, 0], [1, 1, 1, 1, 1],
])
RULE152_CM = np.array([
    [1, 1, 0, 0, 1], [1, 1, 1, 0, 0], [0, 1, 1, 1, 0], [0, 0, 1, 1, 1], [1, 0, 0, 1, 1],
])

# test/example_networks.py: micro(), a 4-node state-by-state TPM, state all ON.
_A = [0.2401, 0.1029, 0.1029, 0.0441, 0.1029, 0.0441, 0.0441, 0.0189,
      0.1029, 0.0441, 0.0441, 0.0189, 0.0441, 0.0189, 0.0189, 0.0081]
_Z = [0.0] * 12 + [0.49, 0.21, 0.21, 0.09]
_C = [0.0, 0.0, 0.0, 0.49, 0.0, 0.0, 0.0, 0.21, 0.0, 0.0, 0.0, 0.21, 0.0, 0.0, 0.0, 0.09]
MICRO_SBS = np.array([_A, _A, _A, _Z, _A, _A, _A, _Z, _A, _A, _A, _Z, _C, _C, _C, [0.0] * 15 + [1.0]])


# Small phi of every concept in PyPhi 1.2.0's published answers (test_big_phi.py), mechanism -> phi;
# benchmarks/pyphi_compare/emd_engines.py reads them from here.
BASIC_SMALL = {(1,): 0.25, (2,): 0.5, (0, 1): 0.333333, (0, 1, 2): 0.5}
NOISED_SMALL = {(0,): 0.0625, (1,): 0.2, (2,): 0.316326, (0, 1): 0.319047, (0, 2): 0.0125,
                (1, 2): 0.263847, (0, 1, 2): 0.35}
BIG_0123_SMALL = {(0,): 0.166667, (1,): 0.166667, (2,): 0.166667, (3,): 0.25, (0, 1): 0.133333,
                  (1, 2): 0.133333}
MICRO_SMALL = {(0,): 0.175, (1,): 0.175, (2,): 0.175, (3,): 0.175, (0, 1): 0.348114, (2, 3): 0.348114}
RULE152_SMALL = {(0,): 0.125, (1,): 0.125, (2,): 0.125, (3,): 0.125, (4,): 0.125,
                 (0, 1): 0.25, (0, 2): 0.184614, (0, 3): 0.184614, (0, 4): 0.25, (1, 2): 0.25,
                 (1, 3): 0.184614, (1, 4): 0.184614, (2, 3): 0.25, (2, 4): 0.184614, (3, 4): 0.25,
                 (0, 1, 2): 0.25, (0, 1, 3): 0.316666, (0, 1, 4): 0.25, (0, 2, 3): 0.316666,
                 (0, 2, 4): 0.316666, (0, 3, 4): 0.25, (1, 2, 3): 0.25, (1, 2, 4): 0.316666,
                 (1, 3, 4): 0.316666, (2, 3, 4): 0.25, (0, 1, 2, 3): 0.25, (0, 1, 2, 4): 0.25,
                 (0, 1, 3, 4): 0.25, (0, 2, 3, 4): 0.25, (1, 2, 3, 4): 0.25, (0, 1, 2, 3, 4): 0.25}
BIG_SMALL = {(i,): 0.25 for i in range(5)}
BIG_SMALL.update({m: 0.2 for m in [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3),
                                   (2, 4), (3, 4), (0, 1, 2), (0, 1, 4), (0, 3, 4), (1, 2, 3), (2, 3, 4)]})
BIG_SMALL.update({m: 0.257143 for m in [(0, 1, 3), (0, 2, 3), (0, 2, 4), (1, 2, 4), (1, 3, 4)]})
BIG_SMALL.update({m: 0.185709 for m in [(0, 1, 2, 3), (0, 1, 2, 4), (0, 1, 3, 4), (0, 2, 3, 4),
                                        (1, 2, 3, 4)]})


def check(result, phi, small_phis, cut=None, cuts=None, n_partitioned=None, sum_partitioned=None):
    assert result.phi == pytest.approx(phi, abs=TOL)
    assert set(result.small_phis) == set(small_phis)
    for mechanism, value in small_phis.items():
        assert result.small_phis[mechanism] == pytest.approx(value, abs=TOL), mechanism
    if cut is not None:
        assert result.cut == SystemCut(*cut)
    if cuts is not None:
        assert (result.cut.from_nodes, result.cut.to_nodes) in cuts
    if n_partitioned is not None:
        assert len(result.partitioned_concepts) == n_partitioned
    if sum_partitioned is not None:
        assert round(sum(c.phi for c in result.partitioned_concepts), 6) == pytest.approx(sum_partitioned, abs=TOL)


def test_basic_network_published_value():
    # standard_answer: Phi 2.3125, MIP cut severs {1, 2} -> {0}.
    result = iit3(BASIC_TPM, (1, 0, 0), cm=BASIC_CM)
    check(result, 2.3125, BASIC_SMALL, cut=((1, 2), (0,)), n_partitioned=1, sum_partitioned=0.5)


def test_basic_network_concept_purviews():
    # PyPhi 1.2.0 `compute.ces(examples.basic_subsystem())`: (mechanism, cause, effect).
    result = iit3(BASIC_TPM, (1, 0, 0), cm=BASIC_CM)
    purviews = [(c.mechanism, c.cause_purview, c.effect_purview) for c in result.concepts]
    assert purviews == [((1,), (2,), (0,)), ((2,), (0, 1), (1,)), ((0, 1), (1, 2), (2,)),
                        ((0, 1, 2), (0, 1, 2), (0, 1, 2))]
    for concept in result.concepts:
        assert concept.phi == min(concept.cause_phi, concept.effect_phi)
        assert concept.cause_repertoire.sum() == pytest.approx(1.0)
        assert concept.effect_repertoire.shape == (2 ** len(concept.effect_purview),)


def test_basic_network_complete_graph_same_value():
    # test_sia_complete_graph_standard_example: cm=None gives the standard answer.
    check(iit3(BASIC_TPM, (1, 0, 0)), 2.3125, BASIC_SMALL, cut=((1, 2), (0,)))


def test_xor_network_published_value():
    # PyPhi 1.2.0 test_macro_blackbox.py: three XOR gates (there black-boxed from 9 micro
    # elements, all OFF) have Phi = 1.874999 with cut {0} -> {1, 2}; PyPhi 1.2.0 gives the
    # same for examples.xor_network in (0, 0, 0) (benchmarks/pyphi_compare/compare.py).
    result = iit3(XOR_TPM, (0, 0, 0), cm=XOR_CM)
    assert result.phi == pytest.approx(1.874999, abs=TOL)
    assert result.cut == SystemCut((0,), (1, 2))
    assert set(result.small_phis) == {(0, 1), (0, 2), (1, 2)}  # no elementary mechanisms


def test_noised_network_published_value():
    # noised_answer: a stochastic TPM, so repertoires are not dyadic fractions.
    check(iit3(NOISED_TPM, (1, 0, 0), cm=np.ones((3, 3))), 1.928592, NOISED_SMALL,
          cut=((1, 2), (0,)), n_partitioned=7, sum_partitioned=0.504906)


def test_big_network_four_node_subsystem_published_value():
    # big_subsys_0_thru_3_answer: node 4 is fixed ON as a background condition.
    check(iit3(BIG_TPM, (1,) * 5, nodes=(0, 1, 2, 3)), 0.366389, BIG_0123_SMALL,
          cut=((1, 3), (0, 2)), n_partitioned=5, sum_partitioned=0.883334)


def test_micro_state_by_state_published_value():
    # micro_answer: a conditionally independent state-by-state TPM.
    cuts = {((0, 2), (1, 3)), ((1, 2), (0, 3)), ((0, 3), (1, 2)), ((1, 3), (0, 2))}
    check(iit3(MICRO_SBS, (1, 1, 1, 1)), 0.974411, MICRO_SMALL, cuts=cuts)


def test_rule152_published_value():
    # rule152_answer: Phi 6.952286 (several cuts tie; PyPhi lists these).
    cuts = {((0, 1, 2, 3), (4,)), ((0, 1, 2, 4), (3,)), ((0, 1, 3, 4), (2,)),
            ((0, 2, 3, 4), (1,)), ((1, 2, 3, 4), (0,))}
    check(iit3(RULE152_TPM, (0,) * 5, cm=RULE152_CM), 6.952286, RULE152_SMALL, cuts=cuts,
          n_partitioned=24, sum_partitioned=4.185363)


def test_big_network_published_value():
    # big_answer: Phi 10.729491, MIP cut {2, 4} -> {0, 1, 3}.
    check(iit3(BIG_TPM, (1,) * 5), 10.729491, BIG_SMALL, cut=((2, 4), (0, 1, 3)),
          n_partitioned=17, sum_partitioned=3.564909)


def test_reducible_systems_have_zero_phi():
    # test_sia_disconnected_network, test_sia_single_micro_nodes_without_selfloops_dont_have_phi,
    # test_sia_single_micro_node_selfloops_dont_have_phi, test_sia_empty_subsystem.
    disconnected = iit3(np.zeros((4, 2)), (0, 0), cm=[[1, 0], [0, 1]])
    assert disconnected.phi == 0.0 and disconnected.cut is None
    assert iit3(BASIC_TPM, (1, 0, 0), cm=BASIC_CM, nodes=(1,)).phi == 0.0
    selfloop = np.array([[0.271, 0.19, 0.244], [0.919, 0.19, 0.756], [0.919, 0.91, 0.756],
                         [0.991, 0.91, 0.244], [0.919, 0.91, 0.756], [0.991, 0.91, 0.244],
                         [0.991, 0.99, 0.244], [0.999, 0.99, 0.756]])  # basic_noisy_selfloop_network
    assert iit3(selfloop, (1, 0, 0), cm=[[1, 0, 1], [1, 1, 1], [1, 1, 1]], nodes=(1,)).phi == 0.0
    assert iit3(BASIC_TPM, (1, 0, 0), cm=BASIC_CM, nodes=()).phi == 0.0


def test_parallel_cut_evaluation_gives_the_same_result():
    sequential = iit3(NOISED_TPM, (1, 0, 0), cm=np.ones((3, 3)))
    parallel = iit3(NOISED_TPM, (1, 0, 0), cm=np.ones((3, 3)), workers=2)
    assert parallel.phi == sequential.phi
    assert parallel.cut == sequential.cut
    assert parallel.small_phis == sequential.small_phis


def test_exact_emd_mode_stays_within_pyemd_rounding():
    # The exact EMD differs from pyemd's 1e-6-quantised arithmetic by a few 1e-6 per
    # distance; on the basic network the structure is the same and Phi moves by < 1e-5.
    exact = iit3(BASIC_TPM, (1, 0, 0), cm=BASIC_CM, emd="exact")
    assert exact.phi == pytest.approx(2.3125, abs=1e-5)
    assert exact.cut == SystemCut((1, 2), (0,))
    with pytest.raises(ValueError, match="emd"):
        iit3(BASIC_TPM, (1, 0, 0), cm=BASIC_CM, emd="fast")
