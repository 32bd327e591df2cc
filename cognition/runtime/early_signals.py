"""SIGINT and SIGTERM from the first instant of ``python -m cognition.validate`` (issue 33).

Before a run's :class:`~cognition.runtime.stop.StopRequest` is in place, Python's own handling applied:
SIGINT raised KeyboardInterrupt wherever the main thread was (an import, the config's validation, the
claim: a traceback, or, raised inside code that catches everything, lost: the run went on), and SIGTERM
ended the process silently (exit status -15). :func:`install`, the first statement of the command's
entry, before its imports, replaces both:

* Until :func:`defer` (called right before the run directory is claimed, or before a resume changes
  anything) a signal ends the process at once: one line on stderr, exit 1. Nothing that matters is
  written yet: a directory holds at most the start-up leftovers a SIGKILL there would leave, which
  ``--out`` reuses (:data:`cognition.simulator.rundir.STARTUP_LEFTOVERS`), and a run to resume is untouched.
* From :func:`defer` on, a signal is only recorded (:func:`pending`); the run's StopRequest takes it
  over, so the run writes its cycle-0 checkpoint (or, resumed, cuts its files back to the checkpoint)
  and stops before its first cycle with the ``--resume`` line, exit 1. A signal there is never lost.

Without :func:`install` (the Python API, tests calling ``main`` in-process) nothing here does anything.
This module imports only the standard library, so that installing it costs nothing before the imports.
"""
from __future__ import annotations

import os
import signal

SIGNALS = (signal.SIGINT, signal.SIGTERM)
_state = {"installed": False, "deferred": False, "pending": None}


def _handle(signum, frame) -> None:
    if _state["deferred"]:
        if _state["pending"] is None:
            _state["pending"] = signum
        return
    name = signal.Signals(signum).name
    os.write(2, f"error: stopped by {name} while starting, before the run directory was claimed or a resumed "
                f"run changed: nothing to keep; run the same command again to start\n".encode())
    os._exit(1)  # nothing to unwind: no file of the run is open for writing yet


def install() -> None:
    """Take SIGINT and SIGTERM over (main thread only; call it first thing in the entry)."""
    for sig in SIGNALS:
        signal.signal(sig, _handle)
    _state["installed"] = True


def defer() -> None:
    """From now on record a signal instead of exiting: the run directory is about to change."""
    _state["deferred"] = True


def pending() -> int | None:
    """The first signal recorded since :func:`defer`, or None (always None without :func:`install`)."""
    return _state["pending"]
