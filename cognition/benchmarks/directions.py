"""``python -m cognition.bench directions``: power and level of the loop test on linear toys with the loop's timing.

The loop test (:func:`cognition.phi.loop_test`, the run's criterion "the loop closes") compares, per
direction, the agents' directed information with that of the twins that cut the direction. Here the truth
is known. Each agent is a linear Gaussian system with the architecture's order within one cycle: 5 module
units m, 2 workspace units b and (with ``memory``) a module state h that learns from the broadcast,

    m_t = H h_{t-1} + B b_{t-1} + g_m s_{t-l} + e_m,t       (a proposal: from the state and the last broadcast)
    b_t = 0.3 b_{t-1} + C m_t + g_b s_{t-l} + e_b,t         (the broadcast: from the same cycle's proposals)
    h_t = rho h_{t-1} + K b_t                               (the module state learns from the broadcast)

with the agent's own weights (anatomy): |B|, |C|, |K| uniform per agent, all positive (``same`` signs) or
with random signs per agent; each agent's closed system scaled to spectral radius <= 0.9. s_t is a drive
shared by every agent (an AR(1) world, coefficient 0.9) reaching each agent with its own lag l (0, 1 or 2
steps) and each unit with the agent's own gain (normal, sd ``--world-gain``; 0: no shared drive); every
path starts 3 SD from 0 (a shared start-up transient). Families (the truth of each direction):

* ``loop``: closed loop, modules with a state (both directions present);
* ``memoryless loop``: closed loop, modules without state (H = K = 0), as the quantum unconscious and
  hybrid modules are (both present);
* ``relay``: each agent's workspace competes over an independent source agent's proposals, not its own
  (modules -> workspace absent; workspace -> modules present). The twin that cuts modules -> workspace
  reads a donor instead of the source: it differs from the agent but not in distribution (a null that can
  fail, not a twin identical by construction);
* ``feedforward``: each agent's modules read an independent source agent's broadcast (workspace -> modules
  absent; modules -> workspace present), the twin that cuts it reading a donor: the mirror null.

The twins are built as cognition/architecture/controls.py builds them: a twin keeps its agent's weights,
gains, lag and noise; the yoked twin's modules read a donor's broadcast, the proposal-yoked twin's
workspace competes over a donor's proposals. A second set of twins to other donors gives the twin-against-
twin null of each family (twins that differ only in their donors: true difference 0 in both directions).
Rates are counted over draws: each direction's interval above 0, and the loop test passing.
"""
from __future__ import annotations

import os
import time

import numpy as np

from cognition.benchmarks import refuse, suite_parser
from cognition.cli import MAX_WORKERS, int_between
from cognition.phi.directed import DIRECTIONS, loop_test
from cognition.runtime.lifeline import bound_pool
from cognition.runtime.threads import cpu_threads

MODULE_UNITS, WORKSPACE_UNITS = 5, 2
MODULES, WORKSPACE = list(range(MODULE_UNITS)), list(range(MODULE_UNITS, MODULE_UNITS + WORKSPACE_UNITS))
FAMILIES = ("loop", "memoryless loop", "relay", "feedforward")
#: which directions each family carries (the truth the rates are read against)
TRUTH = {"loop": {"workspace_to_modules": True, "modules_to_workspace": True},
         "memoryless loop": {"workspace_to_modules": True, "modules_to_workspace": True},
         "relay": {"workspace_to_modules": True, "modules_to_workspace": False},
         "feedforward": {"workspace_to_modules": False, "modules_to_workspace": True}}
SIGNS = ("same", "random")
GROUP_ORDER = ("intact", "source", "donor", "yoked", "yoked_proposals", "donor_2", "yoked_2", "yoked_proposals_2")
TWINS = {"workspace_to_modules": "yoked", "modules_to_workspace": "yoked_proposals"}
WORLD_AR, TRANSIENT_SD, WORKSPACE_PERSISTENCE, MAX_RADIUS = 0.9, 3.0, 0.3, 0.9


