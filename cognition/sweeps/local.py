"""The default executor: each point in its own local process, ``workers`` at a time.

Worker slot ``i`` owns a disjoint set of CPU cores (``cores // workers`` of them,
pinned with ``sched_setaffinity``) and its run uses that many BLAS/OpenMP/torch
threads, so workers never oversubscribe the machine. With more workers than
cores there is nothing to split: runs are not pinned and use one thread each.

A run that is killed or stopped (see :data:`cognition.sweeps.point.RETRIABLE`)
is resumed from its checkpoint up to ``retries`` times, as Ray would.
"""
from __future__ import annotations

import os
import queue
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from cognition.sweeps.point import RETRIABLE, PointResult, PointTask, run_point


def available_cores() -> list[int]:
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def core_slots(workers: int, cores: list[int]) -> list[tuple[int, ...] | None]:
    """Cores of each worker slot: contiguous equal shares, or None (unpinned) when too few cores."""
    per = len(cores) // workers
    if per < 1:
        return [None] * workers
    return [tuple(cores[i * per:(i + 1) * per]) for i in range(workers)]


def threads_per_worker(workers: int, cores: list[int] | None = None) -> int:
    return max(1, len(available_cores() if cores is None else cores) // workers)


class LocalExecutor:
    """Runs points in local processes; the threads here only wait on those processes."""

    def __init__(self, workers: int = 1, retries: int = 2):
        self.workers, self.retries = workers, retries
        cores = available_cores()
        self.threads = threads_per_worker(workers, cores)
        self._slots: queue.Queue = queue.Queue()
        for cpus in core_slots(workers, cores):
            self._slots.put(cpus)
        self._stopping = threading.Event()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sweep-point")
        self._pending: set = set()

    def describe(self) -> str:
        return f"local processes: {self.workers} worker(s), {self.threads} thread(s) each"

    def _job(self, task: PointTask) -> PointResult:
        cpus = self._slots.get()
        try:
            result = run_point(task, cpus=cpus)
            for _ in range(self.retries):
                if result.status not in RETRIABLE or self._stopping.is_set():
                    break
                result = run_point(task, cpus=cpus)  # a resume of the same run directory
            return result
        finally:
            self._slots.put(cpus)

    def open(self) -> None:
        """Nothing to start: the pool's threads start with the first point."""

    def start(self, tasks: list[PointTask]) -> None:
        self._pending = {self._pool.submit(self._job, t) for t in tasks}

    def wait(self, timeout: float) -> list[PointResult]:
        """Results of the points that finished within ``timeout`` seconds (possibly none)."""
        if not self._pending:
            return []
        done, self._pending = wait(self._pending, timeout=timeout, return_when=FIRST_COMPLETED)
        return [f.result() for f in done]

    def stop(self) -> None:
        """No new points and no more retries; running points finish or stop on their own signal."""
        self._stopping.set()
        for f in self._pending:
            f.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
