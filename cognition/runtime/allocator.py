"""Caching-allocator configuration: validate one string, set both variables, report what is read.

torch reads the allocator options from environment variables, once, when the
allocator first initialises; which variable it reads depends on the version:

==========  =================================================================
torch       variable read
==========  =================================================================
<= 2.8      ``PYTORCH_CUDA_ALLOC_CONF`` only
2.9         ``PYTORCH_ALLOC_CONF`` if set, else ``PYTORCH_CUDA_ALLOC_CONF``
            (with "PYTORCH_CUDA_ALLOC_CONF is deprecated, use PYTORCH_ALLOC_CONF")
>= 2.10     ``PYTORCH_CUDA_ALLOC_CONF`` if set, even when empty, else ``PYTORCH_ALLOC_CONF``
==========  =================================================================

so :func:`apply_alloc_conf` sets both to the same string, before CUDA initialises.

Keys and values are case-sensitive. Accepted keys (torch 2.13; the first group is
parsed by c10's AcceleratorAllocatorConfig for every device, the second by the CUDA
allocator, see c10/core/AllocatorConfig.cpp and c10/cuda/CUDAAllocatorConfig.cpp):
see :data:`ALLOC_KEYS`. Unknown keys are an error here, as they are for CUDA torch.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Mapping, MutableMapping
from cognition.errors import AllocatorConfigError

VARIABLES = ("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF")
_KMB = "integer MiB"


class AllocatorAlreadyInitialisedError(RuntimeError):
    """The allocator options were set after torch initialised CUDA, when they no longer apply."""


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


# key -> (type, check on the parsed value or None, what is allowed)
ALLOC_KEYS: dict[str, tuple[str, Any, str]] = {
    # c10/core/AllocatorConfig.cpp (all devices)
    "max_split_size_mb": ("int", None, f"{_KMB} >= 20 (>= large_segment_size_mb when that is set)"),
    "max_non_split_rounding_mb": ("int", None, f"{_KMB} >= 20 (>= large_segment_size_mb when that is set)"),
    "garbage_collection_threshold": ("float", lambda v: 0 < v < 1, "a number in the open interval (0, 1)"),
    "roundup_power2_divisions": ("roundup", None,
                                 "a power of 2, or [SIZE_MB:DIV,...,>:DIV] with SIZE_MB a power of 2 "
                                 "and DIV 0 or a power of 2"),
    "expandable_segments": ("bool", None, "True or False (capitalised)"),
    "large_segment_size_mb": ("int", lambda v: v > 10, f"{_KMB} > 10"),
    "pinned_use_background_threads": ("bool", None, "True or False (capitalised)"),
    "pinned_max_round_threshold_mb": ("int", lambda v: v >= 0, f"{_KMB} >= 0"),
    "pinned_max_cached_size_mb": ("int", lambda v: v >= 0, f"{_KMB} >= 0"),
    # c10/cuda/CUDAAllocatorConfig.cpp
    "backend": ("str", lambda v: v in ("native", "cudaMallocAsync"), "native or cudaMallocAsync"),
    "release_lock_on_cudamalloc": ("bool", None, "True or False (capitalised)"),
    "pinned_use_cuda_host_register": ("bool", None, "True or False (capitalised)"),
    "pinned_num_register_threads": ("int", lambda v: _power_of_two(v) and v <= 128, "a power of 2 <= 128"),
    "pinned_reserve_segment_size_mb": ("int", lambda v: v > 0, f"{_KMB} > 0"),
    "graph_capture_record_stream_reuse": ("bool", None, "True or False (capitalised)"),
    "per_process_memory_fraction": ("float", lambda v: 0 <= v <= 1, "a number in [0, 1]"),
    "pinned_free_catch_all": ("bool", None, "True or False (capitalised)"),
    "throw_on_cudamalloc_oom": ("bool", None, "True or False (capitalised)"),
}
# Options cudaMallocAsync ignores (torch warns "backend:cudaMallocAsync ignores ...").
_NATIVE_ONLY = ("max_split_size_mb", "max_non_split_rounding_mb", "garbage_collection_threshold",
                "roundup_power2_divisions", "expandable_segments", "large_segment_size_mb")


def _bad(key: str, value: str, allowed: str) -> AllocatorConfigError:
    return AllocatorConfigError(f"allocator option {key}: value {value!r} is invalid; allowed: {allowed}")


def _parse_roundup(key: str, value: str, allowed: str) -> int | list[tuple[int | str, int]]:
    if not value.startswith("["):
        if not re.fullmatch(r"\d+", value) or not _power_of_two(int(value)):
            raise _bad(key, value, allowed)
        return int(value)
    if not value.endswith("]"):
        raise _bad(key, value, allowed)
    pairs = []
    for item in value[1:-1].split(","):
        size, _, div = item.partition(":")
        ok_size = size == ">" or (size.isdigit() and _power_of_two(int(size)))
        if not (ok_size and div.isdigit() and (int(div) == 0 or _power_of_two(int(div)))):
            raise _bad(key, value, allowed)
        pairs.append((size if size == ">" else int(size), int(div)))
    return pairs


def _parse_value(key: str, value: str) -> Any:
    kind, check, allowed = ALLOC_KEYS[key]
    if kind == "bool":
        if value not in ("True", "False"):
            raise _bad(key, value, allowed)
        return value == "True"
    if kind == "roundup":
        return _parse_roundup(key, value, allowed)
    try:
        parsed = {"int": int, "float": float, "str": str}[kind](value)
    except ValueError:
        raise _bad(key, value, allowed) from None
    if kind == "int" and not re.fullmatch(r"\d+", value):  # no signs, no "0x20", no "2.5"
        raise _bad(key, value, allowed)
    if check is not None and not check(parsed):
        raise _bad(key, value, allowed)
    return parsed


def _split_items(text: str) -> list[str]:
    """Split on commas outside brackets; whitespace is dropped, as torch drops it."""
    items, depth, current = [], 0, []
    for ch in re.sub(r"\s+", "", text):
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(ch)
    items.append("".join(current))
    return [i for i in items if i]


def parse_alloc_conf(text: str) -> dict[str, Any]:
    """Validated options of an allocator string such as
    ``"expandable_segments:True,max_split_size_mb:128"`` -> ``{"expandable_segments": True,
    "max_split_size_mb": 128}``. Raises :class:`AllocatorConfigError`."""
    options: dict[str, Any] = {}
    for item in _split_items(str(text)):
        key, colon, value = item.partition(":")
        if key not in ALLOC_KEYS:
            close = [k for k in ALLOC_KEYS if k.lower() == key.lower()]
            hint = f" (keys are case-sensitive: did you mean {close[0]!r}?)" if close else ""
            raise AllocatorConfigError(f"allocator option {key!r} is unknown{hint}; allowed: {', '.join(ALLOC_KEYS)}")
        if not colon or not value:
            raise _bad(key, value, ALLOC_KEYS[key][2] + f", written as {key}:VALUE")
        if key in options:
            raise AllocatorConfigError(f"allocator option {key} is given twice; allowed: once")
        options[key] = _parse_value(key, value)
    floor = max(20, options.get("large_segment_size_mb", 20))  # torch's check, in that order
    for key in ("max_split_size_mb", "max_non_split_rounding_mb"):
        if key in options and options[key] < floor:
            here = f", here >= {floor}" if "large_segment_size_mb" in options else ""
            raise _bad(key, str(options[key]), ALLOC_KEYS[key][2] + here)
    if options.get("backend") == "cudaMallocAsync" and (ignored := [k for k in _NATIVE_ONLY if k in options]):
        raise AllocatorConfigError(f"allocator option backend:cudaMallocAsync ignores {', '.join(ignored)}; "
                                   "allowed: remove them, or use backend:native")
    return options


def canonical_alloc_conf(text: str) -> str:
    """The validated string with whitespace removed (what is put in the environment)."""
    parse_alloc_conf(text)
    return ",".join(_split_items(str(text)))


@dataclass(frozen=True)
class AllocatorSetting:
    """What :func:`apply_alloc_conf` did: the string set, its parsed options, and the
    previous value of each variable (None where unset), for provenance."""

    conf: str
    options: dict[str, Any]
    previous: dict[str, str | None] = field(default_factory=dict)


def _cuda_initialised() -> bool:
    torch = sys.modules.get("torch")  # never import torch just to ask
    return bool(torch is not None and torch.cuda.is_initialized())


def apply_alloc_conf(text: str, environ: MutableMapping[str, str] | None = None) -> AllocatorSetting:
    """Validate ``text`` and set ``PYTORCH_ALLOC_CONF`` and ``PYTORCH_CUDA_ALLOC_CONF`` to it.

    Raises :class:`AllocatorConfigError` for an invalid string, and
    :class:`AllocatorAlreadyInitialisedError` when this process's torch has already
    initialised CUDA (the allocator has read its options; they would silently not apply).
    """
    conf = canonical_alloc_conf(text)
    environ = os.environ if environ is None else environ
    if environ is os.environ and _cuda_initialised():
        raise AllocatorAlreadyInitialisedError(
            f"allocator options {conf!r} set after torch initialised CUDA, so they would not apply; "
            "set them before the first CUDA call (before choosing the device)")
    previous = {v: environ.get(v) for v in VARIABLES}
    for v in VARIABLES:
        environ[v] = conf
    return AllocatorSetting(conf, parse_alloc_conf(conf), previous)


def _torch_version() -> tuple[int, int] | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        major, minor = re.match(r"(\d+)\.(\d+)", version("torch")).groups()
    except (PackageNotFoundError, AttributeError):
        return None
    return int(major), int(minor)


def alloc_conf_in_effect(environ: Mapping[str, str] | None = None,
                         torch_version: tuple[int, int] | None = None) -> dict[str, Any]:
    """Both variables, which one the installed torch reads, the string in effect, any
    conflict or deprecation warning, and whether that string is valid. JSON-able.

    ``torch_version`` (major, minor) defaults to the installed torch's, read from its
    package metadata without importing it.
    """
    environ = os.environ if environ is None else environ
    version = torch_version or _torch_version()
    values = {v: environ.get(v) for v in VARIABLES}
    alloc, cuda = values["PYTORCH_ALLOC_CONF"], values["PYTORCH_CUDA_ALLOC_CONF"]
    warning = None
    if version is None:
        reads, rule = None, "torch is not installed"
    elif version <= (2, 8):
        reads, rule = "PYTORCH_CUDA_ALLOC_CONF", "torch <= 2.8 reads only PYTORCH_CUDA_ALLOC_CONF"
    elif version == (2, 9):
        reads = "PYTORCH_ALLOC_CONF" if alloc is not None else "PYTORCH_CUDA_ALLOC_CONF"
        rule = "torch 2.9 reads PYTORCH_ALLOC_CONF if set, else PYTORCH_CUDA_ALLOC_CONF (deprecated)"
        if alloc is None and cuda is not None:
            warning = "torch 2.9 warns: PYTORCH_CUDA_ALLOC_CONF is deprecated, use PYTORCH_ALLOC_CONF instead"
    else:
        reads = "PYTORCH_CUDA_ALLOC_CONF" if cuda is not None else "PYTORCH_ALLOC_CONF"
        rule = "torch >= 2.10 reads PYTORCH_CUDA_ALLOC_CONF if set (even empty), else PYTORCH_ALLOC_CONF"
    effective = values.get(reads) if reads else None
    conflict = None
    if alloc is not None and cuda is not None and alloc != cuda and reads:
        ignored = VARIABLES[1 - VARIABLES.index(reads)]
        conflict = f"{reads}={values[reads]!r} is in effect; {ignored}={values[ignored]!r} is ignored"
    elif reads == "PYTORCH_CUDA_ALLOC_CONF" and alloc is not None and cuda is None:
        conflict = f"PYTORCH_ALLOC_CONF={alloc!r} is ignored by this torch (it reads only PYTORCH_CUDA_ALLOC_CONF)"
    error = None
    if effective:
        try:
            parse_alloc_conf(effective)
        except AllocatorConfigError as exc:
            error = str(exc)
    return {"torch_version": None if version is None else f"{version[0]}.{version[1]}", **values,
            "reads": reads, "rule": rule, "effective": effective, "conflict": conflict,
            "warning": warning, "error": error}
