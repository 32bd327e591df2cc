"""Progress over a whole sweep: points done, running, failed, and the time left.

On a terminal one status line is redrawn in place (on stderr); elsewhere (a
log file, CI, a batch job) a plain status line is written each time a point ends,
and :meth:`SweepProgress.close` writes one summary line. The ETA assumes the points still to run take as long, on
average, as those finished in this session (with the same parallelism):
``eta = elapsed / finished_now * remaining``.
"""
from __future__ import annotations

import sys
import time

from cognition.sweeps.point import PointResult


def format_duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``, ``2 h 07 min``."""
    seconds = max(0.0, float(seconds))
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, sec = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} min {sec:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class SweepProgress:
    def __init__(self, name: str, total: int, already_finished: int = 0, *, stream=None,
                 tty: bool | None = None, clock=time.monotonic):
        self.name, self.total, self.already = name, total, already_finished
        self.stream = sys.stderr if stream is None else stream
        self.tty = self.stream.isatty() if tty is None else tty
        self.clock = clock
        self.t0 = clock()
        self.running = 0
        self.completed: list[PointResult] = []
        self.failed: list[PointResult] = []

    @property
    def done(self) -> int:
        return self.already + len(self.completed)

    def eta_seconds(self) -> float | None:
        """Seconds left, or None before the first point of this session has finished."""
        finished_now = len(self.completed) + len(self.failed)
        remaining = self.total - self.done - len(self.failed)
        if finished_now == 0:
            return None
        return (self.clock() - self.t0) / finished_now * remaining

    def line(self) -> str:
        eta = self.eta_seconds()
        return (f"sweep {self.name}: {self.done}/{self.total} done, {self.running} running, "
                f"{len(self.failed)} failed, ETA {'?' if eta is None else format_duration(eta)}")

    def set_running(self, n: int) -> None:
        """Points running now; redraws the status line (the executor's loop calls this every tick)."""
        self.running = n
        self.draw()

    def finished(self, result: PointResult) -> None:
        (self.completed if result.status == "completed" else self.failed).append(result)
        if not self.tty:
            self.stream.write(self.line() + "\n")
            self.stream.flush()

    def note(self, text: str) -> None:
        """A line of context (where the points run) on a terminal; nothing elsewhere."""
        if self.tty:
            self.stream.write("\r\x1b[K" + text + "\n")
            self.stream.flush()

    def draw(self) -> None:
        if self.tty:
            self.stream.write("\r\x1b[K" + self.line())
            self.stream.flush()

    def summary(self) -> str:
        elapsed = format_duration(self.clock() - self.t0)
        if not self.completed and not self.failed and self.done == self.total:
            return f"sweep {self.name}: all {self.total} points already finished; nothing to run"
        resumed = sum(r.resumed for r in self.completed)
        text = (f"sweep {self.name}: {self.done}/{self.total} points done ({len(self.completed)} run now, "
                f"{resumed} of them resumed; {self.already} already finished), {len(self.failed)} failed, "
                f"in {elapsed}")
        if self.failed:
            text += "; failed: " + ", ".join(f"{r.name} ({r.status}: {r.message})" for r in self.failed[:3])
            text += " ..." if len(self.failed) > 3 else ""
        return text

    def close(self, note: str = "") -> str:
        """Write the summary line (replacing the status line on a terminal) and return it."""
        text = self.summary() + (f"; {note}" if note else "")
        self.stream.write(("\r\x1b[K" if self.tty else "") + text + "\n")
        self.stream.flush()
        return text
