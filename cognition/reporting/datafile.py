"""One's own recorded data read for ``python -m cognition.phi FILE`` (docs/phi.md, "Phi of your own data").

Three formats, each holding an ensemble of independent agents (or trials), each a multivariate
time series of the same units:

* ``.npy``: one 3-D array of real numbers; ``axes`` names its axes in order (default
  ``agents,time,units``; ``trials`` is taken for ``agents``);
* ``.csv``: long format, a header naming the columns ``agent,time,unit,value`` (in any order), one
  row per agent, time step and unit. Agents and units are labels, ordered as they first appear;
  times are numbers, sorted; every agent has every (time, unit) cell exactly once;
* ``.nc`` (netCDF, through xarray: the optional ``tables`` extra): one data variable of 3
  dimensions (``variable`` picks one of several), named ``agent``/``agents``/``trial``/``trials``,
  ``time``/``cycle``/``cycles`` and ``unit``/``units`` (else ``axes`` names them in order); a
  coordinate along the unit dimension gives the units' names. ``RunResults.to_xarray()`` (the run's agents)
  writes such a file.

Files above :data:`MAX_FILE_BYTES` are refused before they are parsed. Anything that is not such a
series is a :class:`~cognition.errors.DataFileError` with one line naming the file, what was found
and what is allowed. Checks that need the estimator (enough time steps, constant units) are
:func:`cognition.phi.estimate`'s own.
"""
from __future__ import annotations

import csv
from array import array
import dataclasses
from pathlib import Path

import numpy as np

from cognition.errors import DataFileError, path_kind
from cognition.reporting.extras import TABLES, import_extra
from cognition.phi.agents import MIN_AGENTS

MAX_FILE_BYTES = 256 * 2**20  # 256 MiB; larger files are refused before they are read
AXES = ("agents", "time", "units")
AXIS_ALIASES = {"agents": "agents", "trials": "agents", "time": "time", "units": "units"}
DIM_ALIASES = {"agent": "agents", "agents": "agents", "trial": "agents", "trials": "agents", "time": "time",
               "cycle": "time", "cycles": "time", "unit": "units", "units": "units"}
CSV_COLUMNS = ("agent", "time", "unit", "value")
EXTENSIONS = (".npy", ".csv", ".nc")
_NPY_MAGIC = b"\x93NUMPY"


@dataclasses.dataclass(frozen=True)
class DataSeries:
    """data: (agents, T, n) float64; unit_names: the n names (None for a .npy file); axes: the file's own
    axis order; source: the file's format."""

    data: np.ndarray
    unit_names: list[str] | None
    axes: tuple[str, str, str]
    source: str


def parse_axes(text: str | None) -> tuple[str, str, str] | None:
    """``"agents,time,units"`` (any order; ``trials`` for ``agents``) -> the canonical names, in the given order."""
    if text is None:
        return None
    given = [a.strip().lower() for a in text.split(",")]
    names = [AXIS_ALIASES.get(a) for a in given]
    if len(given) != 3 or None in names or len(set(names)) != 3:
        raise DataFileError(f"--axes = {text!r} is not allowed: expected the three names agents (or trials), time "
                            "and units, comma-separated, in the file's axis order (e.g. agents,time,units)")
    return tuple(names)


def read_series(path: str | Path, axes: str | None = None, variable: str | None = None) -> DataSeries:
    """The (agents, T, n) series of a .npy, .csv or .nc file; DataFileError (one line) for anything else."""
    path = Path(path)
    order = parse_axes(axes)
    suffix = path.suffix.lower()
    if suffix not in EXTENSIONS:
        raise DataFileError(f"FILE = '{path}': the extension {suffix or '(none)'!r} is not allowed: expected "
                            f"{', '.join(EXTENSIONS)}")
    if not path.is_file():  # a regular file, or a symlink to one; the message says what else it is
        raise DataFileError(f"FILE = '{path}' {path_kind(path)}: expected a readable {suffix} file")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise DataFileError(f"FILE = '{path}' is {size / 2**20:.1f} MiB: files above {MAX_FILE_BYTES // 2**20} MiB "
                            "are not read (cognition.reporting.datafile.MAX_FILE_BYTES); estimate a subset of agents or "
                            "call cognition.phi.estimate on the array")
    if variable is not None and suffix != ".nc":
        raise DataFileError(f"--var = {variable!r} goes with a .nc file, not {suffix}")
    if suffix == ".csv":
        if order is not None:
            raise DataFileError("--axes goes with .npy and .nc files; a .csv file names its columns "
                                f"({','.join(CSV_COLUMNS)})")
        data, names = _read_csv(path)
        return _checked(path, data, names, AXES, "csv")
    if suffix == ".npy":
        order = order or AXES
        data = _read_npy(path)
        _check_dims(path, data.shape, order)
        return _checked(path, _canonical(data, order), None, order, "npy")
    data, names, order = _read_netcdf(path, order, variable)
    return _checked(path, _canonical(data, order), names, order, "nc")


