"""Plots of a sweep: each run's headline Phi against each swept key, with confidence intervals.

One PNG per swept key (``phi_vs_<key>.png``; ``run.seed`` only when it is the
only swept key). At each value of the key:

* small markers: every point with that value, its ``phi_whole_run_bits`` (the run's headline,
  the mean per-agent Phi) and the run's own interval across agents (spread sideways so they do
  not overlap);
* a large marker: the mean over those points with a Student-t interval,
  :func:`cognition.analysis.statistics.t_interval`, i.e. the spread across seeds and the other keys.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

from cognition.analysis.statistics import t_interval
from cognition.config.schema import format_value

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def plot_keys(keys) -> list[str]:
    keys = list(keys)
    others = [k for k in keys if k != "run.seed"]
    return others or keys


def phi_against_key(rows: list[dict], key: str, path: Path, confidence: float = 0.95) -> Path:
    """Plot the headline Phi (bits) of the completed ``rows`` against ``key``; returns ``path``."""
    from cognition.reporting.plots import interval, pyplot

    plt = pyplot()
    done = [r for r in rows if r.get("phi_whole_run_bits") is not None and math.isfinite(r["phi_whole_run_bits"])]
    values = []
    for r in done:
        if format_value(r[key]) not in [format_value(v) for v in values]:
            values.append(r[key])
    numeric = all(_is_number(v) for v in values)
    if numeric:
        values.sort()
    xs = {format_value(v): (float(v) if numeric else i) for i, v in enumerate(values)}
    span = (max(xs.values()) - min(xs.values())) if len(xs) > 1 else 1.0
    width = 0.25 * (span / max(1, len(xs) - 1) if numeric else 1.0)
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=110)
    means = []
    for v in values:
        group = [r for r in done if format_value(r[key]) == format_value(v)]
        x0 = xs[format_value(v)]
        for j, r in enumerate(group):
            dx = width * ((j + 0.5) / len(group) - 0.5)
            interval(ax, x0 + dx, r["phi_whole_run_bits"], r.get("phi_whole_run_ci_low_bits"),
                     r.get("phi_whole_run_ci_high_bits"), marker="o", ms=3, color="tab:blue", alpha=0.6,
                     elinewidth=0.8, label="point (its interval across agents)" if not means and j == 0 else None)
        mean, lo, hi = t_interval([r["phi_whole_run_bits"] for r in group], confidence)
        interval(ax, x0, mean, lo, hi, marker="s", ms=7, color="black", capsize=4,
                 label=f"mean over points ({confidence:.0%} t-interval)" if not means else None)
        means.append((x0, mean))
    if means and numeric:  # a line between categories (modes, measures) would suggest an order
        ax.plot([m[0] for m in means], [m[1] for m in means], color="black", lw=1, alpha=0.6)
    if means:
        ax.legend(fontsize=8, loc="best")
    else:
        ax.text(0.5, 0.5, "no completed point with Phi", ha="center", transform=ax.transAxes)
    if not numeric:
        ax.set_xticks(list(xs.values()), list(xs))
    ax.set_xlabel(key)
    ax.set_ylabel("Phi, mean per-agent (bits)")
    ax.set_title(f"Phi against {key}")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_path(root: Path, key: str) -> Path:
    return Path(root) / f"phi_vs_{_UNSAFE.sub('-', key)}.png"


def plot_sweep(rows: list[dict], keys, root: Path, confidence: float = 0.95) -> list[Path]:
    """``phi_vs_<key>.png`` under ``root`` for each key of :func:`plot_keys`."""
    return [phi_against_key(rows, k, plot_path(root, k), confidence) for k in plot_keys(keys)]
