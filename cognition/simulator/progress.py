"""Progress on stderr, one family: a bar on a terminal, plain lines in a log, or nothing.

One run's phases: :class:`Progress`. Many runs (a sweep's points, the ablation experiment's runs):
:class:`RunsProgress`. The checkpointed record of a run's recoveries is not progress
(:class:`cognition.simulator.runner.RecoveryLog`).

A phase with a known length (the cycles, a sweep's runs) is a :meth:`Progress.bar`; one
without (the end-of-run analysis, drawing the report) is a :meth:`Progress.phase`. On a
terminal both are tqdm bars that stay on screen when done (a phase's bar ticks its elapsed
seconds); when stderr is not a terminal (a log file, a batch job, a notebook's captured
stream) each writes plain lines: ``cycles: 100/1000 (10 %) 4.2 s``, at most every tenth of
the way or every ``every_s`` seconds, and one line when it ends.
"""
from __future__ import annotations

import contextlib
import re
import sys
import threading
import time
from dataclasses import dataclass


PLAIN_LINE = re.compile(r"[\w-]+: (\d+/\d+ \(\d+ %\) [\d.]+ s(, done|, stopped)?|started|done in [\d.]+ s)\Z")


def is_progress_line(line: str) -> bool:
    """Whether a line of stderr is one of the plain progress lines (e.g. to read a log's errors alone)."""
    return bool(PLAIN_LINE.match(line.strip()))


class _PlainBar:
    """The plain-line form of a bar: ``desc: n/total (p %) t s`` lines."""

    def __init__(self, desc: str, total: int, stream, every_s: float):
        self.desc, self.total, self.stream, self.every_s = desc, max(int(total), 1), stream, every_s
        self.n, self.t0, self._closed = 0, time.perf_counter(), False
        self._last_tenth, self._last_t = 0, self.t0

    def _line(self, suffix: str = "") -> None:
        pct = 100.0 * self.n / self.total
        print(f"{self.desc}: {self.n}/{self.total} ({pct:.0f} %) {time.perf_counter() - self.t0:.1f} s{suffix}",
              file=self.stream, flush=True)

    def update(self, n: int = 1) -> None:
        if n <= 0:
            return
        self.n += n
        tenth, now = (10 * self.n) // self.total, time.perf_counter()
        if self.n < self.total and (tenth > self._last_tenth or now - self._last_t >= self.every_s):
            self._line()
            self._last_tenth, self._last_t = tenth, now

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._line(", done" if self.n >= self.total else ", stopped")


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


class Progress:
    """Where a run's progress goes. enabled=False shows nothing; tty None asks the stream itself."""

    def __init__(self, enabled: bool = True, stream=None, tty: bool | None = None, every_s: float = 60.0):
        self.enabled, self.stream, self.every_s = enabled, stream, every_s
        self._tty = tty

    def _out(self):
        return self.stream if self.stream is not None else sys.stderr

    @property
    def tty(self) -> bool:
        if self._tty is not None:
            return self._tty
        isatty = getattr(self._out(), "isatty", None)
        return bool(isatty and isatty())

    def bar(self, desc: str, total: int, unit: str = "cycle"):
        """A bar over ``total`` steps: ``update(n)`` and ``close()`` (tqdm's interface)."""
        if not self.enabled:
            return _NoBar()
        if not self.tty:
            return _PlainBar(desc, total, self._out(), self.every_s)
        from tqdm import tqdm

        return tqdm(total=total, desc=desc, unit=unit, file=self._out(), leave=True, dynamic_ncols=True)

    @contextlib.contextmanager
    def phase(self, desc: str):
        """A phase of unknown length: ``desc: started`` and ``desc: done in t s`` lines, or on a terminal
        a bar whose elapsed time ticks twice a second until the phase ends."""
        if not self.enabled:
            yield
            return
        t0 = time.perf_counter()
        if not self.tty:
            print(f"{desc}: started", file=self._out(), flush=True)
            try:
                yield
            finally:
                print(f"{desc}: done in {time.perf_counter() - t0:.1f} s", file=self._out(), flush=True)
            return
        from tqdm import tqdm

        bar = tqdm(total=None, desc=desc, bar_format="{desc}: {elapsed}", file=self._out(), leave=True)
        stop = threading.Event()

        def tick():
            while not stop.wait(0.5):
                bar.refresh()

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join()
            bar.set_description_str(f"{desc} done")
            bar.close()


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


@dataclass(frozen=True)
class RunEnd:
    """How one of many runs ended, for :class:`RunsProgress` (a sweep's PointResult has the same fields)."""

    name: str
    status: str = "completed"  # or what stopped it
    message: str = ""
    resumed: bool = False


class RunsProgress:
    """Progress over many runs (a sweep's points, the ablation experiment's runs): done, running, failed and
    the time left. On a terminal one status line is redrawn in place; elsewhere (a log file, CI, a batch
    job) a plain status line is written each time a run ends, and :meth:`close` writes one summary line.
    The ETA assumes the runs still to do take as long, on average, as those finished in this session (with
    the same parallelism): ``eta = elapsed / finished_now * remaining``. ``what`` names it in every line
    ("sweep NAME", "ablations"); ``unit`` is what the summary counts ("points", "runs")."""

    def __init__(self, what: str, total: int, already_finished: int = 0, *, unit: str = "runs", stream=None,
                 tty: bool | None = None, clock=time.monotonic):
        self.what, self.unit, self.total, self.already = what, unit, total, already_finished
        self.stream = sys.stderr if stream is None else stream
        self.tty = self.stream.isatty() if tty is None else tty
        self.clock = clock
        self.t0 = clock()
        self.running = 0
        self.completed: list = []  # RunEnd-like: name, status, message, resumed
        self.failed: list = []

    @property
    def done(self) -> int:
        return self.already + len(self.completed)

    def eta_seconds(self) -> float | None:
        """Seconds left, or None before the first run of this session has finished."""
        finished_now = len(self.completed) + len(self.failed)
        remaining = self.total - self.done - len(self.failed)
        if finished_now == 0:
            return None
        return (self.clock() - self.t0) / finished_now * remaining

    def line(self) -> str:
        eta = self.eta_seconds()
        return (f"{self.what}: {self.done}/{self.total} done, {self.running} running, "
                f"{len(self.failed)} failed, ETA {'?' if eta is None else format_duration(eta)}")

    def set_running(self, n: int) -> None:
        """Runs going now; redraws the status line (the caller's loop calls this every tick)."""
        self.running = n
        self.draw()

    def finished(self, result) -> None:
        """A run ended (a :class:`RunEnd`, or a sweep's PointResult)."""
        (self.completed if result.status == "completed" else self.failed).append(result)
        if not self.tty:
            self.stream.write(self.line() + "\n")
            self.stream.flush()

    def note(self, text: str) -> None:
        """A line of context (where the runs go) on a terminal; nothing elsewhere."""
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
            return f"{self.what}: all {self.total} {self.unit} already finished; nothing to run"
        resumed = sum(r.resumed for r in self.completed)
        text = (f"{self.what}: {self.done}/{self.total} {self.unit} done ({len(self.completed)} run now, "
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
