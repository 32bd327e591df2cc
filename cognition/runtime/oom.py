"""What to do about out-of-memory-like failures: the advice, freeing memory, a smaller batch.

Which failures are out-of-memory-like is :func:`cognition.errors.classify_oom` (the kinds and how
each is recognised are tabled there): the modules' guard asks it too, below this layer.
"""
from __future__ import annotations

import gc
import sys

from cognition.errors import OOM_KINDS, classify_oom, describe_error
from cognition.runtime.memlimits import describe, host_limits, tightest

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
