"""SIGINT and SIGTERM from the first instant of `python -m cognition.validate` (issue 33).

Before: Ctrl-C before cycle 1 ended in a KeyboardInterrupt traceback (5 of 5), SIGTERM in a silent death
with exit status -15 (5 of 5), and once in 6 a SIGINT right after config.yaml was written was lost and the
run completed. Now each ends with one line and exit 1, and leaves a directory that `--resume` continues to
the numbers of an uninterrupted run, or that `--out` starts again in (nothing, or start-up leftovers).

The only instants out of reach are the interpreter's own start, before the first line of the package runs
(about 35 ms here): a signal there meets Python's defaults. The test accepts that only for a signal sent
in the first 0.1 s while the process did not catch SIGTERM yet (/proc/PID/status SigCgt: the entry takes
it over), and requires that such a start wrote nothing (with this seed no random instant falls there).
"""
import os
import random
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runtools import fast_args, run, science

from cognition.simulator.progress import is_progress_line
from cognition.simulator.rundir import state as run_dir_state

ROOT = Path(__file__).resolve().parents[2]
MEMORY_LIMIT = 6 << 30  # address space of each run started here (torch maps far more than it touches)
TIMEOUT_S = 120  # each run started here, after its signal
INTERPRETER_START_S = 0.1  # an upper bound of the interpreter's start before the package's first line (~35 ms)
pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc/PID/status")]


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _start(argv) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cognition.validate", *map(str, argv)],
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_limited,
                            start_new_session=True)


def _takes_sigterm(pid: int) -> bool:
    """Whether the process catches SIGTERM yet (Python alone does not: the package's entry installed it)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    caught = int(next(ln.split()[1] for ln in status.splitlines() if ln.startswith("SigCgt:")), 16)
    return bool(caught & (1 << (signal.SIGTERM - 1)))


def _wait_for(path: Path, proc, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.0005)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    base = tmp_path_factory.mktemp("ref")
    from cognition.validate import main

    assert main([str(a) for a in fast_args(base) + ["--out", base / "run"]]) in (0, 1)
    return science(base / "run")


def test_twenty_signals_in_the_first_second_each_end_in_one_line_and_a_usable_directory(reference, tmp_path,
                                                                                       capsys):
    """SIGINT and SIGTERM alternating: 15 at uniform random instants in the first second after the start
    (imports, validation, the build; config.yaml appears after about 2 s), 5 within 30 ms of config.yaml
    appearing (the claim, provenance, the cycle-0 checkpoint, the first cycles)."""
    rng, argv, tally = random.Random(33), fast_args(tmp_path), {}
    for i in range(20):
        sig, out = (signal.SIGINT, signal.SIGTERM)[i % 2], tmp_path / f"run{i}"
        proc = _start(argv + ["--out", out])
        try:
            delay = rng.uniform(0.0, 1.0) if i < 15 else None
            if delay is not None:
                time.sleep(delay)
            else:
                _wait_for(out / "config.yaml", proc)
                time.sleep(rng.uniform(0.0, 0.03))
            taken_over = _takes_sigterm(proc.pid)
            proc.send_signal(sig)
            stdout, stderr = proc.communicate(timeout=TIMEOUT_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        err = [ln for ln in stderr.splitlines() if ln.strip() and not is_progress_line(ln)]
        what = (i, sig.name, delay, proc.returncode, stderr[-600:])
        if not taken_over and delay is not None and delay < INTERPRETER_START_S:
            # the interpreter's own start, before the package ran: Python's defaults, and nothing written
            assert proc.returncode != 0 and not out.exists(), what
            outcome = "before the package ran"
        else:
            assert proc.returncode == 1 and "Traceback" not in stderr, what
            if err:
                assert len(err) == 1 and sig.name in err[0], what
                outcome = "stopped while starting" if "while starting" in err[0] else "stopped before cycle 1"
            else:  # it reached the cycles: the first signal stops after the cycle in flight, with the report
                assert f"stopped by {sig.name} after cycle" in stdout, what
                outcome = "run stopped after a cycle"
        state = run_dir_state(out)
        if state in ("resume", "finished"):
            rc, _, lines = run(["--resume", out], capsys)
        else:
            assert state in ("fresh", "restart"), (what, state, sorted(p.name for p in out.iterdir()))
            rc, _, lines = run(argv + ["--out", out], capsys)
        assert rc in (0, 1), (what, state, lines)
        assert science(out) == reference, what
        key = f"{outcome} -> {state}"
        tally[key] = tally.get(key, 0) + 1
    print(f"20 of 20 signals: {tally}")
