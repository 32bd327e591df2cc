"""PNG plots of a run (matplotlib, Agg backend; imported only when a report is written)."""
from __future__ import annotations

from pathlib import Path

import numpy as np


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def phi_over_cycles(records: list[dict], phi_summary: dict, path: Path) -> Path:
    plt = _pyplot()
    measure = phi_summary["measure"]
    cyc = np.array([r["cycle"] for r in records if r.get("phi")])
    val = np.array([r["phi"][measure] for r in records if r.get("phi")])
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=110)
    if len(cyc):
        ax.plot(cyc, val, lw=1.4, color="tab:blue", label=f"{measure} (window {phi_summary['window_cycles']})")
        if phi_summary.get("mean_ci_bits"):
            lo, hi = phi_summary["mean_ci_bits"]
            ax.axhspan(lo, hi, color="tab:blue", alpha=0.15, label="CI of the mean")
            ax.axhline(phi_summary["mean_bits"], color="tab:blue", ls="--", lw=1)
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("cycle")
    ax.set_ylabel("Phi (bits)")
    ax.set_title("Integrated information over cycles")
    if len(cyc):
        ax.legend(loc="best", fontsize=8)
    else:
        ax.text(0.5, 0.5, "no cycle reached the Phi window", ha="center", transform=ax.transAxes)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def salience_over_cycles(records: list[dict], path: Path) -> Path:
    plt = _pyplot()
    names = list(records[0]["salience"]) if records else []
    cyc = [r["cycle"] for r in records]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 5), dpi=110, sharex=True)
    for name in names:
        ax1.plot(cyc, [r["salience"][name] for r in records], lw=1.2, label=name)
        ax2.plot(cyc, [r["winner_share"][name] for r in records], lw=1.2, label=name)
    ax1.set_ylabel("mean salience")
    ax2.set_ylabel("share of agents won")
    ax2.set_xlabel("cycle")
    ax1.legend(fontsize=8)
    ax1.set_title("Workspace competition")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
