"""python -m cognition.experiment iit4: the command's JSON contract (issue 46) and its refusals."""
from __future__ import annotations

import json

from cognition.experiment.__main__ import main


def test_the_json_has_the_contracts_fields_per_agent(tmp_path, capsys):
    out = tmp_path / "iit4.json"
    units = "expectation.content_mean,unconscious.content_mean,hybrid.p_act,workspace.broadcast_mean"
    rc = main(["iit4", "--disable-quantum", "--agents", "3", "--cycles", "60", "--burn", "5", "--draws", "4",
               "--bootstrap", "3", "--null", "3", "--units", units, "--json", str(out)])
    printed = capsys.readouterr().out
    assert rc == 0
    doc = json.loads(out.read_text())
    assert doc["units"] == units.split(",") and "whole cycle" in doc["grain"] and doc["mode"] == "disabled"
    assert len(doc["agents"]) == 3
    for e in doc["agents"]:
        assert {"phi_s", "phi_s_ci", "p_value", "mip", "complex", "big_phi"} <= set(e)
        assert set(e["complex"]) <= set(doc["units"]) and e["phi_s"] >= 0
    assert doc["summary"]["agents"] == 3 and f"phi_s across 3 agents: mean {doc['summary']['phi_s_mean']:.4f}" in printed


def test_bad_input_is_one_line_exit_2_nothing_written(tmp_path, capsys):
    out = tmp_path / "x.json"
    for argv, fragment in (
            (["--lesion", "proposals"], "--lesion proposals: the intervention analysis runs the agents without"),
            (["--units", "nope,hybrid.p_act"], "units: 'nope' is not one of the run's units"),
            (["--draws", "0"], "argument --draws: 0 is not allowed"),
            (["--json", str(tmp_path)], "is a directory"),
            (["--cycles", "100000", "--agents", "4096"], "the recorded states need about")):
        rc = main(["iit4", "--disable-quantum", "--agents", "2", "--cycles", "20", *argv] if "--agents" not in argv
                  else ["iit4", "--disable-quantum", *argv])
        err = capsys.readouterr().err
        assert rc == 2 and err.count("\n") == 1 and fragment in err, (argv, err)
    assert not out.exists()
