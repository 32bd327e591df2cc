"""The run's criterion "the loop closes" is cognition.phi.loop_test on the run's own recorded units (issue 41,
item 4): the same numbers, bit for bit, from the public function on the arrays a researcher can load.

Reference: report.json written by the run against loop_test called here on unit_history.npy, split into the
agents and their twins as cognition/architecture/controls.py lays the rows out."""
import json

import numpy as np

from cognition import phi
from cognition.architecture.controls import split_rows
from cognition.runtime.unit_history import read_history
from runtools import fast_args, run


def test_loop_test_on_the_arrays_equals_the_runs_criterion(tmp_path, capsys):
    out = tmp_path / "run"
    rc, _, _ = run(fast_args(tmp_path, cycles=45, agents=8) + ["--out", out], capsys)
    assert rc in (0, 1)
    report = json.loads((out / "report.json").read_text())
    controls = report["controls"]
    names = report["phi"]["unit_names"]
    groups = split_rows(np.asarray(read_history(out / "unit_history.npy")), 8, 1)
    workspace = [i for i, n in enumerate(names) if n.startswith("workspace.")]
    modules = [i for i in range(len(names)) if i not in workspace]
    t = phi.loop_test(groups["intact"], groups["yoked"], groups["yoked_proposals"], modules, workspace)
    for d, r in t.to_dict()["directions"].items():
        got = controls["directions"][d]
        for key in ("intact_bits", "twin_bits", "difference_bits", "difference_ci_bits", "p_value", "pairs"):
            assert got[key] == r[key], (d, key)
    assert controls["loop"] == {"passed": t.passed, "reason": t.reason}
    (criterion,) = [c for c in report["criteria"] if c["name"].startswith("the loop closes")]
    assert criterion["passed"] is t.passed
    assert controls["no_access_share"] == report["competition"]["no_access"]
