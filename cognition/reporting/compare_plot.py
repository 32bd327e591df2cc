"""The comparison plot: each run's headline Phi with its CI, the numbers tested, per-cycle Phi (descriptive),
cost per cycle.

The tests compare headlines (:mod:`cognition.reporting.compare`): with groups, the top-right panel shows
each run's headline and each group's mean headline; with one run per condition, the runs' headlines
(bottom left) are the numbers tested. Per-cycle Phi (each window pooled over agents) is descriptive."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from cognition.analysis import fmt
from cognition.reporting.plots import DPI, interval, pyplot


def comparison_plot(comparison: dict, path: Path) -> Path:
    """Four panels from :func:`cognition.reporting.compare.compare_groups`'s result; returns ``path``."""
    plt = pyplot()
    runs, m = comparison["runs"], comparison["measure"]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5), dpi=DPI)
    (ax_t, ax_d), (ax_w, ax_s) = axes
    pos = np.arange(1, len(runs) + 1)
    labels = [r["label"] for r in runs]
    groups = [g["label"] for g in comparison.get("groups", [])] or labels
    color_of = {g: colors[i % len(colors)] for i, g in enumerate(groups)}

    legend: set[str] = set()
    for r in runs:
        group = r.get("group", r["label"])
        ax_t.plot(r["phi_cycles"], r["phi_bits"], lw=1.3, color=color_of.get(group, "grey"),
                  label=None if group in legend else group)
        legend.add(group)
    ax_t.axhline(0, color="black", lw=0.6)
    ax_t.set(xlabel="cycle", ylabel=f"{m} (bits)", title="Per-cycle Phi (descriptive, windows pooled over agents)")
    ax_t.legend(fontsize=8)

    if comparison.get("grouped"):
        _per_run_values(ax_d, comparison, color_of)
    else:
        _distributions(ax_d, runs, pos, labels, colors)
    ax_d.set(ylabel=f"{m} (bits)")

    headline = [r["headline_bits"] if r["headline_bits"] is not None else np.nan for r in runs]
    pooled = [bool(r.get("headline_pooled")) for r in runs]  # too few agents: a pooled, descriptive estimate
    for p_, r, h, pool in zip(pos, runs, headline, pooled):
        lo, hi = r["headline_ci_bits"] or (None, None)
        interval(ax_w, p_, h, lo, hi, marker="o", color="black", capsize=5, mfc="white" if pool else "black")
    for p_, r, h, pool in zip(pos, runs, headline, pooled) if len(runs) <= 4 else ():  # more would overlap
        ax_w.annotate(f"p = {fmt.p_value(r['headline_p_value'])}" + ("\n(circular shift)" if pool else ""), (p_, h),
                      xytext=(8, 0), textcoords="offset points", fontsize=8, va="center")
    ax_w.axhline(0, color="black", lw=0.6)
    ax_w.set_xticks(pos, labels, rotation=30 if len(runs) > 4 else 0, ha="right" if len(runs) > 4 else "center")
    ax_w.set_xlim(0.5, len(runs) + 0.5)
    ax_w.set(ylabel=f"{m} (bits)", title="Headline Phi (mean per-agent) with its CI (p: integration test)"
             + ("\nhollow: pooled over agents, descriptive (too few agents)" if any(pooled) else ""))
    _annotate_tests(ax_d if comparison.get("grouped") else ax_w, comparison)  # under the numbers tested

    secs = [np.asarray(r["seconds_per_cycle"], dtype=float) for r in runs]
    ax_s.boxplot([s[np.isfinite(s)] for s in secs], positions=pos, widths=0.4)
    for p_, r in zip(pos, runs) if len(runs) <= 4 else ():
        ax_s.annotate(f"median\n{fmt.seconds(r['median_seconds_per_cycle'])}",
                      (p_ + 0.22, r["median_seconds_per_cycle"] or 1), ha="left", va="center", fontsize=8)
    ax_s.set_yscale("log")
    ax_s.set_xticks(pos, labels, rotation=30 if len(runs) > 4 else 0, ha="right" if len(runs) > 4 else "center")
    ax_s.set(ylabel="seconds per cycle (s)", title="Cost per cycle")
    fig.suptitle(f"Run comparison ({m}, bits)")
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return Path(path)


def _distributions(ax, runs: list[dict], pos, labels: list[str], colors: list[str]) -> None:
    """One run per condition: each run's per-cycle Phi as a violin and box, with its mean (descriptive)."""
    data = [r["phi_bits"] if r["phi_bits"] else [np.nan] for r in runs]
    drawable = [i for i, d in enumerate(data) if len(d) > 1]
    if drawable:
        parts = ax.violinplot([data[i] for i in drawable], positions=pos[drawable], showextrema=False)
        for body, i in zip(parts["bodies"], drawable):
            body.set_facecolor(colors[i % len(colors)])
            body.set_alpha(0.35)
    ax.boxplot(data, positions=pos, widths=0.15, showfliers=False)
    with_phi = [i for i, r in enumerate(runs) if r["mean_bits"] is not None]  # a --quick run has no mean
    ax.scatter(pos[with_phi], [runs[i]["mean_bits"] for i in with_phi], color="black", marker="D", s=18,
               zorder=3, label="mean per-cycle Phi (report.json phi.mean_bits)")
    ax.set_xticks(pos, labels)
    ax.set(title="Distribution of per-cycle Phi (descriptive)")
    ax.legend(fontsize=8, loc="upper right")


def _per_run_values(ax, comparison: dict, color_of: dict) -> None:
    """Groups of runs: each run's headline Phi (the across-run test's numbers) and the group's mean headline."""
    groups = comparison["groups"]
    means = [i for i, g in enumerate(groups, 1) if g["mean_headline_bits"] is not None]
    for i, g in enumerate(groups, 1):
        values = [v for v in g["headline_bits"] if v is not None]
        jitter = np.linspace(-0.12, 0.12, len(values)) if len(values) > 1 else np.zeros(len(values))
        ax.scatter(i + jitter, values, color=color_of[g["label"]], s=22, alpha=0.8)
        if i in means:
            ax.hlines(g["mean_headline_bits"], i - 0.25, i + 0.25, color="black", lw=1.5,
                      label="group mean headline" if i == means[0] else None)
    ax.set_xticks(np.arange(1, len(groups) + 1), [f"{g['label']}\n({len(g['runs'])} runs)" for g in groups])
    ax.set_xlim(0.5, len(groups) + 0.5)
    ax.set(title="Headline Phi of each run (one point per seed)")
    if means:  # no group with a headline (runs too short): nothing to name, and matplotlib warns of an empty legend
        ax.legend(fontsize=8, loc="best")


def _annotate_tests(ax, comparison: dict) -> None:
    """One line per pair under the panel of the numbers tested: difference, p-value (Holm-adjusted when given)."""
    lines = []
    for t in comparison["tests"]:
        if "p_value" in t:
            holm = f", Holm {fmt.p_value(t['p_value_holm'])}" if "p_value_holm" in t else ""
            lines.append(f"{t['a']} - {t['b']}: {t['difference']:+.4f} bits, p = {fmt.p_value(t['p_value'])}{holm}")
        else:
            lines.append(f"{t['a']} - {t['b']}: no test")
    ax.set_xlabel("\n".join(lines), fontsize=7)
