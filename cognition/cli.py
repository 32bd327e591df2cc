"""Shared pieces of the command-line tools: one-line usage errors and checked integers."""
from __future__ import annotations

import argparse

from cognition.errors import UsageError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class OneLineParser(argparse.ArgumentParser):
    """argparse whose errors are a UsageError (one line, exit 2), not usage text and exit 2."""

    def error(self, message):
        raise UsageError(f"{self.prog}: {message} (see --help)")


def int_at_least(minimum: int):
    """An argparse type: an integer >= ``minimum``, else a message naming the value."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is not allowed: expected an integer >= {minimum}")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse
