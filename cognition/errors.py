"""Errors a user can cause. Each renders as one line naming field, value and what is allowed."""
from __future__ import annotations

import signal
import sys


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


def path_kind(path) -> str:
    """What a path that is not a regular file is, for a one-line refusal: ``does not exist``, ``is a directory``,
    ``is a character device``, ``is a symlink to /dev/zero, a character device``, ``is a symlink to a missing
    file (...)``; ``is a regular file`` when it is one."""
    import os
    import stat
    from pathlib import Path

    path = Path(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if path.is_symlink():
            return f"is a symlink to a missing file ({os.readlink(path)})"
        return "does not exist"
    except OSError as exc:
        return f"cannot be examined ({exc.strerror or exc})"
    kinds = ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"))
    kind = next((name for test, name in kinds if test(mode)), "not a regular file")
    if path.is_symlink():
        return f"is a symlink to {os.path.realpath(path)}, {kind}"
    return f"is {kind}"


#: what a user's module (a plug-in's file or one of its methods) may raise that is not an Exception, and is
#: the module's doing: the run's own signals never surface as these while it runs (cognition.runtime.stop,
#: cognition.runtime.early_signals), so they are turned into the documented outcome instead of the run's exit
MODULE_EXITS = (SystemExit, KeyboardInterrupt)


def describe_module_error(exc: BaseException) -> str:
    """What a user's module did, as one line: ``called sys.exit(0)``, ``raised KeyboardInterrupt`` or
    ``raised Type: message``."""
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r})" if exc.code is not None else "called sys.exit()"
    if isinstance(exc, KeyboardInterrupt):
        return "raised KeyboardInterrupt itself (not a signal)"
    return f"raised {describe_error(exc)}"


class MissingExtraError(UsageError):
    """An optional extra (``pip install 'hybrid-cognition[NAME]'``) is needed and not installed."""


class DataFileError(UsageError):
    """A data file cannot be estimated (``python -m cognition.phi FILE``): unreadable, or not a series."""


class PluginFileChanged(UsageError):
    """``--resume``: a ``modules.plugins`` file the run was started with is missing or holds other bytes
    (cognition.modules.plugin_paths.check_resume); one line naming the field, the entry and what to do."""


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

# -- out-of-memory-like failures ----------------------------------------------------------------
# Each kind below is a failure that a smaller batch or freed cache can cure; anything
# else (a device-side assert, a shape error, Ctrl-C) must not be retried.
#
# ===============  ==========================================================================
# kind             recognised by
# ===============  ==========================================================================
# cuda_oom         ``torch.OutOfMemoryError`` (also ``torch.cuda.OutOfMemoryError``), or a
#                  RuntimeError "CUDA out of memory" (torch < 1.13 raised no subclass)
# accelerator_oom  ``torch.AcceleratorError`` (torch >= 2.8) or RuntimeError whose message
#                  has "out of memory" ("CUDA error: out of memory" from cudaMalloc outside
#                  the caching allocator, e.g. context creation)
# cublas_alloc     "CUBLAS_STATUS_ALLOC_FAILED": cuBLAS could not allocate its workspace
# nvml_assert      "NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_()": on torch <= 2.13 the
#                  caching allocator asks NVML about memory while handling an OOM; when NVML
#                  cannot initialise, the OOM surfaces as this INTERNAL ASSERT
# cpu_alloc        "DefaultCPUAllocator: can't allocate memory", or Python's MemoryError
#                  (numpy's "Unable to allocate ...")
# aer_memory       ``quantum.errors.QuantumMemoryError`` (``isinstance``; the module is looked up in
#                  ``sys.modules``, never imported here: an instance implies it is loaded), or
#                  Aer's "Insufficient memory to run circuit ..."
# ===============  ==========================================================================

OOM_KINDS = ("cuda_oom", "accelerator_oom", "cublas_alloc", "nvml_assert", "cpu_alloc", "aer_memory")

_NVML_ASSERT = "NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_()"

# Message fragments that name the cause whatever the exception class; first match wins.
_MESSAGE_KINDS = (
    ("CUBLAS_STATUS_ALLOC_FAILED", "cublas_alloc"),
    (_NVML_ASSERT, "nvml_assert"),
    ("DefaultCPUAllocator: can't allocate memory", "cpu_alloc"),
    ("Insufficient memory", "aer_memory"),
)


def _classify_one(exc: BaseException) -> str | None:
    if not isinstance(exc, Exception):  # KeyboardInterrupt, SystemExit: never retried
        return None
    message = str(exc)
    quantum_errors = sys.modules.get("quantum.errors")  # a QuantumMemoryError implies its module is loaded
    if quantum_errors is not None and isinstance(exc, quantum_errors.QuantumMemoryError):
        return "aer_memory"
    for fragment, kind in _MESSAGE_KINDS:  # these name the true cause whatever the class
        if fragment in message:
            return kind
    torch = sys.modules.get("torch")  # a torch exception implies torch is imported
    if torch is not None:
        oom_type = getattr(torch, "OutOfMemoryError", None) or getattr(torch.cuda, "OutOfMemoryError", None)
        if oom_type is not None and isinstance(exc, oom_type):
            return "cuda_oom"
        accel_type = getattr(torch, "AcceleratorError", None)  # torch >= 2.8
        if accel_type is not None and isinstance(exc, accel_type):
            return "accelerator_oom" if "out of memory" in message else None
    if isinstance(exc, MemoryError):
        return "cpu_alloc"
    if isinstance(exc, RuntimeError):  # torch before the dedicated exception classes
        if "CUDA out of memory" in message:
            return "cuda_oom"
        if "CUDA error: out of memory" in message:
            return "accelerator_oom"
    return None


def classify_oom(exc: BaseException) -> str | None:
    """The OOM kind of ``exc`` (one of :data:`OOM_KINDS`), or None if it is not OOM-like.

    Follows ``__cause__``/``__context__`` so an OOM re-raised inside another error
    (``raise ModuleError(...) from oom``) is still recognised.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 16:
        seen.add(id(current))
        kind = _classify_one(current)
        if kind is not None:
            return kind
        if not isinstance(current, Exception):
            return None
        current = current.__cause__ or current.__context__
    return None


# -- raised in one module, caught or named in another --------------------------------------------


class RegistrationError(ValueError):
    """A module cannot be registered under that name; the message says why, in one line."""


class NotARunError(UsageError):
    """The path is not a finished hybrid-cognition run directory (exit code 2)."""


class RunDirBusyError(UsageError):
    """Another process holds the run directory's lock."""


class FaultSpecError(ValueError):
    """An ``--inject-fault`` value that does not parse; the message names the bad token."""


class CheckpointError(RuntimeError):
    """No usable checkpoint, or a payload that cannot be stored; the message is one line."""


class StopNow(BaseException):
    """A second signal (or one during the report): stop at once. A BaseException, like
    KeyboardInterrupt, so that no ``except Exception`` on the way swallows it."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class RunStopped(RunFailure):
    """A run that stopped after its start; ``str()`` is the one line to print (exit 1)."""


class CompileFailedError(RuntimeError):
    """torch.compile could not compile a kernel (no C++ compiler, an unsupported op...)."""


class DeviceUnavailableError(RuntimeError):
    """An explicit CUDA request that this machine cannot meet; the message says why."""


class DeviceRequestError(ValueError):
    """A ``--device`` value that is not one of auto, cpu, cuda, cuda:N."""


class SweepError(UsageError):
    """A sweep file that cannot run; the message is one line naming the file, the key and the fix."""


class RunFailed(RunFailure):
    """A run of the ablation experiment that failed; the message names its condition, seed and cause."""

    def __init__(self, condition: str, seed: int, cause: BaseException):
        super().__init__(f"run {condition} seed {seed} failed: {type(cause).__name__}: {str(cause).splitlines()[0]}"
                         if str(cause) else f"run {condition} seed {seed} failed: {type(cause).__name__}")


class DuplicateKeyError(ValueError):
    """A YAML mapping names a key twice; the message says which key and on which lines."""


class YamlTooLargeError(ValueError):
    """A YAML document whose aliases expand past MAX_YAML_NODES nodes or MAX_YAML_TEXT characters (an alias
    bomb: a few hundred bytes that expand to gigabytes), an alias inside its own anchor, or collections nested
    more than MAX_YAML_DEPTH levels."""


class AllocatorConfigError(ValueError):
    """An invalid allocator option; the message names the key, the value and what is allowed."""
