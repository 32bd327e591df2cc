"""Device policy: ``--device auto|cpu|cuda|cuda:N``, resolved once, with the reason.

- ``auto``: the CUDA device with the most free memory (``torch.cuda.mem_get_info`` on
  each; never a hard-coded device 0), else the CPU, saying which and why.
- ``cuda``: like ``auto`` but a GPU is required; ``cuda:N``: exactly device N.
  A request that cannot be met raises :class:`DeviceUnavailableError` naming the
  reason (CPU-only torch build, CUDA_VISIBLE_DEVICES hiding every GPU, no device
  visible, driver/NVML failure, index out of range), unless ``allow_cpu_fallback``,
  which gives the CPU with ``fell_back=True`` so provenance and the report can say so.
- ``cpu``: the CPU.

Resolve the device after the allocator is configured (:mod:`cognition.runtime.allocator`):
``mem_get_info`` initialises CUDA and creates a context on every device it asks about.
"""
from __future__ import annotations

import os
import re
import shutil
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from cognition.errors import DeviceRequestError, DeviceUnavailableError, describe_error
from cognition.runtime.telemetry import host_memory_bytes

_REQUEST = re.compile(r"^(auto|cpu|cuda|cuda:(\d+))$")


@dataclass(frozen=True)
class DeviceChoice:
    """The resolved device: ``device`` ("cpu" or "cuda:N"), why it was chosen, whether an
    explicit CUDA request fell back to the CPU, and free/total memory in bytes (host
    RAM for the CPU; None where unknown)."""

    device: str
    reason: str
    fell_back: bool = False
    free_bytes: int | None = None
    total_bytes: int | None = None

    def as_dict(self) -> dict:
        return {"device": self.device, "reason": self.reason, "fell_back": self.fell_back,
                "free_bytes": self.free_bytes, "total_bytes": self.total_bytes}


def _gib(n: int) -> str:
    return f"{n / 2**30:.2f} GiB"


NVIDIA_PCI_VENDOR = "0x10de"


def nvidia_gpu_evidence(root: str | Path = "/") -> list[str] | None:
    """What on this machine says an NVIDIA GPU is present: the loaded driver
    (``/proc/driver/nvidia/version``), its device nodes (``/dev/nvidia0``...), a display or 3D
    controller of NVIDIA's PCI vendor id 0x10de (``/sys/bus/pci/devices``, present with or without
    a driver), ``nvidia-smi`` on the PATH. ``[]`` when a Linux machine shows none of them; None
    where nothing was found and the first three cannot be looked at (not Linux), so absence says
    nothing. ``root`` is for tests."""
    root = Path(root)
    found = []
    version = root / "proc" / "driver" / "nvidia" / "version"
    if version.exists():
        found.append(f"NVIDIA driver loaded ({version})")
    nodes = sorted(p.name for p in (root / "dev").glob("nvidia[0-9]*"))
    if nodes:
        found.append("device nodes /dev/" + ", /dev/".join(nodes))
    for dev in sorted((root / "sys" / "bus" / "pci" / "devices").glob("*")):
        try:
            vendor, cls = (dev / "vendor").read_text().strip(), (dev / "class").read_text().strip()
        except OSError:
            continue
        if vendor.lower() == NVIDIA_PCI_VENDOR and cls.lower().startswith("0x03"):
            found.append(f"NVIDIA display controller on the PCI bus ({dev.name})")
    if shutil.which("nvidia-smi"):
        found.append("nvidia-smi on the PATH")
    if not found and sys.platform != "linux" and root == Path("/"):
        return None
    return found


def cpu_build_reason(version: str, evidence: list[str] | None) -> str:
    """Why a CPU-only torch build cannot use CUDA, with advice only where it would help: a CUDA build
    of torch where this machine has an NVIDIA GPU, none where it has none."""
    base = f"this torch build is CPU-only (torch {version}, torch.version.cuda is None)"
    if evidence:
        return f"{base}; this machine has an NVIDIA GPU ({'; '.join(evidence)}): install a CUDA build of torch to use it"
    if evidence is None:
        return f"{base}; if this machine has an NVIDIA GPU, a CUDA build of torch would use it"
    return f"{base}; no NVIDIA GPU on this machine (no driver, device node, PCI controller or nvidia-smi), so the CPU build is the right one"


