"""Worker processes that cannot outlive the process that started them.

Every process this package starts to do work for another (a sweep point's run,
the ablation experiment's pool, the bench pools) calls :func:`bind_to_parent` first
thing, from its main thread, so that it dies when its parent dies, however the
parent dies (SIGKILL, the out-of-memory killer, a crash):

* **Linux:** ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (man 2 prctl: "Set the
  parent-death signal of the calling process to arg2 ... This is the signal that
  the calling process will get when its parent dies"). The kernel delivers it, so
  it works even when the child is busy in native code. Two caveats from the same
  page shape its use here: (1) "the 'parent' in this case is considered to be the
  thread that created this process", so a pool must start its workers from a
  thread that lives as long as they do (every pool here is created, fed and
  shut down in one ``with`` block by the thread that waits on it; a sweep point's
  run is started by the thread that waits for it to end); (2) the setting only
  applies to a parent death *after* the call, so right after it we compare
  ``os.getppid()`` with the parent's pid: if the parent already died (the child
  was re-parented), the child exits at once. The setting is kept across
  ``execve`` (same page: "this value is preserved across execve(2)" unless the
  binary is set-user-ID or has capabilities), which is how a sweep point's
  launcher passes it on to ``cognition.validate``; it is cleared for the child
  of a ``fork``, so each level of a chain sets its own.
* **Elsewhere, or where prctl is refused** (a seccomp filter, a non-Linux
  kernel): a daemon thread polls ``os.getppid()`` every :data:`POLL_SECONDS`; when it
  no longer returns the parent's pid (a POSIX child whose parent exits is
  re-parented to init or a subreaper, so its ppid changes) the worker SIGKILLs
  itself.

A worker's own workers are bound the same way (a chain: each level binds to the
level above), so a killed root takes the whole tree with it, one level per
delivery (immediate with prctl, within one poll interval per level otherwise).

Graceful stops are unchanged: this acts only when the parent is already gone. A
SIGINT/SIGTERM that reaches the workers (Ctrl-C in a terminal, ``timeout``, a batch
scheduler: they signal the whole process group) still lets each run checkpoint
and stop, while the parent waits for them.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
POLL_SECONDS = 0.25  # the fallback's polling period


def _set_pdeathsig() -> bool:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)`` for the calling process; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent_pid: int) -> None:
    stop = threading.Event()
    while not stop.wait(POLL_SECONDS):
        if os.getppid() != parent_pid:
            os.kill(os.getpid(), signal.SIGKILL)


def bind_to_parent(parent_pid: int, *, use_prctl: bool = True, watch: bool = True) -> str:
    """Make the calling process die when ``parent_pid`` (its parent) dies; call it from the main thread.

    Returns the mechanism used: ``"prctl"`` (Linux ``PR_SET_PDEATHSIG``, man 2 prctl) or, where that is
    not available or ``use_prctl`` is False, ``"watch"`` (a daemon thread polling ``os.getppid()``);
    ``"none"`` when ``watch`` is False too (the caller watches the parent itself). If the parent has
    died already, the process exits here (status 137, as if SIGKILLed)."""
    mechanism = "prctl" if use_prctl and _set_pdeathsig() else "watch" if watch else "none"
    if os.getppid() != parent_pid:  # it died before the setting took effect: nobody would signal us
        os._exit(128 + signal.SIGKILL)
    if mechanism == "watch":
        threading.Thread(target=_watch, args=(parent_pid,), name="parent-watch", daemon=True).start()
    return mechanism


def _bound_worker(parent_pid: int, initializer, initargs) -> None:
    bind_to_parent(parent_pid)
    if initializer is not None:
        initializer(*initargs)


def bound_pool(max_workers: int, mp_context=None, initializer=None, initargs=()) -> ProcessPoolExecutor:
    """A ProcessPoolExecutor whose workers die with this process (:func:`bind_to_parent` as their
    initializer, then ``initializer(*initargs)``). Create, feed and shut it down from one thread
    (a ``with`` block): with prctl a worker dies when the thread that started it ends. ``mp_context``
    defaults to multiprocessing's default; a forkserver context becomes spawn, because a forkserver's
    workers are the server's children, not this process's."""
    ctx = mp_context or multiprocessing.get_context()
    if ctx.get_start_method() == "forkserver":
        ctx = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(max_workers=max_workers, mp_context=ctx, initializer=_bound_worker,
                               initargs=(os.getpid(), initializer, tuple(initargs)))
