"""Per-cycle memory telemetry, and its summary for the report.

Every key starts with ``mem_`` so telemetry is never mistaken for a result (a resumed
run must reproduce results exactly; telemetry legitimately differs between runs). The
report's telemetry adds one more figure of that kind, ``run_wall_seconds``: the run's
wall-clock time (cycles, analysis and report; :func:`cognition.reporting.run_report.write_report`).

On CUDA (from ``torch.cuda.memory_stats``, the caching allocator's own counters):

- ``mem_allocated_bytes``: bytes in live tensors
- ``mem_reserved_bytes``: bytes the caching allocator holds from the driver
- ``mem_peak_bytes``: peak of allocated bytes since the previous sample
- ``mem_fragmentation``: ``1 - allocated / reserved`` (0 when nothing is reserved), the
  share of held memory that no tensor uses
- ``mem_inactive_split_share``: ``inactive_split_bytes / reserved``, the share held in
  free pieces of split blocks, which only that block's size class can reuse
- ``mem_alloc_retries``: cumulative ``num_alloc_retries``, cudaMalloc failures that
  forced a cache flush and retry (a fragmentation alarm before the OOM)

On CPU: ``mem_rss_bytes`` (resident set size now) and ``mem_peak_rss_bytes`` (the
process's high-water mark so far: the kernel's ``getrusage`` figure, or the RSS now where
that is higher, as it can be by a few pages since Linux sums its RSS counters lazily).

The report's ``mem_peak_rss_bytes`` is read once more after the analysis and the plots
(:func:`process_peak_rss_bytes`), on every device, so it is the whole process's peak as
the operating system accounts it (what ``/usr/bin/time -v`` calls the maximum resident set size).
"""
from __future__ import annotations

import os
import resource
import sys
from typing import Any, Iterable, Mapping


def process_rss_bytes() -> int:
    """Resident set size of this process in bytes (psutil, else /proc/self/statm)."""
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        return int(psutil.Process().memory_info().rss)
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # no procfs (macOS): the high-water mark is the best available
        return peak_rss_bytes()


def peak_rss_bytes() -> int:
    """High-water resident set size of this process in bytes."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)  # Linux reports KiB


def process_peak_rss_bytes() -> int:
    """The operating system's high-water RSS of this process and of any child it waited for, in
    bytes (``getrusage`` SELF and CHILDREN, as ``wait4`` reports it to ``/usr/bin/time``), or the
    RSS now where that is higher."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    children = children if sys.platform == "darwin" else children * 1024
    return max(peak_rss_bytes(), int(children), process_rss_bytes())


def host_memory_bytes() -> tuple[int | None, int | None]:
    """(available, total) host RAM in bytes, from /proc/meminfo or psutil; None if unknown."""
    try:
        with open("/proc/meminfo") as f:
            info = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in f if line.strip()}
        return info.get("MemAvailable"), info.get("MemTotal")
    except (OSError, ValueError, IndexError):
        pass
    try:
        import psutil

        vm = psutil.virtual_memory()
        return int(vm.available), int(vm.total)
    except ImportError:
        return None, None


def cuda_sample(stats: Mapping[str, Any]) -> dict[str, float | int]:
    """Telemetry keys from one ``torch.cuda.memory_stats`` dict (peak as the stats hold it)."""
    allocated = int(stats.get("allocated_bytes.all.current", 0))
    reserved = int(stats.get("reserved_bytes.all.current", 0))
    inactive = int(stats.get("inactive_split_bytes.all.current", 0))
    return {
        "mem_allocated_bytes": allocated,
        "mem_reserved_bytes": reserved,
        "mem_peak_bytes": int(stats.get("allocated_bytes.all.peak", 0)),
        "mem_fragmentation": 1.0 - allocated / reserved if reserved else 0.0,
        "mem_inactive_split_share": inactive / reserved if reserved else 0.0,
        "mem_alloc_retries": int(stats.get("num_alloc_retries", 0)),
    }


class MemoryTelemetry:
    """Samples memory of ``device`` ("cpu", "cuda" or "cuda:N") once per cycle.

    On CUDA, ``sample()`` resets the allocator's peak counter after reading it, so
    ``mem_peak_bytes`` is the peak within the cycle just finished (set
    ``per_cycle_peak=False`` to keep torch's since-start peak instead).
    """

    def __init__(self, device: str = "cpu", per_cycle_peak: bool = True):
        self.device = str(device)
        self.per_cycle_peak = per_cycle_peak
        self.is_cuda = self.device.startswith("cuda")

    def sample(self) -> dict[str, float | int]:
        if not self.is_cuda:
            rss = process_rss_bytes()
            return {"mem_rss_bytes": rss, "mem_peak_rss_bytes": max(rss, peak_rss_bytes())}
        import torch

        out = cuda_sample(torch.cuda.memory_stats(self.device))
        if self.per_cycle_peak:
            torch.cuda.reset_peak_memory_stats(self.device)
        return out


def summarise(samples: Iterable[Mapping[str, Any]]) -> dict[str, float | int]:
    """Run summary of per-cycle samples: peaks (bytes), mean and max fragmentation,
    final cumulative allocator retries, and the number of samples. Keys present only
    for what was sampled; every key starts with ``mem_``."""
    samples = list(samples)
    out: dict[str, float | int] = {"mem_samples": len(samples)}

    def column(key):
        return [s[key] for s in samples if key in s]

    for key, name in (("mem_peak_bytes", "mem_peak_bytes"), ("mem_reserved_bytes", "mem_peak_reserved_bytes"),
                      ("mem_rss_bytes", "mem_peak_rss_bytes"), ("mem_peak_rss_bytes", "mem_peak_rss_bytes")):
        if values := column(key):
            out[name] = max(max(values), out.get(name, 0))
    for key in ("mem_fragmentation", "mem_inactive_split_share"):
        if values := column(key):
            out[f"{key}_mean"] = sum(values) / len(values)
            out[f"{key}_max"] = max(values)
    if values := column("mem_alloc_retries"):
        out["mem_alloc_retries"] = max(values)
    return out
