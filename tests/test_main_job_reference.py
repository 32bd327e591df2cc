"""The main job's numbers against a stored reference run (issue 32: the house moved; the numbers did not): every
number to 1e-12 (relative, or absolute below 1), everything else (strings, integers, booleans, structure)
exactly. Issue 45's speed work sums in other orders (contiguous passes, matrix products), which moves the last
bits; a change beyond rounding (a latency, a minimum or a count chosen differently) shows here. tests/reference/main_job.json was written by 0.7.0 (issue 42's latency-aligned removal of the shared
course); its "about" says what changed against 0.6.0's run at git 0b6f49c."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from clitools import command

REFERENCE = Path(__file__).resolve().parent / "reference" / "main_job.json"


@pytest.mark.integration
def test_the_main_job_reproduces_the_stored_reference_run(tmp_path):
    ref = json.loads(REFERENCE.read_text())
    out = tmp_path / "run"
    res = command("cognition.validate", *ref["command"].split()[3:], "--out", out, timeout=900)
    assert res.returncode == (0 if ref["report"]["passed"] else 1), res.stderr[-2000:]
    report = json.loads((out / "report.json").read_text())
    report.pop("telemetry")
    differences = list(_differences(report, ref["report"]))
    assert not differences, differences[:5]
    units = np.load(out / "unit_history.npy")
    assert list(units.shape) == ref["unit_history_shape"]
    assert hashlib.sha256(np.ascontiguousarray(units).tobytes()).hexdigest() == ref["unit_history_sha256"]


def _differences(got, want, where: str = ""):
    """(path, got, want) wherever ``got`` differs from ``want`` beyond 1e-12 in a float, or at all elsewhere."""
    if isinstance(want, dict) and isinstance(got, dict) and got.keys() == want.keys():
        for key in want:
            yield from _differences(got[key], want[key], f"{where}/{key}")
    elif isinstance(want, list) and isinstance(got, list) and len(got) == len(want):
        for i, (g, w) in enumerate(zip(got, want)):
            yield from _differences(g, w, f"{where}[{i}]")
    elif isinstance(want, float) and isinstance(got, float):
        if not abs(got - want) <= 1e-12 * max(1.0, abs(want)):
            yield where, got, want
    elif got != want or type(got) is not type(want):
        yield where, got, want


def test_the_comparison_finds_a_difference_beyond_rounding():
    # the comparison itself: 1e-12 relative passes, 1e-9 does not, nor a changed string, count or key
    want = {"a": [1.0, 2.5], "b": {"c": "text", "d": 3}}
    assert not list(_differences({"a": [1.0 + 1e-13, 2.5], "b": {"c": "text", "d": 3}}, want))
    assert list(_differences({"a": [1.0 + 1e-9, 2.5], "b": {"c": "text", "d": 3}}, want))
    assert list(_differences({"a": [1.0, 2.5], "b": {"c": "other", "d": 3}}, want))
    assert list(_differences({"a": [1.0, 2.5], "b": {"c": "text", "d": 4}}, want))
    assert list(_differences({"a": [1.0, 2.5], "b": {"c": "text"}}, want))
