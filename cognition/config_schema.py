"""Typed-dataclass validation used by the configuration: types, bounds, unknown keys, YAML.

``from_dict(cls, data)`` builds a frozen dataclass from a plain mapping (from YAML),
raising :class:`ConfigError` (field, value, what is allowed) on the first problem.
Bounds come from field metadata set with :func:`num`; numbers must be finite
(YAML's ``.inf`` and ``.nan`` are refused). :func:`load_yaml` refuses a mapping
that repeats a key, where PyYAML would silently keep the last value.
"""
from __future__ import annotations

import dataclasses
import math
import types
import typing
from dataclasses import field
from typing import Any, Literal

import yaml

from cognition.errors import ConfigError


class DuplicateKeyError(ValueError):
    """A YAML mapping names a key twice; the message says which key and on which lines."""


class _UniqueKeyLoader(yaml.SafeLoader):
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
    """``yaml.safe_load`` that raises :class:`DuplicateKeyError` for a repeated key."""
    return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass


def num(default, *, ge=None, gt=None, le=None, lt=None):
    """A numeric field with bounds, checked by :func:`from_dict`."""
    return field(default=default, metadata={"ge": ge, "gt": gt, "le": le, "lt": lt})


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
    if tp is dict:  # a free mapping, checked later by whoever reads it (e.g. a plug-in's settings)
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return dict(value)
        raise ConfigError(name, value, "a mapping of names to values")
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(name, value, "true or false")
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ConfigError(name, value, "an integer")
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and _finite(value):
            return float(value)
        raise ConfigError(name, value, "a finite number")
    if tp is str:
        if isinstance(value, str):
            return value
        raise ConfigError(name, value, "a string")
    raise TypeError(f"unsupported config type {tp!r} for {name}")


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


