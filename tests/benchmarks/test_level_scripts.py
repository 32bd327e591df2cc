"""benchmarks/cut_test_level.py and benchmarks/strength_family.py (issue 42's more draws and agents that differ in
strength, docs/calibration.md 0.10.0): bad input is one line and exit 2 before any work; a small call gives the
numbers the package's own calls give on the same systems (reference: every_cut_test and phi.estimate called
here on the bench's draws)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from clitools import run_limited

from cognition import phi
from cognition.benchmarks.calibration import NULL_FAMILIES, _rng, null_system
from cognition.phi import calibration as C
from cognition.phi.agents import prepared
from cognition.phi.cut_test import every_cut_test

SCRIPTS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.parametrize("argv", [
    ["cut_test_level.py", "--families", "5"],                                   # the real-run family
    ["cut_test_level.py", "--families", "4", "--sizes", "2x3"],
    ["cut_test_level.py", "--families", "4", "--systems", "0"],
    ["cut_test_level.py", "--families", "4", "--json", "/nonexistent/dir/out.json"],
    ["strength_family.py", "--sizes", "8x20"],                                   # too short for 8 units
    ["strength_family.py", "--draws", "0"],
])
def test_bad_input_is_one_line_and_exit_2(argv, tmp_path):
    out = run_limited([str(SCRIPTS / argv[0]), *argv[1:]], tmp_path, 2 * 2**30, 60)
    assert out.rc == 2 and not out.timed_out
    assert len(out.stderr.strip().splitlines()) == 1 and out.stderr.startswith("error: "), out.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_level_script_counts_what_every_cut_test_gives(tmp_path):
    out = run_limited([str(SCRIPTS / "cut_test_level.py"), "--sizes", "8x50", "--families", "6", "--systems", "6",
                       "--json", str(tmp_path / "rows.json")], tmp_path, 3 * 2**30, 120)
    assert out.rc == 0, out.stderr
    family = NULL_FAMILIES[6]
    rejected = sum(every_cut_test(prepared(null_system(family, _rng(1, family, 8, 50, i), 8, 50), True), 1, 200,
                                  np.random.default_rng([7, i])).p_value < 0.05 for i in range(6))
    assert f"({rejected}/6," in out.stdout


def test_the_strength_script_reports_the_estimates_error_against_the_exact_value(tmp_path):
    import re
    import sys

    sys.path.insert(0, str(SCRIPTS))
    try:
        from strength_family import ensemble
    finally:
        sys.path.remove(str(SCRIPTS))
    out = run_limited([str(SCRIPTS / "strength_family.py"), "--sizes", "8x50", "--draws", "1"], tmp_path, 3 * 2**30,
                      120)
    assert out.rc == 0, out.stderr
    rng = np.random.default_rng([42, 8, 50, 0])
    A = ensemble(rng, 8)
    exact = C.exact_per_agent(A)
    assert np.sum(exact > 2.0) == 4 and np.allclose(np.sort(exact)[:4], 0.0, atol=1e-12)  # half strong, half 0
    error = phi.estimate(C.simulate_ensemble(A, 50, rng), bootstrap=1, surrogates=200, seed=0).headline("phi_r") \
        - exact.mean()
    assert re.search(rf"median error {error:+.3f}", out.stdout), (out.stdout, error)
