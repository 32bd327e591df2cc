"""``python -m cognition.bench workspace``: the competition and the yoked control over seeds.

For each mode and run length, one run of the default architecture per seed (seeds are
independent populations; agents within a seed are the paired replications of the
control). Every run simulates two sets of yoked twins, to two disjoint sets of donors:

* the test: Phi(agents) - Phi(twins) across the broadcast cut, and its CI (what every
  run reports, cognition/analysis.py: summarise_controls);
* a null that shares the data's structure: Phi(twins to donors 1) - Phi(twins to donors
  2). Neither set has a loop through its own workspace and they differ only in which
  independent broadcast drives them, so the true difference is 0: how often its CI
  excludes 0 is the false-positive rate of the interval;
* the same null with each side at each agent's own minimum over bipartitions: the calibration of
  the report's descriptive row;
* the broadcast lesion (modules read the fixed initial broadcast), for which the twins
  are the agents bit for bit (difference exactly 0), at the shortest run length.

Competition figures (winner shares with "no access", winner entropy, switching rate,
mean dwell) are over the run's agents, as in report.json's ``competition``.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from cognition.runtime.threads import cpu_threads


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m cognition.bench workspace", description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=10, help="seeds (independent populations) per mode and length")
    p.add_argument("--first-seed", type=int, default=0, help="the first seed (seeds first .. first + seeds - 1)")
    p.add_argument("--no-lesion", action="store_true", help="skip the broadcast-lesion runs")
    p.add_argument("--cycles", type=int, nargs="+", default=[50, 500], help="run lengths")
    p.add_argument("--modes", nargs="+", default=["lite", "disabled"], choices=["lite", "disabled", "full"],
                   help="quantum.mode of the runs")
    p.add_argument("--agents", type=int, default=None, help="agents per run (default: the configuration's)")
    return p


def simulate(cfg, twin_sets: int):
    """Units (rows, cycles, n), the per-cycle records (metrics.jsonl's fields, Phi left out) and the loop of a
    run with ``twin_sets`` twin sets."""
    import dataclasses

    from cognition.assemble import assemble
    from cognition.controls import population
    from cognition.loop import IntegrationLoop

    base = assemble(cfg).loop
    loop = IntegrationLoop(cfg, list(base.modules.values()), device=base.device, dtype=base.dtype,
                           population=population(cfg.run.agents, twin_sets))
    state, rows, records = loop.initial_state(), [], []
    for _ in range(cfg.run.cycles):
        state, record, signals = loop.step(state, None)  # no window: no per-cycle Phi
        rows.append(signals)
        records.append(dataclasses.asdict(record))
    return np.stack(rows, axis=1), records, loop


def competition_row(cfg, records: list[dict], modules: list[str]) -> dict:
    """The run's competition figures, as its report.json ``competition`` computes them."""
    from cognition.competition import summarise_competition

    c = summarise_competition(cfg, records, modules)
    return {"winner_share": {**c["winner_share"], "no_access": c["no_access"]},
            "winner_entropy_bits": c["winner_entropy_bits"], "switching_rate": c["switching_rate"],
            "mean_dwell_cycles": {m: d["mean_cycles"] for m, d in c["dwell"].items()}}


def _difference(a, b, cut, cfg) -> tuple[dict, dict]:
    """(at the cut, at each agent's own minimum) of the paired difference, as every run reports them."""
    from cognition.phi.difference import paired_difference

    d = paired_difference(a, b, cut=cut, lag=cfg.phi.lag, confidence=cfg.phi.confidence, seed=cfg.run.seed)

    def row(m):
        return {"difference_bits": m["estimate"], "ci_bits": list(m["ci"]), "a_bits": m["a"], "b_bits": m["b"],
                "ci_above_zero": bool(m["ci"][0] > 0), "excludes_zero": bool(m["ci"][0] > 0 or m["ci"][1] < 0)}

    return row(d[cfg.phi.measure]), row(d["at_mib"][cfg.phi.measure])


def seed_row(mode: str, cycles: int, seed: int, agents: int | None) -> dict:
    from cognition.analysis import broadcast_cut
    from cognition.config import load_config
    from cognition.controls import split_rows

    run = {"seed": seed, "cycles": cycles, **({"agents": agents} if agents else {})}
    cfg = load_config(overrides={"run": run, "quantum": {"mode": mode}, "runtime": {"device": "cpu"}})
    t0 = time.perf_counter()
    units, records, loop = simulate(cfg, twin_sets=2)
    g = split_rows(units, cfg.run.agents, twin_sets=2)
    cut = broadcast_cut(loop.unit_names)
    null, null_at_mib = _difference(g["yoked"], g["yoked_2"], cut, cfg)
    return {"mode": mode, "cycles": cycles, "seed": seed, "agents": cfg.run.agents,
            **competition_row(cfg, records, loop.declared),
            "yoked": _difference(g["intact"], g["yoked"], cut, cfg)[0],
            "null_twins": null, "null_twins_at_mib": null_at_mib,
            "seconds": time.perf_counter() - t0}


def lesion_row(mode: str, cycles: int, seed: int, agents: int | None) -> dict:
    from cognition.analysis import broadcast_cut
    from cognition.config import load_config
    from cognition.controls import split_rows

    run = {"seed": seed, "cycles": cycles, **({"agents": agents} if agents else {})}
    cfg = load_config(overrides={"run": run, "quantum": {"mode": mode}, "runtime": {"device": "cpu"},
                                 "control": {"lesion": "broadcast"}})
    units, _, loop = simulate(cfg, twin_sets=1)
    g = split_rows(units, cfg.run.agents, twin_sets=1)
    row = {"mode": mode, "cycles": cycles, "seed": seed,
           "twins_identical": bool(np.array_equal(g["intact"], g["yoked"]))}
    try:
        return {**row, **_difference(g["intact"], g["yoked"], broadcast_cut(loop.unit_names), cfg)[0]}
    except ValueError as exc:  # e.g. the expectation, fed a constant broadcast, learns it exactly: a constant unit
        return {**row, "undefined": str(exc)}


def summary(rows: list[dict]) -> dict:
    share = {k: float(np.mean([r["winner_share"][k] for r in rows])) for k in rows[0]["winner_share"]}
    return {"seeds": len(rows), "mean_winner_share": share,
            "min_winner_share": {k: float(np.min([r["winner_share"][k] for r in rows])) for k in share},
            "mean_switching_rate": float(np.mean([r["switching_rate"] for r in rows])),
            "mean_entropy_bits": float(np.mean([r["winner_entropy_bits"] for r in rows])),
            "yoked_ci_above_zero": int(sum(r["yoked"]["ci_above_zero"] for r in rows)),
            "null_ci_excludes_zero": int(sum(r["null_twins"]["excludes_zero"] for r in rows)),
            "null_at_mib_ci_excludes_zero": int(sum(r["null_twins_at_mib"]["excludes_zero"] for r in rows))}


def _line(r: dict) -> str:
    s, y, n = r["winner_share"], r["yoked"], r["null_twins"]
    shares = " ".join(f"{k[:4]} {v:.3f}" for k, v in s.items())
    return (f"{r['mode']:8s} {r['cycles']:4d} seed {r['seed']:2d}: {shares} | H {r['winner_entropy_bits']:.2f} bits, "
            f"switch {r['switching_rate']:.2f} | yoked diff {y['difference_bits']:+.3f} [{y['ci_bits'][0]:+.3f}, "
            f"{y['ci_bits'][1]:+.3f}] | null diff {n['difference_bits']:+.3f} [{n['ci_bits'][0]:+.3f}, "
            f"{n['ci_bits'][1]:+.3f}] | {r['seconds']:.1f} s")


def main(argv: list[str] | None = None) -> dict:
    args = _parser().parse_args(argv)
    out = {"settings": vars(args), "runs": [], "summaries": [], "lesion": []}
    with cpu_threads(1):
        for mode in args.modes:
            for cycles in args.cycles:
                rows = []
                for seed in range(args.first_seed, args.first_seed + args.seeds):
                    rows.append(seed_row(mode, cycles, seed, args.agents))
                    print(_line(rows[-1]), flush=True)
                s = {"mode": mode, "cycles": cycles, **summary(rows)}
                print(f"{mode} {cycles} cycles: {s}", flush=True)
                out["runs"] += rows
                out["summaries"].append(s)
            for seed in range(args.first_seed, args.first_seed + args.seeds * (not args.no_lesion)):
                row = lesion_row(mode, min(args.cycles), seed, args.agents)
                out["lesion"].append(row)
                what = (f"Phi undefined ({row['undefined']})" if "undefined" in row else
                        f"diff {row['difference_bits']:+.4f} [{row['ci_bits'][0]:+.4f}, {row['ci_bits'][1]:+.4f}]")
                print(f"{mode} lesion broadcast seed {seed}: twins identical {row['twins_identical']}, {what}",
                      flush=True)
    return out
