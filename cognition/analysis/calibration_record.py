"""The calibration figures a report quotes: the record measured by ``python -m cognition.bench calibration``
(false-positive rates of the integration test on null families, accuracy, coverage and power), looked up at
the measured size nearest a run's (docs/calibration.md)."""
from __future__ import annotations

import json
import math
from pathlib import Path

# The measured tables that reports quote; refresh them with
# python -m cognition.bench --json FILE calibration --seed 1 --jobs 2 (its "calibration" entry) and with the commands
# the record lists under "directions" -> "commands" (their summaries, the draws left out), and copy each entry here
RECORD = Path(__file__).with_name("calibration_record.json")
COMMAND = "python -m cognition.bench calibration"


def applicable_calibration(agents: int, cycles: int, record: Path = RECORD) -> dict | None:
    """The recorded figures for a run's size: every null family and every accuracy family at the measured
    size nearest (agents, cycles) on a log scale (None when no record is installed)."""
    if not record.exists():
        return None
    table = json.loads(record.read_text())
    table = table.get("calibration", table)  # the bench's --json wraps each suite's results by name
    if "accuracy" not in table or "null_families" not in table:  # a record of the pooled estimate (<= 0.3.1)
        return None

    def nearest(rows):
        best = min({(r["agents"], r["cycles"]) for r in rows},
                   key=lambda s: abs(math.log(s[0] / agents)) + abs(math.log(s[1] / cycles)))
        return best, [r for r in rows if (r["agents"], r["cycles"]) == best]

    null_size, nulls = nearest(table["null_families"])
    size, targets = nearest(table["accuracy"])
    return {"command": f"{COMMAND} --seed {table['settings']['seed']}", "alpha": table["settings"]["alpha"],
            "null_size": list(null_size), "size": list(size), "exact_size": size == (agents, cycles),
            "null_families": [{k: r[k] for k in ("family", "systems", "false_positive_rate", "verdict_rate")}
                              for r in nulls],
            "accuracy": [{k: r[k] for k in ("family", "draws", "median_error_bits", "coverage", "power")}
                         for r in targets]}


# The loop test's record ("directions" in the same file): the summaries of the commands it lists under "commands"
# (python -m cognition.bench --json FILE directions ...), one per number of agents measured


def applicable_loop_calibration(agents: int, cycles: int, record: Path = RECORD) -> dict | None:
    """The loop test's measured power and false positives at the size nearest (agents, cycles) (log scale):
    closed loops passing, a direction absent (relay, feedforward: twins that differ from their agents) with
    its interval above 0 and the loop passing, and twins against twins; each the range over the toy families,
    couplings and shared drives measured at that length (None when no record is installed)."""
    if not record.exists():
        return None
    table = json.loads(record.read_text()).get("directions")
    if not table:
        return None
    rows = table["summaries"]
    best = min({(r["agents"], r["cycles"]) for r in rows},
               key=lambda s: abs(math.log(s[0] / agents)) + abs(math.log(s[1] / cycles)))
    rows = [r for r in rows if (r["agents"], r["cycles"]) == best]

    def span(values):
        return [min(values), max(values)]

    directions = ("workspace_to_modules", "modules_to_workspace")
    closed = [r["loop_passes"] / r["draws"] for r in rows if all(r["truth"].values())]
    absent_dir = [r[f"{d}_above_zero"] / r["draws"] for r in rows for d in directions if not r["truth"][d]]
    absent_loop = [r["loop_passes"] / r["draws"] for r in rows if not all(r["truth"].values())]
    twins = [r[f"null_{d}_above_zero"] / r["draws"] for r in rows for d in directions]
    return {"command": table["commands"][str(best[0])], "size": list(best), "exact_size": best == (agents, cycles),
            "draws": min(r["draws"] for r in rows), "closed_loop_passes": span(closed),
            "absent_direction_above_zero": span(absent_dir), "absent_direction_loop_passes": span(absent_loop),
            "twin_vs_twin_above_zero": span(twins)}
