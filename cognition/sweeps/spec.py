"""Sweep files: parse, expand to points, validate every point before anything runs.

A sweep file (YAML)::

    name: coupling-vs-mode         # optional; default: the file's stem
    preset: classical              # optional: a preset from configs/
    config: ../my_base.yaml        # optional: a config file, relative to the sweep file
    base:                          # optional: config overrides shared by every point
      run: {cycles: 200, agents: 8}
    grid:                          # dotted config key -> list of values (the Cartesian product)
      quantum.mode: [lite, disabled]
      modules.hybrid.gamma: [0.0, 2.09]
    samples: {...}                 # optional random samples, see cognition.sweeps.sampling
    seeds: [0, 1, 2]               # or an integer N for seeds 0..N-1; each point runs every seed

Points are grid combination x sample x seed, in that nesting (seeds innermost).
Their number is computed from the counts first and refused above
:data:`MAX_SWEEP_POINTS` (one line naming the counts), before any point is built;
the file itself is refused unread above 1 MiB (cognition.config.schema.check_file_size).
Each point's configuration is defaults < preset < config < base < its parameters,
validated by :func:`cognition.config.settings.load_config`; one bad point stops the whole
sweep with one line naming the file, the point and the field.
"""
from __future__ import annotations

import copy
import itertools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from cognition.modules import plugin_paths
from cognition.cli import check_int_between
from cognition.config.settings import Config, available_presets, load_config, read_yaml
from cognition.errors import ConfigError, QUOTE_LIMIT, SweepError, abbreviate, path_kind
from cognition.sweeps.keys import check_sweep_key, set_dotted
from cognition.config.schema import format_value
from cognition.sweeps.naming import point_name
from cognition.sweeps.sampling import draw_samples, parse_samples

MAX_SWEEP_POINTS = 10_000  # points of one sweep file (grid combinations x samples x seeds), checked before any is built
MAX_SEED = 2**63 - 1  # a seed listed under seeds:
TOP_LEVEL_KEYS = ("name", "description", "preset", "config", "base", "grid", "samples", "seeds")
_SWEEP_NAME = re.compile(r"^[A-Za-z0-9._-]+$")


@dataclass(frozen=True)
class Point:
    """One sweep point: ``params`` maps each swept key (in column order) to its value."""

    index: int  # 1-based position in the sweep order
    name: str  # run directory name, see cognition.sweeps.naming
    params: dict
    config: Config


@dataclass(frozen=True)
class SweepSpec:
    name: str
    path: Path
    keys: tuple[str, ...]  # swept keys: grid keys, sample keys, then run.seed when seeds are swept
    points: tuple[Point, ...]


