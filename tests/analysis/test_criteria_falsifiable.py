"""Every default criterion of the main job can fail, and fails for the reason it names (issue 15, item 3).

Each test runs the architecture (or its recorded units) in a condition where the hypothesis a
criterion tests is false by construction, and checks that this criterion, and not another one,
fails; the intact condition beside it passes. References are the constructions themselves: a
broadcast lesion makes the yoked twins the agents bit for bit, a proposals lesion the proposal-yoked
twins; a linear toy with a known loop or none (cognition.benchmarks.directions); agents' modules taken from
different agents (cognition.benchmarks.calibration.disconnect_modules) are independent
processes; a run shorter than the Phi window has no Phi.
"""
import json

import numpy as np

from cognition.analysis import criteria, summary as analysis
from cognition.benchmarks.calibration import disconnect_modules, real_run_units
from cognition.config.settings import load_config
from cognition.analysis import fmt
from runtools import fast_args, run

BROADCAST = criteria.LOOP
INTEGRATED = "integrated: every bipartition crossed by coupling within agents, and the headline above 0"
PHI = "Phi estimated and finite (the headline, per-agent mean)"


def _criteria(run_dir):
    report = json.loads((run_dir / "report.json").read_text())
    return report, {c["name"]: c["passed"] for c in report["criteria"]}


def test_each_lesion_fails_the_loop_criterion_for_the_direction_it_cuts(tmp_path, capsys):
    argv = fast_args(tmp_path, cycles=50, agents=32)
    for lesion, cut in (("broadcast", "workspace_to_modules"), ("proposals", "modules_to_workspace")):
        assert run(argv + ["--out", tmp_path / lesion, "--lesion", lesion], capsys)[0] == 1
        report, passed = _criteria(tmp_path / lesion)
        assert not passed[BROADCAST]
        # the reason: the lesion cuts that direction in the agents too, so its twins are the agents and the
        # difference is exactly 0; the other direction's twins still differ
        row = report["controls"]["directions"][cut]
        assert row["twins_identical"] and row["difference_bits"] == 0.0 and row["difference_ci_bits"] == [0.0, 0.0]
        other = next(r for d, r in report["controls"]["directions"].items() if d != cut)
        assert not other["twins_identical"]
        assert report["controls"]["lesion"] == lesion


def _toy_checks(family: str, seed: int) -> dict:
    from cognition.benchmarks.directions import MODULE_UNITS, toy_population

    groups = toy_population(family, "random", 32, 50, np.random.default_rng(seed))
    names = [f"m{i}.unit" for i in range(MODULE_UNITS)] + ["workspace.a", "workspace.b"]
    cfg = load_config(overrides={"run": {"seed": seed}})
    controls = analysis.summarise_controls(cfg, groups, 50, names)
    checks = criteria.evaluate(cfg, status="completed", phi_summary={}, controls=controls,
                               provenance={"device": {}, "classical_components": []}, unrecovered_errors=0)
    return {c["name"]: c for c in checks}[BROADCAST] | {"controls": controls}


def test_the_loop_criterion_passes_a_closed_loop_and_fails_a_relay_and_a_feedforward_workspace():
    # the linear toys of python -m cognition.bench directions: the closed loops passed in 200 of 200 draws at
    # 32 x 50, the relay and feedforward toys (one direction absent, twins not identical) in at most 2.5 %
    # (docs/calibration.md, "The loop test"); these seeds are fixed
    for family in ("loop", "memoryless loop"):
        closed = _toy_checks(family, 3)
        assert closed["passed"], closed["value"]
    relay = _toy_checks("relay", 3)
    assert not relay["passed"] and "modules' drive of the workspace is not shown" in relay["value"]
    assert not relay["controls"]["directions"]["modules_to_workspace"]["twins_identical"]
    feedforward = _toy_checks("feedforward", 3)
    assert not feedforward["passed"] and "workspace's drive of the modules is not shown" in feedforward["value"]
    assert not feedforward["controls"]["directions"]["workspace_to_modules"]["twins_identical"]


def test_modules_from_different_agents_fail_the_integration_criterion():
    cfg = load_config(overrides={"phi": {"surrogates": 199, "bootstrap": 1}, "criteria": {"require_phi": False}})
    # quantum-lite, seed 0: at 32 agents x 50 cycles the intact run is found integrated (docs/calibration.md,
    # the main job's seeds), so the intact side shows the criterion can pass; the disconnected side must fail
    units, names = real_run_units("lite", seed=0, agents=32, cycles=50)
    results = {}
    for label, X in (("intact", units), ("disconnected", disconnect_modules(units, names, np.random.default_rng(0)))):
        records = [{"cycle": t + 1} for t in range(X.shape[1])]  # no per-cycle Phi: the whole-run test decides
        summary = analysis.summarise_phi(cfg, records, X, names, window=12)
        checks = criteria.evaluate(cfg, status="completed", phi_summary=summary, controls=None,
                                   provenance={"device": {}, "classical_components": []}, unrecovered_errors=0)
        results[label] = {c["name"]: c for c in checks}
        results[label]["p"] = summary["headline_p_value"]
    assert results["intact"][INTEGRATED]["passed"], results["intact"][INTEGRATED]
    assert not results["disconnected"][INTEGRATED]["passed"]
    assert results["disconnected"]["p"] > 0.05  # the test itself does not reject, not a missing number
    assert f"p = {fmt.p_value(results['disconnected']['p'])}" in results["disconnected"][INTEGRATED]["value"]


def test_a_run_shorter_than_the_phi_window_fails_the_phi_criterion(tmp_path, capsys):
    rc, out, _ = run(fast_args(tmp_path, cycles=5, agents=8) + ["--out", tmp_path / "short", "--control", "none"],
                     capsys)
    assert rc == 1
    _, passed = _criteria(tmp_path / "short")
    assert not passed[PHI]
    assert BROADCAST not in passed  # --control none drops the control's criterion with the control


def test_a_floor_on_absolute_phi_is_available_but_not_a_default():
    assert load_config().criteria.min_mean_phi_bits is None
    cfg = load_config(overrides={"criteria": {"min_mean_phi_bits": 0.3}})
    checks = criteria.evaluate(cfg, status="completed", phi_summary={"headline_bits": 0.2, "mean_bits": 0.5},
                               controls=None, provenance={"device": {}, "classical_components": []},
                               unrecovered_errors=0)
    assert {c["name"]: c["passed"] for c in checks}["Phi (the headline, per-agent mean)"] is False
