"""``python -m cognition.experiment ablations ...``: experiments over many runs (docs/quantum-effects.md); ``iit4``:
IIT 4.0 of the running architecture by intervention (docs/iit4.md, cognition/experiment/intervention.py)."""
from __future__ import annotations

import os
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

from cognition.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, MAX_WORKERS, OneLineParser, int_between, run_command
from cognition.config.settings import MAX_CYCLES
from cognition.errors import ConfigError, RunFailed, UsageError, abbreviate
from cognition.experiment import intervention

MAX_SEEDS = 10_000  # seeds per condition (runs: conditions x seeds)


def _parser() -> OneLineParser:
    p = OneLineParser(prog="python -m cognition.experiment", description=(
        "Experiments over many runs. ablations: every quantum component against its matched controls and "
        "classical stand-ins, over seeds (independent architectures), with per-contrast effects on Phi and "
        "behaviour (CI across seeds, Holm-adjusted p-values) in OUT/report.{json,md,html}. Bad input (a flag "
        "value out of range, a run that cannot fit host memory with --workers runs at once by the runs' own plan, "
        "runs that cannot fit the free disk, an --out that is a file): one line, exit 2, before anything is "
        "written. iit4: IIT 4.0 of each agent's loop by intervention (docs/iit4.md)."))
    sub = p.add_subparsers(dest="experiment", required=True)
    intervention.add_parser(sub)
    a = sub.add_parser("ablations", help="the factorial of quantum components and their controls",
                       description="The factorial of quantum components and their controls (see --help of "
                                   "python -m cognition.experiment).")
    a.add_argument("--out", required=True, help="the experiment's directory (a later call with it resumes)")
    a.add_argument("--seeds", type=int_between(2, MAX_SEEDS), default=10,
                   help=f"seeds per condition (2 to {MAX_SEEDS}; default 10)")
    a.add_argument("--first-seed", type=int_between(0, 2**31), default=0,
                   help="seeds first-seed, first-seed + 1, ... (0 to 2^31; default 0)")
    a.add_argument("--cycles", type=int_between(2, MAX_CYCLES), default=200,
                   help=f"cycles per run (2 to {MAX_CYCLES}; default 200)")
    a.add_argument("--agents", type=int_between(1, 2**30), default=None,
                   help="agents per run (default: the configuration's run.agents, 32; as many as fit host memory "
                        "--workers runs at a time)")
    a.add_argument("--config", help="a YAML configuration every condition starts from (default: the defaults)")
    a.add_argument("--quantum-mode", choices=("lite", "full"), default="lite",
                   help="how the quantum components run (default lite, as the main job)")
    a.add_argument("--conditions", help="comma-separated subset of the conditions (the all-quantum reference "
                                        "always runs); default all")
    a.add_argument("--workers", type=int_between(1, MAX_WORKERS), default=min(2, os.cpu_count() or 1),
                   help=f"runs made in parallel processes (1 to {MAX_WORKERS}; default: up to 2)")
    return p


def _settings(args) -> tuple[dict, list]:
    from cognition.api import configure
    from cognition.experiment.conditions import select

    config_text = None
    if args.config:
        path = Path(args.config)
        if not path.is_file():
            raise UsageError(f"--config {args.config}: no such file")
        config_text = path.read_text()
    cfg = configure(path=args.config)  # every field checked before any run starts
    try:
        chosen = select(args.conditions.split(",") if args.conditions else None)
    except ValueError as exc:
        raise UsageError(f"--conditions {args.conditions}: {exc}") from None
    enabled = set(cfg.modules.enabled)
    kept = [c for c in chosen if set(c.overrides.get("modules", {})) <= enabled
            and not (c.measured and "unconscious" not in enabled)]
    for c in chosen:
        if c not in kept:
            print(f"ablations: {c.name} left out: its module is not enabled in this configuration", flush=True)
    settings = {"seeds": list(range(args.first_seed, args.first_seed + args.seeds)), "cycles": args.cycles,
                "agents": args.agents or cfg.run.agents, "quantum_mode": args.quantum_mode,
                "config": str(Path(args.config).resolve()) if args.config else None, "config_text": config_text,
                "conditions": [c.name for c in kept]}
    _check_resources(args, settings, kept)
    return settings, kept


