"""An advisory lock on a run directory, held for the whole life of a run or a resume.

``RUN_DIR/.lock`` is locked with ``fcntl.flock`` (exclusive, non-blocking) before
anything in the directory is read for a resume or written for a new run, and stays
locked until the process ends. The kernel drops the lock when the process exits,
however it exits (SIGKILL included), so a lock is never stale and never needs
cleaning up; the file itself stays and only holds the PID of the last holder.

A second process that finds the lock taken gets :class:`RunDirBusyError`: one line
naming the holder's PID (exit code 2). Advisory means that only processes that ask
for the lock are kept out: every writer in this package asks.
"""
from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from cognition.errors import UsageError

LOCK_NAME = ".lock"
PID_WAIT_S = 1.0  # a holder writes its PID right after locking; wait this long to read it


class RunDirBusyError(UsageError):
    """Another process holds the run directory's lock."""


def _holder(fd: int) -> str:
    deadline = time.monotonic() + PID_WAIT_S
    while True:
        text = os.pread(fd, 64, 0).decode(errors="replace").strip()
        if text or time.monotonic() > deadline:
            return text.split()[0] if text else "unknown"
        time.sleep(0.02)


class RunDirLock:
    """``with RunDirLock(run_dir, what="--resume"):`` or :meth:`acquire` / :meth:`release`."""

    def __init__(self, run_dir: str | os.PathLike, what: str = "run directory"):
        self.path = Path(run_dir) / LOCK_NAME
        self.what = what
        self._fd: int | None = None

    def acquire(self) -> "RunDirLock":
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise UsageError(f"{self.what} {self.path.parent}: cannot create its lock file "
                             f"({exc.strerror or exc})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _holder(fd)
            os.close(fd)
            raise RunDirBusyError(f"{self.what} {self.path.parent}: in use by process {pid}, which holds its lock "
                                  f"({self.path}); wait for it to end, or stop it") from None
        except OSError as exc:
            os.close(fd)
            raise UsageError(f"{self.what} {self.path.parent}: cannot lock it ({exc.strerror or exc})") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor drops the flock
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> "RunDirLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
