"""The aggregate table's files: CSV that round-trips floats exactly, Parquet when pyarrow is there."""
import sys

import pytest

from cognition.sweeps.aggregate import csv_text, read_csv, without_timing, write_parquet, write_tables

COLS = ["point", "quantum.mode", "run.seed", "phi_mean_bits", "passed", "timing_run_seconds"]
ROWS = [
    {"point": "a", "quantum.mode": "lite", "run.seed": 0, "phi_mean_bits": 0.1 + 0.2, "passed": True,
     "timing_run_seconds": 1.5},
    {"point": "b", "quantum.mode": "disabled", "run.seed": 1, "phi_mean_bits": None, "passed": False,
     "timing_run_seconds": 2.25},
]


def test_csv_keeps_every_float_to_the_bit(tmp_path):
    paths, changed = write_tables(ROWS, COLS, tmp_path)
    assert changed and paths[0] == tmp_path / "aggregate.csv"
    back = read_csv(tmp_path / "aggregate.csv")
    # 0.1 + 0.2 == 0.30000000000000004 (IEEE 754 double); repr is the shortest text that reads back exactly
    assert back[0]["phi_mean_bits"] == "0.30000000000000004" and float(back[0]["phi_mean_bits"]) == 0.1 + 0.2
    assert back[1]["phi_mean_bits"] == "" and [r["passed"] for r in back] == ["true", "false"]
    assert without_timing(back)[0] == {"point": "a", "quantum.mode": "lite", "run.seed": "0",
                                       "phi_mean_bits": "0.30000000000000004", "passed": "true"}


def test_an_identical_table_is_not_rewritten(tmp_path):
    write_tables(ROWS, COLS, tmp_path)
    mtime = (tmp_path / "aggregate.csv").stat().st_mtime_ns
    _, changed = write_tables(ROWS, COLS, tmp_path)
    assert not changed and (tmp_path / "aggregate.csv").stat().st_mtime_ns == mtime
    assert (tmp_path / "aggregate.csv").read_text() == csv_text(ROWS, COLS)


def test_no_parquet_without_pyarrow(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    assert write_parquet(ROWS, COLS, tmp_path / "aggregate.parquet") is None
    assert not (tmp_path / "aggregate.parquet").exists()


def test_parquet_holds_the_same_table(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    path = write_parquet(ROWS, COLS, tmp_path / "aggregate.parquet")
    table = pq.read_table(path).to_pylist()
    assert table == [{c: r[c] for c in COLS} for r in ROWS]
