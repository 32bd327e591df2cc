"""Start-up and the main job, timed side by side in two checkouts (issue 32: before and after the house moved).

    git worktree add /tmp/before bfed8e2
    python benchmarks/before_after_timing.py --before /tmp/before --after . --repeats 5

Alternates the two trees call by call (so both see the same machine load) and prints the median wall time of
`python -c "import cognition"`, `python -c "import cognition.phi"`, `python -m cognition.validate --help` and
the main job (`python -m cognition.validate --cycles 50 --quantum-lite`, end to end, with its phase lines:
cycles, analysis, report). Each tree runs with PYTHONPATH set to itself, from its own directory.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STARTUP = {"import cognition": ["-c", "import cognition"],
           "import cognition.phi": ["-c", "import cognition.phi"],
           "validate --help": ["-m", "cognition.validate", "--help"]}
MAIN_JOB = ["-m", "cognition.validate", "--cycles", "50", "--quantum-lite"]
PHASES = re.compile(r"cycles: \d+/\d+ .*done|analysis: done in|report: done in")


def timed(root: Path, args: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    env = dict(os.environ, PYTHONPATH=str(root))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True)
    return time.perf_counter() - t0, proc


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", type=Path, required=True, help="the checkout before (a git worktree)")
    p.add_argument("--after", type=Path, default=Path("."), help="the checkout after (default: here)")
    p.add_argument("--repeats", type=int, default=5, help="calls per tree and case (median; default 5)")
    p.add_argument("--startup-repeats", type=int, default=9, help="calls per tree for the start-up cases")
    p.add_argument("--json", type=Path, help="also write the times as JSON")
    args = p.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    times = {case: {t: [] for t in trees} for case in [*STARTUP, "main job"]}
    phases = {t: [] for t in trees}
    for _ in range(args.startup_repeats):
        for case, cmd in STARTUP.items():
            for t, root in trees.items():
                seconds, proc = timed(root, cmd)
                if proc.returncode != 0:
                    sys.exit(f"{t}: {case} failed: {proc.stderr[-500:]}")
                times[case][t].append(seconds)
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            for t, root in trees.items():
                out = Path(tmp) / f"{t}-{i}"
                seconds, proc = timed(root, [*MAIN_JOB, "--out", str(out)])
                if proc.returncode not in (0, 1):
                    sys.exit(f"{t}: the main job failed: {proc.stderr[-500:]}")
                times["main job"][t].append(seconds)
                phases[t].append([line for line in proc.stderr.splitlines() if PHASES.search(line)])
                shutil.rmtree(out, ignore_errors=True)
    print(f"{'case':<22} {'before':>10} {'after':>10}   (median wall seconds; load average "
          f"{os.getloadavg()[0]:.2f})")
    for case, by_tree in times.items():
        print(f"{case:<22} {statistics.median(by_tree['before']):>10.3f} {statistics.median(by_tree['after']):>10.3f}")
    for t in trees:
        print(f"main job phases ({t}, last call): {'; '.join(phases[t][-1])}")
    result = {"times": times, "phases": phases, "trees": {t: str(r) for t, r in trees.items()}}
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
