"""The bench suites of ``python -m cognition.bench`` (one module each) and what they share."""
from __future__ import annotations

import sys

from cognition.cli import OneLineParser
from cognition.errors import DeviceRequestError, DeviceUnavailableError, abbreviate


def refuse(bad: list[str]) -> None:
    """A suite's bad input: the first problem on one line of stderr and exit 2, before any work."""
    if bad:
        print(f"error: {bad[0]}", file=sys.stderr)
        raise SystemExit(2)


def suite_parser(suite: str, **kwargs) -> OneLineParser:
    """A suite's flag parser: a bad flag or value is one line (a UsageError, exit 2 in ``cognition.bench``),
    not usage text."""
    return OneLineParser(prog=f"python -m cognition.bench {suite}", **kwargs)


def device_problem(flag: str, request: str) -> str | None:
    """Why ``request`` (auto, cpu, cuda, cuda:N) cannot be used on this machine, as one line naming ``flag``;
    None when it can (cognition.runtime.device.resolve_device, the runs' own policy)."""
    from cognition.runtime.device import resolve_device

    try:
        resolve_device(request)
    except DeviceRequestError:
        return f"{flag} {abbreviate(request)}: allowed auto, cpu, cuda, cuda:N (N >= 0)"
    except DeviceUnavailableError as exc:
        reason = str(exc).split("; to run on the CPU anyway")[0]  # the suites have no CPU fallback flag
        return reason if reason.startswith(flag) else f"{flag} {abbreviate(request)}: {reason}"
    return None
