"""IIT 4.0 results read as results (issue 44): a short repr, unit labels throughout, JSON, phi_d in a distinction's
repr, and a flag where big Phi is reported for a reducible system.

Reference values: the copy loop (two units copying each other: phi_s 2 bits, worked by hand in
tests/phi/test_phi_iit4_system.py; two first-order distinctions of 1 bit and their relations, big Phi 4 bits) and
two independent self-loops (reducible: phi_s 0, yet two distinctions and their relations give big Phi 4 bits).
"""
from __future__ import annotations

import json

from cognition.phi.iit4 import iit4, maximal_complex, phi_structure

COPY_LOOP = [[0, 0], [0, 1], [1, 0], [1, 1]]
SELF_LOOPS = [[0, 0], [1, 0], [0, 1], [1, 1]]


def test_the_repr_is_one_short_line_without_numpy():
    r = iit4(COPY_LOOP, (1, 0))
    text = repr(r)
    assert text == ("SystemIrreducibility(phi_s=2 bits of {0, 1} in state (1, 0); MIP {0}<- | {1}<-; cause (0, 1), "
                    "effect (0, 1))")
    assert "array" not in repr(r.partition) and repr(r.partition) == "SystemPartition(2 parts: {0}<- | {1}<-)"
    structure = phi_structure(COPY_LOOP, (1, 0))
    assert len(repr(structure)) < 200 and "big_phi=4 bits" in repr(structure)
    assert repr(maximal_complex(COPY_LOOP, (1, 0))) == ("ComplexAnalysis(maximal complex {0, 1} phi_s=2 bits; 1 "
                                                         "complexes of 1 candidates)")


def test_labels_name_the_units_everywhere():
    labels = ["A", "B"]
    r = iit4(COPY_LOOP, (1, 0))
    assert r.describe(labels) == "phi_s=2 bits of {A, B} in state A=1, B=0; MIP {A}<- | {B}<-; cause A=0, B=1, " \
                                 "effect A=0, B=1"
    d = r.to_dict(labels)
    assert d["nodes"] == ["A", "B"] and d["partition"]["parts"] == [["A"], ["B"]]
    assert d["partition"]["cut_edges"] == [["A", "B"], ["B", "A"]]
    distinction = phi_structure(COPY_LOOP, (1, 0)).distinctions[0]
    assert distinction.describe(labels) == "phi_d=1 bits: mechanism {A=1}, cause {B=1} (phi_c=1), effect {B=1} (phi_e=1)"


def test_a_distinctions_repr_has_phi_d():
    distinction = phi_structure(COPY_LOOP, (1, 0)).distinctions[0]
    assert repr(distinction).startswith("Distinction(phi_d=1 bits:") and distinction.to_dict()["phi_d"] == 1.0


def test_every_result_goes_to_json_and_back_with_its_numbers():
    r = iit4(COPY_LOOP, (1, 0))
    back = json.loads(json.dumps(r.to_dict()))
    assert back["phi_s"] == r.phi_s == 2.0 and back["cause_state"] == [0, 1] and back["cause_ties"] == [[0, 1]]
    structure = phi_structure(COPY_LOOP, (1, 0))
    back = json.loads(json.dumps(structure.to_dict(["A", "B"])))
    assert back["big_phi"] == structure.big_phi and len(back["distinctions"]) == structure.n_distinctions
    assert back["sia"]["phi_s"] == structure.phi_s and back["reducible"] is False
    cx = json.loads(json.dumps(maximal_complex(COPY_LOOP, (1, 0)).to_dict()))
    assert cx["maximal"]["nodes"] == [0, 1] and cx["maximal"]["phi_s"] == 2.0


def test_big_phi_of_a_reducible_system_is_flagged():
    structure = phi_structure(SELF_LOOPS, (1, 0))
    assert structure.phi_s == 0.0 and structure.big_phi > 0  # the case the flag is for
    assert structure.reducible and "REDUCIBLE (phi_s = 0): not a complex" in repr(structure)
    assert structure.to_dict()["reducible"] is True
    assert not phi_structure(COPY_LOOP, (1, 0)).reducible


def test_labels_that_do_not_name_every_unit_are_one_line():
    import pytest

    r = iit4(COPY_LOOP, (1, 0))
    for call in (lambda: r.describe(["A"]), lambda: r.to_dict(["A"]), lambda: r.partition.labelled(["A"]),
                 lambda: phi_structure(COPY_LOOP, (1, 0)).distinctions[1].describe(["A"])):
        with pytest.raises(ValueError, match=r"^labels: 1 name\(s\) for units up to 1; allowed one name per network "
                                             r"unit$"):
            call()
    with pytest.raises(ValueError, match=r"^labels: got int; allowed a sequence of names"):
        r.describe(7)
