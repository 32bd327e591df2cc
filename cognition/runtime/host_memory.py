"""Keep freed host memory in the process instead of returning it to the OS every cycle.

glibc's malloc serves a large block with its own mmap and gives it back to the OS with munmap
when freed (above the mmap threshold: 128 KiB at start, raised by glibc up to 32 MiB as blocks
are freed), and trims the top of its heap above 128 KiB. A cycle of 4096 agents allocates tens of
MiB of temporaries (the RLS's 28 MiB update of P, the statevector chunks) and frees them again, so
the next cycle page-faults the same memory back in, one fault per 4 KiB page. Measured at 4096
agents, one thread (docs/performance.md): classical 4 081 minor faults and 8 ms of system time a
cycle without, 1 387 and 3 ms with; quantum-lite 6 331 and 14 ms without, 698 and 2 ms with.

:func:`retain_freed_memory` raises both thresholds once per process (``mallopt``): blocks up to
32 MiB (glibc's largest mmap threshold on 64-bit) come from the heap, and up to TRIM_BYTES of free
heap stay mapped for the next cycle. The process's resident memory then stays near its peak, which
the report already records (peak RSS). It changes no number. Not glibc (macOS, musl): nothing is
done and the returned line says so.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's <malloc.h>
MMAP_BYTES = 32 * 1024 * 1024
TRIM_BYTES = 512 * 1024 * 1024
_done: str | None = None


def retain_freed_memory() -> str:
    """Raise glibc's mmap and trim thresholds (once per process); returns what was done, or why not."""
    global _done
    if _done is None:
        _done = _set_thresholds()
    return _done


def _set_thresholds() -> str:
    if not sys.platform.startswith("linux"):
        return f"left to the system allocator ({sys.platform}: not glibc)"
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError) as exc:
        return f"left to the system allocator (no glibc mallopt: {exc})"
    if mallopt(M_MMAP_THRESHOLD, MMAP_BYTES) != 1 or mallopt(M_TRIM_THRESHOLD, TRIM_BYTES) != 1:
        return "left to the system allocator (mallopt refused the thresholds)"
    return f"glibc mallopt: mmap threshold {MMAP_BYTES >> 20} MiB, trim threshold {TRIM_BYTES >> 20} MiB"