def _parser():
    p = suite_parser("directions", description=__doc__.splitlines()[0])
    p.add_argument("--draws", type=int, default=100, help="draws (independent populations) per family and sign")
    p.add_argument("--agents", type=int, default=32, help="agents per draw")
    p.add_argument("--cycles", type=int, nargs="+", default=[50], help="time steps per agent (one or more lengths)")
    p.add_argument("--families", nargs="+", default=list(FAMILIES), choices=FAMILIES, help="which toys")
    p.add_argument("--signs", nargs="+", default=list(SIGNS), choices=SIGNS, help="coupling signs per agent")
    p.add_argument("--seed", type=int_between(0, 2**31),
                   default=0, help="the first draw's seed (draw d uses seed + d; 0 to 2^31)")
    p.add_argument("--world-gain", type=float, nargs="+", default=[0.0, 1.0],
                   help="sd of each unit's gain on the shared drive s_t, one or more (0: no shared drive; "
                        "default 0 and 1)")
    p.add_argument("--world-lags", type=int, default=2,
                   help="each agent receives the shared drive with its own lag, drawn from 0 .. this many steps "
                        "(default 2)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (each single-threaded)")
    return p


def _anatomy(rows: int, family: str, signs: str, rng: np.random.Generator, world_gain: float,
             world_lags: int) -> dict:
    """Per-row weights: B (rows, 5, 2), C (rows, 2, 5), K (rows, 5, 2), H and rho (rows, 5), gain (rows, 7), lag."""
    n, k = MODULE_UNITS, WORKSPACE_UNITS

    def coupling(shape):
        size = rng.uniform(0.3, 0.7, (rows, *shape))
        return size * (rng.choice([-1.0, 1.0], size.shape) if signs == "random" else 1.0)

    memory = family != "memoryless loop"
    B, C, K = coupling((n, k)), coupling((k, n)) / np.sqrt(n), coupling((n, k))
    H = rng.uniform(0.3, 0.6, (rows, n)) * rng.choice([-1.0, 1.0], (rows, n))
    rho = rng.uniform(0.5, 0.8, (rows, n))
    if not memory:
        K[:], H[:], rho[:] = 0.0, 0.0, 0.0
    anatomy = {"B": B, "C": C, "K": K, "H": H, "rho": rho,
               "gain": world_gain * rng.standard_normal((rows, n + k)),
               "lag": rng.integers(0, world_lags + 1, rows)}
    _stabilise(anatomy)
    return anatomy


def _stabilise(a: dict) -> None:
    """Scale each row's B, C and K until its closed system (state h, broadcast b) has spectral radius <= 0.9,
    both as the agent runs it and as its yoked twin does (its modules read a donor's broadcast, so B leaves the
    loop while h -> m -> b -> h stays in it).

    One step: b_t = C diag(H) h_{t-1} + (0.3 I + C B) b_{t-1}, h_t = diag(rho) h_{t-1} + K b_t.
    """
    k = WORKSPACE_UNITS
    for r in range(len(a["B"])):
        for _ in range(200):
            B, C, K, H, rho = (a[key][r] for key in ("B", "C", "K", "H", "rho"))
            radius = 0.0
            for reads_own in (B, np.zeros_like(B)):
                b_from = np.concatenate([C * H[None, :], WORKSPACE_PERSISTENCE * np.eye(k) + C @ reads_own], axis=1)
                h_from = np.diag(rho) @ np.eye(len(rho), b_from.shape[1]) + K @ b_from
                step = np.concatenate([h_from, b_from])  # rows and columns ordered (h, b)
                radius = max(radius, float(np.max(np.abs(np.linalg.eigvals(step)))))
            if radius <= MAX_RADIUS:
                break
            for key in ("B", "C", "K"):
                a[key][r] *= 0.9


