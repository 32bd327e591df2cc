"""``python -m cognition.bench directions``: the loop criterion on linear toys with the loop's layout.

The criterion (cognition.analysis.summary.loop_verdict) calls the loop through the workspace closed only when
cutting either direction lowers Phi across the broadcast cut: Phi(agents) - Phi(yoked twins) (workspace
-> modules cut) and Phi(agents) - Phi(proposal-yoked twins) (modules -> workspace cut), each with its
interval above 0. Here the ground truth is known. Each agent is a linear Gaussian system with 5 module
units m and 2 workspace units w,

    m_t = A_m m_{t-1} + B w_{t-1} + g_m s_t + e_m,t
    w_t = A_w w_{t-1} + C m_{t-1 or t} + g_w s_t + e_w,t,

its own weights (anatomy) drawn per agent (A_m: 0.3 on the diagonal, normal off-diagonal couplings
with sd ``--module-coupling``); s_t a drive shared by every agent (an AR(1) world with
coefficient 0.9), entering each unit with the agent's own gain (normal, sd ``--world-gain``); every
path starts 3 SD away from 0 (a start-up transient). Families:

* ``feedforward``: C = 0, the workspace an autonomous process that drives the modules (IIT: no loop);
* ``relay``: the workspace is driven by the modules of an independent agent (a source), not its own: the
  toy of ``--lesion proposals``, except that the twins' donors are not the source, so the twin that cuts
  modules -> workspace differs from the agent but not in distribution (a true difference of 0 with noise);
* ``loop``: C m_{t-1}, the workspace driven by its own modules one step later (a closed loop);
* ``same-cycle loop``: C m_t, the workspace reads its modules' same-step values, as the architecture's
  broadcast b_t is built from the proposals of cycle t.

Couplings B and C have per-agent magnitudes, all positive (``same``) or with per-agent random signs
(``random``). The twins are built as cognition/architecture/controls.py builds them: a twin keeps its agent's weights,
gains and noise; the yoked twin's modules read the donor's w, the proposal-yoked twin's workspace reads the
donor's m. A second set of twins to other donors gives the criterion's null (twins that differ only in
their donors; the true difference of each direction is 0): the per-direction and joint rates of
intervals above 0 are its false positives. Every estimate is the package's (per-agent, bias-corrected,
shared course removed; cognition.phi.difference).
"""
from __future__ import annotations

import os
import time

import numpy as np

from cognition.analysis.summary import DIRECTIONS, direction_rows, loop_verdict
from cognition.benchmarks import refuse, suite_parser
from cognition.cli import int_between
from cognition.phi.difference import paired_differences
from cognition.runtime.lifeline import bound_pool
from cognition.runtime.threads import cpu_threads

MODULE_UNITS, WORKSPACE_UNITS = 5, 2
FAMILIES = ("feedforward", "relay", "loop", "same-cycle loop")
SIGNS = ("same", "random")
CUT = np.array([False] * MODULE_UNITS + [True] * WORKSPACE_UNITS)  # the broadcast cut: modules | workspace
GROUP_ORDER = ("intact", "source", "donor", "yoked", "yoked_proposals", "donor_2", "yoked_2", "yoked_proposals_2")


def _parser():
    p = suite_parser("directions", description=__doc__.splitlines()[0])
    p.add_argument("--draws", type=int, default=100, help="draws (independent populations) per family and sign")
    p.add_argument("--agents", type=int, default=32, help="agents per draw")
    p.add_argument("--cycles", type=int, default=50, help="time steps per agent")
    p.add_argument("--families", nargs="+", default=list(FAMILIES), choices=FAMILIES, help="which toys")
    p.add_argument("--signs", nargs="+", default=list(SIGNS), choices=SIGNS, help="coupling signs per agent")
    p.add_argument("--seed", type=int_between(0, 2**31), default=0,
                   help="the first draw's seed (draw d uses seed + d; 0 to 2^31)")
    p.add_argument("--world-gain", type=float, default=0.5,
                   help="sd of each unit's gain on the shared drive s_t (0: no shared drive; default 0.5)")
    p.add_argument("--module-coupling", type=float, default=0.1,
                   help="sd of the direct couplings between module units (off-diagonal A_m; 0: the modules "
                        "communicate only through the workspace; default 0.1)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (each single-threaded)")
    return p


def _anatomy(rows: int, family: str, signs: str, rng: np.random.Generator, world_gain: float = 0.5,
             module_coupling: float = 0.1) -> dict:
    """Per-row weights: A_m (rows, 5, 5), A_w (rows, 2, 2), B (rows, 5, 2), C (rows, 2, 5), gains (rows, 7)."""
    n, k = MODULE_UNITS, WORKSPACE_UNITS
    A_m = 0.3 * np.eye(n) + module_coupling * rng.standard_normal((rows, n, n)) * (1 - np.eye(n))
    A_w = np.broadcast_to(0.5 * np.eye(k), (rows, k, k)).copy()

    def coupling(shape):
        size = rng.uniform(0.2, 0.5, (rows, *shape))
        return size * (rng.choice([-1.0, 1.0], size.shape) if signs == "random" else 1.0)

    B, C = coupling((n, k)), coupling((k, n))
    if family == "feedforward":
        C[:] = 0.0
    return {"A_m": A_m, "A_w": A_w, "B": B, "C": C, "gain": world_gain * rng.standard_normal((rows, n + k))}


