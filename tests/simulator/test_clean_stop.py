"""Every failure after the start stops cleanly (issue 17): one line naming the cause, the last good
checkpoint and the exact --resume command, exit 1, nothing already written lost; and the resume
after it equals an uninterrupted run.

Before: a full disk, `checkpoints/` replaced by a file, Ctrl-C twice or during the report ended
in tracebacks, and the resume after `checkpoints/` became a file restarted from cycle 0 over
metrics.jsonl (149 -> 20 rows).
"""
import signal
import time

import pytest
from clitools import command
from runtools import fast_args, run, science

from cognition.simulator.progress import is_progress_line
from cognition.runtime.checkpoint import CheckpointStore
from cognition.errors import StopNow


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    base = tmp_path_factory.mktemp("ref")
    from cognition.validate import main

    assert main([str(a) for a in fast_args(base) + ["--out", base / "run"]]) in (0, 1)
    return science(base / "run")


def _one_clean_line(rc, err, out_dir, cause: str, checkpoint: int):
    assert rc == 1 and len(err) == 1 and "Traceback" not in "\n".join(err), err
    assert cause in err[0] and f"last good checkpoint: cycle {checkpoint}" in err[0]
    assert err[0].endswith(f"continue with: python -m cognition.validate --resume {out_dir}")


def _lines(path) -> int:
    return len(path.read_text().splitlines())


def test_full_disk_rehearsed_with_enospc(reference, tmp_path, capsys):
    out = tmp_path / "run"
    rc, _, err = run(fast_args(tmp_path) + ["--out", out, "--inject-fault", "enospc@7"], capsys)
    _one_clean_line(rc, err, out, "OSError: [Errno 28] No space left on device", 6)  # checkpoints every 2 cycles
    assert "in cycle 7" in err[0] and _lines(out / "metrics.jsonl") == 6
    rc, _, err = run(["--resume", out], capsys)
    assert rc in (0, 1), err
    assert science(out) == reference


def test_checkpoints_replaced_by_a_file_never_restarts_over_the_metrics(reference, tmp_path, capsys, monkeypatch):
    out, real_save = tmp_path / "run", CheckpointStore.save

    def save(store, payload, cycle):
        if cycle == 12:  # someone replaces the directory by a file mid-run
            store.directory.rename(tmp_path / "moved")
            store.directory.write_text("")
        return real_save(store, payload, cycle)

    monkeypatch.setattr(CheckpointStore, "save", save)
    rc, _, err = run(fast_args(tmp_path) + ["--out", out], capsys)
    _one_clean_line(rc, err, out, "FileExistsError", 10)
    monkeypatch.undo()
    written = (out / "metrics.jsonl").read_text()
    rc, _, err = run(["--resume", out], capsys)
    assert rc == 2 and len(err) == 1 and "checkpoints is not a directory" in err[0]
    assert (out / "metrics.jsonl").read_text() == written  # nothing rewritten, nothing lost
    (out / "checkpoints").unlink()
    (tmp_path / "moved").rename(out / "checkpoints")
    rc, _, err = run(["--resume", out], capsys)
    assert rc in (0, 1), err
    assert science(out) == reference


def test_an_unexpected_error_is_one_line_too(tmp_path, capsys, monkeypatch):
    from cognition.architecture.loop import IntegrationLoop

    real_step = IntegrationLoop.step

    def step(loop, state, window, batch=None):
        if state.cycle == 4:
            raise ValueError("a bug in cycle 5\nwith a second line")
        return real_step(loop, state, window, batch)

    monkeypatch.setattr(IntegrationLoop, "step", step)
    out = tmp_path / "run"
    rc, _, err = run(fast_args(tmp_path) + ["--out", out], capsys)
    _one_clean_line(rc, err, out, "in cycle 5: ValueError: a bug in cycle 5;", 4)


def _signal_when(proc, metrics, lines: int, signals: list[float]):
    """Send SIGINT at each delay in ``signals`` (s) once metrics.jsonl has ``lines`` lines."""
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if metrics.exists() and _lines(metrics) >= lines:
            break
        time.sleep(0.01)
    for delay in signals:
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
    return proc.communicate(timeout=120)


@pytest.mark.parametrize("when, lines, delays", [
    ("twice during the cycles", 8, [0.0, 0.3]),
    ("once while the report is written", 20, [0.3]),
])
def test_ctrl_c_twice_or_during_the_report(reference, tmp_path, capsys, when, lines, delays):
    out = tmp_path / "run"
    proc = command("cognition.validate", *fast_args(tmp_path), "--out", out, wait=False)
    _, stderr = _signal_when(proc, out / "metrics.jsonl", lines, delays)
    err = [ln for ln in stderr.splitlines() if ln.strip() and not is_progress_line(ln)]
    assert proc.returncode == 1 and "Traceback" not in stderr, stderr
    assert len(err) == 1 and "SIGINT received" in err[0] and f"--resume {out}" in err[0], stderr
    rc, _, err = run(["--resume", out], capsys)
    assert rc in (0, 1), err
    assert science(out) == reference


def test_a_signal_that_lands_in_an_import_is_still_named_as_the_signal(tmp_path):
    # Seen in CI: a Ctrl-C during the report landed inside an extension module's import, and
    # Python raised ImportError("initialization failed") in place of the handler's StopNow, so
    # the one line named an ImportError; the request remembers what it raised.
    from cognition.runtime.stop import StopRequest, stopped_message

    with StopRequest() as stop:
        stop.urgent = True
        try:
            stop._handle(signal.SIGINT, None)
        except StopNow:
            pass
        line = stopped_message(stop.reason(ImportError("initialization failed")), where="while writing the report",
                               last_checkpoint=20, run_dir=tmp_path)
    assert "SIGINT received" in line and "ImportError" not in line
    assert StopRequest().reason(ImportError("x")).args == ("x",)  # no signal: the failure itself
