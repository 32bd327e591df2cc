"""Random samples of sweep keys (random search, Bergstra & Bengio 2012).

The ``samples:`` section of a sweep file::

    samples:
      count: 6          # points drawn
      seed: 0           # seed of the sampler (not of the runs; those are run.seed)
      keys:
        workspace.temperature: {uniform: [0.1, 1.0]}
        workspace.persistence: {loguniform: [0.05, 0.9]}
        modules.unconscious.shots: {randint: [64, 256]}      # both ends included
        quantum.mode: {choice: [lite, disabled]}

Draws come from ``numpy.random.default_rng(seed)`` in file order (sample by
sample, key by key), so a sweep file always expands to the same points. Floats
are rounded to 6 significant digits: the value in a point's name is then
exactly the value in its config.
"""
from __future__ import annotations

import math

import numpy as np

from cognition.cli import check_int_between
from cognition.errors import ConfigError, SweepError, abbreviate
from cognition.sweeps.keys import check_sweep_key

DISTRIBUTIONS = ("uniform", "loguniform", "randint", "choice")
SIGNIFICANT_DIGITS = 6
MAX_SAMPLE_SEED = 2**64 - 1  # samples.seed: numpy's SeedSequence takes any integer >= 0; bounded to keep it small
INT64 = (-2**63, 2**63 - 2)
MAX_CHOICES = 10_000  # values of one choice: distribution  # randint ends: numpy draws int64 (high + 1 must fit too)


def _round(x: float) -> float:
    return float(f"{x:.{SIGNIFICANT_DIGITS}g}")


def _check_distribution(key: str, spec) -> tuple[str, list]:
    where = f"samples.keys.{key}"
    if not isinstance(spec, dict) or len(spec) != 1:
        raise SweepError(f"{where} = {abbreviate(spec)} is not allowed: expected one of "
                         + ", ".join(f"{{{d}: [...]}}" for d in DISTRIBUTIONS))
    (dist, args), = spec.items()
    if dist not in DISTRIBUTIONS:
        raise SweepError(f"{where}: unknown distribution {abbreviate(dist)}; allowed: {', '.join(DISTRIBUTIONS)}")
    if not isinstance(args, list) or not args:
        raise SweepError(f"{where}.{dist} = {abbreviate(args)} is not allowed: expected a non-empty list")
    if dist == "choice":
        if len(args) > MAX_CHOICES:
            raise SweepError(f"{where}.choice lists {len(args):,} values: more than the limit of {MAX_CHOICES:,}")
        return dist, args
    numeric = all(isinstance(a, (int, float)) and not isinstance(a, bool) for a in args)
    if len(args) != 2 or not numeric or not args[0] < args[1] or not math.isfinite(float(args[1]) - float(args[0])):
        raise SweepError(f"{where}.{dist} = {abbreviate(args)} is not allowed: expected [low, high] finite numbers, low < high")
    if dist == "randint" and not all(isinstance(a, int) and INT64[0] <= a <= INT64[1] for a in args):
        raise SweepError(f"{where}.randint = {abbreviate(args)} is not allowed: expected [low, high] integers from {INT64[0]} to {INT64[1]}")
    if dist == "loguniform" and args[0] <= 0:
        raise SweepError(f"{where}.loguniform = {abbreviate(args)} is not allowed: expected 0 < low < high")
    return dist, args


def parse_samples(section, max_count: int) -> tuple[int, int, dict[str, tuple[str, list]]]:
    """(count, sampler seed, {key: (distribution, args)}) from the ``samples:`` mapping; ``count`` at most
    ``max_count`` (the sweep's limit on points), checked before anything is drawn."""
    if not isinstance(section, dict):
        raise SweepError(f"samples = {abbreviate(section)} is not allowed: expected a mapping with count, seed, keys")
    unknown = sorted(set(section) - {"count", "seed", "keys"})
    if unknown:
        raise SweepError(f"unknown key {abbreviate('samples.' + str(unknown[0]))}; known keys here: count, seed, keys")
    count, seed, keys = section.get("count"), section.get("seed", 0), section.get("keys")
    try:
        check_int_between("samples.count", count, 1, max_count)
        check_int_between("samples.seed", seed, 0, MAX_SAMPLE_SEED)
    except ConfigError as exc:
        raise SweepError(str(exc)) from None
    if not isinstance(keys, dict) or not keys:
        raise SweepError(f"samples.keys = {abbreviate(keys)} is not allowed: expected a non-empty mapping "
                         "of config keys to distributions")
    return count, seed, {check_sweep_key(k, "samples.keys"): _check_distribution(k, v) for k, v in keys.items()}


def draw_samples(count: int, seed: int, dists: dict[str, tuple[str, list]]) -> list[dict]:
    """``count`` parameter dicts ``{key: value}`` drawn from ``dists``."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        sample = {}
        for key, (dist, args) in dists.items():
            if dist == "uniform":
                sample[key] = _round(rng.uniform(args[0], args[1]))
            elif dist == "loguniform":
                sample[key] = _round(math.exp(rng.uniform(math.log(args[0]), math.log(args[1]))))
            elif dist == "randint":
                sample[key] = int(rng.integers(args[0], args[1] + 1))
            else:
                sample[key] = args[int(rng.integers(len(args)))]
        out.append(sample)
    return out
