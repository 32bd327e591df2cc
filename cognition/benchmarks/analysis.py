"""``python -m cognition.bench analysis``: the end-of-run analysis against the cycles' own time (issue 45).

Each measurement is the main job in a fresh process (``python -m cognition.validate --disable-quantum
--cycles C --agents A``, the yoked control on, as the main job runs), its phases read from its own progress
lines (``cycles: ... s, done``, ``analysis: done in ... s``, ``report: done in ... s``) and its peak RSS
from report.json (``telemetry.mem_peak_rss_bytes``, the process's, cycles included). Sizes: every
``--cycles`` at ``--agents-at`` agents, then every ``--agents`` at ``--cycles-at`` cycles. Beside each row,
the arithmetic floor of the analysis's sufficient statistics: every batch row's lagged covariance
((2 n)^2 multiply-adds per sample) for the data and each of the bias correction's simulated ensembles, and
the integration test's agent-pair cross-products (n^2 per sample, 2 lag + 1 shifts, numerator and
denominator, for at most A^2 pairs), counted as 2 flops each: what a single pass over the samples costs.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cognition.benchmarks import refuse, suite_parser
from cognition.cli import int_between
from cognition.phi.agents import BIAS_REPLICATES

MAX_AGENT_CYCLES = 2 * 10**7  # agents x cycles of one run (its unit history: 4 rows x 7 units x 8 B each)
ROWS_PER_AGENT = 4            # the agent, its donor and its two twins (the yoked control, the main job's default)
UNITS = 7                     # the main job's units of Phi
PHASES = {"cycles": re.compile(r"^cycles: \d+/\d+ \(100 %\) ([\d.]+) s, done"),
          "analysis": re.compile(r"^analysis: done in ([\d.]+) s"),
          "report": re.compile(r"^report: done in ([\d.]+) s")}


def floor_flops(agents: int, cycles: int, n: int = UNITS, lag: int = 1) -> dict:
    """The arithmetic floor of the analysis's sufficient statistics (module docstring), in flops."""
    rows = ROWS_PER_AGENT * agents
    covariances = 2 * (1 + BIAS_REPLICATES) * rows * cycles * (2 * n) ** 2
    pairs = min(agents * agents, agents * 201)  # the identity and 200 permutations' (a, pi(a)), at most A^2
    test = 2 * 2 * (2 * lag + 1) * pairs * cycles * n * n
    return {"covariances": covariances, "test_pairs": test, "total": covariances + test}


def _phases(stderr: str) -> dict:
    found = {}
    for line in stderr.splitlines():
        for name, pattern in PHASES.items():
            match = pattern.match(line.strip())
            if match:
                found[name] = float(match.group(1))
    return found


def measure(agents: int, cycles: int, workdir: Path) -> dict:
    """One main job of ``agents`` x ``cycles`` in a fresh process: its phases (s), peak RSS and wall time."""
    out = workdir / f"a{agents}-c{cycles}"
    # through the sweeps' launcher, which execs cognition.validate bound to this process: it dies with us
    cmd = [sys.executable, "-m", "cognition.sweeps.launch", str(os.getpid()), "--", "--disable-quantum",
           "--cycles", str(cycles), "--agents", str(agents), "--out", str(out)]
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if res.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} exited {res.returncode}: {res.stderr.strip()[-500:]}")
    phases = _phases(res.stderr)
    missing = [p for p in PHASES if p not in phases]
    if missing:
        raise RuntimeError(f"{' '.join(cmd)}: no progress line for {', '.join(missing)}")
    report = json.loads((out / "report.json").read_text())
    flops = floor_flops(agents, cycles)
    return {"agents": agents, "cycles": cycles, **{f"{k}_s": v for k, v in phases.items()}, "process_wall_s": wall,
            "analysis_over_cycles": phases["analysis"] / max(phases["cycles"], 1e-9),
            "peak_rss_bytes": report["telemetry"]["mem_peak_rss_bytes"], "floor_flops": flops,
            "analysis_gflops_per_s_of_floor": flops["total"] / 1e9 / max(phases["analysis"], 1e-9)}


def main(argv: list[str] | None = None) -> dict:
    p = suite_parser("analysis", description=__doc__.splitlines()[0])
    p.add_argument("--cycles", type=int_between(20, 1_000_000), nargs="+", default=[50, 500, 5000],
                   help="run lengths at --agents-at agents (20 to 1000000; default 50 500 5000; 20000 is the issue's)")
    p.add_argument("--agents-at", type=int_between(5, 100_000), default=32, help="agents of the --cycles rows (default 32)")
    p.add_argument("--agents", type=int_between(5, 100_000), nargs="*", default=[8, 32, 256],
                   help="agent counts at --cycles-at cycles (5 to 100000; default 8 32 256; none: skip)")
    p.add_argument("--cycles-at", type=int_between(20, 1_000_000), default=500,
                   help="run length of the --agents rows (default 500)")
    args = p.parse_args(argv)
    sizes = [(args.agents_at, c) for c in args.cycles] + [(a, args.cycles_at) for a in args.agents]
    refuse([f"--agents {a} x --cycles {c}: {a * c:,} agent-cycles, above the limit of {MAX_AGENT_CYCLES:,} per run"
            for a, c in sizes if a * c > MAX_AGENT_CYCLES])
    sizes = list(dict.fromkeys(sizes))
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-analysis-") as tmp:
        for agents, cycles in sizes:
            row = measure(agents, cycles, Path(tmp))
            rows.append(row)
            print(f"{agents} agents x {cycles} cycles: cycles {row['cycles_s']:.1f} s, analysis {row['analysis_s']:.1f} s "
                  f"({row['analysis_over_cycles']:.2f}x the cycles), report {row['report_s']:.1f} s, process "
                  f"{row['process_wall_s']:.1f} s, peak RSS {row['peak_rss_bytes'] / 2**20:.0f} MiB; floor "
                  f"{row['floor_flops']['total'] / 1e9:.2f} GFLOP ({row['analysis_gflops_per_s_of_floor']:.2f} "
                  "GFLOP/s of floor in the analysis)", flush=True)
    return {"settings": vars(args), "rows": rows}
