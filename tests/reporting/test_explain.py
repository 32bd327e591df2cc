"""cognition.reporting.explain: each failed criterion gets its reason at the run's size, true to the thresholds in code.

The reports are report.json's shape reduced to the fields explain reads; the notebooks' test
(tests/test_notebooks.py) runs it on real runs.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cognition.reporting.explain import explain, min_cycles
from cognition.phi.agents import MIN_AGENTS, PAIRS_PER_VARIABLE

ROOT = Path(__file__).resolve().parents[2]
UNITS = [f"m{i}.u" for i in range(6)] + ["workspace.broadcast_mean"]
CRITERIA = ("run completed", "unrecovered errors", "Phi estimated and finite (the headline, per-agent mean)",
            "integrated: every bipartition crossed by coupling within agents, and the headline above 0",
            "the loop closes: each direction (workspace -> modules, modules -> workspace) carries more directed "
            "information in the agents than in the twins that cut it", "no unrequested fallback")


def _report(*, agents_path="per_agent", headline=0.2, ci=(0.05, 0.4), p=0.01, directions=None, note=None,
            whole_note=None, cycles=50, failed=()):
    whole = None if whole_note else ({"per_agent": {"phi_r": [headline]}} if agents_path == "per_agent" else {"phi_r": headline})
    criteria = [{"name": n, "passed": not any(n.startswith(f) for f in failed), "value": 1.0 if "Phi est" in n else "x",
                 "required": "a finite number of bits" if "Phi est" in n else "y"} for n in CRITERIA]
    return {"passed": not failed, "status": "completed", "message": "", "cycles_completed": cycles, "criteria": criteria,
            "phi": {"unit_names": UNITS, "lag": 1, "whole_run": whole, "whole_run_note": whole_note,
                    "headline_bits": headline, "headline_ci_bits": list(ci), "headline_p_value": p,
                    "integrated": {"passed": False, "reason": "r"}, "weakest_cut": [["m0.u"], UNITS[1:]]},
            "controls": {"directions": directions, "note": note}}


CONFIG = {"run": {"agents": 32}, "criteria": {"alpha": 0.05}, "phi": {"centre": "auto"}}
LOOP_NULL = {"workspace_to_modules": {"difference_ci_bits": [0.3, 0.9]},
             "modules_to_workspace": {"difference_ci_bits": [-0.4, 0.1]}}


def test_min_cycles_is_the_per_agent_estimates_threshold():
    assert min_cycles(7) == 43 == PAIRS_PER_VARIABLE * 2 * 7 + 1  # the main job's 7 units (docs/architecture.md)
    assert min_cycles(9) == 55


def test_a_passed_run_says_exit_0_and_gives_no_reasons():
    lines = explain(_report(directions={k: {"difference_ci_bits": [0.1, 0.5]} for k in LOOP_NULL}), CONFIG)
    assert lines[0] == "every criterion passed (python -m cognition.validate exits 0)"
    assert sum(line.startswith("  [pass] ") for line in lines) == len(CRITERIA)
    assert not any(line.startswith("why") for line in lines)


def test_a_loop_not_shown_names_the_missing_direction_and_the_tests_power():
    lines = explain(_report(directions=LOOP_NULL, failed=("the loop",)), CONFIG)
    assert lines[0] == "a criterion failed (python -m cognition.validate exits 1)"
    assert any(line.startswith("  [FAIL] the loop closes") for line in lines)
    assert lines[-3] == "why, at this size (32 agents x 50 cycles, 7 units):"
    assert lines[-2] == "  - not shown: modules -> workspace; shown: workspace -> modules"
    # not blamed on the instrument: its power on closed loops is quoted with where it was measured
    assert "linear toys at 32 agents x 50 cycles" in lines[-1] and "docs/calibration.md" in lines[-1]
    other = {"workspace_to_modules": {"difference_ci_bits": [-0.1, 0.5]},
             "modules_to_workspace": {"difference_ci_bits": [0.1, 0.5]}}
    text = "\n".join(explain(_report(directions=other, failed=("the loop",)), CONFIG))
    assert "not shown: workspace -> modules; shown: modules -> workspace" in text
    # a lesion's identical twins are named as a check of the construction
    lesioned = {"workspace_to_modules": {"difference_ci_bits": [0.0, 0.0], "twins_identical": True},
                "modules_to_workspace": {"difference_ci_bits": [0.1, 0.5]}}
    text = "\n".join(explain(_report(directions=lesioned, failed=("the loop",)), CONFIG))
    assert "cut in the agents themselves (a lesion): workspace -> modules" in text


def test_few_agents_name_the_pooled_estimate_and_its_circular_shift_test():
    cfg = {**CONFIG, "run": {"agents": MIN_AGENTS - 1}}
    lines = explain(_report(agents_path="pooled", cycles=30, note="each agent has T=30 time steps; ...",
                            failed=("integrated", "the loop")), cfg)
    text = "\n".join(lines)
    assert f"with {MIN_AGENTS - 1} agents (fewer than {MIN_AGENTS}) the whole-run Phi is the plug-in estimate pooled" in text
    assert "circular-shift test" in text and "not calibrated" in text
    assert f"need at least {MIN_AGENTS} agents and 43 cycles for these 7 units" in text
    assert "the loop's control was not estimated: each agent has T=30 time steps" in text
    # the same size with the per-agent estimate (e.g. 5 agents) says nothing about a pooled estimate
    assert "pooled" not in "\n".join(explain(_report(failed=("integrated",), ci=(-0.1, 0.4)), CONFIG))


def test_not_integrated_says_which_half_failed():
    wide = "\n".join(explain(_report(headline=0.29, ci=(-0.005, 0.66), p=0.015, failed=("integrated",)),
                             {**CONFIG, "run": {"agents": 8}}))
    assert "with 8 agents its interval [-0.0050, 0.6600] bits is 0.6650 bits wide and reaches -0.0050" in wide
    assert "the test does not show" not in wide  # p < alpha: the test is not blamed
    untested = "\n".join(explain(_report(ci=(0.01, 0.4), p=0.3, failed=("integrated",)), CONFIG))
    assert "the test does not show every bipartition crossed by coupling within agents (p = 0.3000 >= 0.05, at the " \
           "weakest cut m0.u | m1.u" in untested
    assert "interval is" not in untested
    assert "no integration to show" in "\n".join(explain(_report(headline=-0.02, ci=(-0.2, 0.1), p=0.6,
                                                                 failed=("integrated",)), CONFIG))


def test_too_short_for_any_estimate():
    note = "each agent has T=20 time steps; per-agent Phi of 7 units needs T >= 43"
    text = "\n".join(explain(_report(whole_note=note, cycles=20, failed=("Phi estimated", "integrated")), CONFIG))
    assert f"no whole-run Phi: {note}" in text


@pytest.mark.integration
def test_the_api_docs_example_runs_verbatim_and_says_why(tmp_path):
    """docs/api.md's example, run as printed: it fails, says why at its size, and the page's numbers are its own."""
    doc = (ROOT / "docs" / "api.md").read_text()
    code = re.search(r"```python\n(.*?)```", doc, re.S).group(1)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "a criterion failed (python -m cognition.validate exits 1)" in out
    assert "why, at this size (4 agents x 30 cycles, 7 units):" in out
    assert f"(fewer than {MIN_AGENTS}) the whole-run Phi is the plug-in estimate pooled over agents" in out
    assert "the loop's control was not estimated: agents has T=30 time steps; the loop test" in out
    report = json.loads((tmp_path / "runs" / "first" / "report.json").read_text())
    phi = report["phi"]
    quoted = (f"measured: {phi['headline_bits']:.4f} bits, CI {phi['headline_ci_bits'][0]:.4f} .. "
              f"{phi['headline_ci_bits'][1]:.4f}, p = {phi['headline_p_value']:.2f}")
    assert quoted in " ".join(doc.split()), quoted
