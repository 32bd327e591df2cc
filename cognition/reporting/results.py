"""A finished run read back as arrays: what :meth:`cognition.api.Simulator.run` returns.

Everything comes from the run directory (``report.json``, ``metrics.jsonl``,
``unit_history.npy``, ``config.yaml``), so a run made by the command line reads back
the same way: ``RunResults("runs/2026-...")``. Arrays are read-only views; copy one
to change it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from cognition.reporting import frames
from cognition.reporting.explain import explain
from cognition.architecture.winners import decode_winners
from cognition.architecture.controls import population, split_rows
from cognition.errors import UsageError
from cognition.runtime.unit_history import HISTORY_NAME
from cognition.simulator.rundir import REPORT


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.asarray(array)
    array.flags.writeable = False
    return array


class RunResults:
    """The results of one run directory.

    units:      (agents, cycles, n_units) float64, every unit's signal per agent and cycle
    unit_names: the n_units names, ``module.signal`` (e.g. ``unconscious.salience``)
    phi():      (cycles,) the per-cycle Phi in bits over the trailing window (nan before it fills)
    report:     report.json as a dict (the headline Phi, its interval and p-value, the criteria)
    """

    def __init__(self, run_dir: str | Path, partial: bool = False):
        from cognition.reporting.rundata import check_history, load_partial_run, load_run, load_units, unit_names_of
        from cognition.simulator.rundir import state

        #: True for a run read with ``partial=True`` that did not complete (killed, stopped or still running)
        self.incomplete = bool(partial) and state(run_dir) != "finished"
        if self.incomplete:  # every cycle both files hold whole, read-only; nothing checked against a report
            self._run, units, self.committed_cycles = load_partial_run(run_dir)
            self.path = self._run.path
            self._names = list(self._run.report["phi"].get("unit_names") or []) if self._run.report else \
                unit_names_of(self.path, self._run.config)
            self._units = None if units is None else _frozen(units)
            return
        self._run = load_run(run_dir)  # refuses a metrics.jsonl that disagrees with report.json, naming the line
        self.path = self._run.path
        check_history(self.path, len(self._run.records), exact=True)  # and a unit history of other cycles
        units = load_units(self.path, len(self._run.records))
        self._units = None if units is None else _frozen(units)
        self._names = list(self.report["phi"].get("unit_names") or [])
        #: the cycles a ``--resume`` would keep (a finished run: all of them)
        self.committed_cycles = len(self._run.records)

    # -- what the run was ---------------------------------------------------
    @property
    def report(self) -> dict:
        if self._run.report is None:
            raise UsageError(f"{self.path}: the run wrote no report.json (it did not finish: "
                             f"{len(self._run.records)} cycles recorded); continue it with python -m "
                             f"cognition.validate --resume {self.path}")
        return self._run.report

    @property
    def config(self) -> dict:
        """The resolved configuration the run used (config.yaml)."""
        return self._run.config

    @property
    def provenance(self) -> dict:
        """provenance.json: the package and its git SHA, libraries, device, components and their controls."""
        return self._run.provenance

    @property
    def status(self) -> str:
        """report.json's status (completed, stopped, failed); "incomplete" for a partial read of a run that
        wrote no report (killed, or still running)."""
        return self._run.report["status"] if self._run.report is not None else "incomplete"

    @property
    def passed(self) -> bool:
        return False if self.incomplete else bool(self.report["passed"])

    def explain(self) -> list[str]:
        """The verdict, each criterion as the command line prints it, and why each failure happened
        at this run's size, as lines (:func:`cognition.reporting.explain.explain`); for an incomplete run, what
        was recorded and how to continue it."""
        if self.incomplete:
            planned = (self.config.get("run") or {}).get("cycles")
            return [f"incomplete: {len(self._run.records)} of {planned} cycles recorded ({self.committed_cycles} "
                    f"kept by a resume), no verdict; continue it with python -m cognition.validate --resume "
                    f"{self.path}"]
        return explain(self.report, self.config)

    @property
    def cycles(self) -> np.ndarray:
        """(cycles,) the cycle numbers 1..n."""
        return _frozen(np.array([r["cycle"] for r in self._run.records], dtype=np.int64))

    @property
    def records(self) -> list[dict]:
        """metrics.jsonl: one dict per cycle (salience, winner shares, extras, Phi, timing, telemetry)."""
        return self._run.records

    # -- arrays --------------------------------------------------------------
    @property
    def unit_names(self) -> list[str]:
        return list(self._names)

    @property
    def units(self) -> np.ndarray:
        """(agents, cycles, n_units) the run's own agents' unit signals (:meth:`group` for the controls')."""
        return self.group("intact")

    def group(self, name: str) -> np.ndarray:
        """(agents, cycles, n_units) the unit signals of one group of batch rows: "intact" (the run's
        agents), and with the yoked control "donor", "yoked" and "yoked_proposals" (cognition/architecture/controls.py)."""
        groups = self._row_groups()
        if name not in groups:
            raise UsageError(f"group {name!r} is not one of this run's: {', '.join(groups)}")
        return self._units[groups[name]]

    def _row_groups(self) -> dict[str, slice]:
        """Group name -> its batch rows of the unit history; UsageError (one line) when it holds none or
        does not match the run's configuration."""
        if self._units is None:
            raise UsageError(f"{self.path}: the run directory holds no unit signals (unit_history.npy)")
        yoked = bool((self.config.get("control") or {}).get("yoked", False))
        agents = self.config["run"]["agents"]
        try:
            split_rows(self._units, agents, yoked)  # checks the rows against the configuration
        except ValueError as exc:  # e.g. a run of 0.4 (three rows per agent, no proposal-yoked twins)
            version = (self.provenance or {}).get("package", {}).get("version", "unknown")
            raise UsageError(f"{self.path}: {exc} (written by hybrid-cognition {version}; read it with that "
                             "version)") from None
        return population(agents, int(yoked)).groups

    def _row_labels(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows,) each batch row's group name, and the run agent (0..A-1) whose agent, donor or twin it is."""
        groups = self._row_groups()
        labels = np.empty(self._units.shape[0], dtype=object)
        paired = np.empty(self._units.shape[0], dtype=np.int64)
        for name, rows in groups.items():
            labels[rows] = name
            paired[rows] = np.arange(rows.stop - rows.start)
        return labels.astype(str), paired

    def probe(self, unit: str) -> np.ndarray:
        """(agents, cycles) the signal of one unit, by name (see :attr:`unit_names`)."""
        names = self.unit_names
        if unit not in names:
            raise UsageError(f"unit {unit!r} is not one of this run's units: {', '.join(names)}")
        return self.units[:, :, names.index(unit)]

    def phi(self, measure: str | None = None) -> np.ndarray:
        """(cycles,) the per-cycle Phi in bits (``phi_r`` or ``phi_wms``; default the run's measure),
        nan for the cycles before the window filled or where it was undefined."""
        measure = measure or (self.report["phi"]["measure"] if self._run.report is not None
                              else (self.config.get("phi") or {}).get("measure", "phi_r"))
        if measure not in ("phi_r", "phi_wms", "tdmi"):
            raise UsageError(f"measure {measure!r} is not allowed: expected phi_r, phi_wms or tdmi")
        return _frozen(np.array([(r.get("phi") or {}).get(measure, np.nan) for r in self._run.records],
                                dtype=float))

    def winners(self, group: str = "intact") -> np.ndarray:
        """(agents, cycles) int64: each batch row's workspace winner per cycle, the module's index in
        :attr:`modules` (the loop's module order), -1 where no module had access; the rows of ``group``
        as :meth:`to_pandas` takes them (default the run's agents). From metrics.jsonl's ``winners``."""
        return self._winners_of(self._rows_of(group)[1])

    @property
    def modules(self) -> list[str]:
        """The enabled modules in the loop's order: the names :meth:`winners`' indices refer to."""
        return list(self.config["modules"]["enabled"])

    def _winners_of(self, rows: np.ndarray) -> np.ndarray:
        missing = [r["cycle"] for r in self._run.records if "winners" not in r]
        if missing:
            version = (self.provenance or {}).get("package", {}).get("version", "unknown")
            raise UsageError(f"{self.path}: metrics.jsonl records no per-row winners (cycle {missing[0]} has none; "
                             f"written by hybrid-cognition {version}, before they were recorded): only the shares "
                             "over agents, records[i]['winner_share'], are there")
        table = np.stack([decode_winners(r["winners"]) for r in self._run.records], axis=1)
        return _frozen(table[rows])

    def salience(self) -> dict[str, np.ndarray]:
        """Module name -> (cycles,) its salience, the mean over agents."""
        names = list(self._run.records[0]["salience"]) if self._run.records else []
        return {n: _frozen(np.array([r["salience"][n] for r in self._run.records], dtype=float)) for n in names}

    def extras(self, key: str) -> np.ndarray:
        """(cycles,) a per-cycle diagnostic (e.g. ``hybrid.interference``), the mean over agents."""
        known = sorted({k for r in self._run.records for k in r["extras"]})
        if key not in known:
            raise UsageError(f"extra {key!r} is not recorded by this run: {', '.join(known)}")
        return _frozen(np.array([r["extras"].get(key, np.nan) for r in self._run.records], dtype=float))

    # -- labelled tables (the optional "tables" extra: pandas, xarray) ---------
    def to_pandas(self, table: str = "cycles", group: str = "intact"):
        """A pandas DataFrame of the run (pandas is imported here; docs/api.md, "Labelled tables").

        "cycles": one row per cycle, a column per field of metrics.jsonl, nested names dotted
        (``phi.phi_r``, ``salience.hybrid``, ``extras.hybrid.interference``);
        "units": one row per batch row of ``group`` and cycle, agent-major as :attr:`units` (default the run's
        agents, "intact"; "donor", "yoked", "yoked_proposals" for a control's rows, "all" for every batch
        row), with ``cycle``, ``agent`` (the batch row: the run's agents are rows 0..A-1), ``group``,
        ``paired_agent`` (the run agent whose donor or twin the row is), ``winner`` (the module that won the
        row's workspace that cycle, or "none": :meth:`winners` by name) and one column per unit;
        "agents": one row per agent of the run, its whole-run Phi from report.json
        (``phi.whole_run.per_agent``) with ``agent`` and ``group``.
        """
        if table == "cycles":
            return frames.cycle_frame(self._run.records)
        if table == "units":
            history, rows, groups, paired = self._rows_of(group)
            return frames.unit_frame(history, rows, groups, paired, self.cycles, self.unit_names,
                                     self._winner_table(rows))
        if table == "agents":
            return frames.agent_frame(self.report["phi"], self.unit_names)
        raise UsageError(f"table = {table!r} is not allowed: expected one of {', '.join(frames.TABLE_KINDS)}")

    def to_xarray(self, group: str = "intact"):
        """The unit history as an xarray DataArray (agent, cycle, unit), the dimensions of :attr:`units`, of the
        batch rows of ``group`` (default the run's agents, "intact"; "donor", "yoked", "yoked_proposals" for a
        control's rows, "all" for every batch row), with coordinates agent (the batch row), cycle, unit
        (names), group and paired_agent, and winner along (agent, cycle) (xarray is imported here).
        ``to_xarray().to_netcdf("units.nc")`` is a
        file ``python -m cognition.phi`` reads."""
        attrs = {"run_dir": str(self.path), "source": HISTORY_NAME,
                 "description": "the unit signals Phi is computed from, per batch row, cycle and unit"}
        history, rows, groups, paired = self._rows_of(group)
        return frames.unit_array(history, rows, groups, paired, self.cycles, self.unit_names, attrs,
                                 self._winner_table(rows))

    def _winner_table(self, rows: np.ndarray) -> tuple | None:
        """((len(rows), cycles) the rows' winners, the module names) for the tables; None for a run that did
        not record them (0.8.0 and before: the tables then have no winner, :meth:`winners` says why)."""
        if any("winners" not in r for r in self._run.records):
            return None
        return self._winners_of(rows), self.modules

    def _rows_of(self, group: str):
        """(history (rows, cycles, n_units), the batch rows, their group names, their paired run agents) of
        ``group`` or of "all"; UsageError (one line) naming the groups for another name."""
        groups, paired = self._row_labels()
        rows = np.arange(len(groups))
        if group != "all":
            if group not in set(groups):
                raise UsageError(f"group {group!r} is not one of this run's: {', '.join(dict.fromkeys(groups))}, "
                                 "or all")
            rows = rows[groups == group]
        return self._units[rows], rows, groups[rows], paired[rows]

    # -- the report ----------------------------------------------------------
    @property
    def report_paths(self) -> dict[str, Path]:
        return {"json": self.path / REPORT, "markdown": self.path / "report.md",
                "html": self.path / "report.html"}

    def write_report(self) -> dict[str, Path]:
        """Write the report again from the run directory (as ``python -m cognition.report RUN_DIR``)."""
        if self.incomplete:
            raise UsageError(f"{self.path}: read with partial=True, read-only: a run that did not finish has no "
                             f"report to write; continue it with python -m cognition.validate --resume {self.path}")
        from cognition.reporting.run_report import rebuild  # the plots' matplotlib: only when written

        rebuild(self.path)
        return self.report_paths

    def __repr__(self) -> str:
        if self.incomplete:
            return (f"RunResults({str(self.path)!r}: {self.status}, {len(self._run.records)} cycles recorded, "
                    f"{self.committed_cycles} kept by a resume, partial)")
        phi = self.report["phi"]
        value = phi.get("headline_bits")
        head = f"{phi['measure']} {value:.4f} bits" if value is not None else "Phi not estimated"
        return f"RunResults({str(self.path)!r}: {self.status}, {len(self._run.records)} cycles, {head})"
