"""Fault injection for rehearsing failures: ``--inject-fault oom@7,cpu_alloc@12,nvml@5:always``.

Grammar (comma-separated tokens, no spaces needed)::

    token  := KIND "@" CYCLE [":" WHEN]
    KIND   := oom | accelerator_oom | cublas | nvml | cpu_alloc | aer | sigterm | sigkill | enospc
    CYCLE  := integer >= 0, the number of the cycle about to run as the caller counts it
              (the runner passes metrics.jsonl's cycle number: the first cycle is 1;
              :func:`check_reachable` refuses a cycle a run never reaches)
    WHEN   := first (default: only the first try of that cycle) | always (every try)

Each kind raises the real error a researcher would meet, so rehearsals exercise the
same classifier and recovery path as a real failure (see :mod:`cognition.runtime.oom`):

- ``oom``: ``torch.OutOfMemoryError`` (what the CUDA caching allocator raises)
- ``accelerator_oom``: ``torch.AcceleratorError("CUDA error: out of memory")`` (torch >= 2.8)
- ``cublas``: RuntimeError with cuBLAS's ``CUBLAS_STATUS_ALLOC_FAILED`` text
- ``nvml``: RuntimeError with the ``NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_()``
  INTERNAL ASSERT text (an OOM in disguise on torch <= 2.13)
- ``cpu_alloc``: a genuine CPU allocator failure, from ``torch.empty(10**15)`` (4 PB)
- ``aer``: ``quantum.errors.QuantumMemoryError`` (source="aer", Aer's "Insufficient
  memory" text as detail), the same class the quantum package's Aer backend raises when
  Aer refuses a circuit (importing ``quantum.errors`` imports no qiskit)
- ``sigterm`` / ``sigkill``: the process sends itself that signal (a preempted or
  killed job), to rehearse checkpoint-on-signal and ``--resume``
- ``enospc``: ``OSError(ENOSPC, "No space left on device")`` when the cycle's results are
  written (stage ``write``: the runner asks after the cycle, before its files are
  appended), to rehearse a full disk
"""
from __future__ import annotations

import errno
import os
import signal
from dataclasses import dataclass

from quantum.errors import QuantumMemoryError
from cognition.errors import FaultSpecError

FAULT_KINDS = ("oom", "accelerator_oom", "cublas", "nvml", "cpu_alloc", "aer", "sigterm", "sigkill", "enospc")
WRITE_KINDS = ("enospc",)  # fired when a cycle's results are written; the others before the cycle runs
_WHEN = ("first", "always")


@dataclass(frozen=True)
class Fault:
    """Raise ``kind`` at ``cycle``: on its first try only, or on every try (``always``)."""

    kind: str
    cycle: int
    always: bool = False

    def __str__(self) -> str:
        return f"{self.kind}@{self.cycle}" + (":always" if self.always else "")

    @property
    def stage(self) -> str:
        return "write" if self.kind in WRITE_KINDS else "step"


def parse_fault_spec(text: str) -> list[Fault]:
    """Faults from a spec such as ``"oom@7,cpu_alloc@12,oom@5:always"`` (empty -> [])."""
    faults = []
    for token in (t.strip() for t in str(text).split(",")):
        if not token:
            continue
        kind, at, rest = token.partition("@")
        cycle, _, when = rest.partition(":")
        when = when or "first"
        problem = None
        if not at:
            problem = "expected KIND@CYCLE[:first|always]"
        elif kind not in FAULT_KINDS:
            problem = f"unknown kind {kind!r}; allowed: {', '.join(FAULT_KINDS)}"
        elif not cycle.isdigit():
            problem = f"cycle {cycle!r} must be an integer >= 0"
        elif when not in _WHEN:
            problem = f"{when!r} after ':' must be one of {', '.join(_WHEN)}"
        if problem:
            raise FaultSpecError(f"--inject-fault token {token!r}: {problem}")
        faults.append(Fault(kind, int(cycle), when == "always"))
    return faults


