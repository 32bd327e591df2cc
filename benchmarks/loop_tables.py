"""The loop test's tables in docs/calibration.md, from ``bench directions --json`` and ``bench workspace --json`` files.

    python -m cognition.bench --json D.json directions --draws 200 --cycles 50 200 --world-gain 0 1
    python -m cognition.bench --json W50.json workspace --seeds 100 --cycles 50 --modes lite disabled --no-lesion
    python -m cognition.bench --json W500.json workspace --seeds 20 --cycles 500 --modes lite disabled --no-lesion
    python benchmarks/loop_tables.py D.json W50.json W500.json [--per-seed]

For the toys: per family, couplings, length and shared drive, the power (a direction present) or the false
positives (absent) of each direction and of the loop, and the twin-against-twin null.

Prints, per mode and run length: how often each direction's interval lies above 0 and the loop passes (the
run's criterion, the same numbers as the runs' report.json: tests/analysis/test_loop_test_run.py), the mean
differences, the share of agent-cycles with no access, and the twin-against-twin null on the same runs (twins
to other donors: true difference 0). ``--per-seed`` adds one row per seed.
"""
from __future__ import annotations

import argparse
import json

import numpy as np

DIRECTIONS = ("workspace_to_modules", "modules_to_workspace")
LABEL = {"workspace_to_modules": "workspace -> modules", "modules_to_workspace": "modules -> workspace"}
MODE = {"lite": "quantum-lite", "disabled": "classical", "full": "full"}


def _ci(row) -> str:
    lo, hi = row["ci_bits"]
    return f"{row['difference_bits']:+.3f} [{lo:+.3f}, {hi:+.3f}]"


def _toy_table(summaries: list[dict]) -> None:
    def rate(s, count, present):
        text = f"{count}/{s['draws']}"
        return f"**{text}**" if not present else text

    print("| family, couplings | cycles | shared drive | loop passes | workspace -> modules above 0 (mean bits) | "
          "modules -> workspace above 0 (mean bits) | twin vs twin above 0: w -> m / m -> w / loop |")
    print("|---|---|---|---|---|---|---|")
    for s in sorted(summaries, key=lambda s: (s["cycles"], s["world_gain"])):
        truth = s["truth"]
        cells = [f"{rate(s, s[f'{d}_above_zero'], truth[d])} ({s[f'{d}_mean_bits']:+.3f})" for d in DIRECTIONS]
        null = " / ".join(f"{s[f'null_{d}_above_zero']}" for d in DIRECTIONS) + f" / {s['null_loop_passes']}"
        print(f"| {s['family']}, {s['signs']} | {s['cycles']} | {s['world_gain']:g} | "
              f"{rate(s, s['loop_passes'], all(truth.values()))} | {cells[0]} | {cells[1]} | {null} (of {s['draws']}) |")
    print()
    print("Bold: a false-positive rate (the direction, or the loop, is absent in that family).")
    print()


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--per-seed", action="store_true")
    args = p.parse_args(argv)
    loaded = [json.load(open(f)) for f in args.files]
    toys = [s for d in loaded if "directions" in d for s in d["directions"]["summaries"]]
    if toys:
        _toy_table(toys)
    runs = [r for d in loaded if "workspace" in d for r in d["workspace"]["runs"]]
    if not runs:
        return
    groups: dict = {}
    for r in runs:
        groups.setdefault((r["mode"], r["cycles"]), []).append(r)
    print("| mode | cycles | seeds | workspace -> modules above 0 (mean bits) | modules -> workspace above 0 (mean bits) "
          "| loop passes | no access (mean, range) | null above 0: w -> m / m -> w / loop |")
    print("|---|---|---|---|---|---|---|---|")
    for (mode, cycles), rows in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0] != "lite")):
        n = len(rows)
        cells = []
        for d in DIRECTIONS:
            above = sum(r["criterion"][d]["ci_above_zero"] for r in rows)
            mean = np.mean([r["criterion"][d]["difference_bits"] for r in rows])
            cells.append(f"{above}/{n} ({mean:+.3f})")
        loop = sum(r["criterion"]["loop"] for r in rows)
        share = [r["winner_share"]["no_access"] for r in rows]
        null = [sum(r["null"][d]["ci_above_zero"] for r in rows) for d in DIRECTIONS]
        null_loop = sum(r["null_loop"] for r in rows)
        print(f"| {MODE[mode]} | {cycles} | {n} | {cells[0]} | {cells[1]} | {loop}/{n} | "
              f"{np.mean(share):.1%} ({min(share):.1%}-{max(share):.1%}) | {null[0]}/{n} / {null[1]}/{n} / "
              f"{null_loop}/{n} |")
    if args.per_seed:
        print()
        print("| mode | cycles | seed | workspace -> modules [CI] | modules -> workspace [CI] | no access | loop |")
        print("|---|---|---|---|---|---|---|")
        for r in sorted(runs, key=lambda r: (r["cycles"], r["mode"] != "lite", r["seed"])):
            c = r["criterion"]
            print(f"| {MODE[r['mode']]} | {r['cycles']} | {r['seed']} | {_ci(c['workspace_to_modules'])} | "
                  f"{_ci(c['modules_to_workspace'])} | {r['winner_share']['no_access']:.1%} | "
                  f"{'passes' if c['loop'] else 'not shown'} |")


if __name__ == "__main__":
    main()
