"""The bench suites of ``python -m cognition.bench`` (one module each) and what they share."""
from __future__ import annotations

import sys


def refuse(bad: list[str]) -> None:
    """A suite's bad input: the first problem on one line of stderr and exit 2, before any work."""
    if bad:
        print(f"error: {bad[0]}", file=sys.stderr)
        raise SystemExit(2)