def cuda_unavailable_reason(environ: Mapping[str, str] | None = None) -> str | None:
    """Why CUDA cannot be used here (one line), or None if at least one device is usable."""
    environ = os.environ if environ is None else environ
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if torch.version.cuda is None and getattr(torch.version, "hip", None) is None:
        return cpu_build_reason(torch.__version__, nvidia_gpu_evidence())
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1", "none", "NoDevFiles"):
        return f"CUDA_VISIBLE_DEVICES={visible!r} hides every GPU; unset it or name a device"
    with warnings.catch_warnings(record=True) as caught:  # torch reports driver trouble as a warning
        warnings.simplefilter("always")
        try:
            available = torch.cuda.is_available()
            count = torch.cuda.device_count() if available else 0
        except Exception as exc:  # noqa: BLE001 - a broken driver raises many types
            return f"driver/NVML problem: {describe_error(exc)}"
    if count:
        return None
    driver = next((str(w.message).splitlines()[0] for w in caught if "CUDA" in str(w.message)), None)
    if driver:
        return f"driver/NVML problem: {driver}"
    if visible:
        return f"no CUDA device visible with CUDA_VISIBLE_DEVICES={visible!r}"
    return "no CUDA device visible (no NVIDIA GPU, or its driver is not loaded)"


def _probe(torch, index: int) -> tuple[int, int]:
    free, total = torch.cuda.mem_get_info(index)
    return int(free), int(total)


def _pick_cuda(torch, index: int | None) -> DeviceChoice:
    count = torch.cuda.device_count()
    if index is not None:
        if index >= count:
            raise DeviceUnavailableError(
                f"--device cuda:{index}: index out of range, {count} CUDA device(s) visible (0..{count - 1})")
        candidates = [index]
    else:
        candidates = list(range(count))
    probed = {}
    for i in candidates:
        try:
            probed[i] = _probe(torch, i)
        except Exception as exc:  # noqa: BLE001 - the NVML assert, CUDA errors...
            if index is not None or len(candidates) == 1:
                raise DeviceUnavailableError(
                    f"--device cuda:{i}: driver/NVML problem querying memory: {describe_error(exc)}") from exc
    if not probed:
        raise DeviceUnavailableError("--device cuda: every visible CUDA device failed its memory query")
    best = max(probed, key=lambda i: (probed[i][0], -i))  # most free; lowest index on ties
    free, total = probed[best]
    name = torch.cuda.get_device_name(best)
    if index is not None:
        reason = f"cuda:{best} ({name}) as requested; {_gib(free)} free of {_gib(total)}"
    else:
        others = ", ".join(f"cuda:{i} {_gib(f)}" for i, (f, _) in sorted(probed.items()) if i != best)
        reason = (f"cuda:{best} ({name}) has the most free memory, {_gib(free)} of {_gib(total)}"
                  + (f" (others free: {others})" if others else " (the only CUDA device)"))
    return DeviceChoice(f"cuda:{best}", reason, False, free, total)


def _cpu(reason: str, fell_back: bool = False) -> DeviceChoice:
    free, total = host_memory_bytes()
    return DeviceChoice("cpu", reason, fell_back, free, total)


def resolve_device(request: str = "auto", allow_cpu_fallback: bool = False,
                   environ: Mapping[str, str] | None = None) -> DeviceChoice:
    """Resolve a ``--device`` request (see the module docstring) to a :class:`DeviceChoice`.

    ``auto`` takes the CPU quietly (with the reason) only when this machine has no
    usable CUDA to begin with; a GPU that is present but broken (driver/NVML failure)
    is an error for ``auto`` too, because silently running 3x slower is how runs got
    lost; ``allow_cpu_fallback`` turns every such error into a recorded fallback.
    """
    match = _REQUEST.match(str(request).strip())
    if not match:
        raise DeviceRequestError(f"--device {request!r}: allowed auto, cpu, cuda, cuda:N (N >= 0)")
    kind, index = match.group(1), match.group(2)
    if kind == "cpu":
        return _cpu("cpu as requested")
    why_not = cuda_unavailable_reason(environ)
    if why_not is None:
        import torch

        try:
            return _pick_cuda(torch, None if index is None else int(index))
        except DeviceUnavailableError as exc:
            why_not, broken = str(exc), True
    else:
        broken = why_not.startswith("driver/NVML problem")
    if kind == "auto" and not broken:
        return _cpu(f"cpu: no usable CUDA device ({why_not}); pass --device cpu to choose it explicitly")
    message = why_not if why_not.startswith("--device") else f"--device {kind}: cannot use CUDA: {why_not}"
    if not allow_cpu_fallback:
        raise DeviceUnavailableError(message + "; to run on the CPU anyway, pass --allow-cpu-fallback (runtime.allow_cpu_fallback: true)")
    return _cpu(f"{message}; fell back to cpu (CPU fallback allowed)", fell_back=True)