def _check_resources(args, settings: dict, kept: list) -> None:
    """UsageError, before anything is written, when one run (the all-quantum reference, with the settings'
    seeds, cycles and agents) does not fit host memory with --workers of them at a time, or every run's unit
    history and metrics do not fit the free disk under --out: the runs' own plan (cognition.runtime.planner,
    as a run checks itself at its start)."""
    from cognition.api import configure
    from cognition.experiment.ablations import config_sections
    from cognition.runtime.memlimits import host_limits
    from cognition.runtime.planner import check_disk, check_host, free_disk_bytes
    from cognition.simulator.session import Session

    try:
        cfg = configure(path=args.config, **config_sections(settings, {}, settings["seeds"][-1]))
    except ConfigError as exc:  # the flags above a --config file's valid fields
        raise UsageError(f"{exc} (from --cycles, --agents or --quantum-mode with --config)") from None
    n_units = Session._n_units(cfg)
    # --workers runs at a time share MemAvailable and a cgroup's limit; RLIMIT_AS is each process's own
    limits = host_limits()
    for shared in ([limits] if args.workers == 1 else [limits, [
            lim if lim.kind == "virtual" else replace(lim, headroom_bytes=lim.headroom_bytes // args.workers)
            for lim in limits]]):
        try:
            check_host(cfg, n_units, limits=shared)
        except ConfigError as exc:
            flag = "--agents" if exc.field == "run.agents" else "--cycles"
            note = "" if shared is limits else f"; with --workers {args.workers} each run has 1/{args.workers} of it"
            raise UsageError(f"{flag} {abbreviate(exc.value)}: expected {exc.allowed}{note}") from None
    runs = len(kept) * len(settings["seeds"])
    one = check_disk(cfg, n_units, run_dir=args.out, free_disk=None)["disk_bytes"]
    free = free_disk_bytes(args.out)
    if free is not None and one * runs > free:
        raise UsageError(f"--cycles {args.cycles} x {runs} runs (--seeds x conditions): their unit histories and "
                         f"metrics need about {one * runs / 2**30:.3g} GiB, {free / 2**30:.3g} GiB is free under "
                         f"--out {abbreviate(args.out)}; lower --cycles, --agents or --seeds")


def ablations(args) -> int:
    from cognition.experiment.ablation_report import write_report
    from cognition.experiment.ablations import check_settings, run_all
    from cognition.experiment.conditions import contrasts
    from cognition.simulator.provenance import git_sha

    out = Path(args.out)
    try:
        if out.exists() and not out.is_dir():
            raise UsageError(f"--out {abbreviate(args.out)}: is a file, not a directory; choose a new or empty "
                             "directory")
        above = next((p for p in out.absolute().parents if p.exists()), None)
        if above is not None and not above.is_dir():
            raise UsageError(f"--out {abbreviate(args.out)}: cannot create the experiment's directory ({above} is "
                             "a file, not a directory)")
        settings, conditions = _settings(args)
        check_settings(out, settings)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # the claim (mkdir, experiment.json) failed: a parent that is a file, no permission
        print(f"error: --out {abbreviate(args.out)}: cannot create the experiment's directory "
              f"({exc.strerror or exc})", file=sys.stderr)
        return EXIT_USAGE
    t0 = time.perf_counter()
    resume = "python -m cognition.experiment " + " ".join(sys.argv[1:] if args.argv is None else args.argv)
    try:
        found = run_all(out, settings, conditions, args.workers)
    except RunFailed as exc:
        print(f"error: {exc}; the finished runs are kept, resume with: {resume}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print(f"stopped; the finished runs are kept, resume with: {resume}", file=sys.stderr)
        return EXIT_FAILED
    wall = time.perf_counter() - t0
    shas = sorted({str(s.get("git_sha")) for runs in found.values() for s in runs.values()})
    report_settings = dict({k: v for k, v in settings.items() if k != "config_text"}, wall_seconds_this_call=wall,
                           workers=args.workers, git_sha=", ".join(shas), command=resume, current_git_sha=git_sha())
    paths = write_report(out, found, [asdict(c) for c in conditions],
                         [asdict(c) for c in contrasts([c.name for c in conditions])], report_settings)
    print(f"ablations: {sum(len(v) for v in found.values())} runs, {wall:.0f} s this call; report: "
          f"{paths.get('md', out / 'report.md')}", flush=True)
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except UsageError as exc:  # an unknown subcommand, flag or value: one line, not usage text
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    args.argv = argv
    return intervention.run(args) if args.experiment == "iit4" else ablations(args)


if __name__ == "__main__":
    run_command(main)
