"""Forest plots of an ablation's contrasts: each contrast's mean paired difference with its t interval.

The rows are :func:`cognition.experiment.ablation_stats.contrast_table`'s, drawn in contrast order from
the top; a dashed line marks 0 (no effect). A contrast with one seed shows its difference without an
interval (hollow marker), one without any usable seed says so. Each PNG is written atomically.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from cognition.experiment.ablation_stats import OUTCOMES
from cognition.analysis import fmt
from cognition.reporting.plots import DPI, save_figure, pyplot
from cognition.runtime.checkpoint import atomic_write


def _forest(ax, rows: list[dict], outcome: str) -> None:
    """One panel: a row per contrast, top to bottom in the order given."""
    name, unit, _ = OUTCOMES[outcome]
    y = np.arange(len(rows))[::-1]
    for yi, r in zip(y, rows):
        d, ci = r["difference"], r.get("ci")
        if d is None:
            ax.annotate("no seed with a value on both sides", (0.5, yi), xycoords=("axes fraction", "data"),
                        ha="center", va="center", fontsize=8, bbox={"fc": "white", "ec": "none"})
        elif ci is None:
            ax.plot([d], [yi], "o", mfc="none", color="tab:blue")
        else:
            ax.errorbar([d], [yi], xerr=[[d - ci[0]], [ci[1] - d]], fmt="o", color="tab:blue", capsize=4)
        if r.get("p_value") is not None:
            ax.annotate(f"p = {fmt.p_value(r['p_value'])}, Holm {fmt.p_value(r['p_value_holm'])}, n = {r['n']}",
                        (1.01, yi), xycoords=("axes fraction", "data"), fontsize=7, va="center")
    ax.axvline(0.0, color="black", lw=0.8, ls="--")
    ax.set_yticks(y, [r["name"] for r in rows])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    conf = rows[0].get("confidence", 0.95) if rows else 0.95
    ax.set_xlabel(f"condition - reference, {name}" + (f" ({unit})" if unit else "") +
                  f"; {fmt.percent(conf, 0)} t interval")
    ax.set_title(name)


def _save_atomically(fig, path: Path) -> Path:
    """Draw to a hidden temporary file beside ``path``, then write it in place atomically."""
    tmp = path.with_name(f".tmp-{path.name}")
    try:
        save_figure(fig, tmp)
        atomic_write(path, tmp.read_bytes())
    finally:
        tmp.unlink(missing_ok=True)
    return path


def forest_plot(rows_by_outcome: dict[str, list[dict]], path: Path, title: str) -> Path:
    """One forest panel per outcome (one above the other, contrasts in their order); returns ``path``."""
    plt = pyplot()
    heights = [1.0 + 0.4 * len(rows) for rows in rows_by_outcome.values()]
    fig, axes = plt.subplots(len(heights), 1, figsize=(8.5, 0.6 + sum(heights)), dpi=DPI, squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, (outcome, rows) in zip(axes[:, 0], rows_by_outcome.items()):
        _forest(ax, rows, outcome)
    fig.suptitle(title)
    return _save_atomically(fig, Path(path))
