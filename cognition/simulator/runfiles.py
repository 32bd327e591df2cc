"""The per-cycle files of a run directory: ``metrics.jsonl`` and ``unit_history.npy``, append-only.

Each cycle appends its unit signals to the history and one JSON line to the metrics.
:meth:`RunFiles.commit` makes both durable (fsync) before a checkpoint records how
far they reach (``offsets``); a resume cuts both back to the checkpoint's offsets,
dropping what a killed or failed process wrote after it, and refuses (one line) files
that hold less than the checkpoint says. Nothing is ever rewritten from memory, so
a resume can never replace cycles already written with fewer.

:class:`RunRecords` reads ``metrics.jsonl`` back one line at a time, so the end-of-run
analysis and report do not hold every cycle's record in memory at once.
"""
from __future__ import annotations

import json
import os
from array import array
from pathlib import Path

from cognition.simulator.rundir import METRICS, jsonable
from cognition.runtime.unit_history import HISTORY_NAME, UnitHistory, cycles_on_disk, read_cycle
from cognition.errors import CheckpointError

_TAIL_BYTES = 1 << 16  # enough to hold the last metrics line before an offset


class RunFiles:
    """Appends cycles to metrics.jsonl and unit_history.npy; one writer, under the directory's lock."""

    def __init__(self, run_dir: str | os.PathLike, agents: int, n_units: int):
        self.run_dir = Path(run_dir)
        self.metrics_path = self.run_dir / METRICS
        self.history_path = self.run_dir / HISTORY_NAME
        self.agents, self.n_units = agents, n_units
        self.history: UnitHistory | None = None
        self._metrics = None

    # -- before the first cycle ---------------------------------------------
    def written(self) -> list[str]:
        """What the files hold, e.g. ['metrics.jsonl: 149 lines'] (empty when nothing was written)."""
        out = []
        if self.metrics_path.is_file() and self.metrics_path.stat().st_size:
            with open(self.metrics_path, "rb") as fh:
                out.append(f"{METRICS}: {sum(1 for _ in fh)} lines")
        cycles = cycles_on_disk(self.history_path, self.agents, self.n_units)
        if cycles:
            out.append(f"{HISTORY_NAME}: {cycles} cycles")
        return out

    def create(self) -> None:
        self.history = UnitHistory.create(self.history_path, self.agents, self.n_units)
        self._metrics = open(self.metrics_path, "w")

    def check(self, metrics_bytes: int, cycle: int) -> None:
        """CheckpointError (one line) unless the files reach a checkpoint's offsets; reads only."""
        size = self.metrics_path.stat().st_size if self.metrics_path.is_file() else 0
        if size < metrics_bytes:
            raise CheckpointError(f"{METRICS} holds {size} bytes, but the checkpoint of cycle {cycle} was "
                                  f"written after {metrics_bytes}: it was truncated or replaced")
        if cycle and _last_cycle_before(self.metrics_path, metrics_bytes) != cycle:
            raise CheckpointError(f"{METRICS} does not end with cycle {cycle} at the checkpoint's offset "
                                  f"{metrics_bytes}: it was replaced")
        held = cycles_on_disk(self.history_path, self.agents, self.n_units)
        if held < cycle:
            raise CheckpointError(f"{HISTORY_NAME} holds {held} cycles, but the checkpoint of cycle {cycle} "
                                  "needs them: it was truncated or replaced")

    def record_at(self, metrics_bytes: int) -> dict | None:
        """The metrics record that ends at ``metrics_bytes`` (a checkpoint's offset), or None; reads only."""
        return _last_record_before(self.metrics_path, metrics_bytes)

    def history_row(self, cycle: int):
        """The unit signals unit_history.npy holds for ``cycle`` (>= 1), (agents, n_units) float64; reads only."""
        return read_cycle(self.history_path, self.agents, self.n_units, cycle)

    def reopen(self, metrics_bytes: int, cycle: int) -> tuple[int, int]:
        """Cut both files back to a checkpoint's offsets and open them for appending; return the
        (metrics lines, history cycles) that were dropped."""
        self.check(metrics_bytes, cycle)
        with open(self.metrics_path, "rb") as fh:
            fh.seek(metrics_bytes)
            dropped_lines = sum(1 for _ in fh)
        self.history, dropped_cycles = UnitHistory.reopen(self.history_path, self.agents, self.n_units, cycle)
        self._metrics = open(self.metrics_path, "r+")
        self._metrics.truncate(metrics_bytes)
        self._metrics.seek(metrics_bytes)
        return dropped_lines, dropped_cycles

    # -- each cycle -----------------------------------------------------------
    def append(self, record: dict, signals) -> None:
        self.history.append(signals)
        self._metrics.write(json.dumps(record, sort_keys=True, default=jsonable) + "\n")
        self._metrics.flush()

    def commit(self) -> dict:
        """fsync both files; return the offsets a checkpoint records."""
        self._metrics.flush()
        os.fsync(self._metrics.fileno())
        self.history.commit()
        return {"metrics_bytes": self._metrics.tell(), "history_cycles": self.history.cycles}

    def tail(self, k: int):
        """The last ``k`` cycles' signals (agents, k, n_units), to refill the Phi window on resume."""
        return self.history.tail(k)

    def close(self) -> None:
        """Close both files. A failure to flush here (a full disk) loses only lines written after the
        last checkpoint, which a resume cuts anyway: it must not hide the error that stopped the run."""
        if self._metrics is not None:
            try:
                self._metrics.close()
            except OSError:
                pass
            self._metrics = None
        if self.history is not None:
            self.history.close()


def _last_record_before(path: Path, offset: int) -> dict | None:
    with open(path, "rb") as fh:
        start = max(0, offset - _TAIL_BYTES)
        fh.seek(start)
        lines = fh.read(offset - start).splitlines()
    try:
        record = json.loads(lines[-1])
    except (IndexError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _last_cycle_before(path: Path, offset: int) -> int | None:
    try:
        return int(_last_record_before(path, offset)["cycle"])
    except (ValueError, KeyError, TypeError):
        return None


class RunRecords:
    """The records of metrics.jsonl as a sequence that reads the file on each pass.

    ``len``, iteration (one line parsed at a time) and indexing; memory does not grow
    with the number of cycles. Use :func:`list` where many random accesses are needed.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._offsets = array("q")  # 8 bytes a cycle
        with open(self.path, "rb") as fh:
            pos = 0
            for line in fh:
                if line.strip():
                    self._offsets.append(pos)
                pos += len(line)

    def __len__(self) -> int:
        return len(self._offsets)

    def __iter__(self):
        with open(self.path, "rb") as fh:
            for line in fh:
                if line.strip():
                    yield json.loads(line)

    def __getitem__(self, index: int) -> dict:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        with open(self.path, "rb") as fh:
            fh.seek(self._offsets[index])
            return json.loads(fh.readline())

    def __bool__(self) -> bool:
        return bool(self._offsets)
