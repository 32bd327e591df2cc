"""Errors a user can cause. Each renders as one line naming field, value and what is allowed."""
from __future__ import annotations


class UsageError(Exception):
    """A problem with what the user asked for (flags, files, directories): exit code 2."""


class ConfigError(UsageError, ValueError):
    """A configuration field has a value that is not allowed."""

    def __init__(self, field: str, value, allowed: str, *, unknown_key: bool = False):
        self.field, self.value, self.allowed = field, value, allowed
        if unknown_key:
            msg = f"unknown config key '{field}' (value {value!r}); {allowed}"
        else:
            msg = f"{field} = {value!r} is not allowed: expected {allowed}"
        super().__init__(msg)


def first_line(text: str) -> str:
    """The first non-blank line of ``text`` (stripped), or ""."""
    return next((line.strip() for line in str(text).splitlines() if line.strip()), "")


def describe_error(exc: BaseException) -> str:
    """``Type: first line of the message``: an exception as one line for a report or an error."""
    return f"{type(exc).__name__}: {first_line(str(exc))}"
