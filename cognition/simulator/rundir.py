"""Run directories: one per run, never reused, claimed atomically, locked while in use.

Layout of a run directory::

    .lock              advisory lock held by the process running or resuming it (cognition.runtime.lock)
    config.yaml        resolved configuration (everything that made the numbers); its presence is the claim
    provenance.json    versions, git SHA, seed, device, backend of each module
    metrics.jsonl      one JSON object per cycle, appended
    unit_history.npy   the unit signals Phi is computed from, (cycles, agents, units) float64, appended
    checkpoints/       atomic checkpoints (see cognition.runtime.checkpoint)
    report.json, report.md, report.html, *.png

A new run locks the directory, then writes ``config.yaml`` atomically (temporary file,
fsync, rename, fsync of the directory): that rename is the claim. Killed at any instant
before it, the directory holds at most start-up leftovers (:data:`STARTUP_LEFTOVERS`) and
is reused by the next ``--out`` to it; killed at any instant after, ``--resume`` continues it.
"""
from __future__ import annotations

import json
import secrets
import shutil
import sys
import time
from pathlib import Path

import yaml

from cognition import __version__
from cognition.modules import plugin_paths
from cognition.errors import ConfigError, RunDirBusyError, UsageError
from cognition.runtime.checkpoint import CHECKPOINTS, atomic_write
from cognition.runtime.lock import LOCK_NAME, RunDirLock, busy_holder

# The run directory's files, one name each (docs/reports.md); the runtime names the three it writes itself:
# CHECKPOINTS (cognition.runtime.checkpoint), HISTORY_NAME (unit_history.npy) and LOCK_NAME (.lock).
CONFIG = "config.yaml"
REPORT = "report.json"
METRICS = "metrics.jsonl"
PROVENANCE = "provenance.json"
# what a start killed before its claim can leave: the lock file, a temporary file of the atomic
# config.yaml write ('.tmp-*'), and the claim marker and temporary names of older versions
STARTUP_LEFTOVERS = (LOCK_NAME, ".claimed", "config.yaml.tmp")


def _is_leftover(entry: Path) -> bool:
    if entry.name in STARTUP_LEFTOVERS or entry.name.startswith(".tmp-"):
        return True
    return entry.name == CHECKPOINTS and entry.is_dir() and not any(entry.iterdir())


#: what a directory holds, for validate (--out, --resume), sweeps (a point) and the ablation experiment (a run)
STATES = ("fresh", "restart", "resume", "finished", "foreign")


def state(path: str | Path) -> str:
    """One of :data:`STATES`:

    * ``fresh``: no directory yet;
    * ``restart``: empty, or only what a start killed before its claim leaves (the lock file, a
      temporary file): a new run may claim it;
    * ``resume``: a claimed run (it has config.yaml) without a completed report: ``--resume``
      continues it from its last good checkpoint (from cycle 0 when it wrote none);
    * ``finished``: a claimed run whose report.json says ``status: completed`` (whether its criteria
      passed is the report's ``passed``);
    * ``foreign``: anything else, or not a directory: never touched.
    """
    path = Path(path)
    if not path.exists():
        return "fresh"
    if not path.is_dir():
        return "foreign"
    if (path / CONFIG).is_file():
        report = read_report(path)
        return "finished" if report is not None and report.get("status") == "completed" else "resume"
    return "restart" if all(_is_leftover(e) for e in path.iterdir()) else "foreign"


def read_report(path: str | Path) -> dict | None:
    """A run directory's report.json, or None when it has none or it cannot be read."""
    try:
        report = json.loads((Path(path) / REPORT).read_text())
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) else None


def _refuse_used(path: Path) -> None:
    found = state(path)
    holder = busy_holder(path) if found in ("resume", "finished") else None
    if holder is not None:  # e.g. two processes started with one --out: the other one claimed it first
        raise RunDirBusyError(f"--out {path}: already holds a run, in use by process {holder}, which holds its lock "
                              f"({path / LOCK_NAME}); a run directory is never reused: choose a new directory")
    if found in ("resume", "finished"):
        raise UsageError(f"--out {path}: already holds a run (config.yaml); a run directory is never reused: "
                         f"continue it with --resume {path}, or choose a new directory")
    if found == "foreign":
        raise UsageError(f"--out {path}: directory is not empty (a run directory is never reused)")


def _claim(path: Path, config: dict) -> None:
    """Under the lock: refuse a used directory, clear start-up leftovers, write config.yaml."""
    _refuse_used(path)
    for entry in path.iterdir():
        if entry.name != LOCK_NAME:
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    write_yaml(path / CONFIG, config)


