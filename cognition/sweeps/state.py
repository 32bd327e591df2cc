"""What a point's run directory says about the point: finished, resumable, or not started.

* ``finished``: ``report.json`` with ``status: completed`` (the run reached its last
  cycle; whether its criteria passed is the report's ``passed``).
* ``resume``: the run claimed the directory (wrote ``config.yaml``) and stopped or was
  killed: ``python -m cognition.validate --resume`` continues it from its last good
  checkpoint (or from cycle 0 when it had written none yet).
* ``restart``: killed while starting, before it claimed the directory (wrote
  ``config.yaml``); only start-up leftovers are there, and the next start reuses it.
* ``fresh``: no directory yet.
* ``foreign``: anything else; the sweep refuses to touch it.

The classification of what is there is :func:`cognition.rundir.run_dir_state`, shared
with ``python -m cognition.validate``.
"""
from __future__ import annotations

import json
from pathlib import Path

from cognition.rundir import run_dir_state

_STATES = {"missing": "fresh", "reusable": "restart", "run": "resume", "foreign": "foreign"}


def read_report(run_dir: Path) -> dict | None:
    try:
        return json.loads((Path(run_dir) / "report.json").read_text())
    except (OSError, ValueError):
        return None


def point_state(run_dir: str | Path) -> str:
    report = read_report(Path(run_dir))
    if report is not None and report.get("status") == "completed":
        return "finished"
    return _STATES[run_dir_state(run_dir)]
