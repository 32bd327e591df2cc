"""PNG plots of one run (matplotlib with the Agg backend, imported only when a report is drawn).

Each function takes the per-cycle records of ``metrics.jsonl`` (and the report's
numbers), writes one PNG and returns its path, or returns None when the run has
nothing to show for it (e.g. no hybrid module).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from cognition.analysis import fmt
from cognition.analysis.fmt import MIB
from cognition.analysis.wording import per_cycle_mean_name

DPI = 110


def pyplot():
    """matplotlib.pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def interval(ax, x, y, lo, hi, **style):
    """A point at (x, y) with its interval drawn as given, from lo to hi (None: the point alone).

    Not matplotlib's ``errorbar``, which takes distances from the point and refuses (or, with
    ``abs``, mirrors) an interval that does not contain it: a bootstrap percentile interval of a
    short series can lie to one side of its own estimate, and the plot must show that as it is.
    """
    capsize, width = style.pop("capsize", 0), style.pop("elinewidth", 1.0)
    lines = ax.plot([x], [y], linestyle="none", **style)
    if lo is not None and hi is not None and np.isfinite(lo) and np.isfinite(hi):
        color = lines[0].get_color()
        ax.vlines(x, lo, hi, colors=color, linewidth=width, alpha=style.get("alpha"))
        if capsize:
            ax.plot([x, x], [lo, hi], linestyle="none", marker="_", markersize=2 * capsize, color=color,
                    alpha=style.get("alpha"))
    return lines


def save_figure(fig, path: Path) -> Path:
    """Lay out, write at the reports' DPI and close ``fig``; the path written (every report and ablation plot)."""
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    pyplot().close(fig)
    return Path(path)


def phi_over_cycles(records: list[dict], phi_summary: dict, bands: dict | None, path: Path) -> Path:
    """Per-cycle Phi with its bootstrap band, the null model's band and the mean with its CI."""
    plt = pyplot()
    measure = phi_summary["measure"]
    cyc = np.array([r["cycle"] for r in records if r.get("phi")])
    val = np.array([r["phi"][measure] for r in records if r.get("phi")])
    fig, ax = plt.subplots(figsize=(8, 4), dpi=DPI)
    bands = bands if bands and "cycles" in bands else None
    if bands and bands.get("null_bits"):
        nb = bands["null_bits"]
        ax.fill_between(bands["cycles"], nb["low"], nb["high"], color="grey", alpha=0.3, lw=0,
                        label=f"null model, central {bands['confidence']:.0%}")
        ax.plot(bands["cycles"], nb["median"], color="grey", lw=1, ls=":", label="null model, median")
    if bands and bands.get("ci_bits"):
        lo, hi = np.array(bands["ci_bits"]).T
        ax.fill_between(bands["cycles"], lo, hi, color="tab:blue", alpha=0.2, lw=0,
                        label=f"{bands['confidence']:.0%} bootstrap band")
    if len(cyc):
        ax.plot(cyc, val, lw=1.6, color="tab:blue", marker="o", ms=2.5,
                label=f"{measure}, window {phi_summary['window_cycles']} cycles")
    if phi_summary.get("mean_ci_bits"):
        lo, hi = phi_summary["mean_ci_bits"]
        ax.axhline(phi_summary["mean_bits"], color="tab:red", ls="--", lw=1.2,
                   label=f"{per_cycle_mean_name(measure)} (descriptive)\n{fmt.bits(phi_summary['mean_bits'])}, "
                         f"CI {fmt.interval(phi_summary['mean_ci_bits'])}")
        ax.axhspan(lo, hi, color="tab:red", alpha=0.08, lw=0)
    ax.axhline(0.0, color="black", lw=0.6)
    _clip_wide_band(ax, val, bands)
    ax.set_xlabel("cycle")
    ax.set_ylabel(f"{measure} (bits)")
    ax.set_title("Integrated information over cycles")
    if len(cyc):
        ax.set_xlim(1, max(r["cycle"] for r in records))
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    else:
        ax.text(0.5, 0.5, f"no cycle reached the Phi window ({phi_summary['window_cycles']} cycles)",
                ha="center", transform=ax.transAxes)
    return save_figure(fig, path)


