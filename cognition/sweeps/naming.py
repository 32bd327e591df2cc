"""Run-directory names of sweep points, made from their parameters.

A point's name is ``key=value`` pairs joined by ``__``, keys sorted, e.g.
``quantum.mode=lite__run.seed=1``. Sorting makes the name independent of the
order of keys in the sweep file, so reordering the file still finds the finished
points. Names use only ``A-Z a-z 0-9 . _ + = -``: a value holding anything else
has those characters replaced by ``-`` and the name gets a hash of the exact
parameters appended (``__h=1a2b3c4d``) so that two values cannot collide; so
does a name longer than :data:`MAX_NAME` characters, which is then shortened.
"""
from __future__ import annotations

import hashlib
import json
import re

from cognition.config.schema import format_value

MAX_NAME = 200  # characters; file systems allow 255 bytes per component
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]")


def params_hash(params: dict) -> str:
    """8 hex digits of SHA-256 over the parameters as canonical JSON."""
    text = json.dumps({k: params[k] for k in sorted(params)}, sort_keys=True, default=list)
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def point_name(params: dict) -> str:
    """Stable, file-system-safe directory name for a point with these ``{dotted key: value}``."""
    if not params:
        raise ValueError("a sweep point needs at least one parameter")
    parts, changed = [], False
    for key in sorted(params):
        text = format_value(params[key])
        safe = _UNSAFE.sub("-", text) or "-"
        changed |= safe != text
        parts.append(f"{key}={safe}")
    name = "__".join(parts)
    if changed or len(name) > MAX_NAME:
        suffix = f"__h={params_hash(params)}"
        name = name[:MAX_NAME - len(suffix)] + suffix
    return name
