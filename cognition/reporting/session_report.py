"""The end of a session: the Phi analysis, the criteria and the report, read back from the run's files.

:func:`write_report` is the report writer that validate and the API give
:class:`cognition.simulator.session.Session` (the simulator layer does not import reporting).

The records are streamed from ``metrics.jsonl`` (:class:`cognition.simulator.runfiles.RunRecords`)
and the unit signals memory-mapped from ``unit_history.npy``, so the end of a long run
does not first gather every cycle in memory.
"""
from __future__ import annotations

import time

from cognition.analysis import criteria, perturbational, summary as analysis
from cognition.architecture.competition import summarise_competition
from cognition.architecture.controls import split_rows
from cognition.reporting.run_report import build, write
from cognition.runtime.telemetry import process_peak_rss_bytes, summarise
from cognition.runtime.unit_history import read_history
from cognition.simulator.build import intervention_loop
from cognition.simulator.progress import Progress
from cognition.simulator.runfiles import RunRecords


def write_report(session, provenance: dict, outcome, *, progress=None, started: float | None = None) -> dict:
    """Analyse the run directory's files and write report.json/.md/.html; return the report.

    ``started``: ``time.perf_counter()`` when the run began; the report's
    ``telemetry.run_wall_seconds`` is the wall-clock time from then to the end of the plots (cycles,
    analysis and report), the figure the CLI prints too. Its ``telemetry.mem_peak_rss_bytes`` is the
    process's peak RSS, read after the analysis and the plots. (Telemetry, because both legitimately
    differ between a run and its resumed twin.)
    """
    progress = progress or Progress(enabled=False)
    started = time.perf_counter() if started is None else started
    cfg, loop, files = session.cfg, session.assembly.loop, session.runner.files
    records = RunRecords(files.metrics_path)
    units = read_history(files.history_path)  # (rows, cycles, n_units): agents, then donors and twins
    groups = split_rows(units, cfg.run.agents, cfg.control.yoked)
    with progress.phase("analysis"):
        phi_summary = analysis.summarise_phi(cfg, records, groups["intact"], loop.unit_names, loop.phi_window)
        competition = summarise_competition(cfg, records, loop.declared)
        controls = analysis.summarise_controls(cfg, groups, len(records), loop.unit_names,
                                               no_access=competition.get("no_access"))
        unrecovered = 1 if outcome.status == "failed" else 0
        checks = criteria.evaluate(cfg, status=outcome.status, phi_summary=phi_summary, controls=controls,
                                   provenance=provenance, unrecovered_errors=unrecovered)
        tel = summarise(r["telemetry"] for r in records if r.get("telemetry"))
        rep = build(status=outcome.status, message=outcome.message, phi_summary=phi_summary,
                    criteria=checks, provenance=provenance, retries=outcome.retries, records=records,
                    telemetry_summary=tel, cfg=cfg, units=units, events=outcome.events,
                    controls=controls, competition=competition)
    if cfg.analysis.iit4:  # asked for: the agents' own loop perturbed (docs/iit4.md), after the run's analysis
        with progress.phase("IIT 4.0 by intervention"):
            t0 = time.perf_counter()
            rep["iit4"] = perturbational.analyze(intervention_loop(cfg), mode=cfg.quantum.mode, lesion=cfg.control.lesion,
                                                 seed=cfg.run.seed)
            rep["iit4"]["seconds"] = time.perf_counter() - t0

    def finish(rep: dict) -> None:
        rep["telemetry"]["mem_peak_rss_bytes"] = max(rep["telemetry"].get("mem_peak_rss_bytes", 0),
                                                     process_peak_rss_bytes())
        rep["telemetry"]["run_wall_seconds"] = time.perf_counter() - started

    with progress.phase("report"):
        write(session.run_dir, rep, records, finish=finish)
    return rep
