"""``python -m cognition.doctor [--json]``: what this machine offers a run, and what to fix.

Reports the torch build and CUDA/driver versions, each GPU with total and free memory,
the processes holding GPU memory (NVML, when nvidia-ml-py is installed; the doctor
only looks, it never kills anything), the allocator variables in effect and any
conflict, the Aer build and whether both Aer packages are installed, environment
variables that look like fixes but torch never reads, and advice. Works, and says so,
on a CPU-only machine. Exit status 0 whatever it finds.
"""
from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

from cognition.cli import OneLineParser, run_command
from cognition.errors import UsageError, describe_error
from cognition.runtime.allocator import alloc_conf_in_effect

MiB = 2**20

# Variables that look like fixes but that torch never reads (PYTORCH_NO_NVML: no wheel
# 2.7-2.15; the whole list is checked against the installed wheel by tests/test_doctor.py),
# and what to do instead.
NEVER_READ_BY_TORCH = {
    "PYTORCH_NO_NVML": "torch never reads it; to make torch.cuda.is_available() ask NVML set "
                       "PYTORCH_NVML_BASED_CUDA_CHECK=1. The NVML assert during a run is an OOM in disguise: "
                       "lower the batch",
    "PYTORCH_DISABLE_NVML": "torch never reads it (see PYTORCH_NO_NVML)",
    "PYTORCH_CUDA_ALLOC_CONFIG": "misspelt: the variables are PYTORCH_ALLOC_CONF and PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_ALLOC_CONFIG": "misspelt: the variables are PYTORCH_ALLOC_CONF and PYTORCH_CUDA_ALLOC_CONF",
    "TORCH_CUDA_ALLOC_CONF": "torch reads PYTORCH_CUDA_ALLOC_CONF / PYTORCH_ALLOC_CONF (with the PY prefix)",
    "TORCH_ALLOC_CONF": "torch reads PYTORCH_ALLOC_CONF (with the PY prefix)",
    "PYTORCH_EXPANDABLE_SEGMENTS": "not a variable: put expandable_segments:True in the allocator options",
}


