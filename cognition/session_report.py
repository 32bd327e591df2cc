"""The end of a session: the Phi analysis, the criteria and the report, read back from the run's files.

The records are streamed from ``metrics.jsonl`` (:class:`cognition.runfiles.RunRecords`)
and the unit signals memory-mapped from ``unit_history.npy``, so the end of a long run
does not first gather every cycle in memory.
"""
from __future__ import annotations


def resume_note(cfg, start, resuming: bool) -> str | None:
    """What to tell the user when ``--resume`` finds the run finished, or with nothing written yet."""
    if not resuming:
        return None
    if start.resumed_from is None:
        return "the run was stopped before its first checkpoint and wrote no cycle: it starts from cycle 0"
    if start.state.cycle >= cfg.run.cycles:
        return (f"the run had already finished (cycle {start.state.cycle} of {cfg.run.cycles}); "
                "only its report is written again")
    return None


def write_report(session, provenance: dict, outcome) -> dict:
    """Analyse the run directory's files and write report.json/.md/.html; return the report."""
    from cognition import analysis, criteria, report
    from cognition.competition import summarise_competition
    from cognition.controls import split_rows
    from cognition.runfiles import RunRecords
    from cognition.runtime.telemetry import summarise
    from cognition.runtime.unit_history import read_history

    cfg, loop, files = session.cfg, session.assembly.loop, session.runner.files
    records = RunRecords(files.metrics_path)
    units = read_history(files.history_path)  # (rows, cycles, n_units): agents, then donors and twins
    groups = split_rows(units, cfg.run.agents, cfg.control.yoked)
    phi_summary = analysis.summarise_phi(cfg, records, groups["intact"], loop.unit_names, loop.phi_window)
    controls = analysis.summarise_controls(cfg, groups, len(records), loop.unit_names)
    competition = summarise_competition(cfg, records, loop.declared)
    unrecovered = 1 if outcome.status == "failed" else 0
    checks = criteria.evaluate(cfg, status=outcome.status, phi_summary=phi_summary, controls=controls,
                               provenance=provenance, unrecovered_errors=unrecovered)
    tel = summarise(r["telemetry"] for r in records if r.get("telemetry"))
    rep = report.build(status=outcome.status, message=outcome.message, phi_summary=phi_summary,
                       criteria=checks, provenance=provenance, retries=outcome.retries, records=records,
                       telemetry_summary=tel, cfg=cfg, units=units, events=outcome.events,
                       controls=controls, competition=competition)
    report.write(session.run_dir, rep, records)
    return rep
