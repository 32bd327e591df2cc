"""``python -m cognition.bench workspace``: the competition and the loop criterion over seeds.

For each mode and run length, one run of the default architecture per seed (seeds are
independent populations; agents within a seed are the paired replications of the
control). Every run simulates two sets of twins, to two disjoint sets of donors:

* the criterion (what every run reports, cognition/analysis/summary.py: summarise_controls): the loop
  test of cognition.phi.directed, per direction of the loop the agents' directed information minus that
  of the twins that cut it, with its CI; the loop closes only when both are above 0. Runs longer than
  one window (control.window) also report the criterion in the last window alone;
* a null on the architecture itself, twins that are not identical to each other: per direction, the
  loop test of the twins to donors 1 against the twins to donors 2. The two sets are cut the same way
  and differ only in which independent agent drives them, so each true difference is 0: how often an
  interval lies above 0 is its false-positive rate, and how often both do is the loop criterion's;
* the lesions, at the shortest run length: ``broadcast`` (modules read the fixed initial
  broadcast; the yoked twins are the agents bit for bit) and ``proposals`` (each workspace competes
  over its donor's proposals, a feedforward workspace; the proposal-yoked twins are the agents bit
  for bit). The loop criterion fails under both by construction (the difference is exactly 0): a check of
  the construction, not a null of the test.

Competition figures (winner shares with "no access", winner entropy, switching rate,
mean dwell) are over the run's agents, as in report.json's ``competition``.
"""
from __future__ import annotations

import time

import numpy as np

from cognition.benchmarks import refuse, suite_parser
from cognition.config.settings import RunConfig
from cognition.runtime.threads import cpu_threads


def _parser():
    p = suite_parser("workspace", description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=10, help="seeds (independent populations) per mode and length")
    p.add_argument("--first-seed", type=int, default=0, help="the first seed (seeds first .. first + seeds - 1)")
    p.add_argument("--no-lesion", action="store_true", help="skip the lesion runs")
    p.add_argument("--cycles", type=int, nargs="+", default=[50, 500], help="run lengths")
    p.add_argument("--modes", nargs="+", default=["lite", "disabled"], choices=["lite", "disabled", "full"],
                   help="quantum.mode of the runs")
    p.add_argument("--agents", type=int, default=None, help="agents per run (default: the configuration's)")
    return p


def simulate(cfg, twin_sets: int):
    """Units (rows, cycles, n), the per-cycle records (metrics.jsonl's fields, Phi left out) and the loop of a
    run with ``twin_sets`` twin sets."""
    import dataclasses

    from cognition.simulator.build import assemble
    from cognition.architecture.controls import population
    from cognition.architecture.loop import IntegrationLoop

    base = assemble(cfg).loop
    loop = IntegrationLoop(cfg, list(base.modules.values()), device=base.device, dtype=base.dtype,
                           population=population(cfg.run.agents, twin_sets, cfg.control.lesion))
    state, rows, records = loop.initial_state(), [], []
    for _ in range(cfg.run.cycles):
        state, record, signals = loop.step(state, None)  # no window: no per-cycle Phi
        rows.append(signals)
        records.append(dataclasses.asdict(record))
    return np.stack(rows, axis=1), records, loop


def competition_row(cfg, records: list[dict], modules: list[str]) -> dict:
    """The run's competition figures, as its report.json ``competition`` computes them."""
    from cognition.architecture.competition import summarise_competition

    c = summarise_competition(cfg, records, modules)
    return {"winner_share": {**c["winner_share"], "no_access": c["no_access"]},
            "winner_entropy_bits": c["winner_entropy_bits"], "switching_rate": c["switching_rate"],
            "mean_dwell_cycles": {m: d["mean_cycles"] for m, d in c["dwell"].items()}}


def _row(r) -> dict:
    """One direction of a loop test (cognition.phi.directed.DirectionTest) as the suite records it."""
    lo, hi = r.ci
    return {"difference_bits": r.difference_bits, "ci_bits": [lo, hi], "p_value": r.p_value,
            "ci_above_zero": bool(lo > 0), "excludes_zero": bool(lo > 0 or hi < 0), "twins_identical": r.twins_identical}


