"""``python -m cognition.sweeps.launch PARENT_PID [--cpus 0,1] -- ARGS``: start one point's run.

A tiny launcher between an executor and ``python -m cognition.validate ARGS``
(it replaces itself with that process, so the run keeps this process id):

* On Linux it asks the kernel to SIGKILL the run when the process that started
  it dies (``prctl(PR_SET_PDEATHSIG)``). When a Ray worker is killed, its run
  then dies with it, and Ray's retry (a ``--resume`` of the same run directory)
  never races an orphan still writing there.
* ``--cpus`` pins the run to those CPU cores (``sched_setaffinity``), so that
  local workers each keep their own cores.

Both are set here, in a fresh single-threaded process, rather than in a
``preexec_fn``, which is unsafe when the executor starts runs from threads.
"""
from __future__ import annotations

import os
import signal
import sys

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def _die_with_parent(parent_pid: int) -> None:
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return  # not available (e.g. seccomp): the run simply outlives a killed worker
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(128 + signal.SIGKILL)


def main(argv: list[str]) -> None:
    if "--" not in argv or not argv or not argv[0].isdigit():
        sys.exit("usage: python -m cognition.sweeps.launch PARENT_PID [--cpus 0,1] -- VALIDATE_ARGS")
    split = argv.index("--")
    head, args = argv[:split], argv[split + 1:]
    _die_with_parent(int(head[0]))
    if len(head) == 3 and head[1] == "--cpus" and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {int(c) for c in head[2].split(",")})
    os.execv(sys.executable, [sys.executable, "-m", "cognition.validate", *args])


if __name__ == "__main__":
    main(sys.argv[1:])
