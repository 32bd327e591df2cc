"""``python -m cognition.experiment ablations ...``: experiments over many runs (docs/quantum-effects.md)."""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m cognition.experiment", description=(
        "Experiments over many runs. ablations: every quantum component against its matched controls and "
        "classical stand-ins, over seeds (independent architectures), with per-contrast effects on Phi and "
        "behaviour (CI across seeds, Holm-adjusted p-values) in OUT/report.{json,md,html}."))
    sub = p.add_subparsers(dest="experiment", required=True)
    a = sub.add_parser("ablations", help="the factorial of quantum components and their controls")
    a.add_argument("--out", required=True, help="the experiment's directory (a later call with it resumes)")
    a.add_argument("--seeds", type=int, default=10, help="seeds per condition (default 10)")
    a.add_argument("--first-seed", type=int, default=0, help="seeds first-seed, first-seed + 1, ... (default 0)")
    a.add_argument("--cycles", type=int, default=200, help="cycles per run (default 200)")
    a.add_argument("--agents", type=int, default=None,
                   help="agents per run (default: the configuration's run.agents, 32)")
    a.add_argument("--config", help="a YAML configuration every condition starts from (default: the defaults)")
    a.add_argument("--quantum-mode", choices=("lite", "full"), default="lite",
                   help="how the quantum components run (default lite, as the main job)")
    a.add_argument("--conditions", help="comma-separated subset of the conditions (the all-quantum reference "
                                        "always runs); default all")
    a.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                   help="runs made in parallel processes (default: up to 2)")
    return p


def _settings(args) -> tuple[dict, list]:
    from cognition.api import configure
    from cognition.errors import UsageError
    from cognition.experiment.conditions import select

    least = {"seeds": 2, "cycles": 2, "workers": 1}
    for key, low in least.items():
        if getattr(args, key) < low:
            raise UsageError(f"--{key} {getattr(args, key)}: at least {low} allowed")
    if args.agents is not None and args.agents < 1:
        raise UsageError(f"--agents {args.agents}: at least 1 allowed")
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
    return settings, kept


def ablations(args) -> int:
    from cognition.errors import UsageError
    from cognition.experiment.ablation_report import write_report
    from cognition.experiment.ablations import RunFailed, check_settings, run_all
    from cognition.experiment.conditions import contrasts
    from cognition.provenance import git_sha

    out = Path(args.out)
    try:
        settings, conditions = _settings(args)
        check_settings(out, settings)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
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
    args = _parser().parse_args(argv)
    args.argv = argv
    return ablations(args)


if __name__ == "__main__":
    sys.exit(main())
