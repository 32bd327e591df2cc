"""Typed-dataclass validation used by the configuration: types, bounds, unknown keys, YAML.

``from_dict(cls, data)`` builds a frozen dataclass from a plain mapping (from YAML),
raising :class:`ConfigError` (field, value, what is allowed) on the first problem.
Bounds come from field metadata set with :func:`num`; numbers must be finite
(YAML's ``.inf`` and ``.nan`` are refused). :func:`load_yaml` refuses a mapping
that repeats a key, where PyYAML would silently keep the last value.

Every field is tagged by what it changes (field metadata ``changes``, one of :data:`CHANGES`, as
PyPhi 2.0 separates formalism, numerics and infrastructure): a section carries a default tag
(:func:`section`) and a field that differs from it carries its own (:func:`num`, :func:`setting`).
:func:`field_tags` reads them; :func:`leaves` and :func:`diff` compare two configurations field by field.
"""
from __future__ import annotations

import dataclasses
import math
import os
import types
import typing
from dataclasses import field
from typing import Any, Literal

import yaml

from cognition.errors import ConfigError, DuplicateKeyError, YamlTooLargeError


MAX_YAML_NODES = 100_000  # nodes of a YAML document once its aliases (*name) are expanded
MAX_YAML_TEXT = 4 * 1024 * 1024  # characters of scalar text in it once its aliases are expanded
MAX_YAML_DEPTH = 100  # levels of nested collections (the composer recurses; the scanner is quadratic in `[` depth)


def _check_expansion(root) -> None:
    """Measure the composed node graph as if every alias were expanded, each shared node once (memoised by
    id), so the walk costs the file's size, not the expansion's; raise YamlTooLargeError past the limits."""
    memo: dict[int, tuple[int, int]] = {}
    open_ids: set[int] = set()
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if isinstance(node, yaml.ScalarNode):
            memo[key] = (1, len(node.value))
            continue
        children = [c for pair in node.value for c in pair] if isinstance(node, yaml.MappingNode) else node.value
        if not done:
            if key in memo:
                continue
            if key in open_ids:
                raise YamlTooLargeError("an alias refers to its own anchor (a structure that contains itself)")
            open_ids.add(key)
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in memo)
            continue
        if key in memo:
            continue
        for c in children:
            if id(c) in open_ids and id(c) not in memo:
                raise YamlTooLargeError("an alias refers to its own anchor (a structure that contains itself)")
        nodes = 1 + sum(memo[id(c)][0] for c in children)
        text = sum(memo[id(c)][1] for c in children)
        if nodes > MAX_YAML_NODES or text > MAX_YAML_TEXT:
            raise YamlTooLargeError(f"its aliases (*name) expand it to more than {MAX_YAML_NODES:,} nodes or "
                                    f"{MAX_YAML_TEXT // (1024 * 1024)} MiB of text")
        memo[key] = (nodes, text)
        open_ids.discard(key)