def _process_name(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        try:
            import psutil

            return psutil.Process(pid).name()
        except Exception:  # noqa: BLE001 - psutil missing, process gone, or in another container
            return None


def nvml_census() -> dict[str, Any]:
    """GPUs and the processes holding their memory, from NVML (nvidia-ml-py). Read-only."""
    try:
        import pynvml
    except ImportError:
        return {"available": False,
                "reason": "nvidia-ml-py is not installed (pip install -c constraints.txt -e \".[monitoring]\")"}
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # noqa: BLE001 - NVMLError_LibraryNotFound, DriverNotLoaded...
        return {"available": False, "reason": f"NVML failed to initialise: {describe_error(exc)}"}
    try:
        driver = pynvml.nvmlSystemGetDriverVersion()
        devices = []
        for i in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(i)
            mem = pynvml.nvmlDeviceGetMemoryInfo(handle)
            procs = {}
            for getter in ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses"):
                try:
                    running = getattr(pynvml, getter)(handle)
                except Exception:  # noqa: BLE001 - not supported on this GPU/driver
                    running = []
                for p in running:
                    used = getattr(p, "usedGpuMemory", None)
                    procs[p.pid] = {"pid": p.pid, "name": _process_name(p.pid),
                                    "used_mib": None if used is None else round(used / MiB, 1),
                                    "is_self": p.pid == os.getpid()}
            devices.append({"index": i, "name": _text(pynvml.nvmlDeviceGetName(handle)),
                            "total_bytes": int(mem.total), "free_bytes": int(mem.free),
                            "used_bytes": int(mem.used), "processes": sorted(procs.values(), key=lambda p: p["pid"])})
        return {"available": True, "driver_version": _text(driver), "devices": devices}
    except Exception as exc:  # noqa: BLE001
        return {"available": False, "reason": f"NVML query failed: {describe_error(exc)}"}
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:  # noqa: BLE001
            pass


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def torch_census() -> dict[str, Any]:
    """torch build, CUDA availability and, per visible device, total and free memory."""
    from cognition.runtime.device import cuda_unavailable_reason

    try:
        import torch
    except ImportError:
        return {"installed": False, "reason": "torch is not installed"}
    info: dict[str, Any] = {"installed": True, "version": torch.__version__, "cuda_build": torch.version.cuda,
                            "hip_build": getattr(torch.version, "hip", None), "cudnn": None, "devices": []}
    info["reason"] = cuda_unavailable_reason()
    info["cuda_available"] = info["reason"] is None
    if info["cuda_available"]:
        info["cudnn"] = torch.backends.cudnn.version()
        for i in range(torch.cuda.device_count()):
            dev: dict[str, Any] = {"index": i, "name": torch.cuda.get_device_name(i)}
            try:
                free, total = torch.cuda.mem_get_info(i)
                dev.update(free_bytes=int(free), total_bytes=int(total),
                           capability=".".join(map(str, torch.cuda.get_device_capability(i))))
            except Exception as exc:  # noqa: BLE001 - e.g. the NVML assert
                dev["error"] = describe_error(exc)
            info["devices"].append(dev)
    return info


def aer_census() -> dict[str, Any]:
    try:
        from quantum import aer_info
    except ImportError as exc:
        info: dict[str, Any] = {"installed": None, "warning": None, "probe_error": f"quantum package: {exc}"}
    else:
        try:
            return dict(aer_info())
        except Exception as exc:  # noqa: BLE001 - a broken Aer install must not stop the doctor
            info = {"installed": None, "warning": None, "probe_error": describe_error(exc)}
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for dist in ("qiskit-aer", "qiskit-aer-gpu"):
        try:
            found[dist] = version(dist)
        except PackageNotFoundError:
            pass
    info["distributions"] = found
    info["both_installed"] = len(found) == 2
    if info["both_installed"]:
        info["warning"] = "both qiskit-aer and qiskit-aer-gpu are installed and share the qiskit_aer module"
    return info


def _driver_version(nvml: dict[str, Any]) -> str | None:
    if nvml.get("driver_version"):
        return nvml["driver_version"]
    try:  # the kernel module's own banner, present whenever the driver is loaded
        banner = Path("/proc/driver/nvidia/version").read_text().split()
        return next(w for w in banner if w[:1].isdigit() and w.count(".") >= 1)
    except (OSError, StopIteration):
        return None


def advise(report: dict[str, Any]) -> list[str]:
    """Advice lines, most important first; ``["no problems found"]`` when there are none."""
    lines = []
    torch, alloc, aer, nvml = report["torch"], report["allocator"], report["aer"], report["nvml"]
    if not torch.get("cuda_available"):
        lines.append(f"CPU only: {torch.get('reason')}; runs use the CPU (say --device cpu to choose it explicitly)")
    for dev in nvml.get("devices", []):
        others = [p for p in dev["processes"] if not p["is_self"]]
        if others:
            held = sum(p["used_mib"] or 0 for p in others)
            pids = ", ".join(f"{p['pid']} ({p['name'] or '?'})" for p in others)
            lines.append(f"GPU {dev['index']}: {len(others)} other process(es) hold {held:.0f} MiB: {pids}; "
                         "stop them if they are yours (the doctor never kills anything)")
    for dev in torch.get("devices", []):
        if "error" in dev:
            lines.append(f"cuda:{dev['index']}: memory query failed ({dev['error']}): check the driver and NVML")
        elif dev["free_bytes"] < 0.5 * dev["total_bytes"]:
            lines.append(f"cuda:{dev['index']}: only {dev['free_bytes'] / 2**30:.2f} of "
                         f"{dev['total_bytes'] / 2**30:.2f} GiB free")
    if torch.get("cuda_available") and not nvml.get("available"):
        lines.append(f"cannot list processes holding GPU memory: {nvml.get('reason')}")
    for key in ("conflict", "warning", "error"):
        if alloc.get(key):
            lines.append(f"allocator: {alloc[key]}; set the allocator with the config key runtime.alloc_conf, "
                         "which validates it and sets both variables to the same string")
    if aer.get("warning"):
        lines.append(f"Aer: {aer['warning']}: uninstall both, then install one")
    if torch.get("cuda_available") and aer.get("installed") and not aer.get("gpu") and aer.get("gpu_reason"):
        lines.append(f"Aer runs on the CPU: {aer['gpu_reason']}")
    for name in report["misleading_env"]:
        lines.append(f"{name} is set: {NEVER_READ_BY_TORCH[name]}")
    return lines or ["no problems found"]


def collect(environ: dict[str, str] | None = None) -> dict[str, Any]:
    """Everything the doctor reports, JSON-able. NVML is asked first, so this process
    has no CUDA context yet when the GPU processes are listed."""
    environ = dict(os.environ if environ is None else environ)
    nvml = nvml_census()
    torch = torch_census()
    report = {
        "python": sys.version.split()[0], "platform": platform.platform(),
        "torch": torch, "driver_version": _driver_version(nvml), "nvml": nvml,
        "allocator": alloc_conf_in_effect(environ), "aer": aer_census(),
        "misleading_env": sorted(n for n in NEVER_READ_BY_TORCH if n in environ),
    }
    report["advice"] = advise(report)
    return report


def format_text(report: dict[str, Any]) -> str:
    t, a, alloc, nvml = report["torch"], report["aer"], report["allocator"], report["nvml"]
    out = [f"python {report['python']} on {report['platform']}"]
    if t.get("installed"):
        build = (f"CUDA {t['cuda_build']}" if t["cuda_build"]
                 else f"ROCm {t['hip_build']}" if t["hip_build"] else "CPU-only")
        out.append(f"torch {t['version']} ({build} build); cuDNN {t['cudnn']}; driver {report['driver_version']}")
    usable = f"{len(t['devices'])} device(s)" if t.get("cuda_available") else f"not usable: {t.get('reason')}"
    out.append(f"CUDA: {usable}")
    for d in t.get("devices", []):
        mem = d.get("error") or (f"{d['free_bytes'] / 2**30:.2f} GiB free of {d['total_bytes'] / 2**30:.2f} GiB, "
                                 f"compute capability {d['capability']}")
        out.append(f"  cuda:{d['index']} {d['name']}: {mem}")
    if nvml.get("available"):
        for d in nvml["devices"]:
            out.append(f"  NVML GPU {d['index']} {d['name']}: {d['used_bytes'] / MiB:.0f} MiB used by:")
            out += [f"    pid {p['pid']} {p['name'] or '?'}: {p['used_mib']} MiB"
                    + (" (this doctor)" if p["is_self"] else "") for p in d["processes"]] or ["    (no processes)"]
    else:
        out.append(f"GPU processes: unknown ({nvml.get('reason')})")
    out.append(f"allocator: PYTORCH_ALLOC_CONF={alloc['PYTORCH_ALLOC_CONF']!r} "
               f"PYTORCH_CUDA_ALLOC_CONF={alloc['PYTORCH_CUDA_ALLOC_CONF']!r}; {alloc['rule']}; "
               f"in effect: {alloc['effective']!r}")
    if a.get("installed"):
        out.append(f"Aer {a.get('version')} ({a.get('distribution')}); devices {a.get('available_devices')}; "
                   f"both Aer packages installed: {a.get('both_installed')}")
    else:
        out.append(f"Aer: not available ({a.get('gpu_reason') or a.get('probe_error')})")
    out.append("env variables torch never reads: " + (", ".join(report["misleading_env"]) or "none set"))
    out.append("advice:")
    out += [f"  - {line}" for line in report["advice"]]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Exit 0 whatever the machine offers; 2 for an unknown flag or argument (one line, before any probe)."""
    parser = OneLineParser(prog="python -m cognition.doctor", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report = collect()
    print(json.dumps(report, indent=2) if args.json else format_text(report))
    return 0


if __name__ == "__main__":
    run_command(main)
