"""Competition metrics of the workspace: who wins, how often it changes, how long a winner holds.

Per cycle, every batch row's winner (metrics.jsonl ``winners``, one character per row:
:mod:`cognition.architecture.winners`), and (:func:`cycle_competition`, in metrics.jsonl
as ``competition``), over the run's agents: the share of agents whose winner changed since the last cycle, the
share with no access (no module ignited), the mean bid (surprise) of each module and
the dwell episodes that ended this cycle ({module: {length: count}}: module m held the
workspace for ``length`` consecutive cycles and lost it now). Over the run
(:func:`summarise_competition`, report.json ``competition``):

* ``winner_share``: per module, and ``no_access``, the share of agent-cycles won;
* ``winner_entropy_bits``: entropy of that distribution (modules and no access),
  with its maximum log2(M + 1) beside it;
* ``switching_rate``: share of agent-cycles (after the first) whose winner differs
  from the cycle before (no access counts as a state);
* ``dwell``: per module the histogram of completed episodes, their count and mean
  length (episodes still running at the last cycle are censored, not counted);
* ``ignition_curve``: the fast access dynamics' response to a bid swept up and down,
  fatigue held at 0 (:func:`cognition.architecture.workspace.ignition_curve`), and the hysteresis width.
"""
from __future__ import annotations

import math

import numpy as np

from cognition.architecture.winners import NO_ACCESS
from cognition.architecture.workspace import ignition_curve

IGNITION_STRENGTHS = np.round(np.linspace(-2.0, 4.0, 61), 10)  # bids swept, in SDs of surprise
def cycle_competition(per_agent: dict, modules: list[str], cycle: int) -> dict:
    """One cycle's competition figures from the per-agent diagnostics of the run's agents."""
    winner = per_agent["winner"].cpu().numpy()
    previous = per_agent["previous_winner"].cpu().numpy()
    dwell = per_agent["ended_dwell"].cpu().numpy()
    bids = per_agent["bids"].double().mean(dim=0).cpu().numpy()
    ended = (winner != previous) & (previous != NO_ACCESS) & (cycle > 1)
    episodes: dict = {}
    for m, length in zip(previous[ended], dwell[ended]):
        row = episodes.setdefault(modules[int(m)], {})
        row[str(int(length))] = row.get(str(int(length)), 0) + 1
    return {"switched": float(np.mean(winner != previous)) if cycle > 1 else None,
            "no_access": float(np.mean(winner == NO_ACCESS)),
            "bid": {m: float(b) for m, b in zip(modules, bids)},
            "dwell_ended": episodes}


def entropy_bits(shares) -> float:
    p = np.asarray([s for s in shares if s > 0], dtype=np.float64)
    return float(-(p * np.log2(p)).sum()) if len(p) else 0.0


def summarise_competition(cfg, records: list[dict], modules: list[str]) -> dict:
    """report.json's ``competition`` from the per-cycle records (metrics.jsonl lines)."""
    with_comp = [r for r in records if r.get("competition")]
    if not with_comp:
        return {"note": "no cycle recorded competition figures"}
    share = {m: float(np.mean([r["winner_share"][m] for r in with_comp])) for m in modules}
    no_access = float(np.mean([r["competition"]["no_access"] for r in with_comp]))
    switched = [r["competition"]["switched"] for r in with_comp if r["competition"]["switched"] is not None]
    hist: dict = {m: {} for m in modules}
    for r in with_comp:
        for m, row in r["competition"]["dwell_ended"].items():
            for length, count in row.items():
                hist[m][length] = hist[m].get(length, 0) + count
    dwell = {}
    for m, row in hist.items():
        lengths = np.array([int(k) for k in row], dtype=np.float64)
        counts = np.array(list(row.values()), dtype=np.float64)
        dwell[m] = {"episodes": int(counts.sum()),
                    "mean_cycles": float((lengths * counts).sum() / counts.sum()) if counts.sum() else None,
                    "histogram": {k: row[k] for k in sorted(row, key=int)}}
    curve = ignition_curve(cfg.workspace, IGNITION_STRENGTHS)
    up, down = curve["threshold_rising"], curve["threshold_falling"]
    curve["hysteresis_width"] = (up - down) if up is not None and down is not None else None
    return {"winner_share": share, "no_access": no_access,
            "winner_entropy_bits": entropy_bits([*share.values(), no_access]),
            "max_entropy_bits": math.log2(len(modules) + 1),
            "switching_rate": float(np.mean(switched)) if switched else None,
            "dwell": dwell, "ignition_curve": curve}
