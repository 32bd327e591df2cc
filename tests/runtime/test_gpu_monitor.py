"""GPU monitor, on a CPU-only machine: the nvidia-smi source is driven by a fake
``nvidia-smi`` shell script put first on PATH (with pynvml blocked so NVML is never
tried), the NVML source by a fake ``pynvml`` module; saturation by hand-made tables."""
from __future__ import annotations

import os
import sys
import time
import types

import pytest

from cognition.runtime.gpu_monitor import GpuSampler, physical_gpu_id, saturation

UUID = "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6"
MIG = "MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f"


# --- physical_gpu_id: torch's index -> the id NVML / nvidia-smi understand ---------------

@pytest.mark.parametrize("device, visible, expected", [
    ("cuda", None, "0"),                      # no CUDA_VISIBLE_DEVICES: the index itself
    ("cuda:3", None, "3"),
    ("cuda:0", "2,1", "2"),                   # integer list: the N-th entry
    ("cuda:1", " 2, 1 ", "1"),                # spaces around entries are tolerated
    ("cuda", "3", "3"),                       # bare "cuda" is torch's device 0
    ("cuda:1", f"{UUID},{MIG}", MIG),         # UUIDs are returned as they are
    ("cuda:0", f"{UUID}", UUID),
])
def test_physical_gpu_id(device, visible, expected):
    environ = {} if visible is None else {"CUDA_VISIBLE_DEVICES": visible}
    assert physical_gpu_id(device, environ) == expected


@pytest.mark.parametrize("device, visible", [
    ("cuda:2", "0,1"),        # past the end of the list
    ("cuda:0", ""),           # the empty list hides every GPU
    ("cuda:1", "0,-1,1"),     # CUDA stops at an invalid entry: only "0" is visible
    ("cpu", None),            # not a CUDA device at all
    ("cuda:x", None),
])
def test_physical_gpu_id_rejects(device, visible):
    environ = {} if visible is None else {"CUDA_VISIBLE_DEVICES": visible}
    with pytest.raises(ValueError, match="device"):
        physical_gpu_id(device, environ)


# --- the nvidia-smi source, through a fake executable --------------------------------------

@pytest.fixture
def fake_smi(tmp_path, monkeypatch):
    """Returns install(body): writes tmp_path/bin/nvidia-smi running ``body`` (sh, with $D
    the folder tmp_path) after logging its arguments to tmp_path/args, and puts tmp_path/bin
    first on PATH. Blocks pynvml so NVML is never tried."""
    monkeypatch.setitem(sys.modules, "pynvml", None)  # `import pynvml` raises ImportError
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ.get('PATH', '')}")

    def install(body: str):
        script = tmp_path / "bin" / "nvidia-smi"
        script.write_text(f'#!/bin/sh\nD="{tmp_path}"\necho "$@" >> "$D/args"\n{body}\n')
        script.chmod(0o755)
        return tmp_path

    return install


def _run(sampler: GpuSampler, seconds: float = 0.3) -> dict:
    with sampler:
        time.sleep(seconds)
    return sampler.summary()


def test_smi_constant(fake_smi):
    # One fixed answer: source nvidia-smi, several samples, every statistic equal to it.
    fake_smi('echo "37, 1024"')
    s = _run(GpuSampler("cuda:0", interval_s=0.05))
    assert s["available"] and s["source"] == "nvidia-smi" and s["gpu"] == "0" and s["error"] is None
    assert s["samples"] >= 2 and s["interval_s"] == 0.05
    assert s["util_mean_pct"] == s["util_median_pct"] == s["util_p95_pct"] == s["util_max_pct"] == 37.0
    assert s["mem_used_max_mib"] == 1024.0