def _clip_wide_band(ax, val: np.ndarray, bands: dict | None) -> None:
    """Keep the estimate readable: when the bootstrap band is far wider than the estimate and the
    null band, limit the y axis to them (with margin) and say that the band goes on past it."""
    if not bands or not bands.get("ci_bits") or not len(val):
        return
    core = np.concatenate([val, [0.0]] + ([np.asarray(v) for v in bands["null_bits"].values()]
                                          if bands.get("null_bits") else []))
    lo, hi = float(core.min()), float(core.max())
    span = max(hi - lo, 1e-12)
    band = np.asarray(bands["ci_bits"], dtype=float)
    if band.min() < lo - 2 * span or band.max() > hi + 2 * span:
        ax.set_ylim(lo - 2 * span, hi + 2 * span)
        ax.text(0.99, 0.02, "bootstrap band clipped at the axes", transform=ax.transAxes, ha="right",
                fontsize=7, color="tab:blue")


def module_order(records: list[dict], enabled: list[str]) -> list[str]:
    """The modules in the records, in the config's order (modules.enabled), then any others sorted."""
    present = set(records[0]["salience"]) if records else set()
    return [m for m in enabled if m in present] + sorted(present - set(enabled))


def workspace_over_cycles(records: list[dict], enabled: list[str], path: Path) -> Path | None:
    """Mean evidence (salience) per module (top) and the share of agents each module won (bottom, stacked)."""
    if not records:
        return None
    plt = pyplot()
    names = module_order(records, enabled)
    cyc = [r["cycle"] for r in records]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 5.5), dpi=DPI, sharex=True)
    for name in names:
        ax1.plot(cyc, [r["salience"][name] for r in records], lw=1.3, label=name)
    shares = np.array([[r["winner_share"].get(n, 0.0) for r in records] for n in names])
    ax2.stackplot(cyc, shares, labels=names, alpha=0.85)
    ax1.set_ylabel("mean evidence (own units)")
    ax1.set_title("Workspace competition")
    ax1.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax2.set_ylabel("share of agents won")
    ax2.set_ylim(0, 1)
    ax2.set_xlabel("cycle")
    ax2.set_xlim(cyc[0], cyc[-1])
    return save_figure(fig, path)


