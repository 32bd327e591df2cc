"""The report's workspace sections: the competition (who wins, for how long, the ignition curve)
and the causal control (the loop test: each direction's directed information in the agents against the
twins that cut it; Phi at the broadcast cut beside it, descriptive), text and plots."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from cognition.analysis.summary import DIRECTIONS
from cognition.phi.directed import DIRECTION_LABELS
from cognition.analysis import fmt
from cognition.reporting.document import Table
from cognition.reporting.plots import DPI, save_figure, module_order, pyplot

CONTROL_NOTE = ("Each agent runs beside two twins with its weights and noise streams, each with one direction of the "
                "loop through its own workspace cut and driven instead by an independent agent (its donor): the "
                "yoked twin's modules read and learn from the donor's broadcast (workspace -> modules cut); the "
                "proposal-yoked twin's workspace competes over the donor's proposals (modules -> workspace cut), "
                "its modules still reading its own broadcast. Each direction is measured per agent by its directed "
                "information, in the order of the cycle (modules m read the last broadcast; the broadcast b is "
                "built from the same cycle's proposals): workspace -> modules I(b_{t-1}; m_t | m_{t-1}), modules -> "
                "workspace I(m_t; b_t | b_{t-1}). The agent-minus-twin difference per pair, its mean with a t "
                "interval across the pairs (the replications). The loop is closed only when both intervals are "
                "above 0 (an intersection-union test): a workspace that only drives its modules, or only reads "
                "them, is a relay (cognition.phi.loop_test; its power and false positives: docs/calibration.md).")

PHI_NOTE = ("Phi at the broadcast cut ({modules} | {workspace}) of agents and twins, and at each side's own MIB: "
            "descriptive, not a test of either direction. A loop closed within one cycle (b_{{t-1}} -> m_t -> b_t) "
            "is, to a whole-minus-sum Phi at this cut, the workspace predicting itself, which Phi subtracts; the "
            "MIB rows carry each minimum's selection shift (docs/architecture.md, \"Criteria\").")


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
    directions = controls.get("directions")
    lesion = controls.get("lesion")
    head = [f"lesion: {lesion}"] if lesion else []
    if not directions:
        return head + [controls.get("note", "No causal control in this run.")]
    conf = fmt.percent(controls["confidence"])
    rows = [[DIRECTION_LABELS[d], directions[d]["twin"].replace("_", "-"), fmt.bits(directions[d]["intact_bits"]),
             fmt.bits(directions[d]["twin_bits"]), fmt.bits(directions[d]["difference_bits"]),
             fmt.interval(directions[d]["difference_ci_bits"]), fmt.p_value(directions[d]["p_value"])]
            for d in DIRECTIONS]  # a fixed order: report.json's keys come back sorted when a report is rebuilt
    loop = controls["loop"]
    first = directions[next(iter(DIRECTIONS))]
    items = [f"the loop {'closes' if loop['passed'] else 'is not shown closed'}: {loop['reason']}",
             f"{first['pairs']} agent-twin pairs per direction, {first['dof']} degrees of freedom; {conf} intervals; "
             "p one-sided"]
    if controls.get("calibration"):
        items.append(loop_calibration_text(controls["calibration"]))
    if controls.get("no_access_share") is not None:
        items.append(f"no module ignited in {fmt.percent(controls['no_access_share'])} of agent-cycles: in those "
                     "cycles the broadcast is its own persistence and does not depend on the proposals, so the "
                     "modules -> workspace information is carried by the other cycles only")
    for d in DIRECTIONS:
        r = directions[d]
        if r["twins_identical"]:
            items.append(f"the {r['twin'].replace('_', '-')} twins' units equal the agents' bit for bit: "
                         f"{DIRECTION_LABELS[d]} is cut in the agents too here (a lesion), so the control cannot "
                         "differ (difference exactly 0): a check of the construction, not a null of the test")
    blocks = head + [CONTROL_NOTE, Table(["direction", "twin", "agents", "twins", "difference",
                                          f"CI of the difference ({conf})", "p"], rows), items]
    return blocks + _phi_blocks(controls) + _window_blocks(controls["windows"], conf)


def loop_calibration_text(calib: dict) -> str:
    """One line quoting the loop test's measured power and false positives at the run length nearest the run's."""
    def span(pair):
        lo, hi = pair
        return fmt.percent(lo) if lo == hi else f"{fmt.percent(lo)}-{fmt.percent(hi)}"

    size = "this run's size" if calib["exact_size"] else "the nearest size measured"
    return (f"calibration of the loop test ({calib['command']}; {size}, {calib['size'][0]} agents x "
            f"{calib['size'][1]} cycles, {calib['draws']} draws per toy): closed loops with the cycle's timing pass in "
            f"{span(calib['closed_loop_passes'])}; with one direction absent (relay, feedforward; twins that differ "
            f"from their agents) its interval lies above 0 in {span(calib['absent_direction_above_zero'])} and the "
            f"loop passes in {span(calib['absent_direction_loop_passes'])}; twins against twins lie above 0 in "
            f"{span(calib['twin_vs_twin_above_zero'])} per direction")


def _phi_blocks(controls: dict) -> list:
    described = controls.get("phi_at_broadcast_cut") or {}
    cut = controls["cut"]
    note = PHI_NOTE.format(modules=" + ".join(cut[0]), workspace=" + ".join(cut[1]))
    if "note" in described:
        return [note, f"not estimated: {described['note']}"]
    rows = []
    for d in DIRECTIONS:
        r = described[d]
        for label, x in (("broadcast cut", r), ("each side's MIB", r["at_mib"])):
            rows.append([DIRECTION_LABELS[d], r["twin"].replace("_", "-"), label, fmt.bits(x["intact_bits"]),
                         fmt.bits(x["twin_bits"]), fmt.bits(x["difference_bits"]), fmt.interval(x["difference_ci_bits"])])
    return [note, Table(["direction", "twin", f"{controls['phi_measure']} at", "agents", "twins", "difference",
                         "CI of the difference"], rows)]


def _window_blocks(windows: dict, conf: str) -> list:
    rows = []
    for w in windows["rows"]:
        span = f"{w['cycles'][0]}-{w['cycles'][1]}"
        if "note" in w:
            rows.append([span, w["note"], "", ""])
            continue
        rows.append([span, *(f"{fmt.bits(w[d]['difference_bits'])} {fmt.interval(w[d]['difference_ci_bits'])}"
                             for d in DIRECTIONS), "closes" if w["loop"] else "not shown"])
    last = windows["last_window_loop"]
    verdict = ("cannot be judged (too few cycles in it)" if last is None else
               "closes" if last else "is not shown closed")
    return [f"Over time: each direction's difference per window of {windows['cycles_per_window']} cycles "
            f"({conf} intervals). In the run's last window the loop {verdict}.",
            Table(["cycles", *(DIRECTION_LABELS[d] for d in DIRECTIONS), "loop"], rows)]


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
    return save_figure(fig, path)


def control_plot(report: dict, path: Path) -> Path | None:
    """Each direction's difference (agents minus the twins that cut it) with its CI: over the run, the loop
    test and (descriptive) Phi at the broadcast cut and at each side's MIB (left); the loop test per window of
    cycles (right)."""
    controls = report.get("controls") or {}
    directions = controls.get("directions")
    if not directions:
        return None
    plt = pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8), dpi=DPI, gridspec_kw={"width_ratios": [1, 2]})
    described = controls.get("phi_at_broadcast_cut") or {}
    for i, d in enumerate(DIRECTIONS):
        points = [("test", directions[d])] + ([] if "note" in described else
                                              [("Phi cut", described[d]), ("Phi MIB", described[d]["at_mib"])])
        for j, (label, x) in enumerate(points):
            lo, hi = x["difference_ci_bits"]
            v = x["difference_bits"]
            ax1.errorbar([4 * i + j], [v], yerr=[[v - lo], [hi - v]], fmt="os^"[j], color=f"C{i}",
                         capsize=4, mfc="white" if j else None)
    ax1.axhline(0, color="grey", lw=0.8)
    ticks = [0, 4] if "note" in described else [0, 1, 2, 4, 5, 6]
    ax1.set_xticks(ticks, (["test"] if "note" in described else ["test", "Phi cut", "Phi MIB"]) * 2, fontsize=7)
    ax1.set_xlabel("   ".join(DIRECTION_LABELS[d] for d in DIRECTIONS), fontsize=8)
    ax1.set_ylabel("agents - twins (bits)")
    ax1.set_title("Each direction over the run")
    rows = [w for w in controls["windows"]["rows"] if "note" not in w]
    for i, d in enumerate(DIRECTIONS):
        mid = [(w["cycles"][0] + w["cycles"][1]) / 2 for w in rows]
        v = np.array([w[d]["difference_bits"] for w in rows])
        ci = np.array([w[d]["difference_ci_bits"] for w in rows]).reshape(-1, 2)
        ax2.errorbar(np.array(mid) + (i - 0.5) * 2, v, yerr=[v - ci[:, 0], ci[:, 1] - v], fmt="o-", color=f"C{i}",
                     capsize=3, lw=1, label=DIRECTION_LABELS[d])
    ax2.axhline(0, color="grey", lw=0.8)
    ax2.set_xlabel(f"cycle (windows of {controls['windows']['cycles_per_window']})")
    ax2.set_title("Each direction per window of cycles")
    ax2.legend(fontsize=8, frameon=False)
    return save_figure(fig, path)
