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
from cognition.runtime import device
from cognition.runtime.device import nvidia_gpu_evidence

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
        # a CUDA build is advised only where this machine has an NVIDIA GPU to use it
        evidence = nvidia_gpu_evidence()
        assert ("install a CUDA build of torch" in out) == bool(evidence), (evidence, out)
        if evidence == []:
            assert "no NVIDIA GPU on this machine" in out and "the CPU build is the right one" in out


def _fake_machine(root: Path, *, driver=False, node=False, pci=None) -> Path:
    """A file tree standing in for /proc, /dev and /sys of a Linux machine."""
    (root / "dev").mkdir(parents=True)
    (root / "sys" / "bus" / "pci" / "devices").mkdir(parents=True)
    if driver:
        (root / "proc" / "driver" / "nvidia").mkdir(parents=True)
        (root / "proc" / "driver" / "nvidia" / "version").write_text("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06\n")
    if node:
        (root / "dev" / "nvidia0").write_text("")
    (root / "dev" / "nvidiactl").write_text("")  # the control node alone is no GPU
    for name, (vendor, cls) in (pci or {}).items():
        dev = root / "sys" / "bus" / "pci" / "devices" / name
        dev.mkdir()
        (dev / "vendor").write_text(vendor + "\n")
        (dev / "class").write_text(cls + "\n")
    return root


def test_nvidia_gpu_evidence_reads_driver_nodes_and_pci(tmp_path, monkeypatch):
    monkeypatch.setattr(device.shutil, "which", lambda name: None)
    # a CPU-only machine: an Intel host bridge and a virtio NIC, an NVIDIA audio function (class 0x04) is no GPU
    bare = _fake_machine(tmp_path / "bare", pci={"0000:00:00.0": ("0x8086", "0x060000"),
                                                 "0000:00:03.0": ("0x1af4", "0x020000"),
                                                 "0000:01:00.1": ("0x10de", "0x040300")})
    assert device.nvidia_gpu_evidence(bare) == []
    # a GPU without its driver: only the PCI bus shows it (the case a CUDA build alone does not fix, but needs)
    pci_only = _fake_machine(tmp_path / "pci", pci={"0000:01:00.0": ("0x10de", "0x030200")})
    assert device.nvidia_gpu_evidence(pci_only) == ["NVIDIA display controller on the PCI bus (0000:01:00.0)"]
    full = _fake_machine(tmp_path / "full", driver=True, node=True, pci={"0000:01:00.0": ("0x10DE", "0x030000")})
    found = device.nvidia_gpu_evidence(full)
    assert len(found) == 3 and found[0].startswith("NVIDIA driver loaded") and found[1] == "device nodes /dev/nvidia0"
    monkeypatch.setattr(device.shutil, "which", lambda name: "/usr/bin/nvidia-smi" if name == "nvidia-smi" else None)
    assert device.nvidia_gpu_evidence(bare) == ["nvidia-smi on the PATH"]


def test_cuda_build_advised_only_where_an_nvidia_gpu_is(monkeypatch):
    """The doctor's advice on a CPU-only torch build follows what the machine has: on a machine with
    no NVIDIA GPU it must not send the user to install a CUDA build (issue 34)."""
    import torch

    monkeypatch.setattr(torch.version, "cuda", None)
    monkeypatch.setattr(torch.version, "hip", None, raising=False)
    advice = {}
    for name, evidence in (("none", []), ("gpu", ["device nodes /dev/nvidia0"]), ("unknown", None)):
        monkeypatch.setattr(device, "nvidia_gpu_evidence", lambda root="/", e=evidence: e)
        report = {"torch": doctor.torch_census(), "allocator": {}, "aer": {}, "nvml": {}, "misleading_env": []}
        assert report["torch"]["cuda_available"] is False
        advice[name] = doctor.advise(report)[0]
    assert advice["none"].startswith("CPU only: this torch build is CPU-only")
    assert "CUDA build" not in advice["none"] and "the CPU build is the right one" in advice["none"]
    assert "install a CUDA build of torch to use it" in advice["gpu"] and "/dev/nvidia0" in advice["gpu"]
    assert "if this machine has an NVIDIA GPU, a CUDA build of torch would use it" in advice["unknown"]


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
