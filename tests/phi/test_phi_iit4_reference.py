"""Integrity of the PyPhi 2.0 (IIT 4.0) reference files in tests/reference/iit4_*.json.

The files hold PyPhi 2.0's own output (commit recorded in each file), made by
benchmarks/pyphi_compare/make_iit4_reference.py through pyphi2_worker.py in PyPhi's own
virtualenv (see benchmarks/pyphi_compare/README.md). These checks read the files only:
schema, coverage (sizes, families, both formalisms), provenance, and identities that
PyPhi's output satisfies (phi_d = min(phi_c, phi_e), big Phi = sum phi_d + sum phi_r,
the 2026 cap never raises phi_s, reducible networks have phi_s = 0). Comparing
`cognition.phi.iit4` with them is done elsewhere.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

REF = Path(__file__).parents[1] / "reference"
FORMALISMS = ("IIT_4_0_2023", "IIT_4_0_2026")
COMMIT = "051052105a7e9769d9624743b5d35b1588c1671c"
FILES = {kind: REF / f"iit4_{kind}.json" for kind in ("sia", "ces", "complexes", "examples")}


@pytest.fixture(scope="module")
def refs():
    return {kind: json.loads(path.read_text()) for kind, path in FILES.items()}


def _key(net):
    return json.dumps([net["tpm"], net["cm"], net["state"], net["nodes"]])


def _check_network(net):
    n = net["n"]
    assert len(net["tpm"]) == 2 ** n and all(len(row) == n for row in net["tpm"]), net["name"]
    assert all(0.0 <= p <= 1.0 for row in net["tpm"] for p in row), net["name"]
    assert len(net["cm"]) == n and all(len(r) == n and set(r) <= {0, 1} for r in net["cm"]), net["name"]
    assert len(net["state"]) == n and set(net["state"]) <= {0, 1}, net["name"]
    nodes = net["nodes"]
    assert net["n_system"] == (len(nodes) if nodes else n), net["name"]
    if nodes:
        assert nodes == sorted(set(nodes)) and all(0 <= i < n for i in nodes), net["name"]
    for formalism, res in net["results"].items():
        assert formalism in FORMALISMS, net["name"]
        assert "error" not in res, net["name"]
        assert isinstance(res["cpu_s"], float) and res["cpu_s"] >= 0.0, net["name"]


@pytest.mark.parametrize("kind", list(FILES))
def test_provenance(refs, kind):
    data = refs[kind]
    assert data["pyphi"]["commit"] == COMMIT
    assert data["pyphi"]["version"].startswith("2.")
    assert re.fullmatch(r"3\.\d+\.\d+", data["pyphi"]["python"])
    assert "make_iit4_reference.py" in data["source"] and "make_iit4_reference.py" in data["command"]
    assert "little-endian" in data["conventions"]
    if kind != "examples":
        assert isinstance(data["generator"]["seed"], int)
    for formalism in FORMALISMS:
        cfg = data["config"][formalism]["iit"]
        assert cfg["version"] == formalism
        assert cfg["system_partition_scheme"] == "DIRECTED_SET_PARTITION"
        assert cfg["mechanism_partition_scheme"] == "JOINT_PARTITION_ALL"
        assert cfg["sia_tie_resolution"] == ["NORMALIZED_PHI", "NEGATIVE_PHI", "PARTITION_LEX"]
        assert cfg["system_phi_measure"] == ("INTRINSIC_INFORMATION" if formalism.endswith("2026")
                                             else "GENERALIZED_INTRINSIC_DIFFERENCE")
        assert data["config"][formalism]["parallel"] is False
    names = [net["name"] for net in data["networks"]]
    assert len(names) == len(set(names))
    for net in data["networks"]:
        _check_network(net)


def test_files_are_compact():
    assert sum(path.stat().st_size for path in FILES.values()) < 3_000_000


def test_sia_coverage(refs):
    nets = [net for net in refs["sia"]["networks"] if set(net["results"]) == set(FORMALISMS)]
    assert len({_key(net) for net in nets}) >= 60
    assert {net["n_system"] for net in nets} >= {2, 3, 4, 5, 6}
    assert sum(net["n_system"] == 6 for net in nets) >= 8
    assert {net["family"] for net in nets} >= {"logic", "logistic", "ising", "sparse", "reducible"}
    assert sum(net["results"]["IIT_4_0_2023"]["phi_s"] > 1e-9 for net in nets) >= 20


def test_sia_results(refs):
    for net in refs["sia"]["networks"]:
        res = net["results"]
        for formalism, r in res.items():
            assert r["phi_s"] >= 0.0 and r["normalized_phi_s"] >= 0.0, net["name"]
            if net["family"] == "reducible":
                assert r["phi_s"] == 0.0 and r["reasons"] == ["NO_STRONG_CONNECTIVITY"], net["name"]
                continue
            mip = r["mip"]
            assert mip["kind"] in ("DirectedSetPartition", "CompleteEdgeCut", "NullCut"), net["name"]
            if mip["kind"] == "DirectedSetPartition":
                assert mip["n_cut"] == len(mip["cut_edges"]) > 0, net["name"]
                system = set(net["nodes"] or range(net["n"]))
                assert sorted(i for part in mip["parts"] for i in part) == sorted(system), net["name"]
                assert all(i in system and j in system and i != j for i, j in mip["cut_edges"]), net["name"]
                if r["mip_unique"] is not None:
                    assert r["n_min_normalized_ties"] >= 1, net["name"]
                    assert r["mip_unique"] == (r["n_min_normalized_ties"] == 1), net["name"]
                    assert r["n_evaluated"] == r["n_partitions"], net["name"]
                else:  # 6 nodes, PyPhi stopped at a phi = 0 partition: ties not counted
                    assert r["shortcircuited"] and r["phi_s"] == 0.0 and net["n_system"] >= 6
            for side in ("cause", "effect"):
                if r[side] is not None:
                    assert len(r[side]["state"]) == net["n_system"], net["name"]
        if set(res) == set(FORMALISMS):  # the 2026 cap only lowers phi_s; same MIP search
            a, b = res["IIT_4_0_2023"], res["IIT_4_0_2026"]
            assert b["phi_s"] <= a["phi_s"] + 1e-9, net["name"]
            assert b["mip"] == a["mip"] and b["phi_c"] == a["phi_c"] and b["phi_e"] == a["phi_e"], net["name"]


def test_ces(refs):
    nets = refs["ces"]["networks"]
    assert sum(net["n_system"] <= 4 and "IIT_4_0_2023" in net["results"] for net in nets) >= 25
    assert sum(net["n_system"] == 5 and "IIT_4_0_2023" in net["results"] for net in nets) >= 6
    sia = {net["name"]: net for net in refs["sia"]["networks"]}
    for net in nets:
        for formalism, r in net["results"].items():
            ds = r["distinctions"]
            assert r["n_distinctions"] == len(ds), net["name"]
            assert r["sum_phi_d"] == pytest.approx(sum(d["phi"] for d in ds), rel=1e-10, abs=1e-9)
            assert r["big_phi"] == pytest.approx(r["sum_phi_d"] + r["sum_phi_r"], rel=1e-10, abs=1e-9)
            for d in ds:
                assert d["phi"] == pytest.approx(min(d["phi_c"], d["phi_e"]), abs=1e-12), net["name"]
                assert len(d["cause_state"]) == len(d["cause_purview"]), net["name"]
                assert len(d["effect_state"]) == len(d["effect_purview"]), net["name"]
            # the same network in iit4_sia.json: same generator, same phi_s
            same = sia.get(net["name"])
            if same is not None and formalism in same["results"]:
                assert _key(same) == _key(net)
                assert r["phi_s"] == pytest.approx(same["results"][formalism]["phi_s"], abs=1e-9)
        if set(net["results"]) == set(FORMALISMS):  # the Phi-structure does not depend on the formalism
            a, b = net["results"]["IIT_4_0_2023"], net["results"]["IIT_4_0_2026"]
            assert a["distinctions"] == b["distinctions"] and a["sum_phi_r"] == b["sum_phi_r"]


def test_complexes(refs):
    nets = [net for net in refs["complexes"]["networks"] if set(net["results"]) == set(FORMALISMS)]
    assert len(nets) >= 12
    assert {net["n"] for net in nets} >= {3, 4, 5}
    for net in nets:
        for r in net["results"].values():
            covered = [i for c in r["complexes"] for i in c["nodes"]]
            assert len(covered) == len(set(covered)), net["name"]  # non-overlapping
            phis = [c["phi_s"] for c in r["complexes"]]
            assert phis == sorted(phis, reverse=True) and all(p > 0 for p in phis), net["name"]
            assert r["maximal"] == (r["complexes"][0] if r["complexes"] else None)
            best = max((p for _, p in r["irreducible"]), default=None)
            if r["maximal"] is not None:
                assert r["maximal"]["phi_s"] == pytest.approx(best, abs=1e-12), net["name"]


def test_examples(refs):
    nets = {net["name"]: net for net in refs["examples"]["networks"]}
    assert {"fig1_aB", "fig1_aB_ces", "fig1_complexes", "fig6a_Ab", "fig6b_Ab", "fig6e_Abef",
            "fig7C_ABCD_inactivated", "fig6c_full", "fig6c_full_ces", "fig6d_full", "fig7A_ABcdE",
            "fig7B_ABcde"} <= set(nets)
    assert refs["examples"]["generator"]["published_values_from"] == "test/integration/test_paper_reproduction.py"
    for name, net in nets.items():
        assert "IIT_4_0_2023" in net["results"], name
        published = net["params"].get("published")
        r = net["results"]["IIT_4_0_2023"]
        if published and "phi_s" in published:  # PyPhi reproduces the paper's figure
            assert abs(r["phi_s"] - published["phi_s"]) <= 0.02, name
            assert published["test"].startswith("test_iit4_2023_"), name
            for key in ("n_distinctions", "n_relations"):
                if key in published:
                    assert r[key] == published[key], name
            if "big_phi" in published:
                assert abs(r["big_phi"] - published["big_phi"]) <= 0.02 * max(1.0, published["big_phi"] / 100), name
        if name.endswith("_exported_tpm"):  # the stored TPM gives PyPhi's own substrate's values
            orig = nets[name[: -len("_exported_tpm")]]["results"]["IIT_4_0_2023"]
            assert r["phi_s"] == pytest.approx(orig["phi_s"], abs=1e-9)
            assert r.get("big_phi") == pytest.approx(orig.get("big_phi"), abs=1e-9)
