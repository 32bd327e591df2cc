"""The calibration figures a report quotes: the record measured by ``python -m cognition.bench calibration``
(false-positive rates of the integration test on null families, accuracy, coverage and power), looked up at
the measured size nearest a run's (docs/calibration.md)."""
from __future__ import annotations

import json
import math
from pathlib import Path

# The measured table that reports quote; refresh it with
# python -m cognition.bench calibration --seed 1 --jobs 2 --json FILE, then copy its "calibration" entry here
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
