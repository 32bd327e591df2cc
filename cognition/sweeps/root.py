"""The sweep directory: one run directory per point, plus what the sweep itself needs.

Layout (``--out``, default ``sweeps/<sweep name>``)::

    sweep.yaml            the sweep file as given (the last one run here)
    points.json           every point: index, name, parameters
    configs/NAME.yaml     each point's resolved configuration (what its run was started with)
    logs/NAME.log         each point's output, attempt after attempt
    NAME/                 the point's run directory (see cognition.simulator.rundir)
    aggregate.csv         one row per point (and aggregate.parquet when pyarrow is installed)
    phi_vs_KEY.png        mean Phi against each swept key
    .lock                 held while a sweep runs here, so two sweeps never share points

:func:`survey` reads it without writing anything, before anything starts: an
existing run directory made from a different configuration, or something that
is not a run directory where a point's should be, is a one-line SweepError.
"""
from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from cognition.config.schema import diff
from cognition.config.settings import recorded_settings
from cognition.modules.plugin_paths import check_resume
from cognition.simulator import rundir
from cognition.simulator.rundir import write_json
from cognition.sweeps.aggregate import point_status
from cognition.sweeps.point import PointTask
from cognition.sweeps.spec import SweepSpec
from cognition.errors import SweepError

RUNNING_DIR = ".running"
POINTS = "points.json"  # every point of the sweep last run here: index, name, params (write_inputs)


def _check_same_config(run_dir: Path, cfg) -> None:
    """A run directory continued or reused by the sweep must hold this point's configuration.

    The fields tagged execution (threads, batch, checkpoints, ...: how a run executes, not its numbers)
    are left out; every other field, runtime.device, autocast and compile included, must agree.
    """
    try:
        there = yaml.safe_load((run_dir / rundir.CONFIG).read_text()) or {}
    except (OSError, yaml.YAMLError):
        raise SweepError(f"{run_dir}: config.yaml is unreadable; move the directory away") from None
    if not isinstance(there, dict):
        raise SweepError(f"{run_dir}: config.yaml is not a mapping; move the directory away")
    differences = diff(recorded_settings(there), recorded_settings(cfg.to_dict()))
    if differences:
        key, a, b = differences[0]
        raise SweepError(f"{run_dir} was run with a different configuration, at {key} ({a!r} there, {b!r} in the "
                         "sweep); move it away or choose another --out")


@dataclass
class Survey:
    root: Path
    states: dict[str, str]  # point name -> finished | resume | restart | fresh

    @property
    def finished(self) -> list[str]:
        return [n for n, s in self.states.items() if s == "finished"]

    @property
    def to_run(self) -> list[str]:
        return [n for n, s in self.states.items() if s != "finished"]


def survey(spec: SweepSpec, root: str | Path) -> Survey:
    """The state of every point under ``root``; writes nothing."""
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise SweepError(f"--out {root}: exists and is not a directory")
    others = [e for e in root.iterdir() if e.name != ".lock"] if root.is_dir() else []
    if others and not is_sweep_dir(root):
        raise SweepError(f"--out {root}: a non-empty directory that is not a sweep directory; choose another")
    states = {}
    for point in spec.points:
        run_dir = root / point.name
        state = rundir.state(run_dir)
        if state == "foreign":
            raise SweepError(f"{run_dir}: not a finished or resumable run directory; move it away")
        if state in ("finished", "resume"):
            _check_same_config(run_dir, point.config)
        if state == "resume":
            check_resume(run_dir)  # a changed modules.plugins file: refused before anything starts
        states[point.name] = state
    return Survey(root, states)


def is_sweep_dir(path: str | Path) -> bool:
    """Whether ``path`` is a sweep's directory (it holds points.json), as opposed to one run's."""
    return (Path(path) / POINTS).is_file()