def create_run_dir(out: str | Path | None, label: str, config: dict, root: str | Path = "runs"
                   ) -> tuple[Path, RunDirLock]:
    """Claim a fresh run directory, ``out`` itself or ``root/<time>-<label>-<random>``, for ``config``.

    Returns the directory and its lock (held until the caller releases it or exits). An
    existing ``out`` is accepted when empty or holding only start-up leftovers; anything
    else is a UsageError and nothing is written.
    """
    if out is not None and not str(out):  # Path("") is ".": the message would name a directory never typed
        raise UsageError(f"--out {str(out)!r} is not allowed: expected a directory path (an empty one, or one "
                         "that does not exist)")
    if out is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = Path(root) / f"{stamp}-{label}-{secrets.token_hex(3)}"
    else:
        path = Path(out)
    if path.exists() and not path.is_dir():
        raise UsageError(f"--out {path}: exists and is not a directory")
    _refuse_used(path)  # before a lock file is created in it; checked again under the lock
    try:
        path.mkdir(parents=True, exist_ok=True)
        lock = RunDirLock(path, "--out").acquire()
    except PermissionError:
        raise UsageError(f"--out {path}: not writable (permission denied)") from None
    except OSError as exc:
        raise UsageError(f"--out {path}: cannot create it ({exc.strerror or exc})") from None
    try:
        _claim(path, config)
    except BaseException:
        lock.release()
        raise
    return path, lock.keep()


def check_resumable(path: str | Path) -> Path:
    """A directory ``--resume`` can continue (it has config.yaml); UsageError (one line) otherwise."""
    path = Path(path)
    if not path.is_dir():
        raise UsageError(f"--resume {path}: not a directory")
    found = state(path)
    if found == "restart":
        raise UsageError(f"--resume {path}: not a hybrid-cognition run directory yet (no {CONFIG}: empty, or "
                         f"a start killed before its claim): nothing to continue; start a run in it with --out {path}")
    if found not in ("resume", "finished"):
        raise UsageError(f"--resume {path}: not a hybrid-cognition run directory (missing {CONFIG})")
    if (path / CHECKPOINTS).exists() and not (path / CHECKPOINTS).is_dir():
        raise UsageError(f"--resume {path}: {path / CHECKPOINTS} is not a directory; move it away")
    return path


def check_release(run_dir: Path) -> None:
    """Refuse (UsageError) to resume a run started by another release (major.minor) of the package: a
    release may change what a run holds (0.5.0 added a row per agent), so a resume could not continue
    it bit for bit. A run without a readable provenance.json (killed before writing it) is not judged."""
    try:
        started = json.loads((run_dir / PROVENANCE).read_text())["package"]["version"]
    except (OSError, ValueError, KeyError, TypeError):
        return
    if not isinstance(started, str) or started.split(".")[:2] != __version__.split(".")[:2]:
        raise UsageError(f"--resume {run_dir}: the run was started by hybrid-cognition {started!s:.40}, this is "
                         f"{__version__}; a run is resumed by the release that started it (install that version)")


def open_for_resume(path: str | Path, check=None, accept_plugin_change: bool = False):
    """Lock a run directory to continue it and read its configuration: (Config, path, lock).

    ``check(config_yaml_dict)`` may refuse the resume (UsageError) under the lock, e.g. flags that
    contradict the run's own config.yaml. The ``modules.plugins`` files must be those the run last
    ran with (:func:`cognition.modules.plugin_paths.check_resume`; ``accept_plugin_change`` lets a changed
    file through, with a note). The lock is released again when anything fails.
    """
    from cognition.config.settings import config_from_resolved, read_yaml

    run_dir = check_resumable(path)
    lock = RunDirLock(run_dir, "--resume").acquire()
    try:
        check_resumable(run_dir)  # again, under the lock
        check_release(run_dir)
        data = read_yaml(run_dir / CONFIG, f"--resume {CONFIG}")
        if check is not None:
            check(data)
        for text in plugin_paths.check_resume(run_dir, accept_plugin_change):  # before the files are imported
            print(f"note: {run_dir}: {text}", file=sys.stderr)
        try:
            cfg = config_from_resolved(data)
        except ConfigError as exc:
            if exc.field != "modules.enabled":
                raise
            raise ConfigError(exc.field, exc.value, f"{exc.allowed}; a run of a module registered in a script "
                              f"is resumed from a script that imports it: cognition.api.Simulator.resume("
                              f"{str(run_dir)!r})") from None
        return cfg, run_dir, lock
    except BaseException:
        lock.release()
        raise


def write_json(path: Path, data) -> None:
    """Write JSON atomically (temp file, fsync, rename, fsync of the directory)."""
    text = json.dumps(data, indent=2, sort_keys=True, default=jsonable) + "\n"
    atomic_write(path, text.encode())


def write_yaml(path: Path, data) -> None:
    """Write YAML atomically (temp file, fsync, rename, fsync of the directory)."""
    atomic_write(path, yaml.safe_dump(data, sort_keys=False).encode())


def jsonable(obj):
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "item"):
        return obj.item()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")
