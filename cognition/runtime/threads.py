"""CPU thread counts for torch and OpenBLAS, set by the runtime (never by science code).

The architecture's per-cycle work is many small tensor and BLAS/LAPACK calls (a few
dozen rows each). On a busy machine, waking extra threads for each call costs more
than the arithmetic: `python -m cognition.bench agents` and `... phi` measured the
per-agent classical loop and the 64-node Queyranne search several times slower
with two threads than with one on this 2-core machine. So runs default to one
thread (``runtime.threads``); raise it for very large batches.
"""
from __future__ import annotations

import contextlib
import ctypes
import sys


def _openblas_setters() -> list:
    """(setter, previous) for each OpenBLAS library numpy/scipy loaded (Linux: /proc/self/maps)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower() and "/" in line})
    except OSError:
        return []
    found = []
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in ("scipy_openblas_", "openblas_"):
            for suffix in ("64_", ""):
                setter = getattr(lib, f"{prefix}set_num_threads{suffix}", None)
                getter = getattr(lib, f"{prefix}get_num_threads{suffix}", None)
                if setter is not None and getter is not None:
                    found.append((setter, getter()))
                    break
            else:
                continue
            break
    return found


def set_cpu_threads(n: int | None) -> str:
    """Set torch intra-op and OpenBLAS threads to ``n`` (None: leave the defaults); describe the result."""
    if n is None:
        return "library defaults"
    blas = _openblas_setters()
    for setter, _ in blas:
        setter(n)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(n)
    return f"{n} (torch{', OpenBLAS' if blas else ''})"


@contextlib.contextmanager
def cpu_threads(n: int | None):
    """Temporarily :func:`set_cpu_threads`; yields the description."""
    blas = _openblas_setters() if n is not None else []
    torch = sys.modules.get("torch")
    old_torch = torch.get_num_threads() if torch is not None else None
    try:
        yield set_cpu_threads(n)
    finally:
        for setter, old in blas:
            setter(old)
        if torch is not None and n is not None:
            torch.set_num_threads(old_torch)
