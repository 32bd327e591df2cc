"""``python -m cognition.sweep SWEEP.yaml``: run a grid (and random samples) of configs x seeds.

Every point is one run directory of the main job, named from its parameters,
under ``--out`` (default ``sweeps/<sweep name>``). Running the same command again
skips finished points and resumes unfinished ones from their checkpoints. The
sweep file format is in :mod:`cognition.sweeps.spec`; docs/sweeps.md has the rest.

Exit codes, as ``cognition.validate``'s for one run: 0 every point finished and met its
criteria; 1 a point did not meet its criteria (the summary line, last on stderr, says how many of
how many; the aggregate's ``passed`` column which), or a point failed or was killed past its
retries, or the sweep was stopped (run the command again to continue); 2 bad input (sweep file,
flags, an ``--out`` that holds something else): one line, nothing started. The verdict is read
from the points' report.json files, so a rerun of a finished sweep, which runs nothing, exits with
the code of the run that finished it. ``--dry-run`` exits 0 (it runs and judges nothing).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from cognition.cli import (EXIT_FAILED, EXIT_OK, EXIT_USAGE, MAX_WORKERS, OneLineParser, int_between, non_empty_path,
                           run_command)
from cognition.errors import UsageError, abbreviate

MAX_RAY_CPUS = 100_000  # --ray-cpus: CPUs of a local Ray cluster
MAX_RETRIES = 100  # --retries: resumes of one point


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{abbreviate(text)} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{value} is not allowed: expected a finite number > 0")
    return value


def _gpu_share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{abbreviate(text)} is not a number") from None
    if not value >= 0 or (value > 1 and not value.is_integer()):
        raise argparse.ArgumentTypeError(f"{value} is not allowed: expected a fraction in [0, 1] "
                                         "(GPUs shared by several points) or a whole number of GPUs")
    return value


def build_parser() -> OneLineParser:
    p = OneLineParser(prog="python -m cognition.sweep", description=(
        "Run every point of a sweep (configs x seeds), each in its own run directory; "
        "finished points are skipped, unfinished ones resumed. Exit 0 when every point finished and met its "
        "criteria, 1 when a point did not meet its criteria, failed or was killed, or the sweep stopped, "
        "2 on bad input."))
    p.add_argument("sweep", metavar="SWEEP.yaml", help="sweep file (see docs/sweeps.md)")
    p.add_argument("--out", type=non_empty_path, metavar="DIR", help="sweep directory (default sweeps/<sweep name>)")
    p.add_argument("--workers", type=int_between(1, MAX_WORKERS), metavar="N", help="local processes at once (default 1); "
                   "each is pinned to its share of the CPU cores")
    p.add_argument("--ray", action="store_true", help="run the points on a local Ray cluster")
    p.add_argument("--ray-address", metavar="ADDR", help="run the points on the existing Ray cluster at ADDR")
    p.add_argument("--ray-cpus", type=int_between(1, MAX_RAY_CPUS), metavar="N", help="CPUs of the local Ray cluster (default: all)")
    p.add_argument("--cpus-per-point", type=_positive_float, metavar="C", help="CPUs a Ray task requests (default 1)")
    p.add_argument("--gpus-per-point", type=_gpu_share, metavar="G", help="GPUs a Ray task requests, fractions allowed "
                   "(default 0)")
    p.add_argument("--retries", type=int_between(0, MAX_RETRIES), default=2, metavar="N",
                   help="resumes of a killed or stopped point before it counts as failed (default 2)")
    p.add_argument("--inject-fault", metavar="POINT:SPEC", action="append", default=[],
                   help="rehearse a failure: pass --inject-fault SPEC to point POINT (its index or name) "
                        "on its first start, e.g. 3:sigkill@8")
    p.add_argument("--dry-run", action="store_true", help="validate the sweep and list its points; run nothing")
    return p


def _check_flags(args) -> None:
    ray = args.ray or args.ray_address is not None
    if args.ray and args.ray_address:
        raise UsageError("--ray starts a local cluster and --ray-address joins one: give one of them")
    if ray and args.workers is not None:
        raise UsageError("--workers is for local processes; with Ray, size tasks with --cpus-per-point")
    ray_only = [f for f in ("ray_cpus", "cpus_per_point", "gpus_per_point") if getattr(args, f) is not None]
    if ray_only and not ray:
        raise UsageError(f"--{ray_only[0].replace('_', '-')} needs --ray or --ray-address")
    if args.ray_address and args.ray_cpus is not None:
        raise UsageError("--ray-cpus sizes a local cluster; an existing cluster (--ray-address) has its own")


def _faults(specs: list[str], spec) -> dict[str, str]:
    from cognition.runtime.faults import parse_fault_spec

    by_index = {str(p.index): p.name for p in spec.points}
    names = {p.name for p in spec.points}
    out = {}
    for text in specs:
        where, _, fault = text.partition(":")
        name = by_index.get(where, where if where in names else None)
        if name is None or not fault:
            raise UsageError(f"--inject-fault {abbreviate(text)}: expected POINT:SPEC with POINT a point's index "
                             f"(1..{len(spec.points)}) or name")
        try:
            parse_fault_spec(fault)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        out[name] = fault
    return out


def _executor(args):
    if args.ray or args.ray_address:
        from cognition.sweeps.ray_executor import RayExecutor

        return RayExecutor(address=args.ray_address, num_cpus=args.ray_cpus or os.cpu_count(),
                           cpus_per_point=args.cpus_per_point or 1.0, gpus_per_point=args.gpus_per_point or 0.0,
                           retries=args.retries)
    from cognition.sweeps.local import LocalExecutor

    return LocalExecutor(workers=args.workers or 1, retries=args.retries)


def _dry_run(spec, survey) -> int:
    print(f"sweep {spec.name}: {len(spec.points)} points over {', '.join(spec.keys)} in {survey.root}")
    for p in spec.points:
        print(f"{p.index:>5}  {survey.states[p.name]:<8}  {p.name}")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    from cognition.sweeps.root import SweepLock, survey
    from cognition.sweeps.spec import load_sweep

    with contextlib.ExitStack() as stack:
        try:
            args = build_parser().parse_args(argv)
            _check_flags(args)
            spec = load_sweep(args.sweep)
            root = Path(args.out) if args.out else Path("sweeps") / spec.name
            faults = _faults(args.inject_fault, spec)
            found = survey(spec, root)
            if args.dry_run:
                return _dry_run(spec, found)
            executor = None
            if found.to_run:
                executor = _executor(args)
                executor.open()  # Ray: start or join the cluster; a failure is one line, nothing written
                stack.callback(executor.close)
                try:
                    root.mkdir(parents=True, exist_ok=True)
                except OSError as exc:  # /proc, a read-only mount, a path under a file: before any point runs
                    raise UsageError(f"--out {root}: cannot create the sweep's directory ({exc.strerror or exc})"
                                     ) from None
                stack.enter_context(SweepLock(root))
                found = survey(spec, root)  # again, now that no other sweep can change it
        except UsageError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        return _run(spec, found, executor, faults)


def _run(spec, found, executor, faults) -> int:
    from cognition.sweeps.drive import SweepOutcome, execute, write_aggregate
    from cognition.simulator.progress import RunsProgress

    progress = RunsProgress(f"sweep {spec.name}", len(spec.points), len(found.finished), unit="points")
    outcome = SweepOutcome()
    if found.to_run:
        progress.note(f"sweep {spec.name}: {len(found.to_run)} of {len(spec.points)} points to run in "
                      f"{found.root}, on {executor.describe()}")
        progress.draw()
        outcome = execute(spec, found, executor, progress, faults=faults)
    write_aggregate(spec, found.root, outcome)
    note = "aggregate unchanged" if not outcome.table_changed else "aggregate written"
    if outcome.stopped:
        note += "; stopped: run the same command again to continue"
    verdict = outcome.criteria_note()  # from the reports, so a rerun that runs nothing gives the same code
    progress.close(f"{note}; {verdict}" if verdict else note)
    for path in outcome.tables + outcome.plots:
        print(path)
    return EXIT_FAILED if outcome.failed or outcome.stopped or outcome.criteria_not_met else EXIT_OK


if __name__ == "__main__":
    run_command(main)
