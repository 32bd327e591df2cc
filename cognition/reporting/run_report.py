"""The run report: report.json (the numbers), report.md with PNG plots beside it and report.html (one file,
the plots embedded), written at the end of a session (:mod:`cognition.reporting.session_report`) or rebuilt
from a run directory alone (``python -m cognition.report RUN_DIR``, :func:`rebuild`)."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from cognition.simulator.rundir import CONFIG, PROVENANCE, REPORT, write_json


PLOTS = {"phi": "phi_over_cycles.png", "mib": "mib.png", "workspace": "salience.png", "hybrid": "hybrid.png",
         "memory": "memory.png", "ignition": "ignition.png", "controls": "controls.png"}


def build(*, status: str, message: str, phi_summary: dict, criteria: list[dict], provenance: dict,
          retries: list[dict], records, telemetry_summary: dict, cfg=None, units=None,
          events: list[dict] | None = None, controls: dict | None = None,
          competition: dict | None = None) -> dict:
    """report.json's content. ``records``: the per-cycle records (a list, or metrics.jsonl streamed by
    :class:`cognition.simulator.runfiles.RunRecords`). ``events``: what the runtime recovered from or changed
    (resumes, skipped or discarded checkpoints, a batch grown back), for "Retries and fallbacks".
    ``controls`` and ``competition``: :func:`cognition.analysis.summary.summarise_controls` and
    :func:`cognition.architecture.competition.summarise_competition`.
    With ``cfg`` and ``units`` (rows, >= cycles, n_units) it also holds ``phi_bands``: the
    per-cycle bootstrap and null bands (:mod:`cognition.reporting.bands`)."""
    interference = [r["extras"].get("hybrid.interference") for r in records]
    interference = [v for v in interference if v is not None]
    report = {
        "status": status,
        "message": message,
        "cycles_completed": len(records),
        "passed": all(c["passed"] for c in criteria),
        "criteria": criteria,
        "phi": phi_summary,
        "controls": controls,
        "competition": competition,
        "hybrid": {"mean_interference": (sum(interference) / len(interference)) if interference else None},
        "retries": retries,
        "recovery": list(events or []),
        "components": {n: d["backend"] for n, d in provenance["components"].items()},
        "classical_components": provenance["classical_components"],
        "telemetry": telemetry_summary,
    }
    if cfg is not None and units is not None:
        from cognition.reporting.bands import run_bands

        report["phi_bands"] = run_bands(cfg.to_dict(), phi_summary, units, len(records))
    return report


def write(run_dir: Path, report: dict, records, finish=None) -> list[Path]:
    """Write the PNG plots, report.json, report.md and report.html into ``run_dir``; return the PNGs.

    ``records`` as metrics.jsonl holds them (read back from it), so that a rebuild from the
    directory draws the same report. Reads config.yaml and provenance.json from ``run_dir``.
    ``finish(report)``, called after the plots and before any text is written, may set the
    figures measured last (the run's wall-clock time, the process's peak memory).
    """
    from cognition.reporting import document, plots, sections, workspace_report

    run_dir = Path(run_dir)
    provenance = json.loads((run_dir / PROVENANCE).read_text())
    config = yaml.safe_load((run_dir / CONFIG).read_text())
    phi = report["phi"]
    figures = {
        "phi": plots.phi_over_cycles(records, phi, report.get("phi_bands"), run_dir / PLOTS["phi"]),
        "mib": plots.mib_over_cycles(records, phi, run_dir / PLOTS["mib"]),
        "workspace": plots.workspace_over_cycles(records, config["modules"]["enabled"], run_dir / PLOTS["workspace"]),
        "hybrid": plots.hybrid_over_cycles(records, run_dir / PLOTS["hybrid"]),
        "memory": plots.resources_over_cycles(records, run_dir / PLOTS["memory"]),
        "ignition": workspace_report.ignition_plot(report, run_dir / PLOTS["ignition"]),
        "controls": workspace_report.control_plot(report, run_dir / PLOTS["controls"]),
    }
    if finish is not None:
        finish(report)
    write_json(run_dir / REPORT, report)
    title = sections.title(report, provenance)
    body = sections.run_sections(report, records, provenance, config, figures)
    (run_dir / "report.md").write_text(document.markdown(title, body))
    (run_dir / "report.html").write_text(document.html_page(title, body))
    return [p for p in figures.values() if p is not None]


def rebuild(run_dir: str | Path) -> list[Path]:
    """Rebuild a finished run's report from its directory alone; NotARunError for anything else."""
    from cognition.reporting.bands import run_bands
    from cognition.reporting.rundata import check_history, load_run, load_units

    run = load_run(run_dir)
    check_history(run.path, len(run.records))  # a damaged unit_history.npy: refused, not silently left out
    report = dict(run.report)
    units = load_units(run.path, len(run.records))
    if units is not None and run.report["phi"].get("window_cycles"):
        report["phi_bands"] = run_bands(run.config, report["phi"], units, len(run.records))
    elif "phi_bands" not in report:
        report["phi_bands"] = {"note": "no verified checkpoint holds the unit signals of every cycle"}
    return write(run.path, report, run.records)
