"""Numbers with their units, written the same way in report.md, report.html and the CLI.

Information in bits, memory in MiB (2^20 bytes), durations in seconds.
"""
from __future__ import annotations

import math

MIB = 2**20  # bytes


def number(x, digits: int = 4) -> str:
    """A plain number; ``n/a`` for None or NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def bits(x, digits: int = 4) -> str:
    """``0.0350 bits``."""
    return "n/a" if number(x) == "n/a" else f"{number(float(x), digits)} bits"


def interval(ci, unit: str = "bits", digits: int = 4) -> str:
    """``[0.0289, 0.0394] bits``; ``n/a`` without an interval."""
    if not ci or any(number(v) == "n/a" for v in ci):
        return "n/a"
    return f"[{float(ci[0]):.{digits}f}, {float(ci[1]):.{digits}f}] {unit}".rstrip()


def mib(n_bytes, digits: int = 1) -> str:
    """Bytes as ``272.3 MiB``."""
    return "n/a" if n_bytes is None else f"{n_bytes / MIB:.{digits}f} MiB"


def seconds(x) -> str:
    """``0.152 s`` (three significant figures below 10 s, else 1 decimal)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.3g} s" if abs(x) < 10 else f"{x:.1f} s"


def percent(share, digits: int = 1) -> str:
    """A share in [0, 1] as ``12.5 %``."""
    return "n/a" if share is None else f"{100.0 * share:.{digits}f} %"


def p_value(p) -> str:
    """``p = 0.0050``; very small values in scientific notation."""
    if p is None:
        return "n/a"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.2e}"
