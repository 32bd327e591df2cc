"""Stopping a run cleanly: signals, and failures after the start.

* :class:`StopRequest` turns SIGTERM/SIGINT into a flag the runner checks between
  cycles (checkpoint, report, exit 1). A second signal, or one while the report is
  being written (``urgent``), raises :class:`StopNow` at once: the user means it.
* :class:`RunStopped` is every failure after the run directory was claimed: a full
  disk, ``checkpoints/`` replaced by a file, a second Ctrl-C, a bug. Its message is one
  line naming the cause, the last good checkpoint and the exact ``--resume`` command;
  the command line prints it and exits 1. Nothing written before it is lost: a resume
  cuts the files back to that checkpoint and continues.
"""
from __future__ import annotations

import signal
from pathlib import Path

import yaml

from cognition.errors import RunStopped, StopNow, describe_error
from cognition.modules.plugins import script_registered
from cognition.runtime import early_signals
from cognition.runtime.oom import host_allocation_failure, host_memory_line


class StopRequest:
    """Context manager: SIGTERM/SIGINT set :attr:`signum`; a second one raises StopNow."""

    def __init__(self):
        self.signum = None
        self.urgent = False  # set once the cycles are done: any signal stops at once
        self.raised: StopNow | None = None
        self._previous = {}

    def __enter__(self) -> "StopRequest":
        # a signal the command's entry recorded after it deferred (cognition.runtime.early_signals): the run was
        # asked to stop before this request existed, and stops before its first cycle
        self.signum = early_signals.pending()
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                self._previous[sig] = signal.signal(sig, self._handle)
            except ValueError:  # not the main thread: leave signals alone
                pass
        return self

    def _handle(self, signum, frame):
        if self.signum is not None or self.urgent:
            self.raised = StopNow(signum)
            raise self.raised
        self.signum = signum

    def reason(self, exc: BaseException) -> BaseException:
        """What a failure stands for: the StopNow this request raised, if it did, whatever it became on
        the way (raised inside an extension module's import it surfaces as ImportError "initialization
        failed"), else ``exc``."""
        return self.raised if self.raised is not None else exc

    def __exit__(self, *exc) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


def resume_command(run_dir) -> str:
    """How to continue the run: the command line's ``--resume``; but when its config.yaml enables a module
    registered only in this process (a script's or notebook's decorator), which the command line cannot
    import, ``Simulator.resume`` from a script that imports it, and the config-path route for next time."""
    cli = f"python -m cognition.validate --resume {run_dir}"
    try:
        enabled = (yaml.safe_load((Path(run_dir) / "config.yaml").read_text()) or {})["modules"]["enabled"]
        scripted = script_registered(enabled)
    except (OSError, yaml.YAMLError, KeyError, TypeError):
        scripted = []
    if not scripted:
        return cli
    return (f"cognition.api.Simulator.resume({str(run_dir)!r}).run() in a script that first imports the "
            f"module{'s' if len(scripted) > 1 else ''} {', '.join(scripted)} (registered in a script, so `{cli}` "
            "cannot import it; name its file in modules.plugins, docs/modules.md, to make runs the command "
            "line can resume)")


def cause(exc: BaseException) -> str:
    """The failure in a few words: 'a second SIGINT', 'OSError: [Errno 28] No space left ...', or, when the
    host ran out of memory (even hidden under another error raised while unwinding), 'out of host memory
    (MemoryError: ...; tightest limit: RLIMIT_AS ...)'."""
    if isinstance(exc, StopNow):
        return f"{exc} received"
    memory = host_allocation_failure(exc)
    return host_memory_line(memory) if memory is not None else describe_error(exc)


def stopped_message(exc: BaseException, *, where: str, last_checkpoint: int | None, run_dir) -> str:
    """The one line for a run that stopped ``where`` (e.g. 'in cycle 57') because of ``exc``."""
    if last_checkpoint is None:
        saved = "no checkpoint was written yet, so the resume starts from cycle 0"
    else:
        saved = f"last good checkpoint: cycle {last_checkpoint}"
    return (f"run stopped {where}: {cause(exc)}; {saved}; fix the cause, then continue with: "
            f"{resume_command(run_dir)}")