def _null(g: dict, cut, cfg, span: slice = slice(None)) -> dict:
    """Per direction, the loop test of the twins that cut it against the second set's (they differ only in their
    donors: true difference 0)."""
    from cognition.analysis.summary import DIRECTIONS, run_loop_test

    out = {}
    for d, twin in DIRECTIONS.items():
        part = {"intact": g[twin][:, span], **{t: g[f"{t}_2"][:, span] for t in DIRECTIONS.values()}}
        out[d] = _row(run_loop_test(part, cut, cfg.phi.confidence).directions[d])
    return out


def _criterion(g: dict, cut, cfg, span: slice = slice(None)) -> dict:
    """The run's loop criterion over the cycles ``span``: each direction's difference, interval, and the verdict."""
    from cognition.analysis.summary import run_loop_test

    test = run_loop_test({k: v[:, span] for k, v in g.items()}, cut, cfg.phi.confidence)
    return {**{d: _row(r) for d, r in test.directions.items()}, "loop": test.passed}


def seed_row(mode: str, cycles: int, seed: int, agents: int | None) -> dict:
    from cognition.analysis.summary import broadcast_cut, control_windows
    from cognition.config.settings import load_config
    from cognition.architecture.controls import split_rows

    run = {"seed": seed, "cycles": cycles, **({"agents": agents} if agents else {})}
    cfg = load_config(overrides={"run": run, "quantum": {"mode": mode}, "runtime": {"device": "cpu"}})
    t0 = time.perf_counter()
    units, records, loop = simulate(cfg, twin_sets=2)
    g = split_rows(units, cfg.run.agents, twin_sets=2)
    cut = broadcast_cut(loop.unit_names)
    nulls = _null(g, cut, cfg)
    windows = control_windows(cycles, cfg.control.window)
    row = {"mode": mode, "cycles": cycles, "seed": seed, "agents": cfg.run.agents,
           **competition_row(cfg, records, loop.declared), "criterion": _criterion(g, cut, cfg),
           "null": nulls, "null_loop": all(n["ci_above_zero"] for n in nulls.values())}
    if len(windows) > 1:
        row["last_window"] = {"cycles": [windows[-1][0] + 1, windows[-1][1]],
                              **_criterion(g, cut, cfg, slice(*windows[-1]))}
    return {**row, "seconds": time.perf_counter() - t0}


def lesion_row(mode: str, cycles: int, seed: int, agents: int | None, lesion: str) -> dict:
    from cognition.analysis.summary import broadcast_cut
    from cognition.config.settings import load_config
    from cognition.architecture.controls import split_rows

    run = {"seed": seed, "cycles": cycles, **({"agents": agents} if agents else {})}
    cfg = load_config(overrides={"run": run, "quantum": {"mode": mode}, "runtime": {"device": "cpu"},
                                 "control": {"lesion": lesion}})
    units, _, loop = simulate(cfg, twin_sets=1)
    g = split_rows(units, cfg.run.agents, twin_sets=1)
    row = {"mode": mode, "cycles": cycles, "seed": seed, "lesion": lesion}
    try:
        return {**row, **_criterion(g, broadcast_cut(loop.unit_names), cfg)}
    except ValueError as exc:  # e.g. the expectation, fed a constant broadcast, learns it exactly: a constant unit
        return {**row, "loop": False, "undefined": str(exc)}


