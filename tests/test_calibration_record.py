"""Reports quote the measured calibration that applies to their size (issue 14)."""
import json

from cognition.benchmarks.calibration import applicable_calibration
from cognition.reporting.sections import calibration_text


def _record(tmp_path):
    rows = [{"agents": a, "cycles": c, "draws": 200, "coverage_true_mib": cov, "coverage_stated_mib": cov,
             "power": 1.0} for (a, c), cov in (((8, 50), 0.91), ((8, 200), 0.93), ((32, 50), 0.94))]
    table = {"settings": {"alpha": 0.05, "seed": 1}, "coverage": rows,
             "null_families": [{"family": "stationary", "false_positive_rate": 0.01, "systems": 200}]}
    path = tmp_path / "record.json"
    path.write_text(json.dumps({"calibration": table}))  # as the bench's --json writes it
    return path


def test_the_nearest_measured_size_is_quoted_and_marked(tmp_path):
    path = _record(tmp_path)
    exact = applicable_calibration(8, 50, path)
    assert exact["exact_size"] and exact["coverage"]["coverage_true_mib"] == 0.91
    near = applicable_calibration(8, 400, path)
    assert not near["exact_size"] and near["coverage"]["cycles"] == 200
    assert applicable_calibration(64, 40, path)["coverage"]["agents"] == 32
    text = calibration_text(near)
    assert "stationary 1.0%" in text and "93.0%" in text and "nearest size measured" in text
    assert "calibration --seed 1" in text


def test_no_record_no_quote(tmp_path):
    assert applicable_calibration(8, 50, tmp_path / "missing.json") is None
