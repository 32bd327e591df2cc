"""The integration test alone on the calibration's own null systems, at any size and number of draws.

    python benchmarks/cut_test_level.py --sizes 32x200,8x50 --families 4,6,10 --systems 1000 [--json OUT]

Each system is the one ``python -m cognition.bench calibration --seed 1`` draws for that family, size and index
(``null_system`` with the bench's own generator), so the first 200 are the record's; the test
(``cognition.phi.cut_test.every_cut_test``, 200 permutations) runs on the units as the per-agent estimate
prepares them, with permutations from a stream of its own (seed [7, index]) rather than the estimate's, and
without the estimate's bias bootstrap (the test does not depend on it): the test's level at sizes and numbers
of draws the record does not hold (docs/calibration.md, 0.10.0). Prints one line per family and size: the
rejection rate at alpha 0.05 with its Clopper-Pearson 95 % interval. The real-run family is not offered (its
systems need the loop's runs at 50 cycles).
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from cognition.benchmarks.calibration import NULL_FAMILIES, REAL, _families, _rng, _sizes, null_system
from cognition.benchmarks.compare import rate
from cognition.cli import OneLineParser, check_output_file, int_between, non_empty_path, refusing_usage, run_command
from cognition.phi.agents import prepared
from cognition.phi.cut_test import every_cut_test



def _null_families(text: str) -> tuple:
    """The bench's family indices, less the real-run family (its systems need the loop's runs)."""
    chosen = _families(text)
    if REAL in chosen:
        raise argparse.ArgumentTypeError(f"{text!r}: the real-run family ({NULL_FAMILIES.index(REAL)}) is not offered")
    return chosen


def main(argv=None) -> int:
    return refusing_usage(_main, argv)


def _main(argv) -> int:
    p = OneLineParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=_sizes, default=_sizes("32x50"), help="agents x cycles (default 32x50)")
    p.add_argument("--families", type=_null_families, required=True, help="null family indices, as the bench's")
    p.add_argument("--systems", type=int_between(1, 100_000), default=200,
                   help="systems per family and size (default 200)")
    p.add_argument("--json", type=non_empty_path, default=None, help="write the rows to this file")
    args = p.parse_args(argv)
    if args.json:
        check_output_file("--json", args.json)
    rows = []
    for agents, cycles in args.sizes:
        for family in args.families:
            index = NULL_FAMILIES.index(family)
            t0 = time.perf_counter()
            rejected = 0
            for i in range(args.systems):
                X = null_system(family, _rng(1, family, agents, cycles, i), agents, cycles)
                test = every_cut_test(prepared(X, True), 1, 200, np.random.default_rng([7, i]))
                rejected += test.p_value < 0.05
            row = {"family": family, "agents": agents, "cycles": cycles, **rate(int(rejected), args.systems)}
            rows.append(row)
            lo, hi = row["ci"]
            print(f"{index} {family}, {agents} x {cycles}: test {100 * row['rate']:.1f} % ({row['rejected']}/"
                  f"{row['of']}, {100 * lo:.1f}-{100 * hi:.1f} %), {time.perf_counter() - t0:.0f} s", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    run_command(main)
