"""The aggregate table of a sweep: one row per point, read from its run directory.

Columns, in order:

* ``point``: the run directory's name;
* each swept key (``quantum.mode``, ..., ``run.seed``), and ``run.seed`` even when
  it is not swept;
* ``status`` (the report's ``completed`` / ``interrupted`` / ``failed``, or
  ``unfinished`` / ``not started``), ``cycles_completed``, ``phi_measure``;
* ``phi_whole_run_bits`` with ``phi_whole_run_ci_low_bits`` / ``phi_whole_run_ci_high_bits`` and
  ``phi_whole_run_p_value``: the run's headline (report.json ``phi.headline_bits``: for an
  ensemble the mean over agents of each agent's own Phi), its interval and its integration
  test, the numbers a sweep's summaries and plots compare; ``phi_integrated``, the run's verdict;
  ``phi_mean_bits`` with ``phi_mean_ci_low_bits`` / ``phi_mean_ci_high_bits``: the mean per-cycle
  Phi (descriptive: each window pooled over agents) and its batch-means interval; ``passed``;
* timing columns, all named ``timing_*`` (:data:`TIMING_COLUMNS`): ``timing_run_seconds``,
  the summed cycle times from ``metrics.jsonl``. They are the only columns that
  differ between two executions of the same sweep (local or Ray, interrupted or not).

Written as ``aggregate.csv`` (floats in shortest round-trip form) and, when
pyarrow is importable, ``aggregate.parquet``.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from cognition.sweeps.keys import get_dotted
from cognition.config.schema import format_value
from cognition.sweeps.spec import SweepSpec
from cognition.simulator import rundir

RESULT_COLUMNS = ("status", "cycles_completed", "phi_measure", "phi_whole_run_bits", "phi_whole_run_ci_low_bits",
                  "phi_whole_run_ci_high_bits", "phi_whole_run_p_value", "phi_integrated", "phi_mean_bits",
                  "phi_mean_ci_low_bits", "phi_mean_ci_high_bits", "passed")
TIMING_COLUMNS = ("timing_run_seconds",)


def columns(spec: SweepSpec) -> list[str]:
    keys = list(spec.keys) + ([] if "run.seed" in spec.keys else ["run.seed"])
    return ["point", *keys, *RESULT_COLUMNS, *TIMING_COLUMNS]


def _pair(ci) -> tuple:
    return (ci[0], ci[1]) if ci else (None, None)


def _run_seconds(run_dir: Path) -> float | None:
    try:
        lines = (run_dir / rundir.METRICS).read_text().splitlines()
    except OSError:
        return None
    return sum(json.loads(ln).get("timing", {}).get("cycle_s", 0.0) for ln in lines if ln.strip())


def point_status(run_dir: Path, report: dict | None) -> str:
    """The aggregate's ``status`` of a point: its report's (``completed``, ``interrupted``, ``failed``), else
    ``unfinished`` (a run without a report, which ``--resume`` continues) or ``not started``."""
    if report is not None:
        return report.get("status")
    return "unfinished" if rundir.state(run_dir) == "resume" else "not started"


def point_row(point, run_dir: Path) -> dict:
    resolved = point.config.to_dict()  # the values the run used (YAML 0 for a float key reads 0.0)
    row = {"point": point.name, **{k: get_dotted(resolved, k) for k in point.params}}
    row.setdefault("run.seed", point.config.run.seed)
    report = rundir.read_report(run_dir)
    if report is None:
        row.update(dict.fromkeys(RESULT_COLUMNS + TIMING_COLUMNS))
        row["status"] = point_status(run_dir, report)
        return row
    phi = report.get("phi", {})
    measure = phi.get("measure")
    mean_lo, mean_hi = _pair(phi.get("mean_ci_bits"))
    whole_lo, whole_hi = _pair(phi.get("headline_ci_bits"))
    row.update(status=report.get("status"), cycles_completed=report.get("cycles_completed"), phi_measure=measure,
               phi_mean_bits=phi.get("mean_bits"), phi_mean_ci_low_bits=mean_lo, phi_mean_ci_high_bits=mean_hi,
               phi_whole_run_bits=phi.get("headline_bits"), phi_whole_run_ci_low_bits=whole_lo,
               phi_whole_run_ci_high_bits=whole_hi, phi_whole_run_p_value=phi.get("headline_p_value"),
               phi_integrated=(phi.get("integrated") or {}).get("passed"),
               passed=report.get("passed"), timing_run_seconds=_run_seconds(run_dir))
    return row


def aggregate_rows(spec: SweepSpec, root: str | Path) -> list[dict]:
    """One row per point of ``spec``, in sweep order, read from the run directories under ``root``."""
    return [point_row(p, Path(root) / p.name) for p in spec.points]


def _cell(value) -> str:
    if value is None:
        return ""
    return format_value(value)


def csv_text(rows: list[dict], cols: list[str]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(cols)
    for row in rows:
        writer.writerow([_cell(row.get(c)) for c in cols])
    return buf.getvalue()


def write_tables(rows: list[dict], cols: list[str], root: Path) -> tuple[list[Path], bool]:
    """Write aggregate.csv (and .parquet); returns (paths, whether the table changed)."""
    path = Path(root) / "aggregate.csv"
    text = csv_text(rows, cols)
    changed = not path.is_file() or path.read_text() != text
    paths = [path]
    if changed:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text)
        tmp.replace(path)
    parquet = write_parquet(rows, cols, Path(root) / "aggregate.parquet", rewrite=changed)
    if parquet is not None:
        paths.append(parquet)
    return paths, changed


def write_parquet(rows: list[dict], cols: list[str], path: Path, *, rewrite: bool = True) -> Path | None:
    """aggregate.parquet when pyarrow is importable (an optional extra), else None."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return None
    if rewrite or not path.is_file():
        data = {c: [format_value(r.get(c)) if isinstance(r.get(c), (list, tuple)) else r.get(c) for r in rows]
                for c in cols}
        pq.write_table(pa.table(data), path)
    return path


def read_csv(path: str | Path) -> list[dict]:
    """aggregate.csv as a list of ``{column: text}`` (for comparing two sweeps)."""
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def without_timing(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if not k.startswith("timing_")} for r in rows]
