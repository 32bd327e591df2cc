"""The recorded unit signals of a run: an append-only file on disk and a ring buffer in memory.

``RUN_DIR/unit_history.npy`` is a standard ``.npy`` file of float64, shape
``(cycles, agents, n_units)``: one block of ``agents x n_units`` per completed cycle,
appended as the cycle ends, so a cycle costs the same whether 400 or 100 000 are
planned. Its header is a fixed 256 bytes and states the number of *committed*
cycles; :meth:`UnitHistory.commit` makes the appended cycles durable with the
checkpoint's discipline (fsync the data, then rewrite the header and fsync again)
before a checkpoint that names them is written. Bytes past the header's count were
written after the last checkpoint: a resume truncates them, as it does the lines of
``metrics.jsonl`` after the checkpoint. ``numpy.load(path, mmap_mode="r")`` reads
the committed cycles without loading them.

:class:`UnitWindow` keeps the last few cycles in memory (a ring buffer) for the
per-cycle Phi estimate, so that nothing per cycle reads the file.
"""
from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np

HISTORY_NAME = "unit_history.npy"
HEADER_BYTES = 256  # fixed, so the count can be rewritten in place; a multiple of 64 as .npy asks
_MAGIC = b"\x93NUMPY\x01\x00"
_DTYPE = np.dtype("<f8")


class HistoryError(RuntimeError):
    """The history file does not hold what a checkpoint says it must; the message is one line."""


def _header(cycles: int, agents: int, n_units: int) -> bytes:
    text = f"{{'descr': '<f8', 'fortran_order': False, 'shape': ({cycles}, {agents}, {n_units}), }}"
    body = text.ljust(HEADER_BYTES - len(_MAGIC) - 2 - 1) + "\n"
    return _MAGIC + struct.pack("<H", len(body)) + body.encode("latin1")


class UnitHistory:
    """Append-only ``unit_history.npy``; one writer (the run holding the directory's lock)."""

    def __init__(self, path: str | os.PathLike, agents: int, n_units: int, *, cycles: int = 0, fd: int):
        self.path, self.agents, self.n_units = Path(path), agents, n_units
        self.row_bytes = agents * n_units * _DTYPE.itemsize
        self.cycles, self.committed = cycles, cycles
        self._fd = fd

    @classmethod
    def create(cls, path, agents: int, n_units: int) -> "UnitHistory":
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        os.pwrite(fd, _header(0, agents, n_units), 0)
        os.fsync(fd)
        return cls(path, agents, n_units, fd=fd)

    @classmethod
    def reopen(cls, path, agents: int, n_units: int, cycles: int) -> tuple["UnitHistory", int]:
        """Open for appending after ``cycles`` (a checkpoint's); return it and the number of
        cycles that were dropped (written after that checkpoint). HistoryError if it holds fewer."""
        path = Path(path)
        held = cycles_on_disk(path, agents, n_units)
        if held < cycles:
            raise HistoryError(f"{path.name} holds {held} cycles of {agents} agents x {n_units} units, but the "
                               f"checkpoint of cycle {cycles} needs {cycles}: it was truncated or replaced")
        fd = os.open(path, os.O_RDWR)
        history = cls(path, agents, n_units, cycles=cycles, fd=fd)
        os.ftruncate(fd, HEADER_BYTES + cycles * history.row_bytes)
        history.commit()
        return history, held - cycles

    def append(self, signals: np.ndarray) -> None:
        """Write one cycle, (agents, n_units); durable only after :meth:`commit`."""
        data = np.ascontiguousarray(signals, dtype=_DTYPE)
        if data.shape != (self.agents, self.n_units):
            raise ValueError(f"signals of shape {data.shape}; expected {(self.agents, self.n_units)}")
        offset, view = HEADER_BYTES + self.cycles * self.row_bytes, memoryview(data.tobytes())
        while view:  # a short write (a disk filling up) is retried, so a full disk raises its own ENOSPC
            written = os.pwrite(self._fd, view, offset)
            if written == 0:
                raise OSError(f"no progress writing {self.path}")
            offset, view = offset + written, view[written:]
        self.cycles += 1

    def commit(self) -> None:
        """fsync the appended cycles, then state them in the header (fsynced too)."""
        os.fsync(self._fd)
        os.pwrite(self._fd, _header(self.cycles, self.agents, self.n_units), 0)
        os.fsync(self._fd)
        self.committed = self.cycles

    def tail(self, k: int) -> np.ndarray:
        """The last ``k`` written cycles as (agents, k, n_units), oldest first."""
        k = min(k, self.cycles)
        raw = os.pread(self._fd, k * self.row_bytes, HEADER_BYTES + (self.cycles - k) * self.row_bytes)
        rows = np.frombuffer(raw, dtype=_DTYPE).reshape(k, self.agents, self.n_units)
        return rows.transpose(1, 0, 2).copy()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def cycles_on_disk(path: str | os.PathLike, agents: int, n_units: int) -> int:
    """Whole cycles of data in the file (committed or not); 0 when it is missing."""
    try:
        size = os.path.getsize(path)
    except FileNotFoundError:
        return 0
    return max(0, size - HEADER_BYTES) // (agents * n_units * _DTYPE.itemsize)