class _UniqueKeyLoader(yaml.SafeLoader):
    def fetch_flow_collection_start(self, TokenClass):  # `[` or `{`: PyYAML's scanner is quadratic in their depth
        if self.flow_level >= MAX_YAML_DEPTH:
            raise YamlTooLargeError(f"it nests more than {MAX_YAML_DEPTH} levels")
        super().fetch_flow_collection_start(TokenClass)

    def add_indent(self, column):  # block collections, one indentation level each
        if len(self.indents) >= MAX_YAML_DEPTH:
            raise YamlTooLargeError(f"it nests more than {MAX_YAML_DEPTH} levels")
        return super().add_indent(column)

    def construct_document(self, node):
        _check_expansion(node)  # before anything is constructed from it
        return super().construct_document(node)

    def construct_mapping(self, node, deep=False):
        first_line: dict = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *anchor` merges are explicit overrides, not repeats
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if isinstance(key, typing.Hashable) and key in first_line:
                raise DuplicateKeyError(f"key {key!r} appears twice in one mapping (lines {first_line[key]} "
                                        f"and {line}); YAML would keep only the last")
            first_line.setdefault(key, line)
        return super().construct_mapping(node, deep=deep)


def load_yaml(text: str):
    """``yaml.safe_load`` that raises :class:`DuplicateKeyError` for a repeated key and
    :class:`YamlTooLargeError` for a document whose aliases expand past the limits above."""
    return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass


# what a setting changes:
#   science    the model and its analysis: a different value is a different experiment
#   numerics   the same model computed differently: dtype, precision, backend, device, autocast, compilation
#              (the numbers differ in their rounding, or more)
#   execution  how the run is carried out (threads, launch sizes, retries, checkpoints, memory caps): not meant
#              to change a number (launch sizes: bit for bit, tests/architecture/test_batch_invariance.py;
#              thread counts are not checked bit for bit, and full mode already sets Aer's threads from the
#              machine's cores)
#   verdict    only how the finished numbers are judged (pass or fail), applied when the report is written
#   report     only what the report adds after the run, from the run's configuration (an analysis of its own
#              that the run's numbers do not depend on)
CHANGES = ("science", "numerics", "execution", "verdict", "report")
HASHED = ("science", "numerics")  # what a checkpoint's settings guard on --resume (cognition.simulator.runner)


def _tag(changes):
    if changes is not None and changes not in CHANGES:
        raise ValueError(f"changes={changes!r}: expected one of {', '.join(CHANGES)}")
    return {} if changes is None else {"changes": changes}


def num(default, *, ge=None, gt=None, le=None, lt=None, changes=None):
    """A numeric field with bounds, checked by :func:`from_dict`; ``changes`` when it differs from its section's."""
    return field(default=default, metadata={"ge": ge, "gt": gt, "le": le, "lt": lt, **_tag(changes)})


def setting(default, changes: str):
    """A field whose tag differs from its section's default."""
    return field(default=default, metadata=_tag(changes))


def section(cls, changes: str):
    """A nested section and the tag of each of its fields that names none itself."""
    return field(default_factory=cls, metadata=_tag(changes))


def field_tags(cls, inherited: str | None = None, prefix: str = "") -> dict[str, str]:
    """Dotted key of every leaf field of dataclass ``cls`` -> what it changes; TypeError for a field
    without a tag (neither its own nor one of a section above it)."""
    hints, out = typing.get_type_hints(cls), {}
    for f in dataclasses.fields(cls):
        tag, key = f.metadata.get("changes", inherited), f"{prefix}{f.name}"
        if dataclasses.is_dataclass(hints[f.name]):
            out.update(field_tags(hints[f.name], tag, key + "."))
        elif tag is None:
            raise TypeError(f"config field {key} has no 'changes' tag (config_schema.CHANGES)")
        else:
            out[key] = tag
    return out


def leaves(obj, prefix: str = "") -> dict:
    """Dotted key of every leaf field of the dataclass instance ``obj`` -> its value as YAML holds it."""
    out = {}
    for f in dataclasses.fields(obj):
        value, key = getattr(obj, f.name), f"{prefix}{f.name}"
        if dataclasses.is_dataclass(value):
            out.update(leaves(value, key + "."))
        else:
            out[key] = to_plain(value)
    return out


def flatten(tree: dict, prefix: str = "") -> dict:
    """Dotted key -> value of every leaf of a nested mapping, such as a configuration as ``config.yaml`` holds
    it (``{"run": {"seed": 3}}`` -> ``{"run.seed": 3}``); a free mapping (``modules.settings``) is walked into
    (``modules.settings.leaky.leak``) and an empty one is a leaf."""
    out = {}
    for key, value in tree.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(flatten(value, dotted + "."))
        else:
            out[dotted] = value
    return out


def format_value(value) -> str:
    """The text of one setting's value as a person reads it in a name or a label: YAML spellings for
    true/false/null, repr for floats (the shortest text that reads back exactly), a list's items joined by ``+``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "+".join(format_value(v) for v in value)
    return str(value)


ABSENT = "(absent)"


def diff(before: dict, after: dict) -> list[tuple[str, Any, Any]]:
    """(key, value in ``before``, value in ``after``) for every dotted key whose values differ, sorted by key;
    a key only one side has gets :data:`ABSENT` on the other."""
    return [(k, before.get(k, ABSENT), after.get(k, ABSENT)) for k in sorted(set(before) | set(after))
            if before.get(k, ABSENT) != after.get(k, ABSENT)]


def to_plain(obj):
    if isinstance(obj, dict):
        return {k: to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    return obj


def _describe(tp) -> str:
    origin = typing.get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(a) for a in typing.get_args(tp))
    if tp is type(None):
        return "null"
    if origin is tuple:
        return "a list"
    return {dict: "a mapping", int: "an integer", float: "a finite number", bool: "true or false", str: "a string"}.get(tp, str(tp))


def _coerce(value, tp, name: str):
    """Return ``value`` as type ``tp`` or raise ConfigError naming ``name``."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(tp):
            try:
                return _coerce(value, arg, name)
            except ConfigError:
                continue
        raise ConfigError(name, value, _describe(tp))
    if origin is Literal:
        if value is False and "off" in typing.get_args(tp):
            return "off"  # YAML 1.1 reads an unquoted `off` as false
        if value in typing.get_args(tp):
            return value
        raise ConfigError(name, value, _describe(tp))
    if tp is type(None):
        if value is None:
            return None
        raise ConfigError(name, value, "null")
    if origin is tuple:
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ConfigError(name, value, "a list of names")
        return tuple(value)
    if tp in _PLAIN:
        accepts, convert, allowed = _PLAIN[tp]
        if accepts(value):
            return convert(value)
        raise ConfigError(name, value, allowed)
    raise TypeError(f"unsupported config type {tp!r} for {name}")


#: a plain field type -> (accepts(value), the value kept, what is allowed); a bool is not a number here
_PLAIN = {
    # a free mapping, checked later by whoever reads it (e.g. a plug-in's settings)
    dict: (lambda v: isinstance(v, dict) and all(isinstance(k, str) for k in v), dict,
           "a mapping of names to values"),
    bool: (lambda v: isinstance(v, bool), lambda v: v, "true or false"),
    int: (lambda v: isinstance(v, int) and not isinstance(v, bool), lambda v: v, "an integer"),
    float: (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and _finite(v), float,
            "a finite number"),
    str: (lambda v: isinstance(v, str), lambda v: v, "a string"),
}


def _finite(value) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer too large for a float
        return False


def _check_bounds(value, meta: dict, name: str) -> None:
    if value is None:
        return
    for key, op, word in (("ge", float.__ge__, ">="), ("gt", float.__gt__, ">"),
                          ("le", float.__le__, "<="), ("lt", float.__lt__, "<")):
        bound = meta.get(key)
        if bound is not None and not op(float(value), float(bound)):
            raise ConfigError(name, value, f"a value {word} {bound}")


def from_dict(cls, data: Any, prefix: str = ""):
    """Build dataclass ``cls`` from a mapping, rejecting unknown keys and bad values."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(prefix.rstrip(".") or "config", data, "a mapping of keys to values")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        key = unknown[0]
        raise ConfigError(f"{prefix}{key}", data[key], "known keys here: " + ", ".join(fields),
                          unknown_key=True)
    kwargs = {}
    for name, value in data.items():
        tp, full = hints[name], f"{prefix}{name}"
        if dataclasses.is_dataclass(tp):
            kwargs[name] = from_dict(tp, value, full + ".")
        else:
            kwargs[name] = _coerce(value, tp, full)
            _check_bounds(kwargs[name], dict(fields[name].metadata), full)
    return cls(**kwargs)


MAX_INPUT_FILE_BYTES = 1024 * 1024  # a config or sweep YAML file larger than this is refused before parsing


def check_file_size(path, what: str = "input file", limit: int = MAX_INPUT_FILE_BYTES) -> None:
    """Refuse ``path`` before it is read or parsed if it is larger than ``limit`` bytes: a ConfigError (a
    UsageError, exit 2) naming ``what`` (the flag or field), the file, its size and the limit, e.g.
    ``--config = 'big.yaml' is not allowed: expected a file of at most 1,048,576 bytes (1024 KiB); it has
    62,914,560 bytes and is refused unread``. A missing or unreadable file is left to the caller's open()."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return
    if size > limit:
        raise ConfigError(what, str(path), f"a file of at most {limit:,} bytes ({limit // 1024} KiB); it has "
                                           f"{size:,} bytes and is refused unread")