def test_smi_cycles_and_passes_physical_id(fake_smi, monkeypatch):
    # Values cycle 10, 20, 30, 40 (a counter file); the mean and max are those of the
    # samples actually taken, and -i carries the physical id, not torch's index.
    d = fake_smi('n=$(cat "$D/n" 2>/dev/null || echo 0); echo $((n + 1)) > "$D/n"\n'
                 'echo "$(( (n % 4 + 1) * 10 )), $(( 100 * (n % 4 + 1) ))"')
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", f"5,{UUID}")
    s = _run(GpuSampler("cuda:1", interval_s=0.05), seconds=0.4)
    taken = [(k % 4 + 1) * 10 for k in range(int((d / "n").read_text()))]
    assert s["samples"] == len(taken) >= 4
    assert s["util_mean_pct"] == pytest.approx(sum(taken) / len(taken))
    assert s["util_max_pct"] == max(taken) == 40.0
    assert s["mem_used_max_mib"] == 400.0
    assert s["gpu"] == UUID
    calls = (d / "args").read_text().splitlines()
    assert len(calls) == len(taken) and all(c.split()[-2:] == ["-i", UUID] for c in calls)
    assert calls[0].split()[:2] == ["--query-gpu=utilization.gpu,memory.used", "--format=csv,noheader,nounits"]


def test_smi_not_available_values_are_skipped(fake_smi):
    # Decision: [N/A] / [Not Supported] are skipped, never counted as 0. With no number at
    # all the sampler is still available (the source answered) with samples 0, every
    # statistic None and a reason; a poll giving only memory counts as a sample.
    fake_smi('echo "[N/A], [Not Supported]"')
    s = _run(GpuSampler("cuda", interval_s=0.05), seconds=0.15)
    assert s["available"] and s["samples"] == 0 and s["error"] is None
    assert s["util_mean_pct"] is s["util_p95_pct"] is s["util_max_pct"] is s["mem_used_max_mib"] is None
    assert "[N/A]" in s["reason"]


def test_smi_memory_only(fake_smi):
    # A MIG-like answer: utilisation not supported, memory reported.
    fake_smi('echo "[N/A], 512"')
    s = _run(GpuSampler("cuda", interval_s=0.05), seconds=0.15)
    assert s["samples"] >= 1 and s["util_mean_pct"] is None and s["mem_used_max_mib"] == 512.0
    assert "reason" not in s


def test_no_source_at_all(fake_smi, tmp_path, monkeypatch):
    # PATH without nvidia-smi (an empty folder) and pynvml blocked: unavailable, and the
    # reason names both.
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    s = _run(GpuSampler("cuda:0", interval_s=0.05), seconds=0.0)
    assert s == {"available": False, "reason": s["reason"]}
    assert "nvidia-smi not on PATH" in s["reason"] and "pynvml not installed" in s["reason"]


def test_smi_fails(fake_smi):
    # nvidia-smi exits 9: unavailable, the reason carries its first stderr line; no exception.
    fake_smi('echo "No devices were found matching the id" >&2\necho "second line" >&2\nexit 9')
    s = _run(GpuSampler("cuda:0", interval_s=0.05), seconds=0.1)
    assert s["available"] is False
    assert "nvidia-smi failed: No devices were found matching the id" in s["reason"]
    assert "second line" not in s["reason"]


def test_smi_fails_later_is_recorded_not_raised(fake_smi):
    # Works once, then fails: the thread records the first error and stops; the first
    # sample is kept and nothing is raised (pytest turns thread exceptions into errors).
    d = fake_smi('if [ -e "$D/once" ]; then echo "GPU is lost" >&2; exit 15; fi\n'
                 'touch "$D/once"; echo "50, 2048"')
    s = _run(GpuSampler("cuda:0", interval_s=0.05), seconds=0.3)
    assert s["available"] and s["samples"] == 1 and s["util_max_pct"] == 50.0
    assert s["error"] == "nvidia-smi failed: GPU is lost"
    assert len((d / "args").read_text().splitlines()) == 2  # no polling after the error


def test_cpu_device_is_not_sampled(fake_smi):
    s = _run(GpuSampler("cpu"), seconds=0.0)
    assert s["available"] is False and "not a CUDA device" in s["reason"]


# --- the NVML source, through a fake pynvml module ------------------------------------------