def toy_population(family: str, signs: str, agents: int, cycles: int, rng: np.random.Generator,
                   world_gain: float = 0.5, module_coupling: float = 0.1) -> dict:
    """{group: (agents, cycles, 7)}: the agents, the relay family's sources, and two sets of donors with
    their yoked and proposal-yoked twins (GROUP_ORDER), simulated together (they share the world s_t)."""
    A, n, k = agents, MODULE_UNITS, WORKSPACE_UNITS
    g = {name: np.arange(i * A, (i + 1) * A) for i, name in enumerate(GROUP_ORDER)}
    R = len(GROUP_ORDER) * A
    own = np.arange(R)
    # a twin has its agent's anatomy and noise; donors and sources are agents of their own
    identity = own.copy()
    for twin in ("yoked", "yoked_proposals", "yoked_2", "yoked_proposals_2"):
        identity[g[twin]] = g["intact"]
    modules_read = own.copy()  # whose w drives each row's modules
    modules_read[g["yoked"]], modules_read[g["yoked_2"]] = g["donor"], g["donor_2"]
    workspace_reads = own.copy()  # whose m drives each row's workspace
    workspace_reads[g["yoked_proposals"]], workspace_reads[g["yoked_proposals_2"]] = g["donor"], g["donor_2"]
    anatomy = _anatomy(R, family, signs, rng, world_gain, module_coupling)
    if family == "relay":  # sources and donors are autonomous-workspace agents; the agents' workspaces read a source
        for row in ("source", "donor", "donor_2"):
            anatomy["C"][g[row]] = 0.0
        for row in ("intact", "yoked", "yoked_2"):
            workspace_reads[g[row]] = g["source"]
    _stabilise(anatomy, family == "same-cycle loop")
    W = {key: value[identity] for key, value in anatomy.items()}
    noise = rng.standard_normal((R, cycles, n + k))[identity]
    world = np.empty(cycles)
    world[0] = rng.standard_normal() / np.sqrt(1 - 0.9 ** 2)
    for t in range(1, cycles):
        world[t] = 0.9 * world[t - 1] + rng.standard_normal()
    x = np.broadcast_to(3.0 * np.ones(n + k), (R, n + k)).copy()  # the start-up transient, shared
    X = np.empty((R, cycles, n + k))
    same_cycle = family == "same-cycle loop"
    for t in range(cycles):
        m_prev, w_prev = x[:, :n], x[:, n:]
        drive = W["gain"] * world[t] + noise[:, t]
        m = (np.einsum("rij,rj->ri", W["A_m"], m_prev) + np.einsum("rij,rj->ri", W["B"], w_prev[modules_read])
             + drive[:, :n])
        fed = (m if same_cycle else m_prev)[workspace_reads]
        w = np.einsum("rij,rj->ri", W["A_w"], w_prev) + np.einsum("rij,rj->ri", W["C"], fed) + drive[:, n:]
        x = np.concatenate([m, w], axis=1)
        X[:, t] = x
    return {name: X[rows] for name, rows in g.items()}


def _stabilise(anatomy: dict, same_cycle: bool) -> None:
    """Scale each row's couplings until its own closed system (its workspace reading its own modules) has
    spectral radius <= 0.9; with ``same_cycle`` the one-step map is [[A_m, B], [C A_m, A_w + C B]]."""
    n = MODULE_UNITS
    for r in range(len(anatomy["A_m"])):
        for _ in range(50):
            A_m, B, C, A_w = (anatomy[k][r] for k in ("A_m", "B", "C", "A_w"))
            top = np.concatenate([A_m, B], axis=1)
            bottom = (np.concatenate([C @ A_m, A_w + C @ B], axis=1) if same_cycle
                      else np.concatenate([C, A_w], axis=1))
            radius = np.max(np.abs(np.linalg.eigvals(np.concatenate([top, bottom]))))
            if radius <= 0.9:
                break
            anatomy["B"][r] *= 0.9
            anatomy["C"][r] *= 0.9
            anatomy["A_m"][r, :n, :n] *= 0.95


