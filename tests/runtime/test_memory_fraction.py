"""runtime.gpu_memory_fraction: rehearse a small card on a large one.

On CUDA the run calls torch.cuda.set_per_process_memory_fraction before cycle 1 and the
planner's budget becomes the cap; on the CPU nothing is capped and the report's notes say so.
The GPU test is issue 5's item 6: the 4 GiB preset under a 4/80 fraction of the card.
"""
import json

import pytest
from clitools import command


def _validate(tmp_path, fraction, *extra):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"runtime:\n  gpu_memory_fraction: {fraction}\n")
    out = tmp_path / "run"
    return command("cognition.validate", "--config", cfg, "--cycles", "5", *extra, "--out", out), out


def test_on_cpu_the_fraction_is_reported_as_not_applied(tmp_path):
    res, out = _validate(tmp_path, 0.05, "--disable-quantum", "--device", "cpu")
    assert res.returncode in (0, 1), res.stderr
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["gpu_memory_fraction"] == {"fraction": 0.05, "applied": False}
    note = "runtime.gpu_memory_fraction 0.05 not applied: the run is on cpu"
    assert any(n.startswith(note) for n in prov["notes"])
    report = (out / "report.md").read_text()
    assert note in report and "| GPU memory cap | 0.05 of the device: not applied (CPU run) |" in report


@pytest.mark.parametrize("bad", ["0", "1.5", "half"])
def test_a_fraction_outside_0_1_is_one_line(tmp_path, bad):
    res, out = _validate(tmp_path, bad)
    assert res.returncode == 2
    assert len(res.stderr.strip().splitlines()) == 1 and "runtime.gpu_memory_fraction" in res.stderr
    assert not out.exists()


@pytest.mark.gpu
def test_low_memory_preset_under_a_4_of_80_fraction(tmp_path):
    import torch

    total = torch.cuda.get_device_properties(0).total_memory
    res, out = _validate(tmp_path, 4 / 80, "--preset", "low_memory_4gb", "--device", "cuda", "--cycles", "50")
    assert res.returncode in (0, 1), res.stderr
    prov = json.loads((out / "provenance.json").read_text())
    cap = prov["gpu_memory_fraction"]
    assert cap["applied"] and cap["cap_bytes"] == int(4 / 80 * total)
    tel = json.loads((out / "report.json").read_text())["telemetry"]
    assert tel["mem_peak_reserved_bytes"] <= cap["cap_bytes"]
    print(f"\n4 GiB preset at {4 / 80:g} of {total / 2**30:.1f} GiB: peak allocated "
          f"{tel['mem_peak_bytes'] / 2**20:.1f} MiB, peak reserved {tel['mem_peak_reserved_bytes'] / 2**20:.1f} MiB, "
          f"fragmentation mean {tel['mem_fragmentation_mean']:.3f} max {tel['mem_fragmentation_max']:.3f}, "
          f"inactive-split share mean {tel['mem_inactive_split_share_mean']:.3f}")
