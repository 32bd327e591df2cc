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
            (["--lesion", "nope"], "control.lesion = 'nope' is not allowed: expected null, 'broadcast', 'proposals'"),
            (["--units", "nope,hybrid.p_act"], "units: 'nope' is not one of the run's units"),
            (["--draws", "0"], "argument --draws: 0 is not allowed"),
            (["--json", str(tmp_path)], "is a directory"),
            (["--cycles", "100000", "--agents", "4096"], "the recorded states need about")):
        rc = main(["iit4", "--disable-quantum", "--agents", "2", "--cycles", "20", *argv] if "--agents" not in argv
                  else ["iit4", "--disable-quantum", *argv])
        err = capsys.readouterr().err
        assert rc == 2 and err.count("\n") == 1 and fragment in err, (argv, err)
    assert not out.exists()


def test_the_report_section_holds_the_commands_numbers_when_asked_and_says_how_to_ask_otherwise(tmp_path):
    # analysis.iit4: true gives report.json an "iit4" entry equal, agent by agent, to the API's analysis of the
    # run directory (one number per label: the report, the API and the command are one computation,
    # cognition.analysis.perturbational.analyze), and report.md a row per agent under "IIT 4.0 by intervention";
    # without it the section says how to ask.
    from cognition.api import Simulator, configure, iit4_by_intervention

    base = {"run": {"agents": 3, "cycles": 12}, "quantum": {"mode": "disabled"}}
    asked = configure(**base, analysis={"iit4": True})
    with Simulator(asked, out=tmp_path / "asked", progress=False) as sim:
        report = sim.run(read_back=False)
    doc = report["iit4"]
    again = iit4_by_intervention(tmp_path / "asked", seed=asked.run.seed)
    assert doc["agents"] == again["agents"] and doc["summary"] == again["summary"]
    assert doc["draws"] == 256 and doc["cycles"] == 300 and len(doc["agents"]) == 3
    md = (tmp_path / "asked" / "report.md").read_text()
    section = md.split("## IIT 4.0 by intervention")[1].split("\n## ")[0]
    assert f"phi_s across 3 agents: mean {doc['summary']['phi_s_mean']:.4f}" in section
    assert all(f"| {e['agent']} | {e['phi_s']:.4f} |" in section for e in doc["agents"])
    assert json.loads((tmp_path / "asked" / "report.json").read_text())["iit4"]["agents"] == doc["agents"]

    with Simulator(configure(**base), out=tmp_path / "default", progress=False) as sim:
        report = sim.run(read_back=False)
    assert "iit4" not in report
    md = (tmp_path / "default" / "report.md").read_text()
    assert "Not computed for this run: set `analysis.iit4: true`" in md.split("## IIT 4.0 by intervention")[1]


def test_the_proposals_lesion_runs_each_agent_beside_its_donor(tmp_path, capsys):
    # the lesion's workspaces compete over the yoked control's donors' proposals: the command keeps the control for
    # it and perturbs the agents with their donors beside them (tests/analysis/test_perturbational.py replays it)
    out = tmp_path / "iit4.json"
    rc = main(["iit4", "--disable-quantum", "--lesion", "proposals", "--agents", "3", "--cycles", "60", "--burn", "5",
               "--draws", "8", "--bootstrap", "0", "--null", "3", "--units",
               "expectation.content_mean,workspace.broadcast_mean", "--json", str(out)])
    assert rc == 0, capsys.readouterr().err
    doc = json.loads(out.read_text())
    assert doc["lesion"] == "proposals" and len(doc["agents"]) == 3
