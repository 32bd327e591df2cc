"""The report's workspace sections: the competition (who wins, for how long, the ignition
curve) and the causal control (Phi of the agents against their yoked twins), text and plots."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from cognition.reporting import fmt
from cognition.reporting.document import Table
from cognition.reporting.plots import DPI, _save, module_order, pyplot

CONTROL_NOTE = ("Each agent runs beside a yoked twin: the same weights and noise streams, but its modules read and "
                "learn from the broadcast of an independent agent (its donor) instead of their own workspace's. "
                "The twin keeps everything but the loop through its own workspace, so Phi(agents) - Phi(twins) "
                "across the broadcast cut ({modules} | {workspace}) is the integration the broadcast adds. The cut "
                "is fixed before the data are seen (no selection); each agent's and each twin's own Phi there, the "
                "agent-minus-twin difference per pair, its mean with a t interval across the pairs (the "
                "replications). H0: the broadcast adds no integration.")


MIB_ROW_NOTE = ("the MIB row (each side at each agent's own minimum over bipartitions) is descriptive, not a "
                "test: each minimum carries its own selection shift; on twins that differ only in their donors "
                "(true difference 0) its interval excluded 0 in 4 of 140 runs, the cut's in 1 of 140 (python -m "
                "cognition.bench workspace; docs/calibration.md)")


def competition_blocks(report: dict, records: list[dict], enabled: list[str]) -> list:
    comp = report.get("competition") or {}
    if not records or "winner_share" not in comp:
        return [comp.get("note", "No cycle completed.")]
    names = module_order(records, enabled)
    bids = {n: [r["competition"]["bid"][n] for r in records if r.get("competition")] for n in names}
    rows = [[n, fmt.number(float(np.mean([r["salience"][n] for r in records]))),
             fmt.number(float(np.mean(bids[n]))), fmt.percent(comp["winner_share"][n]),
             str(comp["dwell"][n]["episodes"]), fmt.number(comp["dwell"][n]["mean_cycles"])] for n in names]
    curve = comp["ignition_curve"]
    items = [f"no module ignited (no access) in {fmt.percent(comp['no_access'])} of agent-cycles",
             f"winner entropy {comp['winner_entropy_bits']:.3f} bits (maximum {comp['max_entropy_bits']:.3f} "
             f"for {len(names)} modules and no access); switching rate {fmt.percent(comp['switching_rate'])} "
             "of agent-cycles",
             f"ignition curve: access jumps at a bid of {fmt.number(curve['threshold_rising'])} going up and "
             f"falls back at {fmt.number(curve['threshold_falling'])} coming down (hysteresis "
             f"{fmt.number(curve['hysteresis_width'])}, in normal scores of surprise)"]
    return [Table(["module", "mean evidence (own units)", "mean bid (surprise)", "share of agent-cycles won",
                   "completed dwell episodes", "mean dwell (cycles)"], rows), items]


def control_blocks(report: dict) -> list:
    controls = report.get("controls") or {}
    yoked = controls.get("yoked")
    lesion = controls.get("lesion")
    head = [f"lesion: {lesion}"] if lesion else []
    if not yoked:
        return head + [controls.get("note", "No causal control in this run.")]
    conf = fmt.percent(controls["confidence"])
    rows = []
    for label, r in (("broadcast cut (the criterion)", yoked), ("each side's MIB (descriptive)", yoked["at_mib"])):
        rows.append([label, fmt.bits(r["intact_bits"]), fmt.bits(r["yoked_bits"]), fmt.bits(r["difference_bits"]),
                     fmt.interval(r["difference_ci_bits"])])
    items = [f"broadcast cut: {' + '.join(yoked['cut'][0])} | {' + '.join(yoked['cut'][1])}",
             MIB_ROW_NOTE,
             f"{yoked['pairs']} agent-twin pairs, {yoked['dof']} degrees of freedom; {conf} intervals"]
    if yoked["twins_identical"]:
        items.append("the twins' units equal the agents' bit for bit: the modules do not read the broadcast here, "
                     "so the control cannot differ (difference exactly 0)")
    return head + [CONTROL_NOTE, Table([f"{controls['measure']} at", "agents", "yoked twins", "difference",
                                        f"CI of the difference ({conf})"], rows), items]


def ignition_plot(report: dict, path: Path) -> Path | None:
    """The ignition curve (access against a swept bid, rising and falling) and the dwell-time histograms."""
    comp = report.get("competition") or {}
    if "ignition_curve" not in comp:
        return None
    plt = pyplot()
    curve = comp["ignition_curve"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8), dpi=DPI)
    ax1.plot(curve["strength"], curve["rising"], lw=1.6, label="bid rising")
    ax1.plot(curve["strength"], curve["falling"], lw=1.6, ls="--", label="bid falling")
    ax1.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax1.set_xlabel("bid of one module (normal score of surprise)")
    ax1.set_ylabel("settled access")
    ax1.set_title("Ignition curve (fast dynamics, no fatigue)")
    ax1.legend(fontsize=8, frameon=False)
    for name, d in comp["dwell"].items():
        if d["episodes"]:
            lengths = [int(k) for k in d["histogram"]]
            ax2.plot(lengths, list(d["histogram"].values()), marker="o", lw=1.2, label=name)
    ax2.set_xlabel("dwell (cycles a module held the workspace)")
    ax2.set_ylabel("completed episodes")
    ax2.set_title("Dwell times")
    ax2.legend(fontsize=8, frameon=False)
    return _save(fig, path)


def control_plot(report: dict, path: Path) -> Path | None:
    """Phi of the agents and their yoked twins, and the difference with its CI, at the cut and at the MIB."""
    yoked = (report.get("controls") or {}).get("yoked")
    if not yoked:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=DPI)
    for i, (label, r) in enumerate((("broadcast cut", yoked), ("MIB", yoked["at_mib"]))):
        x = 3 * i
        ax.bar([x, x + 1], [r["intact_bits"], r["yoked_bits"]], color=["C0", "C1"], width=0.8)
        lo, hi = r["difference_ci_bits"]
        d = r["difference_bits"]
        ax.errorbar([x + 2], [d], yerr=[[d - lo], [hi - d]], fmt="o", color="k", capsize=4)
    ax.axhline(0, color="grey", lw=0.8)
    ax.axvline(2.5, color="grey", lw=0.6, ls=":")
    ax.set_xticks([0, 1, 2, 3, 4, 5], ["agents", "twins", "difference"] * 2, fontsize=8)
    ax.set_xlabel("at the broadcast cut (left, the criterion) and at each side's MIB (right, descriptive)", fontsize=8)
    ax.set_ylabel(f"{report['controls']['measure']} (bits)")
    ax.set_title("Causal control: agents against their yoked twins")
    return _save(fig, path)