def _canonical(data: np.ndarray, order: tuple[str, str, str]) -> np.ndarray:
    return np.transpose(data, [order.index(a) for a in AXES])


def _check_dims(path: Path, shape: tuple, order) -> None:
    if len(shape) != 3:
        raise DataFileError(f"FILE = '{path}' holds an array of {len(shape)} dimension(s), shape {tuple(shape)}: "
                            f"expected 3 ({','.join(order)}): an ensemble of >= 5 agents or trials, each a "
                            "series of the same units")


def _real(path: Path, dtype: np.dtype) -> None:
    if dtype.kind not in "iuf":
        raise DataFileError(f"FILE = '{path}' holds values of dtype {dtype}: expected real numbers (integer or float)")


def _read_npy(path: Path) -> np.ndarray:
    with open(path, "rb") as f:
        magic = f.read(len(_NPY_MAGIC))
    if magic != _NPY_MAGIC:
        raise DataFileError(f"FILE = '{path}' is not a .npy file (no NumPy header): expected an array saved by "
                            "numpy.save")
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise DataFileError(f"FILE = '{path}' cannot be read as a .npy array ({first})") from None
    _real(path, data.dtype)
    return data


def _read_csv(path: Path) -> tuple[np.ndarray, list[str]]:
    """The long-format table as (agents, T, n) and the unit names."""
    labels: dict[str, dict[str, int]] = {"agent": {}, "unit": {}}
    # typed arrays, not lists of Python objects: 24 bytes a row where lists held about 80 (issue 45: 10^6 rows
    # took 27x the file's size)
    agent_of, unit_of, times, values = array("i"), array("i"), array("d"), array("d")
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:  # -sig: a byte-order mark (Excel) is not a header
            reader = csv.reader(f)
            header = [h.strip().lower() for h in next(reader, [])]
            if sorted(header) != sorted(CSV_COLUMNS):
                raise DataFileError(f"FILE = '{path}' has the header {','.join(header) or '(none)'}: expected the "
                                    f"columns {','.join(CSV_COLUMNS)} (long format, any order; docs/phi.md)")
            at = {name: header.index(name) for name in CSV_COLUMNS}
            for line, row in enumerate(reader, start=2):
                if not row:
                    continue
                if len(row) != len(CSV_COLUMNS):
                    raise DataFileError(f"FILE = '{path}', line {line}: {len(row)} fields: expected "
                                        f"{len(CSV_COLUMNS)} ({','.join(header)})")
                agent_of.append(labels["agent"].setdefault(row[at["agent"]].strip(), len(labels["agent"])))
                unit_of.append(labels["unit"].setdefault(row[at["unit"]].strip(), len(labels["unit"])))
                times.append(_number(path, line, "time", row[at["time"]]))
                values.append(_number(path, line, "value", row[at["value"]]))
    except (UnicodeDecodeError, csv.Error, OSError) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise DataFileError(f"FILE = '{path}' cannot be read as CSV text ({first})") from None
    if not values:
        raise DataFileError(f"FILE = '{path}' has no data rows: expected one row per agent, time and unit")
    stamps = np.frombuffer(times, dtype=np.float64)
    steps = np.unique(stamps)                  # a sorted copy; searchsorted gives the inverse without argsort's
    time_of = np.searchsorted(steps, stamps)   # index array and temporaries
    del stamps, times
    A, T, n = len(labels["agent"]), len(steps), len(labels["unit"])
    cell = np.frombuffer(agent_of, dtype=np.int32).astype(np.int64) * T
    cell += time_of
    del time_of
    cell *= n
    cell += np.frombuffer(unit_of, dtype=np.int32)
    counts = np.bincount(cell, minlength=A * T * n)
    agents, units = list(labels["agent"]), list(labels["unit"])
    for bad, what in ((np.flatnonzero(counts > 1), "appears more than once"),
                      (np.flatnonzero(counts == 0), "is missing")):
        if bad.size:
            a, rest = divmod(int(bad[0]), T * n)
            t, u = divmod(rest, n)
            raise DataFileError(f"FILE = '{path}': the cell agent={agents[a]}, time={steps[t]:g}, unit={units[u]} "
                                f"{what} ({bad.size} such cell(s)): expected every agent to have every time and unit "
                                "exactly once")
    data = np.empty(A * T * n)
    data[cell] = np.frombuffer(values, dtype=np.float64)
    return data.reshape(A, T, n), units


