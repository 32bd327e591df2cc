"""The run report, and ``python -m cognition.report``: rebuild a run's report, or compare runs.

A run's report is ``report.json`` (the numbers), ``report.md`` with PNG plots beside it
and ``report.html``, which embeds the plots so it is one file. Everything in them is a
function of the run directory (config.yaml, provenance.json, metrics.jsonl, report.json
and the newest checkpoint's unit signals), so ``python -m cognition.report RUN_DIR``
rebuilds them.

    python -m cognition.report RUN_DIR                  rebuild RUN_DIR's report
    python -m cognition.report RUN_A RUN_B [...] [--labels NAME NAME ...] [--out DIR]
                                                        compare runs, one per condition: a
                                                        table on stdout, comparison.md/.html/
                                                        .png/.json in DIR; the test speaks
                                                        for one architecture per side
    python -m cognition.report --group RUN [RUN ...] --group RUN [RUN ...] [...]
                               [--labels NAME NAME ...] [--out DIR]
                                                        compare conditions of several runs
                                                        (seeds) each: Welch's t across runs
    python -m cognition.report SWEEP_DIR [--labels NAME ...] [--out DIR]
                                                        compare a sweep's finished points:
                                                        points that differ only in their seed
                                                        are one condition (--group)

Runs and groups are named by the settings that differ between them (config.yaml; the fields that
only change how a run executes do not count), e.g. ``seed=3`` or ``workspace.threshold=0.5``; a
group by the settings its runs share (not the seed of its replicates); by their mode when no
setting differs; or by ``--labels``.

Exit codes: 0 done; 2 bad input (a path that is not a finished run, a damaged ``unit_history.npy`` (unreadable,
or fewer cycles than ``metrics.jsonl``: the file and the problem named), a run given twice,
RUN_DIR arguments mixed with ``--group``, one ``--group`` only, ``--labels`` not one distinct name
per RUN_DIR, group or sweep condition, a sweep directory beside other runs or ``--group``, a sweep
with fewer than two finished points, an unwritable ``--out``): one line on stderr, no traceback.
A sweep's points that are not finished are left out of its comparison, named in one line on stderr.
"""
from __future__ import annotations

import sys
from pathlib import Path

from cognition.cli import EXIT_OK, EXIT_USAGE, OneLineParser, run_command
from cognition.errors import UsageError

PROG = "python -m cognition.report"


def _parser() -> OneLineParser:
    p = OneLineParser(prog=PROG, description=(
        "Rebuild a run's report (one RUN_DIR), or compare runs side by side: several RUN_DIRs (one run per "
        "condition; the test resamples agents within each run's seed and speaks for those architectures), "
        "--group twice or more (several runs, i.e. seeds, per condition; Welch's t test across runs), or one "
        "SWEEP_DIR (a sweep's finished points; points that differ only in their seed form one condition). Runs "
        "and groups are named by the settings that differ between them. A table on stdout and comparison.md, "
        "comparison.html, comparison.png and comparison.json in --out. Exit 0 done, 2 bad input."))
    p.add_argument("run_dirs", nargs="*", metavar="RUN_DIR", help="run directories written by cognition.validate, "
                                                                  "or one sweep directory (cognition.sweep's --out)")
    p.add_argument("--group", action="append", nargs="+", metavar="RUN", dest="groups",
                   help="the runs of one condition (one per seed); give --group once per condition")
    p.add_argument("--labels", nargs="+", metavar="NAME", help="a name for each RUN_DIR, each --group or each "
                   "condition of a SWEEP_DIR, in order (default: the settings that differ between them)")
    p.add_argument("--out", metavar="DIR", default=".", help="where the comparison files go (default: .)")
    return p


def _check(args, sweeps: list[str]) -> None:
    """The combinations of arguments argparse cannot refuse by itself (UsageError, one line); ``sweeps``: the
    arguments that are sweep directories."""
    if sweeps and (args.groups or len(args.run_dirs) > 1):
        raise UsageError(f"{PROG}: {sweeps[0]} is a sweep's directory; give it alone to compare its finished "
                         f"points ({PROG} {sweeps[0]}), not beside other runs or --group")
    if args.groups and args.run_dirs:
        raise UsageError(f"{PROG}: RUN_DIR {args.run_dirs[0]} given beside --group; put every run in a --group "
                         "(or give no --group to compare single runs)")
    if args.groups is not None and len(args.groups) < 2:
        raise UsageError(f"{PROG}: --group given once; give one --group per condition, at least two")
    if not args.groups and not args.run_dirs:
        raise UsageError(f"{PROG}: nothing to do; give RUN_DIR (rebuild), RUN_DIR RUN_DIR ..., --group RUN ... "
                         "--group RUN ... or SWEEP_DIR (compare) (see --help)")
    if args.labels is None:
        return
    if len(set(args.labels)) != len(args.labels):
        raise UsageError(f"{PROG}: --labels {' '.join(args.labels)}: names must differ")
    if not args.groups and len(args.run_dirs) == 1 and not sweeps:
        raise UsageError(f"{PROG}: --labels {' '.join(args.labels)}: names the runs of a comparison; one RUN_DIR "
                         "rebuilds its report (give two RUN_DIRs or more to compare them)")
    what, count = ("--group", len(args.groups)) if args.groups else ("RUN_DIR", len(args.run_dirs))
    if not sweeps and len(args.labels) != count:
        raise UsageError(f"{PROG}: --labels {' '.join(args.labels)}: {len(args.labels)} name(s) for {count} "
                         f"{what}(s); give one name per {what}")


def _sweep_comparison(path: str, labels: list[str] | None) -> dict:
    """The comparison of the finished points of the sweep directory ``path``; the points left out in one line
    on stderr."""
    from cognition.reporting import compare
    from cognition.sweeps.root import comparison_groups

    groups, left_out = comparison_groups(path)
    if labels is not None and len(labels) != len(groups):
        kind = "settings (each one or more seeds)" if any(len(g) > 1 for g in groups) else "finished points"
        raise UsageError(f"{PROG}: --labels {' '.join(labels)}: {len(labels)} name(s) for the {len(groups)} "
                         f"{kind} of sweep {path}; give one name for each, in sweep order")
    if left_out:
        shown = ", ".join(left_out[:3]) + (f" and {len(left_out) - 3} more" if len(left_out) > 3 else "")
        print(f"note: sweep {path}: {len(left_out)} point(s) left out, not finished: {shown}", file=sys.stderr)
    return compare.compare_group_dirs(groups, labels)


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        from cognition.sweeps.root import is_sweep_dir  # here: --help stays fast

        _check(args, [p for p in args.run_dirs + [r for g in args.groups or [] for r in g] if is_sweep_dir(p)])
        if not args.groups and len(args.run_dirs) == 1 and not is_sweep_dir(args.run_dirs[0]):
            from cognition.reporting.run_report import rebuild  # here: --help and bad input stay fast

            pngs = rebuild(args.run_dirs[0])
            run_dir = Path(args.run_dirs[0])
            print(f"rebuilt {run_dir / 'report.md'} and {run_dir / 'report.html'} with {len(pngs)} plots")
            return EXIT_OK
        from cognition.reporting import compare

        if args.groups:
            comparison = compare.compare_group_dirs(args.groups, args.labels)
        elif len(args.run_dirs) == 1:
            comparison = _sweep_comparison(args.run_dirs[0], args.labels)
        else:
            comparison = compare.compare_dirs(args.run_dirs, args.labels)
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
    run_command(main)
