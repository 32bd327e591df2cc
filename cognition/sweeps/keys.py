"""Which config keys a sweep may vary, and why the others are fixed.

A sweep key is a dotted path to one leaf of :class:`cognition.config.settings.Config`
(``modules.hybrid.gamma``). It is sweepable when it lies in a section that
changes the numbers a run produces: ``run``, ``quantum``, ``modules``,
``workspace`` and ``phi`` (sections whose fields are tagged ``science`` but for
``run.dtype``, ``quantum.backend``, ``quantum.precision``: ``numerics``, and
``quantum.lite_threads``: ``execution``; see :data:`cognition.config.settings.CHANGES_OF`). Two sections are fixed for a whole
sweep, set once under ``base:``:

* ``runtime.*`` changes how a run executes (device, batch per launch, retries,
  checkpoints, allocator), never its numbers: swept, it would only make copies of
  the same point. The sweep's executors own placement (threads, GPUs) themselves.
* ``criteria.*`` only judges a finished run. Every point shares one set of
  criteria so that the aggregate's ``passed`` column compares like with like;
  to ask "which points reach X bits" read the aggregate's Phi columns instead.
"""
from __future__ import annotations

import dataclasses
import typing

from cognition.config.settings import Config
from cognition.errors import SweepError, abbreviate

SWEEPABLE_SECTIONS = ("run", "quantum", "modules", "workspace", "phi")
PLUGIN_SETTINGS = ("modules", "settings")  # a free mapping: its keys are plug-in names, then their fields
FIXED_SECTIONS = {
    "runtime": "runtime.* is set once for every point (under base:): most of it changes how a run executes, "
               "and device, autocast and compile change its rounding, which points compared must share",
    "criteria": "criteria.* only judges a finished run and must be the same for every point "
                "(set it once under base:)",
}


def _children(cls) -> dict[str, type]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def leaf_keys(cls=Config, prefix: str = "") -> list[str]:
    """Every dotted leaf key under ``cls``, in declaration order."""
    out = []
    for name, tp in _children(cls).items():
        if dataclasses.is_dataclass(tp):
            out += leaf_keys(tp, f"{prefix}{name}.")
        else:
            out.append(f"{prefix}{name}")
    return out


def sweepable_keys() -> list[str]:
    return [k for k in leaf_keys() if k.split(".")[0] in SWEEPABLE_SECTIONS]


def check_sweep_key(key, where: str) -> str:
    """Return ``key`` if it names a sweepable leaf, else raise SweepError saying why not.

    ``where`` names the place in the sweep file, e.g. ``"grid"``.
    """
    if not isinstance(key, str) or not key:
        raise SweepError(f"{where} key {abbreviate(key)} is not allowed: expected a dotted config key such as "
                         "modules.hybrid.gamma")
    cls, walked = Config, []
    for part in key.split("."):
        if walked == list(PLUGIN_SETTINGS):
            return _plugin_setting(key, where)
        children = _children(cls) if dataclasses.is_dataclass(cls) else {}
        if not children:
            raise SweepError(f"{where} key {abbreviate(key)} is not a config key: "
                             f"'{'.'.join(walked)}' is a value, not a section")
        if part not in children:
            here = ".".join(walked) or "the top level"
            raise SweepError(f"{where} key {abbreviate(key)} is not a config key (known keys in {here}: "
                             f"{', '.join(children)})")
        walked.append(part)
        cls = children[part]
    if dataclasses.is_dataclass(cls):
        raise SweepError(f"{where} key {abbreviate(key)} is a section, not a value; sweep one of its keys: "
                         + ", ".join(leaf_keys(cls, key + ".")))
    section = walked[0]
    if section in FIXED_SECTIONS:
        raise SweepError(f"{where} key {abbreviate(key)} is not sweepable: {FIXED_SECTIONS[section]}; "
                         f"sweepable sections: {', '.join(s + '.*' for s in SWEEPABLE_SECTIONS)}")
    return key


def _plugin_setting(key: str, where: str) -> str:
    """``modules.settings.NAME.FIELD``: one field of a plug-in module's settings (its name and field are
    checked against the module's ``settings_class`` with each point's configuration)."""
    rest = key.split(".")[len(PLUGIN_SETTINGS):]
    if len(rest) != 2 or not all(part.isidentifier() for part in rest):
        raise SweepError(f"{where} key {abbreviate(key)} is not allowed: a plug-in module's setting is swept as "
                         "modules.settings.NAME.FIELD (NAME the module, FIELD one of its settings_class's fields)")
    return key


def set_dotted(tree: dict, key: str, value) -> None:
    """Set ``tree[a][b][c] = value`` for ``key = "a.b.c"``, creating the sections on the way."""
    *sections, leaf = key.split(".")
    node = tree
    for name in sections:
        node = node.setdefault(name, {})
        if not isinstance(node, dict):
            raise SweepError(f"base: '{name}' must be a mapping to hold {key}")
    node[leaf] = value


def get_dotted(tree: dict, key: str):
    node = tree
    for part in key.split("."):
        node = node[part]
    return node
