"""Run directories: one per run, never reused, safe against concurrent starts.

Layout of a run directory::

    config.yaml        resolved configuration (everything that made the numbers)
    provenance.json    versions, git SHA, seed, device, backend of each module
    metrics.jsonl      one JSON object per cycle
    units.npy          the unit signals Phi is computed from, (agents, cycles, units) float64
    checkpoints/       atomic checkpoints (see cognition.runtime.checkpoint)
    report.json, report.md, *.png
"""
from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path

import yaml

from cognition.errors import UsageError

CLAIM = ".claimed"
RUN_FILES = ("config.yaml", "provenance.json", "metrics.jsonl")


def _claim(path: Path) -> None:
    """Mark ``path`` as taken; O_EXCL makes two concurrent claims impossible."""
    try:
        fd = os.open(path / CLAIM, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise UsageError(f"--out {path}: already used by another run; choose a new directory") from None
    with os.fdopen(fd, "w") as fh:
        fh.write(f"{os.getpid()} {time.time()}\n")


def create_run_dir(out: str | Path | None, label: str, root: str | Path = "runs") -> Path:
    """Create a fresh run directory: ``out`` itself, or ``root/<time>-<label>-<random>``.

    An existing ``out`` is accepted only when empty; anything else is a
    UsageError and nothing is written.
    """
    if out is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = Path(root) / f"{stamp}-{label}-{secrets.token_hex(3)}"
    else:
        path = Path(out)
    try:
        if path.exists():
            if not path.is_dir():
                raise UsageError(f"--out {path}: exists and is not a directory")
            if any(path.iterdir()):
                raise UsageError(f"--out {path}: directory is not empty (a run directory is never reused)")
        else:
            path.mkdir(parents=True)
        _claim(path)
    except PermissionError:
        raise UsageError(f"--out {path}: not writable (permission denied)") from None
    except OSError as exc:
        raise UsageError(f"--out {path}: cannot create it ({exc.strerror or exc})") from None
    return path


def check_resumable(path: str | Path) -> Path:
    path = Path(path)
    if not path.is_dir():
        raise UsageError(f"--resume {path}: not a directory")
    missing = [f for f in ("config.yaml", "provenance.json") if not (path / f).is_file()]
    if missing or not (path / CLAIM).is_file():
        raise UsageError(f"--resume {path}: not a hybrid-cognition run directory (missing {', '.join(missing) or CLAIM})")
    return path


def write_json(path: Path, data) -> None:
    """Write JSON atomically (temp file, fsync, rename)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as fh:
        json.dump(data, fh, indent=2, sort_keys=True, default=_jsonable)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_yaml(path: Path, data) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(yaml.safe_dump(data, sort_keys=False))
    os.replace(tmp, path)


def _jsonable(obj):
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "item"):
        return obj.item()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def write_metrics(path: Path, records: list[dict]) -> None:
    """Rewrite metrics.jsonl from records (used on resume), atomically."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as fh:
        for rec in records:
            fh.write(json.dumps(rec, sort_keys=True, default=_jsonable) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
