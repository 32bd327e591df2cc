"""GPU utilisation while a run works, and where throughput stops growing with agents.

:class:`GpuSampler` polls one GPU from a daemon thread: utilisation (%) and memory used
(MiB). Sources, first that works: NVML through ``pynvml`` (nvidia-ml-py, the
``monitoring`` extra; ``nvmlDeviceGetUtilizationRates`` / ``nvmlDeviceGetMemoryInfo``),
else one ``nvidia-smi --query-gpu=utilization.gpu,memory.used`` call per sample (see
``nvidia-smi --help-query-gpu``). Neither works: the sampler records why and does nothing.

Both sources ignore ``CUDA_VISIBLE_DEVICES`` and torch honours it, so a torch device is
mapped first (:func:`physical_gpu_id`), per the CUDA programming guide: index N is the
N-th entry of the list, and an invalid entry hides itself and every entry after it.
Integer entries are read in ``CUDA_DEVICE_ORDER`` (default FASTEST_FIRST) while NVML and
nvidia-smi count in PCI bus order; they agree on a machine of identical GPUs, otherwise
set ``CUDA_DEVICE_ORDER=PCI_BUS_ID`` or list UUIDs.

:func:`saturation` reads an agents-vs-throughput table and says where it levels off.
"""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import threading
import time
from typing import Any, Callable, Mapping, Sequence

from cognition.errors import describe_error, first_line

MiB = 2**20
_DEVICE = re.compile(r"^cuda(?::(\d+))?$")
_ENTRY = re.compile(r"^(\d+|GPU-\S+|MIG-\S+)$")
_NUMBER = re.compile(r"^\d+(\.\d*)?$")

Reading = tuple[float | None, float | None]  # (utilisation %, memory used MiB); None: not reported
Source = tuple[Callable[[], Reading], Callable[[], None]]  # (take one sample, release)


def physical_gpu_id(device: str, environ: Mapping[str, str] | None = None) -> str:
    """The id NVML and nvidia-smi understand (an index or a GPU-/MIG- UUID) for a torch
    device ``cuda`` (the default device 0) or ``cuda:N``, honouring CUDA_VISIBLE_DEVICES."""
    match = _DEVICE.match(str(device).strip())
    if not match:
        raise ValueError(f"device {device!r}: expected 'cuda' or 'cuda:N'")
    index = int(match.group(1) or 0)
    environ = os.environ if environ is None else environ
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        return str(index)
    entries = []
    for entry in (e.strip() for e in visible.split(",")):
        if not _ENTRY.match(entry):
            break  # CUDA: an invalid entry hides itself and all that follow
        entries.append(entry)
    if index >= len(entries):
        raise ValueError(f"device {device!r}: CUDA_VISIBLE_DEVICES={visible!r} makes {len(entries)} "
                         f"GPU(s) visible to torch, so there is no index {index}")
    return entries[index]


def _open_nvml(gpu: str) -> Source:
    """(sample, close) reading one GPU through NVML; RuntimeError saying why it cannot."""
    try:
        import pynvml
    except ImportError:
        raise RuntimeError("pynvml not installed (pip install -c constraints.txt -e \".[monitoring]\")") from None
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # noqa: BLE001 - NVMLError_LibraryNotFound, DriverNotLoaded...
        raise RuntimeError(f"NVML init failed: {describe_error(exc)}") from None
    try:
        handle = (pynvml.nvmlDeviceGetHandleByIndex(int(gpu)) if gpu.isdigit()
                  else pynvml.nvmlDeviceGetHandleByUUID(gpu))
    except Exception as exc:  # noqa: BLE001
        pynvml.nvmlShutdown()
        raise RuntimeError(f"NVML has no GPU {gpu}: {describe_error(exc)}") from None

    def read(query: Callable[[], float]) -> float | None:
        try:
            return float(query())
        except Exception as exc:  # noqa: BLE001 - NotSupported (e.g. a MIG instance) is like [N/A]
            if "NotSupported" in type(exc).__name__:
                return None
            raise

    def sample() -> Reading:
        return (read(lambda: pynvml.nvmlDeviceGetUtilizationRates(handle).gpu),
                read(lambda: pynvml.nvmlDeviceGetMemoryInfo(handle).used / MiB))

    return sample, pynvml.nvmlShutdown


