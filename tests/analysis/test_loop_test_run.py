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


def test_the_loop_test_is_bit_identical_after_sigkill_and_resume_and_for_every_batch(tmp_path, capsys):
    # reference: the uninterrupted run of the same seed. The loop test is a function of the unit history alone
    # (no random numbers), which resume and runtime.batch leave bit for bit (tests/simulator/test_resume.py,
    # tests/architecture/test_batch_invariance.py); here at a length where the test is computed (>= 37 cycles)
    import signal
    import subprocess

    from clitools import command

    def controls(out):
        c = json.loads((out / "report.json").read_text())["controls"]
        assert c["directions"] is not None, c.get("note")
        return {k: c[k] for k in ("directions", "loop", "windows", "phi_at_broadcast_cut")}

    argv = fast_args(tmp_path, cycles=40, agents=6)
    assert run(argv + ["--out", tmp_path / "ref"], capsys)[0] in (0, 1)
    reference = controls(tmp_path / "ref")
    for batch in (1, 5):
        (tmp_path / f"b{batch}").mkdir()
        small = fast_args(tmp_path / f"b{batch}", cycles=40, agents=6, extra=f"runtime: {{batch: {batch}}}\n")
        assert run(small + ["--out", tmp_path / f"batch{batch}"], capsys)[0] in (0, 1)
        assert controls(tmp_path / f"batch{batch}") == reference, batch
    out = tmp_path / "killed"
    res = command("cognition.validate", *argv, "--out", out, "--inject-fault", "sigkill@25", stream=subprocess.DEVNULL)
    assert res.returncode == -signal.SIGKILL
    res = command("cognition.validate", "--resume", out, stream=subprocess.DEVNULL)
    assert res.returncode in (0, 1), res.stderr
    assert controls(out) == reference
