"""The main job's numbers, bit for bit, against a stored reference run (issue 32: the house moved; the numbers
did not). tests/reference/main_job.json was written by 0.7.0 (issue 42's latency-aligned removal of the shared
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
    assert report == ref["report"]
    units = np.load(out / "unit_history.npy")
    assert list(units.shape) == ref["unit_history_shape"]
    assert hashlib.sha256(np.ascontiguousarray(units).tobytes()).hexdigest() == ref["unit_history_sha256"]
