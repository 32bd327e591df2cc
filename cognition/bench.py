"""``python -m cognition.bench``: speed and memory benchmarks, measured side by side.

Each suite lives in ``cognition/benchmarks/<suite>.py`` and exposes
``main(argv) -> dict``: it parses its own flags, prints a text table and returns
JSON-able results. Ratios are always measured within one run, because shared
machines are noisy.

    python -m cognition.bench                 # every suite
    python -m cognition.bench phi --json out.json
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

from cognition.cli import OneLineParser, check_output_file, non_empty_path, refusing_usage, run_command

SUITES = {
    "phi": "Gaussian Phi: exhaustive MIB (n=4..16) and Queyranne (n=32..128)",
    "quantum": "random parameter sets: per-set Aer loop vs one batched Aer call vs torch statevector",
    "iit3": "exact IIT 3.0 Phi by node count",
    "iit4": "exact IIT 4.0 phi_s and the Phi-structure by node count, batched states, PyPhi 2.0 side by side",
    "agents": "cycles/s and agent-cycles/s per mode and agent count, batch vs per-agent loop",
    "runtime": "per-cycle time by planned run length, RSS growth and checkpoint size over a long run",
    "calibration": "false-positive rates and power of the integration test, bias, CI coverage on an exact VAR(1)",
    "meanci": "coverage of the report's CI of mean per-cycle Phi on a stationary VAR(1)",
    "workspace": "competition figures and the loop criterion over seeds, with its null (twins to other donors) "
                 "and both lesions",
    "directions": "power and false positives of the loop test on linear toys with the loop's timing: closed loops "
                  "(with and without module memory), relays and feedforward workspaces",
    "compare": "false-positive rate of cognition.report's across-run test (headline Phi) on same-mode, "
               "different-seed groups",
    "analysis": "the end-of-run analysis's time and peak memory against the cycles' own, by run length and agents, "
                "beside the arithmetic floor of its statistics",
    "lag": "lag='auto' on coupled oscillators and their shuffled controls (power, false positives), and its rule "
           "against known time scales",
    "intervention": "IIT 4.0 by intervention on known networks through the real loop (error, interval coverage, "
                    "test), and its cost on the architecture",
}


def _parser() -> OneLineParser:
    p = OneLineParser(
        prog="python -m cognition.bench", add_help=False,
        description="Benchmarks. Suites: " + "; ".join(f"{k}: {v}" for k, v in SUITES.items())
                    + ". A suite's own flags: python -m cognition.bench SUITE --help.",
    )
    p.add_argument("-h", "--help", action="store_true", help="show this help (or, after a suite, the suite's)")
    p.add_argument("suite", nargs="?", choices=sorted(SUITES), help="suite to run (default: all)")
    p.add_argument("--json", metavar="FILE", type=non_empty_path, help="also write the results as JSON to FILE")
    return p


def main(argv: list[str] | None = None) -> int:
    """Exit 0 done; 2 bad input (an unknown suite, a flag or value a suite does not allow, a --json path whose
    directory is missing): one line on stderr, before any work and before anything is written."""
    return refusing_usage(_main, argv)  # a suite's parser (OneLineParser) or its own checks


def _main(argv: list[str] | None) -> int:
    parser = _parser()
    args, rest = parser.parse_known_args(argv)
    if args.help and args.suite:
        rest = ["--help"]  # the suite's own parser prints its flags and exits
    elif args.help:
        parser.print_help()
        return 0
    elif rest and not args.suite:
        print(f"error: {rest[0]}: a suite's flag; name the suite first (python -m cognition.bench SUITE "
              f"{' '.join(rest)}; SUITE --help lists its flags)", file=sys.stderr)
        return 2
    if args.json is not None:
        check_output_file("--json", args.json)
    suites = [args.suite] if args.suite else list(SUITES)
    results = {}
    for name in suites:
        module = importlib.import_module(f"cognition.benchmarks.{name}")
        if not args.help:
            print(f"== {name}: {SUITES[name]}")
        results[name] = module.main(rest if args.suite else [])
    if args.json is not None:
        Path(args.json).write_text(json.dumps(results, indent=2, default=float))
    return 0


if __name__ == "__main__":
    run_command(main)
