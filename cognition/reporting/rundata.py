"""Read a run directory back: everything a report is rebuilt from.

A finished run directory holds ``config.yaml``, ``provenance.json``,
``metrics.jsonl`` and ``report.json`` (see :mod:`cognition.simulator.rundir`). The recorded
unit signals, which the per-cycle bands need, are read from ``unit_history.npy`` (or, for
older runs, ``units.npy`` or the newest verified checkpoint's ``units`` array), as (agents, cycles,
n_units). Anything else is not a run: :class:`NotARunError`, one line naming the directory and
what is missing.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from cognition.errors import CheckpointError, NotARunError, first_line
from cognition.simulator.rundir import CONFIG, METRICS, PROVENANCE, REPORT

REQUIRED = (CONFIG, PROVENANCE, METRICS)

MODE_NAMES = {"disabled": "classical", "lite": "quantum-lite", "full": "full quantum"}


@dataclass
class RunData:
    path: Path
    report: dict | None  # report.json (None: a run read with load_partial_run that wrote none)
    records: list[dict]  # metrics.jsonl, one per cycle
    provenance: dict  # provenance.json
    config: dict  # config.yaml (the resolved configuration)

    @property
    def mode(self) -> str:
        """classical, quantum-lite or full quantum."""
        mode = self.provenance.get("quantum_mode") or self.config.get("quantum", {}).get("mode")
        return MODE_NAMES.get(mode, str(mode))


def _read(path: Path, parse):
    try:
        return parse(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise NotARunError(f"{path}: cannot be read as a run file ({first})") from None


def _records(path: Path, cut_tail: bool = False) -> list[dict]:
    """metrics.jsonl's records, one per cycle 1..n; NotARunError naming the file's own line where a line is not a
    JSON record or breaks the sequence of cycles (a damaged or hand-edited file). ``cut_tail``: a last line
    without its newline that is not a whole record, as a run killed while writing it leaves, is dropped."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise NotARunError(f"{path}: cannot be read as a run file ({first_line(str(exc))})") from None
    records, lines = [], text.splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            if cut_tail and number == len(lines) and not text.endswith("\n"):
                break
            raise NotARunError(f"{path}: line {number} is not a JSON record ({first_line(str(exc))}); the file is "
                               "damaged (truncated?): restore it from a copy") from None
        if not isinstance(record, dict) or record.get("cycle") != len(records) + 1:
            got = record.get("cycle") if isinstance(record, dict) else type(record).__name__
            raise NotARunError(f"{path}: line {number} holds cycle {got!r}, expected cycle {len(records) + 1}; the "
                               "file is damaged or edited: restore it from a copy")
        records.append(record)
    return records


def _directory(path: str | Path) -> Path:
    path = Path(path)
    if not path.is_dir():
        why = "not a directory" if path.exists() else "does not exist"
        raise NotARunError(f"{path}: not a run directory ({why})")
    return path


def load_run(path: str | Path) -> RunData:
    """Read a finished run directory; NotARunError (one line) for anything else."""
    path = _directory(path)
    missing = [f for f in REQUIRED if not (path / f).is_file()]
    if missing:
        raise NotARunError(f"{path}: not a hybrid-cognition run directory (missing {', '.join(missing)})")
    if not (path / REPORT).is_file():
        raise NotARunError(f"{path}: the run has no report.json (it did not finish); continue it with "
                           f"python -m cognition.validate --resume {path}, or read the cycles it recorded with "
                           "load(path, partial=True)")
    report = _read(path / REPORT, json.loads)
    config = _read(path / CONFIG, yaml.safe_load)
    if not isinstance(report, dict) or "phi" not in report or not isinstance(config, dict):
        raise NotARunError(f"{path}: report.json or config.yaml is not a hybrid-cognition run's")
    records = _records(path / METRICS)
    completed = report.get("cycles_completed")
    if completed != len(records):
        raise NotARunError(f"{path / METRICS}: holds {len(records)} cycle records, report.json {completed!r} cycles "
                           "completed; one of them is damaged (truncated?): restore it from a copy")
    return RunData(path, report, records, _read(path / PROVENANCE, json.loads), config)