def _fake_pynvml(init_error: Exception | None = None):
    calls = []

    def init():
        if init_error:
            raise init_error
        calls.append("init")

    return calls, types.SimpleNamespace(
        nvmlInit=init, nvmlShutdown=lambda: calls.append("shutdown"),
        nvmlDeviceGetHandleByIndex=lambda i: calls.append(("index", i)) or "h",
        nvmlDeviceGetHandleByUUID=lambda u: calls.append(("uuid", u)) or "h",
        nvmlDeviceGetUtilizationRates=lambda h: types.SimpleNamespace(gpu=81),
        nvmlDeviceGetMemoryInfo=lambda h: types.SimpleNamespace(used=3 * 2**30))


def test_nvml_preferred_and_uuid_handle(monkeypatch):
    # NVML importable and initialising: it is the source, the handle is taken by UUID
    # when CUDA_VISIBLE_DEVICES lists one, and NVML is shut down at exit.
    calls, fake = _fake_pynvml()
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    s = _run(GpuSampler("cuda:0", interval_s=0.05, environ={"CUDA_VISIBLE_DEVICES": UUID}), seconds=0.15)
    assert s["source"] == "nvml" and s["gpu"] == UUID and s["samples"] >= 2
    assert s["util_max_pct"] == 81.0 and s["mem_used_max_mib"] == 3072.0
    assert calls[:2] == ["init", ("uuid", UUID)] and calls[-1] == "shutdown"


def test_nvml_init_failure_falls_back_to_smi(fake_smi, monkeypatch):
    # nvmlInit raises: nvidia-smi is used instead.
    _, fake = _fake_pynvml(init_error=OSError("libnvidia-ml.so.1: cannot open"))
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    fake_smi('echo "12, 34"')
    s = _run(GpuSampler("cuda:0", interval_s=0.05), seconds=0.1)
    assert s["source"] == "nvidia-smi" and s["util_max_pct"] == 12.0


# --- saturation: where throughput stops growing with agents --------------------------------

def test_saturation_monotone_growth_not_saturated():
    # Every doubling still gains > 10 %: the 90 % point is the last one measured, so
    # nothing beyond it was seen and no plateau is claimed.
    r = saturation([(1, 10.0), (2, 19.0), (4, 35.0), (8, 60.0)])
    assert r["saturates_at"] == 8 and r["peak_agents"] == 8 and r["peak_throughput"] == 60.0
    assert r["saturated"] is False and "0.9" in r["rule"]


def test_saturation_plateau():
    # 92 >= 0.9 x 100: saturates at 4 agents, and 8 and 16 were measured beyond it.
    r = saturation([(16, 100.0), (1, 30.0), (8, 99.0), (2, 55.0), (4, 92.0)])  # any order
    assert r["saturates_at"] == 4 and r["peak_agents"] == 16 and r["saturated"] is True


def test_saturation_decline_after_peak():
    # Throughput falls past 8 agents: peak at 8; 4 already reaches 90 % of it.
    r = saturation([(1, 20.0), (2, 40.0), (4, 75.0), (8, 80.0), (16, 50.0)])
    assert r["peak_agents"] == 8 and r["saturates_at"] == 4 and r["saturated"] is True
    # with fraction 1 the rule asks for the peak itself
    r = saturation([(1, 20.0), (2, 40.0), (4, 75.0), (8, 80.0), (16, 50.0)], fraction=1.0)
    assert r["saturates_at"] == 8 and r["saturated"] is True


def test_saturation_single_point_and_zero_throughput():
    assert saturation([(4, 10.0)])["saturated"] is False
    r = saturation([(1, 0.0), (2, 0.0)])  # nothing ever ran: no saturation point
    assert r["saturates_at"] is None and r["saturated"] is False


@pytest.mark.parametrize("points, fraction", [
    ([], 0.9),                         # empty
    ([(0, 1.0), (2, 3.0)], 0.9),       # non-positive agents
    ([(-1, 1.0)], 0.9),
    ([(1, float("nan"))], 0.9),        # throughput not a number
    ([(1, -1.0)], 0.9),                # negative throughput
    ([(2, 1.0), (2, 3.0)], 0.9),       # the same agent count twice
    ([(1, 1.0)], 0.0),                 # fraction outside (0, 1]
    ([(1, 1.0)], 1.5),
])
def test_saturation_rejects(points, fraction):
    with pytest.raises(ValueError):
        saturation(points, fraction=fraction)
