"""One classifier for out-of-memory-like failures, and what to do about them.

Each kind below is a failure that a smaller batch or freed cache can cure; anything
else (a device-side assert, a shape error, Ctrl-C) must not be retried.

===============  ==========================================================================
kind             recognised by
===============  ==========================================================================
cuda_oom         ``torch.OutOfMemoryError`` (also ``torch.cuda.OutOfMemoryError``), or a
                 RuntimeError "CUDA out of memory" (torch < 1.13 raised no subclass)
accelerator_oom  ``torch.AcceleratorError`` (torch >= 2.8) or RuntimeError whose message
                 has "out of memory" ("CUDA error: out of memory" from cudaMalloc outside
                 the caching allocator, e.g. context creation)
cublas_alloc     "CUBLAS_STATUS_ALLOC_FAILED": cuBLAS could not allocate its workspace
nvml_assert      "NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_()": on torch <= 2.13 the
                 caching allocator asks NVML about memory while handling an OOM; when NVML
                 cannot initialise, the OOM surfaces as this INTERNAL ASSERT
cpu_alloc        "DefaultCPUAllocator: can't allocate memory", or Python's MemoryError
                 (numpy's "Unable to allocate ...")
aer_memory       ``quantum.errors.QuantumMemoryError`` (``isinstance``; the module is looked up in
                 ``sys.modules``, never imported here: an instance implies it is loaded), or
                 Aer's "Insufficient memory to run circuit ..."
===============  ==========================================================================
"""
from __future__ import annotations

import gc
import sys

from cognition.errors import describe_error
from cognition.runtime.memlimits import describe, host_limits, tightest

OOM_KINDS = ("cuda_oom", "accelerator_oom", "cublas_alloc", "nvml_assert", "cpu_alloc", "aer_memory")

_NVML_ASSERT = "NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_()"

# Message fragments that name the cause whatever the exception class; first match wins.
_MESSAGE_KINDS = (
    ("CUBLAS_STATUS_ALLOC_FAILED", "cublas_alloc"),
    (_NVML_ASSERT, "nvml_assert"),
    ("DefaultCPUAllocator: can't allocate memory", "cpu_alloc"),
    ("Insufficient memory", "aer_memory"),
)

_ADVICE = {
    "cuda_oom": "lower the batch (agents per launch) or the qubit cap, or use the low-memory preset "
                "(configs/low_memory_4gb.yaml); if reserved >> allocated, set the allocator to "
                "expandable_segments:True; `python -m cognition.doctor` lists other processes holding GPU memory",
    "accelerator_oom": "the GPU ran out of memory outside the caching allocator: free the GPU "
                       "(`python -m cognition.doctor` lists processes holding memory) or lower the batch",
    "cublas_alloc": "cuBLAS could not allocate its workspace: lower the batch or free GPU memory "
                    "held by other processes (`python -m cognition.doctor`)",
    "nvml_assert": "this NVML assert is an out-of-memory error in disguise (torch <= 2.13): lower the "
                   "batch, and check the NVIDIA driver with `python -m cognition.doctor`",
    "cpu_alloc": "host RAM is exhausted: lower the batch or the qubit cap (a statevector of n qubits "
                 "takes 2**n * 16 bytes), or run on a machine with more memory",
    "aer_memory": "the circuit needs more memory than Aer may use: lower the qubit cap "
                  "(--quantum-lite) or the batch, or use --disable-quantum",
}


def _classify_one(exc: BaseException) -> str | None:
    if not isinstance(exc, Exception):  # KeyboardInterrupt, SystemExit: never retried
        return None
    message = str(exc)
    quantum_errors = sys.modules.get("quantum.errors")  # a QuantumMemoryError implies its module is loaded
    if quantum_errors is not None and isinstance(exc, quantum_errors.QuantumMemoryError):
        return "aer_memory"
    for fragment, kind in _MESSAGE_KINDS:  # these name the true cause whatever the class
        if fragment in message:
            return kind
    torch = sys.modules.get("torch")  # a torch exception implies torch is imported
    if torch is not None:
        oom_type = getattr(torch, "OutOfMemoryError", None) or getattr(torch.cuda, "OutOfMemoryError", None)
        if oom_type is not None and isinstance(exc, oom_type):
            return "cuda_oom"
        accel_type = getattr(torch, "AcceleratorError", None)  # torch >= 2.8
        if accel_type is not None and isinstance(exc, accel_type):
            return "accelerator_oom" if "out of memory" in message else None
    if isinstance(exc, MemoryError):
        return "cpu_alloc"
    if isinstance(exc, RuntimeError):  # torch before the dedicated exception classes
        if "CUDA out of memory" in message:
            return "cuda_oom"
        if "CUDA error: out of memory" in message:
            return "accelerator_oom"
    return None


