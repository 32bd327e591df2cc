"""Shared pieces of the command-line tools: one-line usage errors and checked integers."""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from cognition.errors import ConfigError, UsageError, abbreviate

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
MAX_WORKERS = 256  # processes a command starts at once (--workers, --jobs): each costs memory and a CPU


def run_command(main) -> None:
    """``sys.exit(main())`` for a command's ``__main__``, quiet where the reader of its output has gone (``| head``):
    the BrokenPipeError a write then raises ends the command with EXIT_FAILED and no traceback, stdout pointed at
    the null device so that the interpreter's last flush does not raise again (Python's own advice: the
    ``signal`` module's note on SIGPIPE). A run's files are written before its last lines are printed."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = EXIT_FAILED
    sys.exit(code)


def refusing_usage(main, argv=None) -> int:
    """``main(argv)``, its UsageError (a :class:`OneLineParser`'s, or the command's own checks before any work) one
    line on stderr and EXIT_USAGE."""
    try:
        return main(argv)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE


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
            raise argparse.ArgumentTypeError(f"{abbreviate(text)} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is not allowed: expected an integer >= {minimum}")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


def lag_value(text: str):
    """An argparse type: the lag of a Phi estimate, an integer >= 1 or 'auto' (cognition.phi.autolag)."""
    if text == "auto":
        return "auto"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{abbreviate(text)} is not an integer, or 'auto'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not allowed: expected an integer >= 1, or 'auto'")
    return value


def int_between(minimum: int, maximum: int):
    """An argparse type: an integer from ``minimum`` to ``maximum`` (both allowed), else one line naming the
    value (abbreviated: cognition.errors.abbreviate) and the range, e.g.
    ``p.add_argument("--agents", type=int_between(1, 100_000))``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{abbreviate(text)} is not an integer (expected {minimum} to {maximum})") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"{abbreviate(value)} is not allowed: expected an integer from {minimum} to {maximum}")
        return value

    parse.__name__ = f"integer from {minimum} to {maximum}"
    return parse


def check_int_between(field: str, value, minimum: int, maximum: int) -> int:
    """``value`` (from a file or the API, not argv) if it is an integer from ``minimum`` to ``maximum``; else a
    ConfigError naming ``field``, the value (abbreviated) and the range. A bool is not an integer here, nor
    is a float such as 3.0."""
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise ConfigError(field, value, f"an integer from {minimum} to {maximum}")
    return value


def non_empty_path(text: str) -> str:
    """An argparse type for a path flag such as ``--out``: the text as typed, refused when empty (``--out ""``
    would otherwise become the working directory, ``Path("") == Path(".")``), quoting what was typed."""
    if not text:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed: expected a path")
    return text


def check_output_file(flag: str, out: str) -> None:
    """UsageError, before any work, when the output file ``out`` given to ``flag`` (e.g. ``--json``) cannot take
    the result: a missing directory, a directory, an existing file that cannot be written, or a new file in a
    directory where nothing can be created (a scratch file is made and removed: /proc, a read-only mount). A
    writable device (/dev/stdout) is the user's choice."""
    path = Path(out)
    if not path.resolve().parent.is_dir():
        raise UsageError(f"{flag} = {out!r}: its directory does not exist: expected a file in an existing directory")
    if path.is_dir():
        raise UsageError(f"{flag} = {out!r} is a directory: expected a file to write the result to")
    if path.exists():
        if not os.access(path, os.W_OK):
            raise UsageError(f"{flag} = {out!r} cannot be written (no write permission): expected a writable file")
        return
    try:
        with tempfile.NamedTemporaryFile(dir=path.resolve().parent, prefix=".output-check-"):
            pass
    except OSError as exc:
        raise UsageError(f"{flag} = {out!r}: nothing can be written in its directory ({exc.strerror or exc}): "
                         "expected a file in a writable directory") from None
