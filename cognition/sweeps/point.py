"""Run one sweep point: one run directory made by the main job, in its own process.

The same function serves the local executor and Ray tasks. It looks at the run
directory first (:func:`cognition.simulator.rundir.state`), so running a point again is
always safe: a finished point returns at once, a stopped or killed one is
continued with ``python -m cognition.validate --resume RUN_DIR`` (bit-identical
to an uninterrupted run), and only a point that never started runs
``--config POINT.yaml --out RUN_DIR``. A Ray retry is therefore just another call.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cognition.simulator import rundir

RETRIABLE = ("killed", "interrupted")  # outcomes that a resume can finish
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS")


@dataclass(frozen=True)
class PointTask:
    """Everything a worker needs to run a point; plain strings so it pickles for Ray."""

    name: str
    run_dir: str
    config_path: str  # the point's resolved config (written by the sweep before it starts)
    log_path: str  # the run's stdout and stderr, appended attempt after attempt
    running_dir: str  # a marker file lives here while the point runs (for progress)
    threads: int = 1  # BLAS/OpenMP/torch threads of the run
    fault: str | None = None  # validate --inject-fault spec, used on a fresh start only


@dataclass(frozen=True)
class PointResult:
    name: str
    status: str  # completed | interrupted | failed (from the run's report) | killed | error
    resumed: bool  # this attempt continued an earlier one
    returncode: int  # of the run; 0 when the point was already finished
    seconds: float  # wall time of this attempt
    message: str = ""  # why, when status is not completed


def thread_env(threads: int, base: dict | None = None) -> dict:
    """Environment with every threading library capped at ``threads`` (torch reads OMP_NUM_THREADS)."""
    env = dict(os.environ if base is None else base)
    env.update({var: str(threads) for var in THREAD_VARIABLES})
    return env


def _command(task: PointTask, state: str, cpus) -> list[str]:
    head = [sys.executable, "-m", "cognition.sweeps.launch", str(os.getpid())]
    if cpus:
        head += ["--cpus", ",".join(str(c) for c in sorted(cpus))]
    if state == "resume":
        return head + ["--", "--resume", task.run_dir]
    args = ["--config", task.config_path, "--out", task.run_dir]
    if task.fault:
        args += ["--inject-fault", task.fault]
    return head + ["--"] + args


def _last_line(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 4096))
            lines = [ln.strip() for ln in fh.read().decode(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""


def _outcome(task: PointTask, rc: int, started: float) -> tuple[str, str]:
    if rc < 0:
        return "killed", f"killed by {signal.Signals(-rc).name}"
    report_path = Path(task.run_dir) / rundir.REPORT
    # a report older than this attempt is an earlier attempt's (file times are coarse: allow 1 s)
    fresh_report = report_path.is_file() and report_path.stat().st_mtime >= started - 1.0
    if rc in (0, 1) and fresh_report:
        report = rundir.read_report(Path(task.run_dir)) or {}
        status = report.get("status", "error")
        return status, "" if status == "completed" else (report.get("message") or status)
    if rc > 128 and rc - 128 in signal.valid_signals():  # a shell reports a signal as 128 + N
        return "killed", f"killed by {signal.Signals(rc - 128).name}"
    return "error", f"exit {rc}: {_last_line(task.log_path)} (log: {task.log_path})"


def run_point(task: PointTask, cpus=None) -> PointResult:
    """Run (or continue, or skip) one point; ``cpus`` pins it to those cores."""
    run_dir = Path(task.run_dir)
    state = rundir.state(run_dir)
    if state == "finished":
        return PointResult(task.name, "completed", False, 0, 0.0)
    if state == "foreign":
        return PointResult(task.name, "error", False, 2, 0.0,
                           f"{run_dir} is not a finished or resumable run directory; move it away")
    marker = Path(task.running_dir) / task.name
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(f"{socket.gethostname()} {os.getpid()}\n")
    started = time.time()
    try:
        cmd = _command(task, state, cpus)
        with open(task.log_path, "ab") as log:
            args = " ".join(cmd[cmd.index("--") + 1:])
            log.write(f"== {time.strftime('%Y-%m-%d %H:%M:%S')} python -m cognition.validate {args}\n".encode())
            log.flush()
            rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=thread_env(task.threads)).returncode
    finally:
        marker.unlink(missing_ok=True)
    status, message = _outcome(task, rc, started)
    return PointResult(task.name, status, state == "resume", rc, time.time() - started, message)


class PointRetry(Exception):
    """Raised by a Ray task whose run was killed or stopped, so that Ray retries it (a resume)."""

    def __init__(self, result: PointResult):
        super().__init__(f"{result.name}: {result.message}")
        self.result = result

    def __reduce__(self):  # keep the result when Ray pickles the exception
        return (PointRetry, (self.result,))


def run_point_or_raise(task: PointTask) -> PointResult:
    """A Ray task's body: :func:`run_point`, raising :class:`PointRetry` on a retriable outcome."""
    result = run_point(task)
    if result.status in RETRIABLE:
        raise PointRetry(result)
    return result
