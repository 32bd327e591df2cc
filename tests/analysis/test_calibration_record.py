"""Reports quote the measured calibration that applies to their size (issues 14 and 30)."""
import json

from cognition.analysis.calibration_record import RECORD, applicable_calibration
from cognition.reporting.sections import calibration_text


def _record(tmp_path):
    nulls = [{"family": "stationary", "agents": a, "cycles": 50, "systems": 200, "false_positive_rate": fp,
              "verdict_rate": 0.0} for a, fp in ((8, 0.01), (32, 0.02))]
    accuracy = [{"family": "random", "agents": a, "cycles": c, "draws": 100, "median_error_bits": err,
                 "coverage": cov, "power": 1.0}
                for (a, c), err, cov in (((8, 50), 0.03, 0.91), ((8, 200), 0.01, 0.93), ((32, 50), 0.02, 0.94))]
    table = {"settings": {"alpha": 0.05, "seed": 1}, "accuracy": accuracy, "null_families": nulls}
    path = tmp_path / "record.json"
    path.write_text(json.dumps({"calibration": table}))  # as the bench's --json writes it
    return path


def test_the_nearest_measured_size_is_quoted_and_marked(tmp_path):
    path = _record(tmp_path)
    exact = applicable_calibration(8, 50, path)
    assert exact["exact_size"] and exact["accuracy"][0]["coverage"] == 0.91
    assert exact["null_families"][0]["false_positive_rate"] == 0.01
    near = applicable_calibration(8, 400, path)
    assert not near["exact_size"] and near["size"] == [8, 200]
    far = applicable_calibration(64, 40, path)
    assert far["size"] == [32, 50] and far["null_families"][0]["false_positive_rate"] == 0.02
    text = calibration_text(near)
    assert "stationary 1.0% (verdict 0.0%)" in text and "93%" in text and "nearest size measured" in text
    assert "calibration --seed 1" in text


def test_the_installed_record_covers_the_main_job_and_the_new_families():
    calib = applicable_calibration(32, 50, RECORD)
    assert calib is not None and calib["exact_size"] and calib["null_size"] == [32, 50]
    families = {r["family"] for r in calib["null_families"]}
    assert any("shared drive" in f for f in families) and any("heterogeneous" in f for f in families)
    assert len(calib["accuracy"]) >= 3


def test_no_record_no_quote(tmp_path):
    assert applicable_calibration(8, 50, tmp_path / "missing.json") is None


def test_the_installed_loop_record_has_power_and_level_at_the_main_jobs_size():
    # reference: issue 41's bounds, on the record of python -m cognition.bench directions (docs/calibration.md,
    # "The loop test"): closed loops pass in >= 90 % at 32 x 200; a direction absent, or twins against twins, lie
    # above 0 in <= 6 % per direction and pass the loop in <= 6 %
    from cognition.analysis.calibration_record import applicable_loop_calibration
    from cognition.reporting.workspace_report import loop_calibration_text

    for cycles in (50, 200):
        calib = applicable_loop_calibration(32, cycles, RECORD)
        assert calib["exact_size"] and calib["size"] == [32, cycles] and calib["draws"] >= 200
        assert calib["closed_loop_passes"][0] >= 0.9
        for key in ("absent_direction_above_zero", "absent_direction_loop_passes", "twin_vs_twin_above_zero"):
            assert calib[key][1] <= 0.06, (cycles, key)
    near = applicable_loop_calibration(32, 500, RECORD)
    assert not near["exact_size"] and near["size"] == [32, 200]
    # 8 agents: the power is lower (8 pairs) and the record says so; the false positives keep the bound
    few = applicable_loop_calibration(8, 50, RECORD)
    assert few["exact_size"] and "--agents 8" in few["command"] and few["closed_loop_passes"][0] < 0.9
    assert few["absent_direction_above_zero"][1] <= 0.06 and few["twin_vs_twin_above_zero"][1] <= 0.06
    text = loop_calibration_text(applicable_loop_calibration(32, 50, RECORD))
    assert text.startswith("calibration of the loop test (python -m cognition.bench directions") and "32 agents x 50" in text
