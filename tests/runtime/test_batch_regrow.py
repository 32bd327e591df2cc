"""After an OOM fallback the batch grows back after a run of good cycles (issue 17).

Before, a cycle retried with half the agents per launch left the rest of the run at that
batch. Now, after `runtime.regrow_after_cycles` cycles without a retry, it doubles (up
to the configured batch), each change recorded in the report's "Retries and fallbacks";
a resume continues the same sequence of batches.
"""
import json
import signal

from clitools import command
from runtools import fast_args, run, science


def _batches(run_dir):
    return [json.loads(line)["batch"] for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


def test_the_batch_doubles_back_after_good_cycles(tmp_path, capsys):
    out = tmp_path / "run"
    argv = fast_args(tmp_path, agents=8, extra="runtime: {regrow_after_cycles: 3}\ncontrol: {yoked: false}\n")
    rc, _, err = run(argv + ["--out", out, "--inject-fault", "oom@3,oom@10"], capsys)
    assert rc in (0, 1), err
    # cycle 3: 8 -> 4; three good cycles (4, 5, 6) -> 8 from cycle 7; cycle 10: 8 -> 4; 11-13 good -> 8
    assert _batches(out) == [8, 8, 4, 4, 4, 4, 8, 8, 8, 4, 4, 4, 4, 8, 8, 8, 8, 8, 8, 8]
    report = json.loads((out / "report.json").read_text())
    grown = [e for e in report["recovery"] if e["kind"] == "batch_regrown"]
    assert [(e["cycle"], e["detail"]) for e in grown] == [
        (6, "agents per launch 4 -> 8 after 3 cycles without a retry"),
        (13, "agents per launch 4 -> 8 after 3 cycles without a retry")]
    assert "agents per launch 4 -> 8 after 3 cycles without a retry" in (out / "report.md").read_text()


def test_a_resume_continues_the_same_batches(tmp_path, capsys):
    argv = fast_args(tmp_path, agents=8, extra="runtime: {regrow_after_cycles: 4}\ncontrol: {yoked: false}\n")
    rc, _, err = run(argv + ["--out", tmp_path / "ref", "--inject-fault", "oom@3"], capsys)
    assert rc in (0, 1), err
    out = tmp_path / "run"  # killed at cycle 6, in the middle of the good cycles that count towards the regrowth
    res = command("cognition.validate", *argv, "--out", out, "--inject-fault", "oom@3,sigkill@6")
    assert res.returncode == -signal.SIGKILL, res.stderr
    rc, _, err = run(["--resume", out], capsys)
    assert rc in (0, 1), err
    assert _batches(out) == _batches(tmp_path / "ref")
    assert science(out) == science(tmp_path / "ref")