def _number(path: Path, line: int, column: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise DataFileError(f"FILE = '{path}', line {line}: {column} = {text!r} is not a number") from None


def _read_netcdf(path: Path, order, variable: str | None):
    """(data in the file's order, unit names or None, the file's axis order)."""
    xr = import_extra("xarray", TABLES, f"reading {path.suffix} files")
    try:
        with xr.open_dataset(path) as ds:
            names = list(ds.data_vars)
            if variable is None and len(names) != 1:
                raise DataFileError(f"FILE = '{path}' holds {len(names)} data variables ({', '.join(names) or 'none'})"
                                    ": expected one, or name it with --var")
            if variable is not None and variable not in ds.data_vars:
                raise DataFileError(f"--var = {variable!r} is not a data variable of '{path}': expected one of "
                                    f"{', '.join(names) or '(none)'}")
            var = ds[variable or names[0]]
            dims = tuple(str(d) for d in var.dims)
            _check_dims(path, var.shape, order or AXES)
            if order is None:
                order = tuple(DIM_ALIASES.get(d.lower()) for d in dims)
                if None in order or len(set(order)) != 3:
                    raise DataFileError(f"FILE = '{path}': the dimensions ({', '.join(dims)}) are not named agents "
                                        "(or agent, trial(s)), time (or cycle(s)) and units (or unit): name them, "
                                        "or give their order with --axes")
            agent_dim, unit_dim = dims[order.index("agents")], dims[order.index("units")]
            _one_group(path, var, agent_dim)
            _real(path, var.dtype)
            data = np.asarray(var.values)
            units = [str(u) for u in var[unit_dim].values] if unit_dim in var.coords else None
    except DataFileError:
        raise
    except Exception as exc:  # noqa: BLE001  (any failure of the netCDF/HDF5 readers is an unreadable file)
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise DataFileError(f"FILE = '{path}' cannot be read as netCDF ({type(exc).__name__}: {first})") from None
    return data, units, order


def _one_group(path: Path, var, agent_dim: str) -> None:
    """A run's unit history with several groups of rows (agents, donors, twins) is not an ensemble of
    independent agents: twins share their agent's weights and noise."""
    if "group" in var.coords and var["group"].dims == (agent_dim,):
        groups = list(dict.fromkeys(str(g) for g in var["group"].values))
        if len(groups) > 1:
            raise DataFileError(f"FILE = '{path}': its {agent_dim} rows belong to the groups {', '.join(groups)}, "
                                "which are not independent agents (a twin shares its agent's weights and noise): "
                                "expected one group, e.g. RunResults.to_xarray() (the run's agents)")


def _checked(path: Path, data: np.ndarray, names, order, source: str) -> DataSeries:
    """Refuse NaN/inf values and too few agents or units, naming where; float64 (agents, T, n)."""
    data = np.asarray(data, dtype=np.float64)
    agents, T, n = data.shape
    bad = ~np.isfinite(data)
    if bad.any():
        a, t, u = (int(i) for i in np.argwhere(bad)[0])
        unit = names[u] if names else u
        raise DataFileError(f"FILE = '{path}' holds {int(bad.sum())} NaN or infinite value(s) (first: agent {a}, "
                            f"time step {t}, unit {unit}): expected finite numbers; remove or impute them")
    if agents < MIN_AGENTS:
        raise DataFileError(f"FILE = '{path}' holds {agents} agent(s) (axes {','.join(order)}, shape "
                            f"{tuple(data.shape)} as agents, time, units): the calibrated ensemble estimate needs >= "
                            f"{MIN_AGENTS} independent agents or trials (for fewer: cognition.phi.estimate(X, "
                            "centre='pooled'), docs/phi.md)")
    if n < 2:
        raise DataFileError(f"FILE = '{path}' holds {n} unit(s): a bipartition needs >= 2 units")
    return DataSeries(np.ascontiguousarray(data), names, tuple(order), source)