def mib_over_cycles(records: list[dict], phi_summary: dict, path: Path) -> Path | None:
    """Which side of the minimum-information bipartition each unit is on, per cycle and for the whole run."""
    names = phi_summary.get("unit_names") or []
    rows = [r for r in records if r.get("phi") and r["phi"].get("mib")]
    if not names or not rows:
        return None
    plt = pyplot()
    from matplotlib.colors import ListedColormap

    cyc = np.arange(rows[0]["cycle"], rows[-1]["cycle"] + 1)
    side = np.full((len(names), len(cyc)), np.nan)  # NaN (blank): a cycle without an estimate
    for r in rows:
        side[:, r["cycle"] - cyc[0]] = 0.0
        side[r["phi"]["mib"][1], r["cycle"] - cyc[0]] = 1.0
    whole = np.zeros((len(names), 1))
    if phi_summary.get("partition"):
        whole[phi_summary["partition"][1], 0] = 1.0
    cmap = ListedColormap(["#9ecae1", "#fd8d3c"])
    fig, (ax, axw) = plt.subplots(1, 2, figsize=(8, 0.35 * len(names) + 1.6), dpi=DPI,
                                  gridspec_kw={"width_ratios": [12, 1]}, sharey=True)
    ax.imshow(side, aspect="auto", cmap=cmap, vmin=0, vmax=1, interpolation="nearest",
              extent=(cyc[0] - 0.5, cyc[-1] + 0.5, len(names) - 0.5, -0.5))
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.set_xlabel("cycle")
    ax.set_title("Minimum-information bipartition per cycle (blue: side of unit 0, orange: other side)", fontsize=9)
    axw.imshow(whole, aspect="auto", cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
    axw.set_xticks([0], ["whole\nrun"], fontsize=8)
    return save_figure(fig, path)


def hybrid_over_cycles(records: list[dict], path: Path) -> Path | None:
    """The hybrid module's interference term (top) and its choice probability and belief (bottom)."""
    key = "hybrid.interference"
    if not records or all(r["extras"].get(key) is None for r in records):
        return None
    plt = pyplot()
    cyc = [r["cycle"] for r in records]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 5), dpi=DPI, sharex=True)
    ax1.plot(cyc, [r["extras"].get(key, np.nan) for r in records], color="tab:purple", lw=1.4)
    ax1.axhline(0.0, color="black", lw=0.6)
    ax1.set_ylabel("interference\n(probability)")
    ax1.set_title("Hybrid cognition: P(act) minus the law of total probability's value (mean over agents)")
    for k, label in (("hybrid.p_act", "P(act)"), ("hybrid.belief", "belief")):
        if any(k in r["extras"] for r in records):
            ax2.plot(cyc, [r["extras"].get(k, np.nan) for r in records], lw=1.3, label=label)
    ax2.set_ylim(0, 1)
    ax2.set_ylabel("probability")
    ax2.set_xlabel("cycle")
    ax2.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return save_figure(fig, path)


def resources_over_cycles(records: list[dict], path: Path) -> Path | None:
    """Memory (MiB; fragmentation on CUDA), seconds per cycle, and agents per launch with OOM retries."""
    if not records:
        return None
    plt = pyplot()
    cyc = np.array([r["cycle"] for r in records])
    tel = [r.get("telemetry") or {} for r in records]
    cuda = any("mem_reserved_bytes" in t for t in tel)
    panels = 4 if cuda else 3
    fig, axes = plt.subplots(panels, 1, figsize=(8, 2.1 * panels + 0.6), dpi=DPI, sharex=True)
    ax = axes[0]
    keys = (("mem_allocated_bytes", "allocated"), ("mem_reserved_bytes", "reserved"),
            ("mem_peak_bytes", "peak in cycle")) if cuda else (("mem_rss_bytes", "resident (RSS)"),
                                                              ("mem_peak_rss_bytes", "peak RSS"))
    for key, label in keys:
        ax.plot(cyc, [t.get(key, np.nan) / MIB for t in tel], lw=1.3, label=label)
    ax.set_ylabel("memory (MiB)")
    ax.set_title("Memory, time and retries per cycle" + (" (CUDA)" if cuda else " (CPU)"))
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    if cuda:
        axes[1].plot(cyc, [100 * t.get("mem_fragmentation", np.nan) for t in tel], color="tab:brown", lw=1.3)
        axes[1].set_ylabel("fragmentation (%)\n1 - allocated/reserved")
    ax_t, ax_b = axes[-2], axes[-1]
    ax_t.plot(cyc, [(r.get("timing") or {}).get("cycle_s", np.nan) for r in records], color="tab:green", lw=1.3)
    ax_t.set_ylabel("time (s)")
    ax_t.set_yscale("log")
    ax_b.step(cyc, [r.get("batch", np.nan) for r in records], where="mid", color="tab:gray", lw=1.4)
    retried = [(r["cycle"], r.get("batch")) for r in records if r.get("retries")]
    if retried:
        ax_b.scatter(*zip(*retried), color="tab:red", zorder=3, label="cycle retried after OOM")
        ax_b.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax_b.set_ylabel("agents per launch")
    ax_b.set_ylim(bottom=0)
    ax_b.set_xlabel("cycle")
    return save_figure(fig, path)