def check_reachable(faults: list[Fault], last: int, done: int = 0) -> None:
    """FaultSpecError unless every fault can fire in a run that goes from cycle ``done + 1`` to ``last``,
    and no two faults share a cycle (the first would hide the second)."""
    seen: dict[int, Fault] = {}
    for fault in faults:
        problem = None
        if fault.cycle < 1:
            problem = "cycle 0 never runs: the first cycle is 1"
        elif fault.cycle > last:
            problem = f"the run ends at cycle {last}, so it would never fire"
        elif fault.cycle <= done:
            problem = f"cycle {fault.cycle} is already done: the run resumes at cycle {done + 1}"
        elif fault.cycle in seen:
            problem = f"{seen[fault.cycle]} already fails cycle {fault.cycle}: one fault per cycle"
        if problem:
            raise FaultSpecError(f"--inject-fault token {str(fault)!r}: {problem}")
        seen[fault.cycle] = fault


def _aer_memory_error(tag: str) -> QuantumMemoryError:
    """The quantum package's own error, as its Aer backend raises it (``quantum.backends.aer``)."""
    detail = ("Insufficient memory to run circuit using the statevector simulator. "
              f"Required memory: 16384M, max memory: 4096M {tag}")
    return QuantumMemoryError(16384.0, 4096.0, source="aer", detail=detail)


def raise_fault(fault: Fault) -> None:
    """Raise (or, for signals, deliver) the real failure that ``fault`` names."""
    tag = f"(injected fault {fault})"
    if fault.kind in ("sigterm", "sigkill"):
        os.kill(os.getpid(), signal.SIGTERM if fault.kind == "sigterm" else signal.SIGKILL)
        return
    if fault.kind == "aer":
        raise _aer_memory_error(tag)
    if fault.kind == "enospc":
        raise OSError(errno.ENOSPC, f"{os.strerror(errno.ENOSPC)} {tag}")
    import torch

    if fault.kind == "oom":
        raise torch.OutOfMemoryError(
            "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            f"3.81 GiB of which 1.02 GiB is free {tag}")
    if fault.kind == "accelerator_oom":
        accel = getattr(torch, "AcceleratorError", None)
        if accel is None:
            raise RuntimeError(f"CUDA error: out of memory {tag}")  # how torch < 2.8 reported it
        raise accel(f"CUDA error: out of memory {tag}")
    if fault.kind == "cublas":
        raise RuntimeError(f"CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)` {tag}")
    if fault.kind == "nvml":
        raise RuntimeError(
            "NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_() INTERNAL ASSERT FAILED at "
            f'"/pytorch/c10/cuda/CUDACachingAllocator.cpp":1131, please report a bug to PyTorch. {tag}')
    if fault.kind == "cpu_alloc":
        torch.empty(10**15)  # 4e15 bytes of float32: the CPU allocator refuses at once
        raise AssertionError("torch.empty(10**15) succeeded; cannot inject cpu_alloc here")
    raise FaultSpecError(f"fault kind {fault.kind!r}: allowed {', '.join(FAULT_KINDS)}")


class FaultInjector:
    """Fires the faults of a spec when the loop reaches their cycle.

    Call :meth:`maybe_raise` at the start of every try of every cycle, with
    ``attempt`` = 0 for the first try and 1, 2, ... for retries, and with
    ``stage="write"`` before the cycle's results are written. ``fired`` records
    ``(cycle, attempt, fault)`` for the report.
    """

    def __init__(self, faults: list[Fault] | str = ()):
        self.faults = parse_fault_spec(faults) if isinstance(faults, str) else list(faults)
        self.fired: list[tuple[int, int, str]] = []

    def maybe_raise(self, cycle: int, attempt: int = 0, stage: str = "step") -> None:
        for fault in self.faults:
            if fault.cycle == cycle and fault.stage == stage and (fault.always or attempt == 0):
                self.fired.append((cycle, attempt, str(fault)))
                raise_fault(fault)

    def __bool__(self) -> bool:
        return bool(self.faults)
