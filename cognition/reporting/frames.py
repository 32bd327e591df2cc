"""A finished run as labelled tables: pandas DataFrames and an xarray DataArray (docs/api.md).

The builders of :meth:`cognition.reporting.results.RunResults.to_pandas` and ``to_xarray``. pandas and
xarray are the optional ``tables`` extra: they are imported here, inside the functions, and
never by a run. Every value is the run directory's own number, unchanged: the per-cycle
records of ``metrics.jsonl``, the per-agent values of ``report.json`` and the signals of
``unit_history.npy``.
"""
from __future__ import annotations

import numpy as np

from cognition.errors import UsageError
from cognition.reporting.extras import TABLES, import_extra

TABLE_KINDS = ("cycles", "units", "agents")
ROW_COLUMNS = ("cycle", "agent", "group", "paired_agent")


def flat_record(record: dict, prefix: str = "") -> dict:
    """One metrics.jsonl record as {dotted name: leaf}: nested dicts flattened (``phi.phi_r``,
    ``salience.hybrid``), lists made tuples (``phi.mib``), numbers, strings and None as they are."""
    out = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flat_record(value, name + "."))
        else:
            out[name] = _tuples(value)
    return out


def _tuples(value):
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def cycle_frame(records: list[dict]):
    """One row per cycle, one column per flattened field of metrics.jsonl (``cycle`` first). A field
    that is null in some cycles and a mapping in others (``phi`` before its window fills) appears as
    the mapping's columns, missing (NaN) in those cycles."""
    pd = import_extra("pandas", TABLES, "RunResults.to_pandas")
    rows = [flat_record(r) for r in records]
    names = list(dict.fromkeys(name for row in rows for name in row))
    names = [n for n in names if not any(m.startswith(n + ".") for m in names)]
    columns = ["cycle"] + sorted(n for n in names if n != "cycle")
    return pd.DataFrame([{n: row.get(n) for n in columns} for row in rows], columns=columns)


NO_WINNER = "none"  # the winner column's value where no module had access


def winner_codes(winners: np.ndarray, modules: list[str]) -> np.ndarray:
    """Winner indices (any shape; module index, -1 no access) as codes into ``[*modules, NO_WINNER]``."""
    winners = np.asarray(winners)
    return np.where(winners < 0, len(modules), winners)


def unit_frame(history: np.ndarray, rows: np.ndarray, groups: np.ndarray, paired: np.ndarray,
               cycles: np.ndarray, unit_names: list[str], winners: tuple | None = None):
    """One row per batch row and cycle (agent-major, as ``RunResults.units``): ``cycle``, ``agent`` (the batch
    row, ``rows``), ``group``, ``paired_agent``, ``winner`` (the module that won the row's workspace in the
    cycle, or "none"; absent when ``winners`` is None), then one column per unit.

    history: (len(rows), cycles, n_units); winners: ((len(rows), cycles) module indices, -1 no access; the
    module names), the column a categorical of the names and "none" in that order."""
    pd = import_extra("pandas", TABLES, "RunResults.to_pandas")
    R, C, n = history.shape
    flat = history.reshape(R * C, n)
    columns = {"cycle": np.tile(cycles, R), "agent": np.repeat(rows, C),
               "group": np.repeat(groups, C), "paired_agent": np.repeat(paired, C)}
    if winners is not None:
        index, modules = winners
        columns["winner"] = pd.Categorical.from_codes(winner_codes(index, modules).reshape(R * C),
                                                      categories=[*modules, NO_WINNER])
    columns.update({name: flat[:, j].copy() for j, name in enumerate(unit_names)})
    return pd.DataFrame(columns)


def agent_frame(phi_section: dict, unit_names: list[str]):
    """One row per agent of the run: report.json's per-agent whole-run values
    (``phi.whole_run.per_agent``: phi_r, phi_wms, their ``_lower``/``_upper``/``_plug_in``, the MIB),
    with ``agent`` and ``group`` ("intact") to merge with the units table."""
    pd = import_extra("pandas", TABLES, "RunResults.to_pandas")
    per_agent = (phi_section.get("whole_run") or {}).get("per_agent")
    if not per_agent:
        why = phi_section.get("whole_run_note") or (f"the whole-run estimate is {phi_section.get('headline_method')}"
                                                    if phi_section.get("whole_run") else "no whole-run estimate")
        raise UsageError(f"to_pandas('agents'): this run's report.json holds no per-agent Phi ({why}); per-agent "
                         "values need an ensemble of >= 5 agents and enough cycles (docs/phi.md)")
    mibs = per_agent["mib"]
    columns = {"agent": np.arange(len(mibs)), "group": ["intact"] * len(mibs)}
    columns.update({k: list(v) for k, v in per_agent.items() if k != "mib"})
    columns["mib"] = [_tuples(m) for m in mibs]
    columns["mib_named"] = [tuple(tuple(unit_names[i] for i in part) for part in m) for m in mibs]
    return pd.DataFrame(columns)


def unit_array(history: np.ndarray, rows: np.ndarray, groups: np.ndarray, paired: np.ndarray,
               cycles: np.ndarray, unit_names: list[str], attrs: dict, winners: tuple | None = None):
    """The unit history as a DataArray (agent, cycle, unit) named ``units``; coordinates ``agent`` (``rows``:
    the batch rows), ``cycle`` (1..n), ``unit`` (names), along ``agent`` the row's ``group`` and
    ``paired_agent``, and along (agent, cycle) ``winner`` (module names, "none"; absent when ``winners``, as
    :func:`unit_frame` takes it, is None). history: (len(rows), cycles, n_units), copied into memory."""
    xr = import_extra("xarray", TABLES, "RunResults.to_xarray")
    coords = {"cycle": np.asarray(cycles, dtype=np.int64), "agent": np.asarray(rows, dtype=np.int64),
              "unit": np.array(unit_names, dtype=str), "group": ("agent", np.array(groups, dtype=str)),
              "paired_agent": ("agent", np.asarray(paired, dtype=np.int64))}
    if winners is not None:
        index, modules = winners
        names = np.array([*modules, NO_WINNER], dtype=str)
        coords["winner"] = (("agent", "cycle"), names[winner_codes(index, modules)])
    return xr.DataArray(np.array(history, dtype=np.float64), dims=("agent", "cycle", "unit"), coords=coords,
                        name="units", attrs=attrs)
