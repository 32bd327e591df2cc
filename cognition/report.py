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

import sys
from pathlib import Path

from cognition.cli import EXIT_OK, EXIT_USAGE, OneLineParser
from cognition.errors import UsageError


def _parser() -> OneLineParser:
    p = OneLineParser(prog="python -m cognition.report", description=(
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
            from cognition.reporting.run_report import rebuild  # here: --help and bad input stay fast

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
