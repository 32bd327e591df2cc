"""The comparison plot: Phi over cycles, its distribution per run, the whole-run estimate, cost per cycle."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from cognition.reporting import fmt
from cognition.reporting.plots import DPI, pyplot


def comparison_plot(comparison: dict, path: Path) -> Path:
    """Four panels from :func:`cognition.reporting.compare.compare_runs`'s result; returns ``path``."""
    plt = pyplot()
    runs, m = comparison["runs"], comparison["measure"]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5), dpi=DPI)
    (ax_t, ax_d), (ax_w, ax_s) = axes
    pos = np.arange(1, len(runs) + 1)
    labels = [r["label"] for r in runs]

    for i, r in enumerate(runs):
        ax_t.plot(r["phi_cycles"], r["phi_bits"], lw=1.3, color=colors[i % len(colors)], label=r["label"])
    ax_t.axhline(0, color="black", lw=0.6)
    ax_t.set(xlabel="cycle", ylabel=f"{m} (bits)", title="Per-cycle Phi")
    ax_t.legend(fontsize=8)

    data = [r["phi_bits"] if r["phi_bits"] else [np.nan] for r in runs]
    drawable = [i for i, d in enumerate(data) if len(d) > 1]
    if drawable:
        parts = ax_d.violinplot([data[i] for i in drawable], positions=pos[drawable], showextrema=False)
        for body, i in zip(parts["bodies"], drawable):
            body.set_facecolor(colors[i % len(colors)])
            body.set_alpha(0.35)
    ax_d.boxplot(data, positions=pos, widths=0.15, showfliers=False)
    ax_d.scatter(pos, [np.nanmean(d) for d in data], color="black", marker="D", s=18, zorder=3, label="mean")
    ax_d.set_xticks(pos, labels)
    ax_d.set(ylabel=f"{m} (bits)", title="Distribution of per-cycle Phi")
    ax_d.legend(fontsize=8, loc="upper right")
    _annotate_tests(ax_d, comparison, labels)

    whole = [r["whole_run_bits"] if r["whole_run_bits"] is not None else np.nan for r in runs]
    ci = [r["whole_run_ci_bits"] or [w, w] for r, w in zip(runs, whole)]
    err = np.abs(np.array([[w - c[0], c[1] - w] for w, c in zip(whole, ci)]).T)
    ax_w.errorbar(pos, whole, yerr=err, fmt="o", color="black", capsize=5)
    for p_, r, w in zip(pos, runs, whole):
        ax_w.annotate(f"p = {fmt.p_value(r['whole_run_p_value'])}", (p_, w), xytext=(8, 0),
                      textcoords="offset points", fontsize=8, va="center")
    ax_w.axhline(0, color="black", lw=0.6)
    ax_w.set_xticks(pos, labels)
    ax_w.set_xlim(0.5, len(runs) + 0.5)
    ax_w.set(ylabel=f"{m} (bits)", title="Whole-run Phi with bootstrap CI (p: surrogate null model)")

    secs = [np.asarray(r["seconds_per_cycle"], dtype=float) for r in runs]
    ax_s.boxplot([s[np.isfinite(s)] for s in secs], positions=pos, widths=0.4)
    for p_, r in zip(pos, runs):
        ax_s.annotate(f"median\n{fmt.seconds(r['median_seconds_per_cycle'])}",
                      (p_ + 0.22, r["median_seconds_per_cycle"] or 1), ha="left", va="center", fontsize=8)
    ax_s.set_yscale("log")
    ax_s.set_xticks(pos, labels)
    ax_s.set(ylabel="seconds per cycle (s)", title="Cost per cycle")
    fig.suptitle(f"Run comparison ({m}, bits)")
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return Path(path)


def _annotate_tests(ax, comparison: dict, labels: list[str]) -> None:
    """One line per pair under the distribution panel: difference, p-value (Holm-adjusted when given)."""
    lines = []
    for t in comparison["tests"]:
        if "p_value" in t:
            holm = f", Holm {fmt.p_value(t['p_value_holm'])}" if "p_value_holm" in t else ""
            lines.append(f"{t['a']} - {t['b']}: {t['difference']:+.4f} bits, p = {fmt.p_value(t['p_value'])}{holm}")
        else:
            lines.append(f"{t['a']} - {t['b']}: no test")
    ax.set_xlabel("\n".join(lines), fontsize=7)