def draw(family: str, signs: str, agents: int, cycles: int, seed: int, world_gain: float = 0.5,
         module_coupling: float = 0.1) -> dict:
    """One population: each direction's difference, the loop verdict, and the twin-vs-twin null."""
    rng = np.random.default_rng([seed, FAMILIES.index(family), SIGNS.index(signs)])
    g = toy_population(family, signs, agents, cycles, rng, world_gain, module_coupling)
    opts = dict(lag=1, confidence=0.95, seed=seed)
    directions = direction_rows(g["intact"], g, CUT, measure="phi_r", **opts)
    null, null_at_mib = {}, {}
    for d, twin in DIRECTIONS.items():
        got = paired_differences(g[twin], {"other": g[f"{twin}_2"]}, cut=CUT, **opts)["other"]
        for into, m in ((null, got["phi_r"]), (null_at_mib, got["at_mib"]["phi_r"])):
            into[d] = {"difference_bits": m["estimate"], "difference_ci_bits": list(m["ci"])}
    keep = ("difference_bits", "difference_ci_bits", "intact_bits", "twin_bits")
    at_mib = {d: r["at_mib"] for d, r in directions.items()}
    return {"family": family, "signs": signs, "seed": seed,
            "directions": {d: {k: r[k] for k in keep} for d, r in directions.items()},
            "at_mib": {d: {k: r[k] for k in keep} for d, r in at_mib.items()},
            "loop": loop_verdict(directions)["passed"], "loop_at_mib": loop_verdict(at_mib)["passed"],
            "null": null, "null_loop": all(null[d]["difference_ci_bits"][0] > 0 for d in DIRECTIONS),
            "null_at_mib": null_at_mib,
            "null_loop_at_mib": all(null_at_mib[d]["difference_ci_bits"][0] > 0 for d in DIRECTIONS)}


def _draw_job(args: tuple) -> dict:
    with cpu_threads(1):
        return draw(*args)


def summary(rows: list[dict]) -> dict:
    n = len(rows)
    out = {"family": rows[0]["family"], "signs": rows[0]["signs"], "draws": n}
    for tag, suffix in (("", ""), ("at_mib_", "_at_mib")):  # at the broadcast cut (the criterion); at each MIB
        directions = "directions" if not suffix else "at_mib"
        out[f"{tag}loop_passes"] = sum(r["loop" + suffix] for r in rows)
        out[f"{tag}null_loop_passes"] = sum(r["null_loop" + suffix] for r in rows)
        for d in DIRECTIONS:
            out[f"{tag}{d}_above_zero"] = sum(r[directions][d]["difference_ci_bits"][0] > 0 for r in rows)
            out[f"{tag}{d}_mean_bits"] = float(np.mean([r[directions][d]["difference_bits"] for r in rows]))
            out[f"{tag}null_{d}_excludes_zero"] = sum(r["null" + suffix][d]["difference_ci_bits"][0] > 0 or
                                                      r["null" + suffix][d]["difference_ci_bits"][1] < 0 for r in rows)
    return out


def main(argv: list[str] | None = None) -> dict:
    args = _parser().parse_args(argv)
    limits = {"draws": (1, 100_000), "agents": (3, 4096), "cycles": (10, 100_000), "jobs": (1, 256)}
    bad = [f"--{k} {getattr(args, k)}: allowed {lo} .. {hi}" for k, (lo, hi) in limits.items()
           if not lo <= getattr(args, k) <= hi]
    if not bad and not 0.0 <= args.world_gain <= 10.0:
        bad.append(f"--world-gain {args.world_gain}: allowed 0 .. 10")
    if not bad and not 0.0 <= args.module_coupling <= 1.0:
        bad.append(f"--module-coupling {args.module_coupling}: allowed 0 .. 1")
    if not bad and args.agents * args.cycles > 500_000:  # 8 groups x 7 units x 8 bytes, twice: about 450 MB
        bad.append(f"--agents {args.agents} x --cycles {args.cycles}: allowed a product up to 500000")
    refuse(bad)
    out = {"settings": vars(args), "summaries": [], "draws": []}
    for family in args.families:
        for signs in args.signs:
            jobs = [(family, signs, args.agents, args.cycles, args.seed + d, args.world_gain, args.module_coupling)
                    for d in range(args.draws)]
            t0 = time.perf_counter()
            if args.jobs == 1:
                rows = [_draw_job(j) for j in jobs]
            else:
                with bound_pool(min(args.jobs, os.cpu_count() or 1)) as pool:  # workers die with us
                    rows = list(pool.map(_draw_job, jobs))
            s = summary(rows)
            s.update(world_gain=args.world_gain, module_coupling=args.module_coupling, seconds=time.perf_counter() - t0)
            print(f"{family} / {signs} signs, world gain {args.world_gain}, module coupling {args.module_coupling}, "
                  f"{len(rows)} draws of {args.agents} x "
                  f"{args.cycles}: loop passes "
                  f"{s['loop_passes']}; workspace -> modules CI above 0 in {s['workspace_to_modules_above_zero']} "
                  f"(mean {s['workspace_to_modules_mean_bits']:+.3f} bits), modules -> workspace in "
                  f"{s['modules_to_workspace_above_zero']} (mean {s['modules_to_workspace_mean_bits']:+.3f}); null: "
                  f"loop {s['null_loop_passes']}, intervals excluding 0 {s['null_workspace_to_modules_excludes_zero']}"
                  f" / {s['null_modules_to_workspace_excludes_zero']}; at each MIB (descriptive): loop "
                  f"{s['at_mib_loop_passes']}, above 0 {s['at_mib_workspace_to_modules_above_zero']} / "
                  f"{s['at_mib_modules_to_workspace_above_zero']}, null loop {s['at_mib_null_loop_passes']}; "
                  f"{s['seconds']:.0f} s", flush=True)
            out["summaries"].append(s)
            out["draws"] += rows
    return out
