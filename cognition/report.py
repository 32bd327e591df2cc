"""The run report, and ``python -m cognition.report``: rebuild a run's report, or compare runs.

A run's report is ``report.json`` (the numbers), ``report.md`` with PNG plots beside it
and ``report.html``, which embeds the plots so it is one file. Everything in them is a
function of the run directory (config.yaml, provenance.json, metrics.jsonl, report.json
and the newest checkpoint's unit signals), so ``python -m cognition.report RUN_DIR``
rebuilds them.

    python -m cognition.report RUN_DIR                  rebuild RUN_DIR's report
    python -m cognition.report RUN_A RUN_B [...] [--out DIR]
                                                        compare runs, one per condition: a
                                                        table on stdout, comparison.md/.html/
                                                        .png/.json in DIR; the test speaks
                                                        for one architecture per side
    python -m cognition.report --group RUN [RUN ...] --group RUN [RUN ...] [...]
                               [--labels NAME NAME ...] [--out DIR]
                                                        compare conditions of several runs
                                                        (seeds) each: Welch's t across runs

Exit codes: 0 done; 2 bad input (a path that is not a finished run, a damaged ``unit_history.npy`` (unreadable,
or fewer cycles than ``metrics.jsonl``: the file and the problem named), a run given twice,
RUN_DIR arguments mixed with ``--group``, one ``--group`` only, ``--labels`` not one per
group, an unwritable ``--out``): one line on stderr, no traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from cognition.errors import UsageError

EXIT_OK, EXIT_USAGE = 0, 2
PLOTS = {"phi": "phi_over_cycles.png", "mib": "mib.png", "workspace": "salience.png", "hybrid": "hybrid.png",
         "memory": "memory.png", "ignition": "ignition.png", "controls": "controls.png"}


def build(*, status: str, message: str, phi_summary: dict, criteria: list[dict], provenance: dict,
          retries: list[dict], records, telemetry_summary: dict, cfg=None, units=None,
          events: list[dict] | None = None, controls: dict | None = None,
          competition: dict | None = None) -> dict:
    """report.json's content. ``records``: the per-cycle records (a list, or metrics.jsonl streamed by
    :class:`cognition.runfiles.RunRecords`). ``events``: what the runtime recovered from or changed
    (resumes, skipped or discarded checkpoints, a batch grown back), for "Retries and fallbacks".
    ``controls`` and ``competition``: :func:`cognition.analysis.summarise_controls` and
    :func:`cognition.competition.summarise_competition`.
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
    from cognition.rundir import write_json

    run_dir = Path(run_dir)
    provenance = json.loads((run_dir / "provenance.json").read_text())
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
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
    write_json(run_dir / "report.json", report)
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


def _parser() -> argparse.ArgumentParser:
    class OneLine(argparse.ArgumentParser):
        def error(self, message):
            raise UsageError(f"{self.prog}: {message} (see --help)")

    p = OneLine(prog="python -m cognition.report", description=(
        "Rebuild a run's report (one RUN_DIR), or compare runs side by side: several RUN_DIRs (one run per "
        "condition; the test resamples agents within each run's seed and speaks for those architectures), or "
        "--group twice or more (several runs, i.e. seeds, per condition; Welch's t test across runs). A table on "
        "stdout and comparison.md, comparison.html, comparison.png and comparison.json in --out. "
        "Exit 0 done, 2 bad input."))
    p.add_argument("run_dirs", nargs="*", metavar="RUN_DIR", help="run directories written by cognition.validate")
    p.add_argument("--group", action="append", nargs="+", metavar="RUN", dest="groups",
                   help="the runs of one condition (one per seed); give --group once per condition")
    p.add_argument("--labels", nargs="+", metavar="NAME", help="a name for each --group, in order "
                                                              "(default: the group's mode)")
    p.add_argument("--out", metavar="DIR", default=".", help="where the comparison files go (default: .)")
    return p


def _check(args) -> None:
    """The combinations of arguments argparse cannot refuse by itself (UsageError, one line)."""
    prog = "python -m cognition.report"
    if args.groups and args.run_dirs:
        raise UsageError(f"{prog}: RUN_DIR {args.run_dirs[0]} given beside --group; put every run in a --group "
                         "(or give no --group to compare single runs)")
    if args.groups is not None and len(args.groups) < 2:
        raise UsageError(f"{prog}: --group given once; give one --group per condition, at least two")
    if not args.groups and not args.run_dirs:
        raise UsageError(f"{prog}: nothing to do; give RUN_DIR (rebuild), RUN_DIR RUN_DIR ... or --group RUN ... "
                         "--group RUN ... (compare) (see --help)")
    if args.labels is not None and len(args.labels) != len(args.groups or []):
        raise UsageError(f"{prog}: --labels {' '.join(args.labels)}: {len(args.labels)} name(s) for "
                         f"{len(args.groups or [])} --group(s); give one name per --group")
    if args.labels is not None and len(set(args.labels)) != len(args.labels):
        raise UsageError(f"{prog}: --labels {' '.join(args.labels)}: names must differ")


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        _check(args)
        if not args.groups and len(args.run_dirs) == 1:
            pngs = rebuild(args.run_dirs[0])
            run_dir = Path(args.run_dirs[0])
            print(f"rebuilt {run_dir / 'report.md'} and {run_dir / 'report.html'} with {len(pngs)} plots")
            return EXIT_OK
        from cognition.reporting import compare

        if args.groups:
            comparison = compare.compare_group_dirs(args.groups, args.labels)
        else:
            comparison = compare.compare_dirs(args.run_dirs)
        print(compare.table_text(comparison))
        for path in compare.write_files(comparison, args.out):
            print(f"wrote {path}")
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # e.g. a run directory that is read-only
        where = f" {exc.filename}:" if exc.filename else ""
        print(f"error:{where} cannot write the report ({exc.strerror or exc})", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
