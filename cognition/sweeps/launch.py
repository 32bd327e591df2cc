"""``python -m cognition.sweeps.launch PARENT_PID [--cpus 0,1] -- ARGS``: start one point's run.

A tiny launcher between an executor and ``python -m cognition.validate ARGS``
(on Linux it replaces itself with that process, so the run keeps this process id):

* It makes the run die when the process that started it dies
  (:func:`cognition.runtime.lifeline.bind_to_parent`: on Linux
  ``prctl(PR_SET_PDEATHSIG, SIGKILL)``, man 2 prctl, which ``execve`` keeps). A
  killed sweep, or a killed Ray worker, then leaves no run behind, and Ray's
  retry (a ``--resume`` of the same run directory) never races an orphan still
  writing there. Where prctl is not available the launcher does not replace
  itself: it runs ``cognition.validate`` as its child, polls its own parent's
  pid, SIGKILLs the run when that parent is gone, and exits with the run's
  status (128 + N for a run ended by signal N). It ignores SIGINT and SIGTERM
  itself: the run, in the same process group, gets Ctrl-C and a scheduler's
  signal directly and stops with a checkpoint, as it does without the launcher.
* ``--cpus`` pins the run to those CPU cores (``sched_setaffinity``), so that
  local workers each keep their own cores.

Both are set here, in a fresh single-threaded process, rather than in a
``preexec_fn``, which is unsafe when the executor starts runs from threads.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys

from cognition.runtime.lifeline import POLL_SECONDS, bind_to_parent


def _supervise(parent_pid: int, cmd: list[str]) -> int:
    """The fallback without prctl: run ``cmd`` as a child, SIGKILL it as soon as this launcher's parent is
    gone, and return its exit status. SIGINT/SIGTERM are left to the child (it shares the process group)."""
    for sig in (signal.SIGINT, signal.SIGTERM):  # a handler, not SIG_IGN, which the child would inherit
        signal.signal(sig, lambda signum, frame: None)
    child = subprocess.Popen(cmd)
    while True:
        try:
            rc = child.wait(timeout=POLL_SECONDS)
            return 128 - rc if rc < 0 else rc
        except subprocess.TimeoutExpired:
            if os.getppid() != parent_pid:
                child.kill()


def main(argv: list[str]) -> None:
    if "--" not in argv or not argv or not argv[0].isdigit():
        sys.exit("usage: python -m cognition.sweeps.launch PARENT_PID [--cpus 0,1] -- VALIDATE_ARGS")
    split = argv.index("--")
    head, args = argv[:split], argv[split + 1:]
    parent_pid = int(head[0])
    mechanism = bind_to_parent(parent_pid, watch=False)  # without prctl, _supervise watches
    if len(head) == 3 and head[1] == "--cpus" and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {int(c) for c in head[2].split(",")})
    cmd = [sys.executable, "-m", "cognition.validate", *args]
    if mechanism == "prctl":  # kept across execve: the run itself dies with the parent
        os.execv(sys.executable, cmd)
    sys.exit(_supervise(parent_pid, cmd))


if __name__ == "__main__":
    main(sys.argv[1:])
