"""Cost flat in run length: the numbers issue 17 asks for, from real runs of the main job.

Each measurement is ``python -m cognition.validate`` in a fresh process, read back from its
run directory:

* per-cycle time over the first ``--first`` cycles when ``--planned`` cycles are planned
  (the run is stopped with ``--inject-fault sigterm@N`` after them): the mean of
  ``timing.wall_s`` (everything a cycle costs: step, Phi, files, checkpoints) and of
  ``timing.cycle_s`` (the step alone), and their ratio to the first plan; medians over
  ``--repeats`` runs per plan, interleaved;
* a ``--long`` run: RSS at cycle ``--rss-from`` (1 000) and at its end
  (``telemetry.mem_rss_bytes``, CPU), the sizes of its checkpoints, and the peak RSS of the
  whole process, report included (``ru_maxrss`` of the child), beside the same for a run
  of ``--rss-from`` cycles.
"""
from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from cognition.benchmarks import refuse, suite_parser
from cognition.cli import int_between
from cognition.simulator.rundir import CHECKPOINTS, METRICS

MAX_CYCLES = 1_000_000  # --planned and --long (each run writes its unit history: rows x 7 units x 8 B a cycle)
MAX_AGENT_CYCLES = 10**7  # --agents x the longest run actually made (--long, --first + 1)


def _run(out: Path, cycles: int, agents: int, stop_after: int | None) -> dict:
    # through the sweeps' launcher, which execs cognition.validate bound to this process: it dies with us
    cmd = [sys.executable, "-m", "cognition.sweeps.launch", str(os.getpid()), "--", "--disable-quantum",
           "--cycles", str(cycles), "--agents", str(agents), "--out", str(out)]
    if stop_after is not None and stop_after < cycles:
        cmd += ["--inject-fault", f"sigterm@{stop_after}"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} exited {res.returncode}: {res.stderr.strip()[-500:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # max over children so far, KiB
    records = [json.loads(line) for line in (out / METRICS).read_text().splitlines()]
    sizes = [json.loads(m.read_text())["bytes"] for m in sorted((out / CHECKPOINTS).glob("ckpt-*.json"))]
    return {"records": records, "checkpoint_bytes": sizes, "peak_rss_kib": peak if peak > before else None}


def _mean_ms(records, key: str, first: int) -> float:
    return 1e3 * statistics.mean(r["timing"][key] for r in records[1:first])  # cycle 1 is warm-up


def main(argv: list[str] | None = None) -> dict:
    p = suite_parser("runtime", description=f"Per-cycle time by planned run length, RSS growth and checkpoint "
                     f"size over a long run, from real runs of the main job. --agents x the longest run made "
                     f"(--long, --first + 1) is refused above {MAX_AGENT_CYCLES:,} agent-cycles, one line, exit 2.")
    p.add_argument("--planned", type=int_between(2, MAX_CYCLES), nargs="+", default=[400, 100_000],
                   help=f"planned run lengths (2 to {MAX_CYCLES}; each stopped after --first + 1 cycles)")
    p.add_argument("--first", type=int_between(2, MAX_CYCLES), default=400,
                   help="cycles timed at the start of each (2 to the shortest --planned)")
    p.add_argument("--repeats", type=int_between(1, 100), default=3,
                   help="runs per plan, interleaved; medians reported (1 to 100)")
    p.add_argument("--long", type=int_between(1, MAX_CYCLES), default=20_000,
                   help=f"cycles of the long run (RSS, checkpoints; 1 to {MAX_CYCLES})")
    p.add_argument("--rss-from", type=int_between(1, MAX_CYCLES), default=1000,
                   help="cycle RSS growth is measured from (1 to --long)")
    p.add_argument("--agents", type=int_between(1, 4096), default=8, help="agents per run (1 to 4096; default 8)")
    args = p.parse_args(argv)
    bad = []
    if args.first > min(args.planned):
        bad.append(f"--first {args.first}: allowed 2 to the shortest --planned ({min(args.planned)})")
    if args.rss_from > args.long:
        bad.append(f"--rss-from {args.rss_from}: allowed 1 to --long ({args.long})")
    longest = max(args.long, args.first + 1)
    if args.agents * longest > MAX_AGENT_CYCLES:
        bad.append(f"--agents {args.agents} x {longest} cycles (the longest run: --long, --first + 1): "
                   f"{args.agents * longest:,} agent-cycles; allowed at most {MAX_AGENT_CYCLES:,}")
    refuse(bad)
    out: dict = {"planned": [], "long": {}}
    with tempfile.TemporaryDirectory() as tmp:
        timed: dict = {planned: [] for planned in args.planned}
        for rep in range(args.repeats):  # interleaved, so that load on a shared machine hits every plan alike
            for planned in args.planned:
                r = _run(Path(tmp) / f"plan{planned}-{rep}", planned, args.agents, args.first + 1)
                timed[planned].append((_mean_ms(r["records"], "wall_s", args.first),
                                       _mean_ms(r["records"], "cycle_s", args.first)))
        for planned, rows in timed.items():
            out["planned"].append({"planned": planned, "wall_ms": statistics.median(w for w, _ in rows),
                                   "step_ms": statistics.median(s for _, s in rows),
                                   "wall_ms_each": [w for w, _ in rows]})
        for name, cycles in (("short", args.rss_from), ("long", args.long)):
            r = _run(Path(tmp) / name, cycles, args.agents, None)
            rss = [rec["telemetry"].get("mem_rss_bytes") for rec in r["records"]]
            out["long"][name] = {"cycles": cycles, "rss_from_mib": rss[args.rss_from - 1] / 2**20,
                                 "rss_at_end_mib": rss[-1] / 2**20,
                                   "checkpoint_bytes": r["checkpoint_bytes"], "peak_rss_kib": r["peak_rss_kib"]}
    base = out["planned"][0]
    print(f"{'planned':>9} {'wall ms/cycle':>14} {'step ms/cycle':>14} {'wall vs ' + str(base['planned']):>12}")
    for row in out["planned"]:
        row["wall_ratio"] = row["wall_ms"] / base["wall_ms"]
        print(f"{row['planned']:>9} {row['wall_ms']:>14.3f} {row['step_ms']:>14.3f} {row['wall_ratio']:>12.3f}")
    for row in out["long"].values():
        cycles = row["cycles"]
        growth = row["rss_at_end_mib"] / row["rss_from_mib"] - 1
        row["rss_growth"] = growth
        peak = f"{row['peak_rss_kib'] / 1024:.0f} MiB" if row["peak_rss_kib"] else "n/a"
        print(f"{cycles} cycles: RSS {row['rss_from_mib']:.1f} MiB at cycle {args.rss_from}, "
              f"{row['rss_at_end_mib']:.1f} MiB "
              f"at the end ({100 * growth:+.1f} %); checkpoints {row['checkpoint_bytes']} bytes; "
              f"process peak RSS {peak}")
    return out
