"""Progress of a run's phases on stderr: a bar on a terminal, plain lines in a log.

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
