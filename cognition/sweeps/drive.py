"""Drive an executor over the points to run, with progress, then write the aggregate.

Executors (:class:`~cognition.sweeps.local.LocalExecutor`,
:class:`~cognition.sweeps.ray_executor.RayExecutor`) share one small interface:
``open()`` (before anything is written: Ray starts or joins its cluster there),
``start(tasks)``, ``wait(timeout) -> [PointResult]`` (those finished meanwhile),
``stop()`` and ``close()`` (idempotent), plus ``threads`` (threads per run) and ``describe()``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cognition.sweeps.aggregate import aggregate_rows, columns, write_tables
from cognition.sweeps.point import PointResult
from cognition.simulator.progress import RunsProgress
from cognition.sweeps.root import point_tasks, running_count, write_inputs

TICK_S = 1.0  # how often progress is refreshed while points run


@dataclass
class SweepOutcome:
    results: list[PointResult] = field(default_factory=list)
    tables: list[Path] = field(default_factory=list)
    plots: list[Path] = field(default_factory=list)
    table_changed: bool = False
    stopped: bool = False
    rows: list[dict] = field(default_factory=list)  # the aggregate's rows, every point's report as it stands

    @property
    def failed(self) -> list[PointResult]:
        return [r for r in self.results if r.status != "completed"]

    @property
    def finished(self) -> list[str]:
        """Points whose report.json says ``status: completed`` (this session's or an earlier one's)."""
        return [r["point"] for r in self.rows if r["status"] == "completed"]

    @property
    def criteria_not_met(self) -> list[str]:
        """Finished points whose criteria did not all pass (their report.json's ``passed``)."""
        return [r["point"] for r in self.rows if r["status"] == "completed" and not r["passed"]]

    def criteria_note(self) -> str:
        """The verdict over the finished points, for the summary line: ``criteria met by all 8 points``,
        ``criteria NOT met by 3 of 8 points (...)``; "" when no point has finished."""
        finished, not_met, total = len(self.finished), len(self.criteria_not_met), len(self.rows)
        if not finished:
            return ""
        if not not_met:
            return f"criteria met by all {total} points" if finished == total else \
                f"criteria met by the {finished} finished points of {total}"
        of = f"{finished} points" if finished == total else f"the {finished} finished points"
        return f"criteria NOT met by {not_met} of {of} (the aggregate's passed column)"


def execute(spec, survey, executor, progress: RunsProgress, *, faults=None) -> SweepOutcome:
    """Run every point that is not finished; returns their results (in completion order)."""
    root = survey.root
    names = survey.to_run
    outcome = SweepOutcome()
    write_inputs(spec, root, names)
    tasks = point_tasks(spec, root, names, threads=executor.threads, faults=faults)
    try:
        executor.start(tasks)
        while len(outcome.results) < len(tasks):
            for result in executor.wait(TICK_S):
                outcome.results.append(result)
                progress.finished(result)
            progress.set_running(running_count(root))
    except KeyboardInterrupt:
        outcome.stopped = True
        executor.stop()
    finally:
        executor.close()
    return outcome


def write_aggregate(spec, root: Path, outcome: SweepOutcome) -> SweepOutcome:
    """aggregate.csv (+ .parquet) and, when the table changed or a plot is missing, the plots."""
    from cognition.sweeps.plots import plot_keys, plot_path, plot_sweep

    rows = outcome.rows = aggregate_rows(spec, root)
    outcome.tables, outcome.table_changed = write_tables(rows, columns(spec), root)
    expected = [plot_path(root, k) for k in plot_keys(spec.keys)]
    if outcome.table_changed or not all(p.is_file() for p in expected):
        outcome.plots = plot_sweep(rows, spec.keys, root)
    else:
        outcome.plots = expected
    return outcome
