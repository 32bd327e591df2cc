"""Errors a user can cause. Each renders as one line naming field, value and what is allowed."""
from __future__ import annotations


class UsageError(Exception):
    """A problem with what the user asked for (flags, files, directories): exit code 2."""


class ConfigError(UsageError, ValueError):
    """A configuration field has a value that is not allowed."""

    def __init__(self, field: str, value, allowed: str, *, unknown_key: bool = False):
        self.field, self.value, self.allowed = field, value, allowed
        if unknown_key:
            msg = f"unknown config key {abbreviate(field)} (value {abbreviate(value)}); {allowed}"
        else:
            msg = f"{field} = {abbreviate(value)} is not allowed: expected {allowed}"
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


QUOTE_LIMIT = 80  # characters of a user's value quoted in a one-line error (abbreviate)
_WALK_BUDGET = 10_000  # distinct containers visited when an abbreviated value's size is measured
_WALK_DEPTH = 200  # levels of nesting it descends (far below the interpreter's recursion limit)


def _measure(value, budget: int = _WALK_BUDGET):
    """Items in ``value`` counted as if expanded (a YAML alias bomb shares its lists: each shared container is
    visited once and its count reused), or None when the walk stops early: more than ``budget`` distinct
    containers or more than ``_WALK_DEPTH`` levels, or a container that holds itself. Never builds a repr."""
    memo: dict[int, int] = {}
    open_ids: set[int] = set()
    visits = 0

    def walk(node, depth: int = 0) -> int | None:
        nonlocal visits
        if isinstance(node, dict):
            children = [c for kv in node.items() for c in kv]
        elif isinstance(node, (list, tuple, set, frozenset)):
            children = list(node)
        else:
            return 0
        key = id(node)
        if key in memo:
            return memo[key]
        if key in open_ids:
            return None  # holds itself
        visits += 1
        if visits > budget or depth > _WALK_DEPTH:
            return None
        open_ids.add(key)
        total = len(node)
        for child in children:
            sub = walk(child, depth + 1)
            if sub is None:
                return None
            total += sub
        open_ids.discard(key)
        memo[key] = total
        return total

    return walk(value)


def _count_text(n: int) -> str:
    """``n`` for a person: 12, 4,096, 3.9e+08."""
    return f"{n:,}" if n < 10**7 else f"{n:.1e}"


def _bounded_repr(value, budget: int) -> str:
    """A repr of ``value`` that stops once it is longer than ``budget`` characters (never the whole repr of
    a huge or self-holding structure); the caller cuts it."""
    out: list[str] = []
    used = 0
    active: set[int] = set()

    def emit(text: str) -> bool:
        nonlocal used
        out.append(text)
        used += len(text)
        return used <= budget

    def walk(node) -> bool:
        if isinstance(node, str):
            return emit(repr(node[: budget + 2]))
        if isinstance(node, (bytes, bytearray)):
            return emit(repr(bytes(node[: budget + 2])))
        if isinstance(node, (dict, list, tuple, set, frozenset)):
            if id(node) in active:
                return emit("[...]" if isinstance(node, list) else "{...}")
            active.add(id(node))
            opener, closer = {dict: "{}", list: "[]", tuple: "()"}.get(type(node), "{}")
            if not emit(opener):
                return False
            items = node.items() if isinstance(node, dict) else node
            for i, item in enumerate(items):
                if i and not emit(", "):
                    return False
                if isinstance(node, dict):
                    if not (walk(item[0]) and emit(": ") and walk(item[1])):
                        return False
                elif not walk(item):
                    return False
            active.discard(id(node))
            return emit(closer)
        if isinstance(node, int) and node.bit_length() > 4 * budget:  # a repr past int_max_str_digits raises
            return emit(f"<int of about {_count_text(int(node.bit_length() * 0.30103))} digits>")
        return emit(repr(node)[: budget + 2])  # other scalars: a number, None, a date

    walk(value)
    return "".join(out)


def abbreviate(value, limit: int = QUOTE_LIMIT) -> str:
    """``value`` quoted for a one-line error in at most about ``limit`` characters: its repr when that is
    short, else the repr's start, "…" and the type and size, e.g. ``'aaaa…' (str, 266,338,304 characters)``
    or ``[[[...…] (list, 9 items, 4.3e+08 in all)``. Never builds the whole repr: the size of a container
    comes from a bounded walk that counts shared sub-structures once (a YAML alias bomb) and stops early
    ("more than N in all")."""
    text = _bounded_repr(value, limit)
    if len(text) <= limit:
        return text
    head = text[: max(limit - 40, 8)] + "…"
    kind = type(value).__name__
    if isinstance(value, str):
        return f"{head} ({kind}, {_count_text(len(value))} characters)"
    if isinstance(value, (bytes, bytearray)):
        return f"{head} ({kind}, {_count_text(len(value))} bytes)"
    if isinstance(value, (dict, list, tuple, set, frozenset)):
        total = _measure(value)
        nested = f"more than {_count_text(_WALK_BUDGET)} containers or {_WALK_DEPTH} levels" if total is None else \
            f"{_count_text(total)} in all"
        return f"{head} ({kind}, {_count_text(len(value))} item{'' if len(value) == 1 else 's'}, {nested})"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{head} ({kind}, about {_count_text(int(value.bit_length() * 0.30103) + 1)} digits)"
    return f"{head} ({kind})"
