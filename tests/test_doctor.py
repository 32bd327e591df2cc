"""`python -m cognition.doctor`: runs in a subprocess (plain and --json) on any machine."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from cognition import doctor

MiB = 2**20


def _run(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", *doctor.NEVER_READ_BY_TORCH)}
    return subprocess.run([sys.executable, "-m", "cognition.doctor", *args], capture_output=True, text=True,
                          timeout=180, env={**clean, **env})


def test_plain_text_runs_and_says_what_it_found():
    import torch

    proc = _run()
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"torch {torch.__version__} (" in out and "advice:" in out
    if torch.version.cuda is None:  # this CPU-only build: it must say so, not fail
        assert "CPU-only build" in out and "CUDA: not usable: this torch build is CPU-only" in out
        assert "  - CPU only: " in out


def test_json_reports_conflict_and_never_read_variables():
    import torch

    proc = _run("--json", PYTORCH_NO_NVML="1", PYTORCH_ALLOC_CONF="expandable_segments:True",
                PYTORCH_CUDA_ALLOC_CONF="max_split_size_mb:128")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["torch"]["version"] == torch.__version__
    assert report["torch"]["cuda_available"] == torch.cuda.is_available()
    assert report["misleading_env"] == ["PYTORCH_NO_NVML"]
    alloc = report["allocator"]
    assert alloc["PYTORCH_ALLOC_CONF"] == "expandable_segments:True"
    assert alloc["reads"] == "PYTORCH_CUDA_ALLOC_CONF" and alloc["effective"] == "max_split_size_mb:128"
    assert "PYTORCH_ALLOC_CONF='expandable_segments:True' is ignored" in alloc["conflict"]
    assert any(line.startswith("PYTORCH_NO_NVML is set: torch never reads it") for line in report["advice"])
    assert any("is ignored" in line for line in report["advice"])
    assert isinstance(report["aer"], dict) and "both_installed" in report["aer"]


@pytest.mark.skipif(shutil.which("grep") is None, reason="needs grep")
def test_never_read_variables_are_absent_from_the_installed_torch():
    """Independent check of the list: no file of the installed torch wheel (Python sources
    and compiled libraries) contains any of these names as a whole word."""
    import torch

    root = Path(torch.__file__).parent
    pattern = "|".join(doctor.NEVER_READ_BY_TORCH)
    found = subprocess.run(["grep", "-rlwE", "--binary-files=text", pattern, str(root)],
                           capture_output=True, text=True)
    assert found.returncode == 1 and found.stdout == ""  # 1: no match anywhere
    # positive control: the same search does find a variable torch does read
    control = subprocess.run(["grep", "-rlw", "--binary-files=text", "PYTORCH_NVML_BASED_CUDA_CHECK", str(root)],
                             capture_output=True, text=True)
    assert control.returncode == 0 and control.stdout


def test_nvml_census_lists_other_processes_and_never_kills(monkeypatch):
    """nvidia-ml-py is not installed on CPU machines; this stand-in module answers the
    calls the census makes, with one other process holding 512 MiB and the doctor itself."""
    killed = []
    monkeypatch.setattr(os, "kill", lambda *a: killed.append(a))
    proc = types.SimpleNamespace
    fake = types.ModuleType("pynvml")
    fake.nvmlInit = lambda: None
    fake.nvmlShutdown = lambda: None
    fake.nvmlSystemGetDriverVersion = lambda: b"580.65.06"
    fake.nvmlDeviceGetCount = lambda: 1
    fake.nvmlDeviceGetHandleByIndex = lambda i: ("handle", i)
    fake.nvmlDeviceGetName = lambda h: "NVIDIA GeForce GTX 1650"
    fake.nvmlDeviceGetMemoryInfo = lambda h: proc(total=4 * 2**30, free=3 * 2**30, used=2**30)
    fake.nvmlDeviceGetComputeRunningProcesses = lambda h: [proc(pid=1, usedGpuMemory=512 * MiB),
                                                           proc(pid=os.getpid(), usedGpuMemory=300 * MiB)]
    fake.nvmlDeviceGetGraphicsRunningProcesses = lambda h: [proc(pid=1, usedGpuMemory=512 * MiB)]
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    nvml = doctor.nvml_census()
    assert nvml["driver_version"] == "580.65.06"
    dev = nvml["devices"][0]
    assert [(p["pid"], p["used_mib"], p["is_self"]) for p in dev["processes"]] == [
        (1, 512.0, False), (os.getpid(), 300.0, True)]
    report = {"torch": {"cuda_available": True, "devices": []}, "allocator": {}, "aer": {}, "nvml": nvml,
              "misleading_env": []}
    advice = doctor.advise(report)
    assert advice[0].startswith("GPU 0: 1 other process(es) hold 512 MiB: 1 (")
    assert "never kills" in advice[0] and killed == []


def test_nvml_absent_is_reported_not_raised(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml -> ImportError
    assert doctor.nvml_census() == {
        "available": False, "reason": "nvidia-ml-py is not installed (pip install -c constraints.txt -e \".[monitoring]\")"}


@pytest.mark.gpu
def test_doctor_on_a_gpu_machine():
    import torch

    report = json.loads(_run("--json").stdout)
    assert report["torch"]["cuda_available"]
    assert len(report["torch"]["devices"]) == torch.cuda.device_count()
    for dev in report["torch"]["devices"]:
        assert 0 < dev["free_bytes"] <= dev["total_bytes"]
