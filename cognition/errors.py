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


class MissingExtraError(UsageError):
    """An optional extra (``pip install 'hybrid-cognition[NAME]'``) is needed and not installed."""


class DataFileError(UsageError):
    """A data file cannot be estimated (``python -m cognition.phi FILE``): unreadable, or not a series."""


class PluginFileChanged(UsageError):
    """``--resume``: a ``modules.plugins`` file the run was started with is missing or holds other bytes
    (cognition.plugin_paths.check_resume); one line naming the field, the entry and what to do."""


class RunFailure(Exception):
    """A run that cannot go on though its input was valid: exit code 1 (a UsageError is exit code 2)."""


class ModuleFault(RunFailure):
    """A cognitive module broke the module protocol (cognition.modules.guard, docs/modules.md "When a module
    fails"): a method raised, or an output held NaN or inf, or had the wrong shape, dtype or device.
    One line naming the module, the method, the output and what was expected; ``cycle`` None: before
    cycle 1 (its weights or initial state)."""

    def __init__(self, module: str, method: str, problem: str, output: str | None = None,
                 expected: str | None = None, cycle: int | None = None):
        self.module, self.method, self.output, self.problem = module, method, output, problem
        self.expected, self.cycle = expected, cycle
        when = "before cycle 1" if cycle is None else f"at cycle {cycle}"
        named = f"module {module!r} method {method!r}" + (f" output {output!r}" if output else "")
        super().__init__(f"{named} {when}: {problem}" + (f" (expected {expected})" if expected else ""))

    def __reduce__(self):  # rebuilt from its fields when it crosses a process pool (experiment ablations)
        return type(self), (self.module, self.method, self.problem, self.output, self.expected, self.cycle)