def read_cycle(path: str | os.PathLike, agents: int, n_units: int, cycle: int) -> np.ndarray | None:
    """The signals of ``cycle`` (1-based), (agents, n_units), read from the file whether committed or not;
    None when the file does not hold it."""
    row_bytes = agents * n_units * _DTYPE.itemsize
    try:
        with open(path, "rb") as fh:
            fh.seek(HEADER_BYTES + (cycle - 1) * row_bytes)
            raw = fh.read(row_bytes)
    except OSError:
        return None
    return np.frombuffer(raw, dtype=_DTYPE).reshape(agents, n_units) if len(raw) == row_bytes else None


def read_written(path: str | os.PathLike) -> tuple[np.ndarray, int]:
    """Every whole cycle the file holds, committed or not (a killed run's last cycles are written but not yet
    committed), as a read-only view (agents, cycles, n_units), memory-mapped; and the committed count (what a
    resume keeps). ValueError when the header is not this file's."""
    with open(path, "rb") as fh:
        version = np.lib.format.read_magic(fh)
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read(fh)
        offset = fh.tell()
    if len(shape) != 3 or fortran or dtype != _DTYPE or offset != HEADER_BYTES:
        raise ValueError(f"header {shape}, {dtype}, fortran_order {fortran}: not a unit history")
    committed, agents, n_units = shape
    cycles = cycles_on_disk(path, agents, n_units)
    if cycles == 0:
        return np.zeros((agents, 0, n_units)), committed
    data = np.memmap(path, dtype=_DTYPE, mode="r", offset=HEADER_BYTES, shape=(cycles, agents, n_units))
    return data.transpose(1, 0, 2), committed


def read_history(path: str | os.PathLike) -> np.ndarray:
    """The committed cycles as a read-only view (agents, cycles, n_units), memory-mapped."""
    return np.load(path, mmap_mode="r").transpose(1, 0, 2)


class UnitWindow:
    """Ring buffer of the last ``size`` cycles' signals, for the per-cycle Phi window."""

    def __init__(self, agents: int, n_units: int, size: int):
        self.size = max(0, size)
        self._ring = np.empty((self.size, agents, n_units), dtype=np.float64)
        self._next = 0
        self._count = 0

    def push(self, signals: np.ndarray) -> None:
        if self.size:
            self._ring[self._next] = signals
            self._next = (self._next + 1) % self.size
            self._count = min(self._count + 1, self.size)

    def fill(self, rows: np.ndarray) -> None:
        """Push the cycles of ``rows`` (agents, k, n_units), oldest first."""
        for t in range(rows.shape[1]):
            self.push(rows[:, t])

    def view(self) -> np.ndarray:
        """The buffered cycles as (agents, k, n_units), oldest first (a copy)."""
        start = (self._next - self._count) % self.size if self.size else 0
        order = [(start + i) % self.size for i in range(self._count)]
        return self._ring[order].transpose(1, 0, 2).copy()