def load_partial_run(path: str | Path) -> tuple[RunData, np.ndarray | None, int]:
    """A run directory read as far as it got, finished or not (a run killed, stopped or still running):
    (its RunData, with ``report`` None when it wrote no report.json; its recorded unit signals (agents, cycles,
    n_units) or None; the cycles a ``--resume`` keeps, those of its last checkpoint). The cycles are those
    metrics.jsonl and unit_history.npy both hold whole (a line or block cut by a kill is dropped); a line
    damaged anywhere else is refused as :func:`load_run` refuses it. Nothing is written or locked."""
    from cognition.runtime.unit_history import HISTORY_NAME, read_written

    path = _directory(path)
    if not (path / CONFIG).is_file():
        raise NotARunError(f"{path}: not a hybrid-cognition run directory (missing {CONFIG}: no run claimed it)")
    config = _read(path / CONFIG, yaml.safe_load)
    report = _read(path / REPORT, json.loads) if (path / REPORT).is_file() else None
    if not isinstance(config, dict) or (report is not None and (not isinstance(report, dict) or "phi" not in report)):
        raise NotARunError(f"{path}: report.json or config.yaml is not a hybrid-cognition run's")
    records = _records(path / METRICS, cut_tail=True) if (path / METRICS).is_file() else []
    units, committed = None, 0
    if (path / HISTORY_NAME).is_file():
        try:
            units, committed = read_written(path / HISTORY_NAME)
        except (OSError, ValueError) as exc:
            raise NotARunError(f"{path / HISTORY_NAME}: cannot be read as the run's unit history "
                               f"({first_line(str(exc))}); it is damaged: restore it from a copy") from None
        cycles = min(len(records), units.shape[1])
        units, records = units[:, :cycles], records[:cycles]
    provenance = _read(path / PROVENANCE, json.loads) if (path / PROVENANCE).is_file() else {}
    return RunData(path, report, records, provenance, config), units, min(committed, len(records))


def unit_names_of(path: str | Path, config: dict) -> list[str]:
    """The unit names of a run that wrote no report.json, in its recorded order: the built-in modules'
    declared signals when every enabled module is built in (nothing is imported but the package), else
    those its newest checkpoint's module set recorded; [] when neither says."""
    from cognition.architecture.loop import WORKSPACE_SIGNALS
    from cognition.modules.plugins import BUILTIN, lookup
    from cognition.runtime.checkpoint import CheckpointStore

    modules = config.get("modules") or {}
    enabled = modules.get("enabled") or []
    if all(name in BUILTIN for name in enabled):
        mode = (config.get("quantum") or {}).get("mode")
        names = []
        for name in enabled:
            control = (modules.get(name) or {}).get("control")
            variant = "classical" if mode == "disabled" or control == "classical" else "quantum"
            names += [f"{name}.{signal}" for signal in lookup(name, variant).unit_signals]
        return names + [f"workspace.{signal}" for signal in WORKSPACE_SIGNALS]
    try:
        payload, _ = CheckpointStore(path).load_latest()
        return list(payload["module_set"]["units"])
    except (CheckpointError, KeyError, TypeError):
        return []


def check_history(path: str | Path, cycles: int, exact: bool = False) -> None:
    """NotARunError (one line naming the file and what is wrong) when the run directory's ``unit_history.npy``
    is there but cannot be read (truncated, not an array) or holds fewer than ``cycles`` cycles (with ``exact``,
    other than ``cycles``: a finished run records one row of signals per cycle): a report rebuilt without it
    would drop the Phi bands without a word (:func:`load_units` falls back quietly)."""
    from cognition.runtime.unit_history import HISTORY_NAME, read_history

    f = Path(path) / HISTORY_NAME
    if not f.is_file():
        return
    try:
        units = read_history(f)
    except (OSError, ValueError) as exc:
        raise NotARunError(f"{f}: cannot be read as the run's unit history ({first_line(str(exc))}); "
                           "it is damaged (truncated?): restore it, or remove it to rebuild the report "
                           "without the Phi bands") from None
    if units.ndim != 3 or units.shape[1] < cycles or (exact and units.shape[1] != cycles):
        held = units.shape[1] if units.ndim == 3 else f"an array of shape {units.shape}"
        raise NotARunError(f"{f}: holds {held} cycles of unit signals, metrics.jsonl {cycles}; it is damaged "
                           "(truncated?): restore it, or remove it to rebuild the report without the Phi bands")


def load_units(path: str | Path, cycles: int) -> np.ndarray | None:
    """Recorded unit signals (agents, cycles, n_units), or None when the run directory has none.

    From ``unit_history.npy`` (memory-mapped); for runs of older versions from ``units.npy`` or
    the newest verified checkpoint's ``units``; None when none of them holds ``cycles`` cycles.
    """
    from cognition.runtime.unit_history import HISTORY_NAME, read_history

    path = Path(path)
    for name, read in ((HISTORY_NAME, read_history), ("units.npy", lambda p: np.load(p, allow_pickle=False))):
        if (path / name).is_file():
            try:
                units = read(path / name)
            except (OSError, ValueError):
                continue
            if units.ndim == 3 and units.shape[1] >= cycles:
                return units[:, :cycles, :]
    from cognition.runtime.checkpoint import CheckpointStore

    try:
        payload, cycle = CheckpointStore(path).load_latest()
    except CheckpointError:
        return None
    units = payload.get("units")
    if units is None or cycle < cycles:
        return None
    return np.asarray(units, dtype=np.float64)[:, :cycles, :]