def toy_population(family: str, signs: str, agents: int, cycles: int, rng: np.random.Generator,
                   world_gain: float = 1.0, world_lags: int = 2) -> dict:
    """{group: (agents, cycles, 7)} for GROUP_ORDER: the agents, the sources, and two sets of donors with their
    yoked and proposal-yoked twins, simulated together (they share the world s_t and the start-up transient)."""
    A, n, k = agents, MODULE_UNITS, WORKSPACE_UNITS
    g = {name: np.arange(i * A, (i + 1) * A) for i, name in enumerate(GROUP_ORDER)}
    R = len(GROUP_ORDER) * A
    own = np.arange(R)
    identity = own.copy()  # a twin has its agent's anatomy and noise; donors and sources are agents of their own
    for twin in ("yoked", "yoked_proposals", "yoked_2", "yoked_proposals_2"):
        identity[g[twin]] = g["intact"]
    modules_read = own.copy()  # whose broadcast each row's modules read
    modules_read[g["yoked"]], modules_read[g["yoked_2"]] = g["donor"], g["donor_2"]
    workspace_reads = own.copy()  # whose proposals each row's workspace competes over
    workspace_reads[g["yoked_proposals"]], workspace_reads[g["yoked_proposals_2"]] = g["donor"], g["donor_2"]
    if family == "relay":
        for row in ("intact", "yoked", "yoked_2"):
            workspace_reads[g[row]] = g["source"]
    if family == "feedforward":
        for row in ("intact", "yoked_proposals", "yoked_proposals_2"):
            modules_read[g[row]] = g["source"]
    anatomy = _anatomy(R, family, signs, rng, world_gain, world_lags)
    W = {key: value[identity] for key, value in anatomy.items()}
    noise = rng.standard_normal((R, cycles, n + k))[identity]
    start = world_lags
    world = np.empty(cycles + start)
    world[0] = rng.standard_normal() / np.sqrt(1 - WORLD_AR ** 2)
    for t in range(1, len(world)):
        world[t] = WORLD_AR * world[t - 1] + rng.standard_normal()
    h = np.zeros((R, n))
    b = np.full((R, k), TRANSIENT_SD)
    X = np.empty((R, cycles, n + k))
    for t in range(cycles):
        drive = W["gain"] * world[start + t - W["lag"]][:, None] + noise[:, t]
        m = W["H"] * h + np.einsum("rij,rj->ri", W["B"], b[modules_read]) + drive[:, :n]
        b = WORKSPACE_PERSISTENCE * b + np.einsum("rij,rj->ri", W["C"], m[workspace_reads]) + drive[:, n:]
        h = W["rho"] * h + np.einsum("rij,rj->ri", W["K"], b)
        X[:, t, :n], X[:, t, n:] = m, b
    return {name: X[rows] for name, rows in g.items()}


def draw(family: str, signs: str, agents: int, cycles: int, seed: int, world_gain: float = 1.0,
         world_lags: int = 2) -> dict:
    """One population: the loop test of the agents against their twins, and of twins against twins."""
    rng = np.random.default_rng([seed, FAMILIES.index(family), SIGNS.index(signs)])
    g = toy_population(family, signs, agents, cycles, rng, world_gain, world_lags)
    test = loop_test(g["intact"], g["yoked"], g["yoked_proposals"], MODULES, WORKSPACE)
    null = loop_test(g["yoked"], g["yoked_2"], g["yoked_proposals_2"], MODULES, WORKSPACE)
    # the null of each direction: the twins that cut it, against the second set's (they differ only in donors)
    null_rows = {"workspace_to_modules": null.directions["workspace_to_modules"],
                 "modules_to_workspace": loop_test(g["yoked_proposals"], g["yoked_2"], g["yoked_proposals_2"],
                                                   MODULES, WORKSPACE).directions["modules_to_workspace"]}

    def row(r):
        return {"difference_bits": r.difference_bits, "difference_ci_bits": list(r.ci), "p_value": r.p_value}

    return {"family": family, "signs": signs, "seed": seed, "cycles": cycles, "world_gain": world_gain,
            "directions": {d: row(test.directions[d]) for d in DIRECTIONS}, "loop": test.passed,
            "null": {d: row(null_rows[d]) for d in DIRECTIONS},
            "null_loop": all(null_rows[d].shown for d in DIRECTIONS)}


def _draw_job(args: tuple) -> dict:
    with cpu_threads(1):
        return draw(*args)