def summary(rows: list[dict]) -> dict:
    from cognition.analysis.summary import DIRECTIONS

    share = {k: float(np.mean([r["winner_share"][k] for r in rows])) for k in rows[0]["winner_share"]}
    out = {"seeds": len(rows), "mean_winner_share": share,
           "min_winner_share": {k: float(np.min([r["winner_share"][k] for r in rows])) for k in share},
           "mean_switching_rate": float(np.mean([r["switching_rate"] for r in rows])),
           "mean_entropy_bits": float(np.mean([r["winner_entropy_bits"] for r in rows])),
           "loop_passes": int(sum(r["criterion"]["loop"] for r in rows)),
           "null_loop_passes": int(sum(r["null_loop"] for r in rows))}
    for d in DIRECTIONS:
        out[f"{d}_ci_above_zero"] = int(sum(r["criterion"][d]["ci_above_zero"] for r in rows))
        out[f"{d}_mean_bits"] = float(np.mean([r["criterion"][d]["difference_bits"] for r in rows]))
        out[f"null_{d}_ci_above_zero"] = int(sum(r["null"][d]["ci_above_zero"] for r in rows))
        out[f"null_{d}_excludes_zero"] = int(sum(r["null"][d]["excludes_zero"] for r in rows))
    if "last_window" in rows[0]:
        out["last_window_loop_passes"] = int(sum(r["last_window"]["loop"] for r in rows))
        for d in DIRECTIONS:
            out[f"last_window_{d}_ci_above_zero"] = int(sum(r["last_window"][d]["ci_above_zero"] for r in rows))
    return out


def _line(r: dict) -> str:
    from cognition.analysis.summary import DIRECTIONS
    from cognition.phi.directed import DIRECTION_LABELS

    s, c = r["winner_share"], r["criterion"]
    shares = " ".join(f"{k[:4]} {v:.3f}" for k, v in s.items())
    parts = " | ".join(f"{DIRECTION_LABELS[d]} {c[d]['difference_bits']:+.3f} [{c[d]['ci_bits'][0]:+.3f}, "
                       f"{c[d]['ci_bits'][1]:+.3f}] null {r['null'][d]['difference_bits']:+.3f} "
                       f"[{r['null'][d]['ci_bits'][0]:+.3f}, {r['null'][d]['ci_bits'][1]:+.3f}]" for d in DIRECTIONS)
    last = f" | last window loop {r['last_window']['loop']}" if "last_window" in r else ""
    return (f"{r['mode']:8s} {r['cycles']:4d} seed {r['seed']:2d}: {shares} | switch {r['switching_rate']:.2f} | "
            f"{parts} | loop {c['loop']}{last} | {r['seconds']:.1f} s")


def _check(args) -> None:
    """One line on stderr and exit 2, before any work, for counts the suite cannot measure."""
    bad = []
    if not 1 <= args.seeds <= 100_000:
        bad.append(f"--seeds {args.seeds}: allowed 1 .. 100000")
    if args.first_seed < 0:
        bad.append(f"--first-seed {args.first_seed}: allowed >= 0")
    # a per-agent estimate needs 6 n + lag cycles (43 for the default 7 units; cognition/phi/agents.py)
    bad += [f"--cycles {c}: allowed 43 .. 100000 (a per-agent estimate of 7 units needs 43)"
            for c in args.cycles if not 43 <= c <= 100_000]
    agents = RunConfig().agents if args.agents is None else args.agents
    if not 3 <= agents <= 4096:
        bad.append(f"--agents {agents}: allowed 3 .. 4096 (a paired difference needs 3 pairs)")
    elif not bad and agents * max(args.cycles) > 1_000_000:  # 7 rows per agent x 7 units x 8 B: about 400 MB
        bad.append(f"--agents {agents} x --cycles {max(args.cycles)}: allowed a product up to 1000000")
    refuse(bad)


def main(argv: list[str] | None = None) -> dict:
    args = _parser().parse_args(argv)
    _check(args)
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
            for lesion in ("broadcast", "proposals"):
                for seed in range(args.first_seed, args.first_seed + args.seeds * (not args.no_lesion)):
                    row = lesion_row(mode, min(args.cycles), seed, args.agents, lesion)
                    out["lesion"].append(row)
                    what = (f"Phi undefined ({row['undefined']})" if "undefined" in row else
                            " | ".join(f"{d} {row[d]['difference_bits']:+.4f} [{row[d]['ci_bits'][0]:+.4f}, "
                                       f"{row[d]['ci_bits'][1]:+.4f}] identical {row[d]['twins_identical']}"
                                       for d in ("workspace_to_modules", "modules_to_workspace")))
                    print(f"{mode} lesion {lesion} seed {seed}: loop {row['loop']} | {what}", flush=True)
    return out