def _scalar_ok(value) -> bool:
    if isinstance(value, list):
        return all(isinstance(v, str) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


def _grid(section) -> dict[str, list]:
    if not isinstance(section, dict):
        raise SweepError(f"grid = {abbreviate(section)} is not allowed: expected a mapping of config keys to lists "
                         "of values")
    if not section:
        raise SweepError("grid is empty: give at least one config key with a list of values, "
                         "e.g. quantum.mode: [lite, disabled]")
    grid = {}
    for key, values in section.items():
        check_sweep_key(key, "grid")
        if not isinstance(values, list) or not values:
            raise SweepError(f"grid.{key} = {abbreviate(values)} is not allowed: expected a non-empty list of values")
        if len(values) > MAX_SWEEP_POINTS:
            raise SweepError(f"grid.{key} lists {len(values):,} values: more than the limit of "
                             f"{MAX_SWEEP_POINTS:,} points per sweep file")
        for v in values:
            if not _scalar_ok(v):
                raise SweepError(f"grid.{key} value {abbreviate(v)} is not allowed: expected a number, string, "
                                 "true/false, null or a list of names")
        seen: set[str] = set()
        for text in (format_value(v) for v in values):
            if text in seen:
                shown = text if len(text) <= QUOTE_LIMIT else abbreviate(text)
                raise SweepError(f"grid.{key} lists {shown} twice; each value once")
            seen.add(text)
        grid[key] = values
    return grid


def _seeds(value) -> list[int]:
    """The seeds: ``range(N)`` for an integer N, else the list; N or the list's length at most
    MAX_SWEEP_POINTS, checked before a seed is listed."""
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            check_int_between("seeds", value, 1, MAX_SWEEP_POINTS)
        except ConfigError as exc:
            raise SweepError(f"{exc} (N seeds 0..N-1; at most {MAX_SWEEP_POINTS:,} points per sweep file), "
                             "or a list of seeds") from None
        return list(range(value))
    if isinstance(value, list) and len(value) > MAX_SWEEP_POINTS:
        raise SweepError(f"seeds lists {len(value):,} seeds: more than the limit of {MAX_SWEEP_POINTS:,} "
                         "points per sweep file")
    ok = isinstance(value, list) and value and all(
        isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= MAX_SEED for s in value)
    if not ok or len(set(value)) != len(value):
        raise SweepError(f"seeds = {abbreviate(value)} is not allowed: expected a non-empty list of distinct "
                         f"integers from 0 to {MAX_SEED}, or an integer N for seeds 0..N-1")
    return list(value)


def _sources(data: dict, folder: Path) -> tuple[str | None, Path | None, dict]:
    preset, config, base = data.get("preset"), data.get("config"), data.get("base", {}) or {}
    if preset is not None and preset not in available_presets():
        raise SweepError(f"preset = {abbreviate(preset)} is not allowed: expected one of {', '.join(available_presets())}")
    path = None
    if config is not None:
        path = folder / str(config)
        if not path.is_file():
            raise SweepError(f"config = {abbreviate(config)} is not allowed: expected an existing YAML file "
                             f"(relative to the sweep file: {abbreviate(str(path))} {path_kind(path)})")
    if not isinstance(base, dict):
        raise SweepError(f"base = {abbreviate(base)} is not allowed: expected a mapping of config overrides")
    return preset, path, plugin_paths.resolve_layer(base, folder)  # base's plug-in files: relative to the sweep file


def _combinations(data: dict) -> tuple[list[str], list[dict]]:
    """The swept keys and every point's parameters, before validation."""
    has = {k: k in data for k in ("grid", "samples", "seeds")}
    if not any(has.values()):
        raise SweepError("nothing to sweep: give grid:, samples: or seeds:")
    grid = _grid(data["grid"]) if has["grid"] else {}
    count, seed, dists = parse_samples(data["samples"], MAX_SWEEP_POINTS) if has["samples"] else (1, 0, {})
    seeds = _seeds(data["seeds"]) if has["seeds"] else [None]
    combos = math.prod(len(values) for values in grid.values())
    total = combos * count * len(seeds)  # arithmetic: no point is built before the sweep's size is known
    if total > MAX_SWEEP_POINTS:
        raise SweepError(f"the sweep has {total:,} points (grid {combos:,} x samples {count:,} x seeds "
                         f"{len(seeds):,}): more than the limit of {MAX_SWEEP_POINTS:,} points per sweep file; "
                         "split it into several sweep files")
    both = sorted(set(grid) & set(dists))
    if both:
        raise SweepError(f"key {abbreviate(both[0])} is both in grid: and samples:; give it in one of them")
    if has["seeds"] and "run.seed" in set(grid) | set(dists):
        raise SweepError("run.seed is swept by seeds: and also listed in grid:/samples:; give it once")
    samples = draw_samples(count, seed, dists) if dists else [{}]
    keys = list(grid) + list(dists) + (["run.seed"] if has["seeds"] else [])
    params = []
    for combo in itertools.product(*grid.values()):
        for sample in samples:
            for s in seeds:
                p = dict(zip(grid, combo), **sample)
                if s is not None:
                    p["run.seed"] = s
                params.append({k: p[k] for k in keys})
    return keys, params


def _points(params_list: list[dict], preset, config_path, base: dict) -> list[Point]:
    points, names, configs = [], {}, {}
    for index, params in enumerate(params_list, start=1):
        name = point_name(params)
        if name in names:
            raise SweepError(f"points {names[name]} and {index} have the same name {name}; list each value once")
        tree = copy.deepcopy(base)
        for key, value in params.items():
            set_dotted(tree, key, copy.deepcopy(value))
        try:
            cfg = load_config(preset=preset, path=config_path, overrides=tree)
        except ConfigError as exc:
            raise SweepError(f"point {name}: {exc}") from None
        resolved = json.dumps(cfg.to_dict(), sort_keys=True)
        if resolved in configs:
            raise SweepError(f"points {configs[resolved]} and {name} resolve to the same configuration")
        names[name], configs[resolved] = index, name
        points.append(Point(index, name, params, cfg))
    return points


def load_sweep(path: str | Path) -> SweepSpec:
    """Parse and validate a sweep file; raise SweepError (one line, naming the file) on any problem."""
    path = Path(path)
    try:
        data = read_yaml(path, "sweep file")
        unknown = [k for k in data if k not in TOP_LEVEL_KEYS]
        if unknown:
            raise SweepError(f"unknown key {abbreviate(unknown[0])}; known keys here: {', '.join(TOP_LEVEL_KEYS)}")
        name = data.get("name", path.stem)
        if not isinstance(name, str) or not _SWEEP_NAME.match(name):
            given = "" if "name" in data else " (taken from the file name; set name: to choose another)"
            raise SweepError(f"name = {abbreviate(name)}{given} is not allowed: expected letters, digits, '.', '_' or '-'")
        preset, config_path, base = _sources(data, path.parent)
        keys, params = _combinations(data)
        points = _points(params, preset, config_path, base)
    except ConfigError as exc:  # the file itself: missing, not YAML, not a mapping
        raise SweepError(str(exc)) from None
    except SweepError as exc:
        raise SweepError(f"{path}: {exc}") from None
    return SweepSpec(name=name, path=path, keys=tuple(keys), points=tuple(points))
