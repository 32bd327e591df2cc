"""One process at a time in a run directory (issue 17).

Before: two `--resume D` at once corrupted D in 3 of 4 trials (a FileNotFoundError on a
checkpoint rename, report.json saying 120 cycles over 48-96 metrics rows, an orphan
checkpoint), and a resume while the original run was going was not detected (2 of 2).
Now the directory's lock keeps every other process out: one line naming the holder's PID,
exit 2, nothing touched.
"""
import signal
import time

import pytest
from clitools import command
from runtools import fast_args, run, science


def _wait_for_lines(proc, metrics, lines: int):
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if metrics.exists() and len(metrics.read_text().splitlines()) >= lines:
            return
        time.sleep(0.01)
    raise AssertionError("the run did not get going")


def test_a_resume_while_the_run_is_going_is_refused_naming_its_pid(tmp_path, capsys):
    out = tmp_path / "run"
    proc = command("cognition.validate", *fast_args(tmp_path, cycles=400), "--out", out, wait=False)
    try:
        _wait_for_lines(proc, out / "metrics.jsonl", 5)
        metrics_before = (out / "metrics.jsonl").read_bytes()
        rc, _, err = run(["--resume", out], capsys)
        assert rc == 2 and len(err) == 1, err
        assert f"in use by process {proc.pid}" in err[0]
        assert (out / "metrics.jsonl").read_bytes().startswith(metrics_before)  # nothing cut back
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)


@pytest.mark.slow
def test_eight_concurrent_resumes_one_runs_seven_are_refused(tmp_path, capsys):
    """Kill a run at cycle 30 of 200, start eight `--resume` of it at once: exactly one runs, seven
    exit 2 naming its PID, and the result equals an uninterrupted run."""
    argv = fast_args(tmp_path, cycles=200)
    rc, _, err = run(argv + ["--out", tmp_path / "ref"], capsys)
    assert rc in (0, 1), err
    out = tmp_path / "run"
    killed = command("cognition.validate", *argv, "--out", out, "--inject-fault", "sigkill@30")
    assert killed.returncode == -signal.SIGKILL
    procs = [command("cognition.validate", "--resume", out, wait=False) for _ in range(8)]
    outputs = [p.communicate(timeout=600) for p in procs]
    results = [(p.pid, p.returncode, stdout, stderr) for p, (stdout, stderr) in zip(procs, outputs)]
    ran = [r for r in results if r[1] in (0, 1)]
    refused = [r for r in results if r[1] == 2]
    assert len(ran) == 1 and len(refused) == 7, [(r[1], r[3][-300:]) for r in results]
    winner = ran[0][0]
    for _, _, _, stderr in refused:
        lines = [ln for ln in stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and f"in use by process {winner}" in lines[0], stderr
    assert science(out) == science(tmp_path / "ref")
    print(f"8 concurrent resumes: 1 ran (pid {winner}), 7 exited 2 naming it; result bit-identical")


def test_an_out_to_a_directory_another_run_holds_names_its_pid(tmp_path, capsys):
    # Before: the loser of two processes started with one --out said "already holds a run (config.yaml)" and
    # not who holds it; --resume's refusal named the PID
    out = tmp_path / "run"
    proc = command("cognition.validate", *fast_args(tmp_path, cycles=400), "--out", out, wait=False)
    try:
        _wait_for_lines(proc, out / "metrics.jsonl", 3)
        rc, _, err = run(fast_args(tmp_path) + ["--out", out], capsys)
        assert rc == 2 and len(err) == 1, err
        assert f"in use by process {proc.pid}" in err[0] and "never reused" in err[0], err
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    rc, _, err = run(fast_args(tmp_path) + ["--out", out], capsys)  # nobody holds it now: the plain refusal
    assert rc == 2 and "already holds a run (config.yaml)" in err[0] and "process" not in err[0], err


def test_a_refused_resume_leaves_the_lock_file_as_it_was(tmp_path, capsys):
    # Before: every --resume wrote its PID into .lock as it took the lock, refused or not, so the file named a
    # process that never used the directory
    out = tmp_path / "run"
    rc, _, err = run(fast_args(tmp_path, cycles=6) + ["--out", out], capsys)
    assert rc in (0, 1), err
    lock = (out / ".lock").read_bytes()
    refused = command("cognition.validate", "--resume", out, "--cycles", "7")  # contradicts config.yaml
    assert refused.returncode == 2 and "contradict" in refused.stderr, refused.stderr
    assert (out / ".lock").read_bytes() == lock
    for p in (out / "checkpoints").glob("ckpt-*.npz"):  # refused later, by the session: no usable checkpoint
        p.write_bytes(p.read_bytes()[:100])
    refused = command("cognition.validate", "--resume", out)
    assert refused.returncode == 2 and "no usable checkpoint" in refused.stderr, refused.stderr
    assert (out / ".lock").read_bytes() == lock