def classify_oom(exc: BaseException) -> str | None:
    """The OOM kind of ``exc`` (one of :data:`OOM_KINDS`), or None if it is not OOM-like.

    Follows ``__cause__``/``__context__`` so an OOM re-raised inside another error
    (``raise ModuleError(...) from oom``) is still recognised.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 16:
        seen.add(id(current))
        kind = _classify_one(current)
        if kind is not None:
            return kind
        if not isinstance(current, Exception):
            return None
        current = current.__cause__ or current.__context__
    return None


def host_allocation_failure(exc: BaseException) -> BaseException | None:
    """The host allocation failure in ``exc`` or its causes and contexts: a ``MemoryError`` (numpy's
    "Unable to allocate ..." is one), or torch's CPU allocator error (a plain RuntimeError: torch defines no
    type for it, so its "DefaultCPUAllocator: can't allocate memory" text is the only mark). Found through
    the chain because a failure while unwinding can hide it: zipfile, closing an entry after a MemoryError,
    raises "ValueError: I/O operation on closed file." with the MemoryError as its context."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 16:
        seen.add(id(current))
        if isinstance(current, MemoryError):
            return current
        if isinstance(current, RuntimeError) and "DefaultCPUAllocator: can't allocate memory" in str(current):
            return current
        current = current.__cause__ or current.__context__
    return None


def release_frames(exc: BaseException) -> None:
    """Drop the tracebacks of ``exc`` and its causes and contexts. A caught out-of-memory error keeps every
    frame it passed through alive, and with them the failed try's temporaries (tensors, arrays), until the
    exception itself is dropped: a retry, or the checkpoint written after the last try, would run without
    that memory (a run of 20 000 agents under ``ulimit -v`` 3 GB then failed in the checkpoint too)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 16:
        seen.add(id(current))
        current.__traceback__ = None
        current = current.__cause__ or current.__context__


def host_memory_line(failure: BaseException) -> str:
    """'out of host memory (MemoryError: ...; tightest limit: RLIMIT_AS ... of 2.86 GiB, ...)'."""
    try:
        limit = tightest(host_limits(), {})
    except Exception:  # noqa: BLE001 - naming the limit must not hide the failure itself
        limit = None
    where = f"; tightest limit: {describe(limit)}" if limit is not None else ""
    return f"out of host memory ({describe_error(failure)}{where})"


def oom_advice(kind: str) -> str:
    """One line that says what to change after an OOM of ``kind`` that retries did not cure."""
    if kind not in _ADVICE:
        raise ValueError(f"oom kind {kind!r}: allowed {', '.join(OOM_KINDS)}")
    return _ADVICE[kind]


def next_batch(batch: int, floor: int = 1) -> int | None:
    """Batch (agents per launch) for the next try after an OOM: half, but not below
    ``floor``; None when ``batch`` is already at the floor, so retrying cannot help."""
    if floor < 1 or batch < floor:
        raise ValueError(f"batch={batch}, floor={floor}: need 1 <= floor <= batch")
    return None if batch <= floor else max(floor, batch // 2)


def free_memory(device: str = "cpu") -> dict[str, int]:
    """Release what can be released after an OOM: Python garbage, then (on CUDA) the
    caching allocator's unused blocks. Returns ``gc_collected`` (objects) and, on CUDA,
    ``reserved_bytes_before``/``reserved_bytes_after``.

    Never imports torch: if torch is not loaded, nothing is cached on a GPU.
    """
    out = {"gc_collected": gc.collect()}
    torch = sys.modules.get("torch")
    if str(device).startswith("cuda") and torch is not None and torch.cuda.is_initialized():
        out["reserved_bytes_before"] = int(torch.cuda.memory_reserved(device))
        try:
            torch.cuda.synchronize(device)
        except RuntimeError:  # a broken context still lets empty_cache drop free blocks
            pass
        torch.cuda.empty_cache()
        out["reserved_bytes_after"] = int(torch.cuda.memory_reserved(device))
    return out
