"""A finished run read back as arrays: what :meth:`cognition.api.Simulator.run` returns.

Everything comes from the run directory (``report.json``, ``metrics.jsonl``,
``unit_history.npy``, ``config.yaml``), so a run made by the command line reads back
the same way: ``RunResults("runs/2026-...")``. Arrays are read-only views; copy one
to change it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from cognition.errors import UsageError


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

    def __init__(self, run_dir: str | Path):
        from cognition.reporting.rundata import load_run, load_units

        self._run = load_run(run_dir)
        self.path = self._run.path
        units = load_units(self.path, len(self._run.records))
        self._units = None if units is None else _frozen(units)

    # -- what the run was ---------------------------------------------------
    @property
    def report(self) -> dict:
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
        return self.report["status"]

    @property
    def passed(self) -> bool:
        return bool(self.report["passed"])

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
        return list(self.report["phi"].get("unit_names") or [])

    @property
    def units(self) -> np.ndarray:
        """(agents, cycles, n_units) the run's own agents' unit signals (:meth:`group` for the controls')."""
        return self.group("intact")

    def group(self, name: str) -> np.ndarray:
        """(agents, cycles, n_units) the unit signals of one group of batch rows: "intact" (the run's
        agents), and with the yoked control "donor", "yoked" and "yoked_proposals" (cognition/controls.py)."""
        from cognition.controls import split_rows

        if self._units is None:
            raise UsageError(f"{self.path}: the run directory holds no unit signals (unit_history.npy)")
        yoked = bool((self.config.get("control") or {}).get("yoked", False))
        try:
            groups = split_rows(self._units, self.config["run"]["agents"], yoked)
        except ValueError as exc:  # e.g. a run of 0.4 (three rows per agent, no proposal-yoked twins)
            version = (self.provenance or {}).get("package", {}).get("version", "unknown")
            raise UsageError(f"{self.path}: {exc} (written by hybrid-cognition {version}; read it with that "
                             "version)") from None
        if name not in groups:
            raise UsageError(f"group {name!r} is not one of this run's: {', '.join(groups)}")
        return groups[name]

    def probe(self, unit: str) -> np.ndarray:
        """(agents, cycles) the signal of one unit, by name (see :attr:`unit_names`)."""
        names = self.unit_names
        if unit not in names:
            raise UsageError(f"unit {unit!r} is not one of this run's units: {', '.join(names)}")
        return self.units[:, :, names.index(unit)]

    def phi(self, measure: str | None = None) -> np.ndarray:
        """(cycles,) the per-cycle Phi in bits (``phi_r`` or ``phi_wms``; default the run's measure),
        nan for the cycles before the window filled or where it was undefined."""
        measure = measure or self.report["phi"]["measure"]
        if measure not in ("phi_r", "phi_wms", "tdmi"):
            raise UsageError(f"measure {measure!r} is not allowed: expected phi_r, phi_wms or tdmi")
        return _frozen(np.array([(r.get("phi") or {}).get(measure, np.nan) for r in self._run.records],
                                dtype=float))

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

    # -- the report ----------------------------------------------------------
    @property
    def report_paths(self) -> dict[str, Path]:
        return {"json": self.path / "report.json", "markdown": self.path / "report.md",
                "html": self.path / "report.html"}

    def write_report(self) -> dict[str, Path]:
        """Write the report again from the run directory (as ``python -m cognition.report RUN_DIR``)."""
        from cognition.report import rebuild

        rebuild(self.path)
        return self.report_paths

    def __repr__(self) -> str:
        phi = self.report["phi"]
        value = phi.get("headline_bits")
        head = f"{phi['measure']} {value:.4f} bits" if value is not None else "Phi not estimated"
        return f"RunResults({str(self.path)!r}: {self.status}, {len(self._run.records)} cycles, {head})"