def _open_smi(gpu: str, environ: Mapping[str, str], timeout_s: float) -> Source:
    """(sample, close) running nvidia-smi once per sample; RuntimeError saying why it cannot."""
    exe = shutil.which("nvidia-smi", path=environ.get("PATH"))
    if exe is None:
        raise RuntimeError("nvidia-smi not on PATH")
    cmd = [exe, "--query-gpu=utilization.gpu,memory.used", "--format=csv,noheader,nounits", "-i", gpu]

    def sample() -> Reading:
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"nvidia-smi failed: no answer within {timeout_s:g} s") from None
        if done.returncode != 0:  # nvidia-smi writes some errors to stdout
            why = first_line(done.stderr) or first_line(done.stdout) or f"exit status {done.returncode}"
            raise RuntimeError(f"nvidia-smi failed: {why}")
        fields = first_line(done.stdout).split(",")
        if len(fields) != 2:
            raise RuntimeError(f"nvidia-smi failed: unexpected output {first_line(done.stdout)!r}")
        # "[N/A]" / "[Not Supported]" are skipped, never counted as 0
        return tuple(float(f) if _NUMBER.match(f.strip()) else None for f in fields)

    return sample, lambda: None


def _quantile(values: Sequence[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default); None when empty."""
    if not values:
        return None
    s, pos = sorted(values), q * (len(values) - 1)
    lo = math.floor(pos)
    return float(s[lo] + (s[min(lo + 1, len(s) - 1)] - s[lo]) * (pos - lo))


class GpuSampler:
    """``with GpuSampler("cuda:0", interval_s=0.1) as s: ...`` then ``s.summary()``.

    One sample is taken at start, then one per ``interval_s`` until exit. A source that
    fails on its first sample gives way to the next; a later failure is recorded
    (``summary()["error"]``) and ends sampling. Nothing is raised from the thread.
    ``samples`` counts polls that gave at least one number; values reported as [N/A] /
    Not Supported are skipped, so with none at all the summary is available, with
    ``samples`` 0, stats None and a ``reason``.
    """

    def __init__(self, device: str = "cuda", interval_s: float = 0.1,
                 environ: Mapping[str, str] | None = None, timeout_s: float = 5.0):
        if not interval_s > 0:
            raise ValueError(f"interval_s must be > 0, got {interval_s!r}")
        self.environ = os.environ if environ is None else environ
        self.device, self.interval_s, self.timeout_s = str(device), float(interval_s), float(timeout_s)
        is_cuda = self.device.strip().startswith("cuda")
        self.gpu = physical_gpu_id(self.device, self.environ) if is_cuda else None
        self.reason = None if is_cuda else f"device {self.device!r} is not a CUDA device"
        self.source = self.error = None
        self._util, self._mem, self._samples = [], [], 0
        self._lock, self._stop = threading.Lock(), threading.Event()
        self._thread: threading.Thread | None = None
        self._sample: Callable[[], Reading] = lambda: (None, None)
        self._close: Callable[[], None] = lambda: None

    def __enter__(self) -> GpuSampler:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> None:
        """Pick a source, take the first sample, start the thread (does nothing without a source)."""
        if self._thread is not None or self.gpu is None:
            return
        reasons = []
        openers = (("nvml", lambda: _open_nvml(self.gpu)),
                   ("nvidia-smi", lambda: _open_smi(self.gpu, self.environ, self.timeout_s)))
        for name, opener in openers:
            close = None
            try:
                sample, close = opener()
                self._record(sample())
            except Exception as exc:  # noqa: BLE001 - unavailable, or the first sample failed
                if close is not None:
                    close()
                reasons.append(str(exc) if isinstance(exc, RuntimeError) else f"{name}: {describe_error(exc)}")
                continue
            self.source, self._sample, self._close = name, sample, close
            self._thread = threading.Thread(target=self._run, name="gpu-sampler", daemon=True)
            self._thread.start()
            return
        self.reason = "; ".join(reasons)

    def stop(self) -> None:
        """Stop sampling and release the source; safe to call twice."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self.timeout_s + self.interval_s + 1.0)
        try:
            self._close()
        except Exception:  # noqa: BLE001 - nvmlShutdown after a driver failure
            pass
        self._close = lambda: None

    def _record(self, reading: Reading) -> None:
        util, mem = reading
        with self._lock:
            self._util += [util] if util is not None else []
            self._mem += [mem] if mem is not None else []
            self._samples += util is not None or mem is not None

    def _run(self) -> None:
        next_at = time.monotonic() + self.interval_s
        while not self._stop.wait(max(0.0, next_at - time.monotonic())):
            next_at = max(next_at + self.interval_s, time.monotonic())
            try:
                self._record(self._sample())
            except Exception as exc:  # noqa: BLE001 - never raise out of the thread
                self.error = str(exc) if isinstance(exc, RuntimeError) else f"{self.source}: {describe_error(exc)}"
                return

    def summary(self) -> dict[str, Any]:
        """Statistics so far (see the class docstring); callable during or after the run."""
        if self.source is None:
            return {"available": False, "reason": self.reason or "sampler not started"}
        with self._lock:
            util, mem, n = list(self._util), list(self._mem), self._samples
        out: dict[str, Any] = {
            "available": True, "source": self.source, "gpu": self.gpu, "samples": n,
            "interval_s": self.interval_s,
            "util_mean_pct": sum(util) / len(util) if util else None,
            "util_median_pct": _quantile(util, 0.5), "util_p95_pct": _quantile(util, 0.95),
            "util_max_pct": max(util) if util else None, "mem_used_max_mib": max(mem) if mem else None,
            "error": self.error,
        }
        if n == 0:
            out["reason"] = f"{self.source} reported no numbers for GPU {self.gpu} ([N/A] / Not Supported)"
        return out


def saturation(points: Sequence[tuple[float, float]], *, fraction: float = 0.9) -> dict[str, Any]:
    """Where throughput stops growing, from ``(agents, agent_cycles_per_s)`` points.

    ``saturates_at``: the smallest agent count reaching ``fraction`` x the peak throughput
    (None if every throughput is 0). ``saturated``: a larger agent count was measured as
    well, so the plateau or decline was observed, not assumed from the last point.
    """
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction!r}")
    if not points:
        raise ValueError("saturation needs at least one (agents, throughput) point")
    for a, t in points:
        if not (math.isfinite(a) and a > 0 and math.isfinite(t) and t >= 0):
            raise ValueError(f"point ({a!r}, {t!r}): agents must be > 0 and throughput finite and >= 0")
    table = sorted((float(a), float(t)) for a, t in points)
    if len({a for a, _ in table}) < len(table):
        raise ValueError("an agent count appears twice; give one throughput per agent count")
    as_given = {float(a): a for a, _ in points}  # report agent counts as the caller gave them
    peak_agents, peak = max(table, key=lambda p: (p[1], -p[0]))  # highest; fewest agents on ties
    reached = [a for a, t in table if peak > 0 and t >= fraction * peak]
    at = reached[0] if reached else None
    saturated = at is not None and any(a > at for a, _ in table)
    rule = (f"saturates_at: the smallest agent count whose throughput is >= {fraction:g} x the peak "
            f"({peak:g} agent-cycles/s at {as_given[peak_agents]} agents); saturated: a larger agent "
            "count was measured too, so the plateau or decline was observed rather than assumed")
    return {"saturates_at": None if at is None else as_given[at], "peak_agents": as_given[peak_agents],
            "peak_throughput": peak, "saturated": saturated, "fraction": fraction, "rule": rule}