def summary(rows: list[dict]) -> dict:
    """Counts over draws: each direction's interval above 0 and the loop passing, agents against twins and
    twins against twins; the truth of each direction in this family beside them."""
    first = rows[0]
    out = {"family": first["family"], "signs": first["signs"], "cycles": first["cycles"],
           "world_gain": first["world_gain"], "draws": len(rows), "truth": TRUTH[first["family"]],
           "loop_passes": sum(r["loop"] for r in rows), "null_loop_passes": sum(r["null_loop"] for r in rows)}
    for d in DIRECTIONS:
        out[f"{d}_above_zero"] = sum(r["directions"][d]["difference_ci_bits"][0] > 0 for r in rows)
        out[f"{d}_mean_bits"] = float(np.mean([r["directions"][d]["difference_bits"] for r in rows]))
        out[f"null_{d}_above_zero"] = sum(r["null"][d]["difference_ci_bits"][0] > 0 for r in rows)
    return out


def describe(s: dict) -> str:
    """One line per summary: power where a direction is present, false positives where it is absent."""
    def rate(count):
        return f"{count}/{s['draws']} ({100.0 * count / s['draws']:.1f} %)"

    parts = []
    for d in DIRECTIONS:
        kind = "power" if s["truth"][d] else "FALSE POSITIVES"
        parts.append(f"{d.replace('_', ' ')} above 0 {rate(s[f'{d}_above_zero'])} [{kind}], mean "
                     f"{s[f'{d}_mean_bits']:+.3f} bits")
    closed = all(s["truth"].values())
    return (f"{s['family']} / {s['signs']} signs, {s['cycles']} cycles, world gain {s['world_gain']}: loop passes "
            f"{rate(s['loop_passes'])} [{'power' if closed else 'FALSE POSITIVES'}]; " + "; ".join(parts)
            + f"; twin against twin: workspace to modules {rate(s['null_workspace_to_modules_above_zero'])}, "
              f"modules to workspace {rate(s['null_modules_to_workspace_above_zero'])}, loop "
              f"{rate(s['null_loop_passes'])} [FALSE POSITIVES]")


def main(argv: list[str] | None = None) -> dict:
    args = _parser().parse_args(argv)
    limits = {"draws": (1, 100_000), "agents": (3, 4096), "jobs": (1, MAX_WORKERS), "world_lags": (0, 10)}
    bad = [f"--{k.replace('_', '-')} {getattr(args, k)}: allowed {lo} .. {hi}" for k, (lo, hi) in limits.items()
           if not lo <= getattr(args, k) <= hi]
    need = 3 * (WORKSPACE_UNITS + 2 * MODULE_UNITS) + 1  # the loop test's own minimum length
    bad += [f"--cycles {c}: allowed {need} .. 100000" for c in args.cycles if not need <= c <= 100_000]
    bad += [f"--world-gain {w}: allowed 0 .. 10" for w in args.world_gain if not 0.0 <= w <= 10.0]
    if not bad and args.agents * max(args.cycles) > 500_000:  # 8 groups x 7 units x 8 bytes: about 220 MB
        bad.append(f"--agents {args.agents} x --cycles {max(args.cycles)}: allowed a product up to 500000")
    refuse(bad)
    out = {"settings": vars(args), "summaries": [], "draws": []}
    for cycles in args.cycles:
        for gain in args.world_gain:
            for family in args.families:
                for signs in args.signs:
                    jobs = [(family, signs, args.agents, cycles, args.seed + d, gain, args.world_lags)
                            for d in range(args.draws)]
                    t0 = time.perf_counter()
                    if args.jobs == 1:
                        rows = [_draw_job(j) for j in jobs]
                    else:
                        with bound_pool(min(args.jobs, os.cpu_count() or 1)) as pool:  # workers die with us
                            rows = list(pool.map(_draw_job, jobs))
                    s = summary(rows)
                    s.update(agents=args.agents, seconds=time.perf_counter() - t0)
                    print(describe(s) + f"; {s['seconds']:.0f} s", flush=True)
                    out["summaries"].append(s)
                    out["draws"] += rows
    return out
