"""An advisory lock on a run directory, held for the whole life of a run or a resume.

``RUN_DIR/.lock`` is locked with ``fcntl.flock`` (exclusive, non-blocking) before
anything in the directory is read for a resume or written for a new run, and stays
locked until the process ends. The kernel drops the lock when the process exits,
however it exits (SIGKILL included), so a lock is never stale and never needs
cleaning up; the file itself stays and only holds the PID of the last holder that used the
directory: a holder that gives the lock back without having used it (a refused ``--resume``, an
``--out`` that finds the directory taken) puts the file's previous text back before it unlocks
(:meth:`RunDirLock.keep` marks the use).

A second process that finds the lock taken gets :class:`RunDirBusyError`: one line
naming the holder's PID (exit code 2). Advisory means that only processes that ask
for the lock are kept out: every writer in this package asks.
"""
from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from cognition.errors import RunDirBusyError, UsageError

LOCK_NAME = ".lock"
PID_WAIT_S = 1.0  # a holder writes its PID right after locking; wait this long to read it


def _holder(fd: int) -> str:
    deadline = time.monotonic() + PID_WAIT_S
    while True:
        text = os.pread(fd, 64, 0).decode(errors="replace").strip()
        if text or time.monotonic() > deadline:
            return text.split()[0] if text else "unknown"
        time.sleep(0.02)


def _write(fd: int, data: bytes) -> None:
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)


def busy_holder(run_dir: str | os.PathLike) -> str | None:
    """The PID of the process holding ``run_dir``'s lock, or None when nobody does (or there is no lock
    file: none is created here). Probes with a shared lock it gives back at once."""
    try:
        fd = os.open(Path(run_dir) / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _holder(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None


class RunDirLock:
    """``with RunDirLock(run_dir, what="--resume"):`` or :meth:`acquire` / :meth:`release`."""

    def __init__(self, run_dir: str | os.PathLike, what: str = "run directory"):
        self.path = Path(run_dir) / LOCK_NAME
        self.what = what
        self._fd: int | None = None
        self._previous: bytes | None = None  # the file's text before this holder wrote its PID; None once kept

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
        self._previous = os.pread(fd, 4096, 0)
        _write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def keep(self) -> "RunDirLock":
        """This holder uses the directory (claims it, or a resume starts changing it): its PID stays in the
        file after :meth:`release`."""
        self._previous = None
        return self

    def release(self) -> None:
        if self._fd is not None:
            if self._previous is not None:  # never used: the file says what it said before
                try:
                    _write(self._fd, self._previous)
                except OSError:
                    pass
            os.close(self._fd)  # closing the last descriptor drops the flock
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> "RunDirLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