def recorded_points(root: str | Path) -> list[dict]:
    """points.json of the sweep directory ``root``: ``{"index", "name", "params"}`` for every point of the sweep
    last run there, in sweep order; SweepError (one line) when it cannot be read as that."""
    path = Path(root) / POINTS
    try:
        points = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SweepError(f"{path}: cannot be read as the sweep's list of points ({exc})") from None
    if not isinstance(points, list) or not all(isinstance(p, dict) and isinstance(p.get("name"), str)
                                               and isinstance(p.get("params"), dict) for p in points):
        raise SweepError(f"{path}: not a sweep's list of points (expected a list of {{index, name, params}})")
    return points


def comparison_groups(root: str | Path) -> tuple[list[list[Path]], list[str]]:
    """The finished points of the sweep directory ``root`` as conditions to compare, and the points left out.

    Points that share every swept value but ``run.seed`` are one setting. When a setting has at least two
    finished points, each setting is one condition whose points (seeds) are its replicates; when every setting
    has one finished point, or every finished point is of one setting (a sweep of seeds alone), each point is a
    condition of its own. Returns (run directories per condition, in sweep order; ``NAME (status)`` of each
    point that is not finished, its status as the aggregate's). SweepError (one line) when fewer than two
    points are finished."""
    root = Path(root)
    points = recorded_points(root)
    settings: dict[str, list[Path]] = {}
    left_out = []
    for point in points:
        run_dir = root / point["name"]
        if rundir.state(run_dir) != "finished":
            left_out.append(f"{point['name']} ({point_status(run_dir, rundir.read_report(run_dir))})")
            continue
        setting = {k: v for k, v in point["params"].items() if k != "run.seed"}
        settings.setdefault(json.dumps(setting, sort_keys=True), []).append(run_dir)
    finished = [d for dirs in settings.values() for d in dirs]
    if len(finished) < 2:
        raise SweepError(f"{root}: {len(finished)} of its {len(points)} points finished; a comparison needs at "
                         "least two: run its sweep again to finish them (python -m cognition.sweep SWEEP.yaml --out "
                         f"{root})")
    groups = list(settings.values())
    if len(groups) == 1 or all(len(g) == 1 for g in groups):
        return [[d] for d in finished], left_out
    return groups, left_out


class SweepLock:
    """An exclusive ``flock`` on ``ROOT/.lock`` for the duration of a sweep."""

    def __init__(self, root: Path):
        self.path, self._fd = Path(root) / ".lock", None

    def __enter__(self):
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            raise SweepError(f"--out {self.path.parent}: another sweep is running there") from None
        os.ftruncate(self._fd, 0)
        os.write(self._fd, f"{os.getpid()}\n".encode())
        return self

    def __exit__(self, *exc):
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)


def write_inputs(spec: SweepSpec, root: Path, names: list[str]) -> None:
    """sweep.yaml, points.json and the configs of the points about to run."""
    from cognition.simulator.rundir import write_yaml

    for sub in ("configs", "logs", RUNNING_DIR):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for stale in (root / RUNNING_DIR).iterdir():  # markers of a sweep that was killed
        stale.unlink()
    (root / "sweep.yaml").write_text(spec.path.read_text())
    write_json(root / POINTS, [{"index": p.index, "name": p.name, "params": p.params} for p in spec.points])
    wanted = set(names)
    for p in spec.points:
        if p.name in wanted:
            write_yaml(root / "configs" / f"{p.name}.yaml", p.config.to_dict())


def point_tasks(spec: SweepSpec, root: Path, names: list[str], *, threads: int,
                faults: dict[str, str] | None = None) -> list[PointTask]:
    root = root.resolve()  # a Ray worker may run in another directory
    wanted, faults = set(names), faults or {}
    return [PointTask(name=p.name, run_dir=str(root / p.name), config_path=str(root / "configs" / f"{p.name}.yaml"),
                      log_path=str(root / "logs" / f"{p.name}.log"), running_dir=str(root / RUNNING_DIR),
                      threads=threads, fault=faults.get(p.name))
            for p in spec.points if p.name in wanted]


def running_count(root: Path) -> int:
    try:
        return sum(1 for _ in (Path(root) / RUNNING_DIR).iterdir())
    except OSError:
        return 0
