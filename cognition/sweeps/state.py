"""What a point's run directory says about the point: finished, resumable, or not started.

* ``finished``: ``report.json`` with ``status: completed`` (the run reached its last
  cycle; whether its criteria passed is the report's ``passed``).
* ``resume``: the run wrote its inputs (``config.yaml``, ``provenance.json``) and
  stopped or was killed: ``python -m cognition.validate --resume`` continues it from
  its last good checkpoint (or from cycle 0 when it had none yet).
* ``restart``: killed while starting, before its inputs were written; only
  start-up files are there, and they are cleared before a fresh start.
* ``fresh``: no directory yet.
* ``foreign``: anything else; the sweep refuses to touch it.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from cognition.rundir import CLAIM

STARTUP_FILES = {CLAIM, "config.yaml", "config.yaml.tmp", "provenance.json.tmp", "checkpoints"}


def read_report(run_dir: Path) -> dict | None:
    try:
        return json.loads((Path(run_dir) / "report.json").read_text())
    except (OSError, ValueError):
        return None


def point_state(run_dir: str | Path) -> str:
    run_dir = Path(run_dir)
    if not run_dir.exists():
        return "fresh"
    if not run_dir.is_dir():
        return "foreign"
    report = read_report(run_dir)
    if report is not None and report.get("status") == "completed":
        return "finished"
    if all((run_dir / f).is_file() for f in (CLAIM, "config.yaml", "provenance.json")):
        return "resume"
    entries = list(run_dir.iterdir())
    ckpts = run_dir / "checkpoints"
    if all(e.name in STARTUP_FILES for e in entries) and not (ckpts.is_dir() and any(ckpts.iterdir())):
        return "restart"
    return "foreign"


def clear_startup_files(run_dir: Path) -> None:
    """Remove what a run killed while starting left behind (checked by :func:`point_state`)."""
    for entry in Path(run_dir).iterdir():
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()
