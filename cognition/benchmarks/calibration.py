"""``python -m cognition.bench calibration``: how far the printed Phi statistics can be trusted.

Measures ``cognition.phi.estimate`` at the package's settings (the per-agent estimand of
cognition.phi.agents, its interval across agents, the within-agent intersection-union
trial-shuffling test of cognition.phi.cut_test, and the run's verdict, which needs both the
test and the interval) on ensembles whose agents differ, as the loop's do:

* false positives at alpha on families with no integration (a null bipartition in every
  agent; cognition.phi.calibration): stationary independent AR(1) units; the same with a shared
  start-up transient; a drive shared by every agent and unit with per-agent gain factors
  (lognormal, sigma 1); independent AR(1) units whose coefficients and scales differ per agent;
  two coupled halves per agent, independent of each other; units of real runs of the loop
  with each module's units (and the workspace's) taken from a different agent (50 cycles only); and
  (issue 42) a shared AR(0.9) drive reaching each agent with its own latency (0-2 or 0-1 cycles),
  independent units whose innovation SD jumps x3 or /3 at a time per agent (and at one time for all),
  and dense coupled halves of radius 0.6-0.95, with and without that jump;
* accuracy and coverage against the exact mean per-agent Phi_R on three families of agents
  with known Phi: every agent its own random VAR(1) (6-8 nodes), one strongly coupled system
  with each agent's units' signs flipped at random, and a system whose bipartitions nearly tie;
  the test's power on them and on intact real runs.

Each family is measured at every size of ``--null-sizes`` / ``--sizes``; each system's generator
is seeded by (seed, family, size, index), so any row can be repeated alone.
"""
from __future__ import annotations

import argparse
import time
import zlib

import numpy as np

from cognition.benchmarks import refuse, suite_parser
from cognition.cli import MAX_WORKERS, int_between
from cognition.phi.validation import MAX_RESAMPLES
from cognition.runtime.lifeline import bound_pool
from cognition.runtime.threads import cpu_threads

NULL_SIZES = ((32, 50), (8, 50))
SIZES = ((32, 50), (32, 200), (8, 50), (8, 200))
REAL = "real runs, modules from different agents"
NULL_FAMILIES = ("stationary independent AR(1)", "independent, shared start-up transient (3 SD)",
                 "shared drive, per-agent gain lognormal(0, 1)", "heterogeneous independent AR(1)",
                 "two independent coupled halves", REAL,
                 "shared AR(0.9) drive, per-agent latency 0-2 cycles",
                 "shared AR(0.9) drive, per-agent latency 0-1 cycle",
                 "independent AR(1), innovation SD x3 or /3 at a time per agent",
                 "independent AR(1), innovation SD x3 or /3 at one time for all agents",
                 "dense coupled halves (4 + 4), radius 0.6-0.95",
                 "dense coupled halves (4 + 4), SD jump at a time per agent")
TARGET_FAMILIES = ("random VAR(1) per agent (6-8 nodes)", "strong system, random unit signs",
                   "near-tied system, random unit signs")
def _parser():
    p = suite_parser("calibration", description="False-positive rates, accuracy and CI coverage of phi.estimate "
                                            "on ensembles of differing agents.")
    p.add_argument("--systems", type=int, default=200, help="systems per null family and size (default 200)")
    p.add_argument("--draws", type=int, default=100, help="ensembles per accuracy family and size (default 100)")
    p.add_argument("--surrogates", type=int, default=200, help="permutations per test (default 200)")
    p.add_argument("--alpha", type=float, default=0.05, help="test level (default 0.05)")
    p.add_argument("--runs", type=int, default=10, help="loop runs per mode for the real-run family (default 10)")
    p.add_argument("--seed", type=int_between(0, 2**32 - 1), default=0,
                   help="master seed of every generator (0 to 2^32 - 1; default 0)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes, one CPU thread each (default 1)")
    p.add_argument("--only", choices=("nulls", "accuracy"), help="measure one half only")
    p.add_argument("--null-sizes", type=_sizes, default=NULL_SIZES, metavar="AxT[,AxT...]",
                   help="agents x cycles of the null families, each 5-128 agents and 20-5000 cycles (default "
                        "32x50,8x50; the real-run family only at 50 cycles, the length of its runs)")
    p.add_argument("--families", type=_families, default=None, metavar="I[,I...]",
                   help=f"null families by index 0-{len(NULL_FAMILIES) - 1} in the order of the record "
                        "(default all)")
    return p


def _sizes(text: str) -> tuple:
    """'32x50,8x50' -> ((32, 50), (8, 50)); one line and exit 2 through argparse."""
    try:
        sizes = tuple(tuple(int(v) for v in item.split("x")) for item in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not AxT[,AxT...]: {text!r}") from None
    if not all(len(s) == 2 and 5 <= s[0] <= 128 and 20 <= s[1] <= 5000 for s in sizes):
        raise argparse.ArgumentTypeError(f"each size AxT needs 5 <= A <= 128 agents and 20 <= T <= 5000 "
                                         f"cycles: {text!r}")
    return sizes


def _families(text: str) -> tuple:
    """'0,6' -> the null families with those indices."""
    try:
        chosen = tuple(NULL_FAMILIES[int(i)] for i in text.split(","))
    except (ValueError, IndexError):
        raise argparse.ArgumentTypeError(f"family indices 0-{len(NULL_FAMILIES) - 1}, comma-separated: "
                                         f"{text!r}") from None
    return chosen


def _check(args) -> None:
    """One line on stderr and exit 2 for a count or level outside what the suite can measure."""
    limits = {"systems": 100_000, "draws": 100_000, "surrogates": MAX_RESAMPLES, "runs": 100_000, "jobs": MAX_WORKERS}
    bad = [f"--{name} {getattr(args, name)}: allowed 1 .. {top}"
           for name, top in limits.items() if not 1 <= getattr(args, name) <= top]
    if not 0.0 < args.alpha < 1.0:
        bad.append(f"--alpha {args.alpha}: allowed 0 < alpha < 1")
    refuse(bad)


def _rng(seed: int, family: str, agents: int, cycles: int, index: int) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(family.encode()), agents, cycles, index])


def null_system(family: str, rng: np.random.Generator, agents: int, cycles: int, runs=None) -> np.ndarray:
    """One system of a null family (see the module docstring)."""
    from cognition.phi import calibration as C

    made = {
        NULL_FAMILIES[0]: lambda: C.independent_ar1(rng, agents, cycles, 7),
        NULL_FAMILIES[1]: lambda: C.independent_ar1(rng, agents, cycles, 7, start_sd=3.0),
        NULL_FAMILIES[2]: lambda: C.shared_drive(rng, agents, cycles, 7, sigma=1.0),
        NULL_FAMILIES[3]: lambda: C.heterogeneous_ar1(rng, agents, cycles, 7),
        NULL_FAMILIES[4]: lambda: C.independent_halves(rng, agents, cycles, 8),
        NULL_FAMILIES[6]: lambda: C.lagged_drive(rng, agents, cycles, 6, lags=(0, 1, 2)),
        NULL_FAMILIES[7]: lambda: C.lagged_drive(rng, agents, cycles, 6, lags=(0, 1)),
        NULL_FAMILIES[8]: lambda: C.variance_jump(rng, agents, cycles, 6),
        NULL_FAMILIES[9]: lambda: C.variance_jump(rng, agents, cycles, 6, same_time=True),
        NULL_FAMILIES[10]: lambda: C.simulate_ensemble(C.dense_halves(rng, agents, 8), cycles, rng),
        NULL_FAMILIES[11]: lambda: C.variance_jump(rng, agents, cycles, 8, A=C.dense_halves(rng, agents, 8)),
    }.get(family)
    if made is not None:
        return made()
    units, names = runs[int(rng.integers(len(runs)))]
    return disconnect_modules(units, names, rng)


def target_system(family: str, rng: np.random.Generator, agents: int) -> np.ndarray:
    """(agents, n, n): the agents of one ensemble of an accuracy family."""
    from cognition.phi import calibration as C

    if family == TARGET_FAMILIES[0]:
        return C.random_agents(rng, agents, int(rng.integers(6, 9)))
    base = C.strong_system() if family == TARGET_FAMILIES[1] else C.near_tied_system()
    return C.sign_flipped(base, rng, agents)


def _estimate(X: np.ndarray, surrogates: int, seed: int) -> tuple[float, float, float, float]:
    from cognition import phi

    r = phi.estimate(X, bootstrap=1, surrogates=surrogates, seed=seed)
    lo, hi = r.ci["phi_r"]
    return r.p_value["phi_r"], r.headline("phi_r"), lo, hi


_SHARED: dict = {"runs": {}}  # the settings and agents -> real runs, set once per worker (_share)


def _share(settings: dict, runs: dict) -> None:
    _SHARED.update(settings=settings, runs=runs)


def _null_task(task) -> tuple:
    family, agents, cycles, index = task
    seed, surrogates = _SHARED["settings"]["seed"], _SHARED["settings"]["surrogates"]
    with cpu_threads(1):
        X = null_system(family, _rng(seed, family, agents, cycles, index), agents, cycles, _SHARED["runs"].get(agents))
        return _estimate(X, surrogates, index)


def _target_task(task) -> tuple:
    from cognition.phi import calibration as C

    family, agents, cycles, index = task
    with cpu_threads(1):
        rng = _rng(_SHARED["settings"]["seed"], family, agents, cycles, index)
        A = target_system(family, rng, agents)
        truth = float(C.exact_per_agent(A).mean())
        return (truth,) + _estimate(C.simulate_ensemble(A, cycles, rng), _SHARED["settings"]["surrogates"], index)


def real_run_units(mode: str, seed: int, agents: int = 8, cycles: int = 50) -> tuple[np.ndarray, list[str]]:
    """Units (agents, cycles, n) of a run of the loop's agents (default config, no Phi; not their
    yoked twins or donors), and their names."""
    from cognition.simulator.build import assemble
    from cognition.config.settings import load_config

    cfg = load_config(overrides={"run": {"agents": agents, "cycles": cycles, "seed": seed},
                                 "quantum": {"mode": mode}, "runtime": {"device": "cpu"}})
    loop = assemble(cfg).loop
    state, rows = loop.initial_state(), []
    for _ in range(cycles):
        state, _, signals = loop.advance(state)
        rows.append(signals)
    return np.stack(rows, axis=1)[loop.intact], loop.unit_names


def disconnect_modules(units: np.ndarray, names: list[str], rng: np.random.Generator) -> np.ndarray:
    """Each node's units (a module's, or the workspace's) taken from a different agent.

    Node g of agent a comes from agent sigma((a + s_g) mod A), sigma a random permutation and
    the offsets s_g distinct, so no agent contributes two nodes to one system.
    """
    agents = units.shape[0]
    nodes = sorted({n.split(".")[0] for n in names})
    if len(nodes) > agents:
        raise ValueError(f"{len(nodes)} nodes need at least as many agents, got {agents}")
    sigma, offsets = rng.permutation(agents), rng.choice(agents, size=len(nodes), replace=False)
    out = np.empty_like(units)
    for node, s in zip(nodes, offsets):
        cols = [i for i, n in enumerate(names) if n.split(".")[0] == node]
        out[:, :, cols] = units[sigma[(np.arange(agents) + s) % agents]][:, :, cols]
    return out


def _rate(x) -> float:
    return float(np.mean(x)) if len(x) else float("nan")


def _measured(pool, task, sizes, families, count: int):
    """(family, agents, cycles, results (count, k), seconds) for every size and family, tasks run on ``pool``
    (the real-run family at 50 cycles only, the length of its runs)."""
    for agents, cycles in sizes:
        for family in families:
            if family == REAL and cycles != 50:
                continue
            t0 = time.perf_counter()
            tasks = [(family, agents, cycles, i) for i in range(count)]
            yield family, agents, cycles, np.array(list(pool.map(task, tasks, chunksize=2))), time.perf_counter() - t0


def _null_rows(args, pool) -> list[dict]:
    rows = []
    families = args.families or NULL_FAMILIES
    for family, agents, cycles, out, seconds in _measured(pool, _null_task, args.null_sizes, families, args.systems):
        p, head, lo = out[:, 0], out[:, 1], out[:, 2]
        row = {"family": family, "agents": agents, "cycles": cycles, "systems": len(out), "alpha": args.alpha,
               "false_positive_rate": _rate(p < args.alpha), "verdict_rate": _rate((p < args.alpha) & (lo > 0)),
               "ci_above_zero_rate": _rate(lo > 0), "median_headline_bits": float(np.median(head)),
               "seconds": seconds}
        rows.append(row)
        print(f"{family}, {agents} x {cycles}: {row['systems']} systems, test false positives "
              f"{row['false_positive_rate']:.3f}, verdict false positives {row['verdict_rate']:.3f}, CI above 0 "
              f"{row['ci_above_zero_rate']:.3f}, median headline {row['median_headline_bits']:+.4f} bits, "
              f"{row['seconds']:.0f} s", flush=True)
    return rows


def _accuracy_rows(args, pool) -> list[dict]:
    rows = []
    for family, agents, cycles, out, seconds in _measured(pool, _target_task, SIZES, TARGET_FAMILIES, args.draws):
        truth, p, head, lo, hi = out.T
        err = head - truth
        row = {"family": family, "agents": agents, "cycles": cycles, "draws": len(out),
               "mean_exact_phi_r_bits": float(truth.mean()), "median_error_bits": float(np.median(err)),
               "mean_error_bits": float(err.mean()), "coverage": _rate((lo <= truth) & (truth <= hi)),
               "mean_width_bits": float((hi - lo).mean()), "power": _rate(p < args.alpha),
               "verdict_power": _rate((p < args.alpha) & (lo > 0)), "seconds": seconds}
        rows.append(row)
        print(f"{family}, {agents} x {cycles}: {row['draws']} draws, exact mean Phi_R "
              f"{row['mean_exact_phi_r_bits']:.3f} bits, median error {row['median_error_bits']:+.3f}, "
              f"coverage {row['coverage']:.3f}, width {row['mean_width_bits']:.3f}, test power "
              f"{row['power']:.3f}, verdict power {row['verdict_power']:.3f}, {row['seconds']:.0f} s", flush=True)
    return rows


def main(argv: list[str] | None = None) -> dict:
    args = _parser().parse_args(argv)
    _check(args)
    out = {"settings": vars(args)}
    runs = {}
    with cpu_threads(1):
        if args.only != "accuracy" and REAL in (args.families or NULL_FAMILIES):
            runs = {a: [real_run_units(mode, seed, agents=a) for mode in ("lite", "disabled")
                        for seed in range(args.runs)] for a in sorted({a for a, c in args.null_sizes if c == 50})}
        with bound_pool(args.jobs, initializer=_share, initargs=(vars(args), runs)) as pool:  # workers die with us
            if args.only != "accuracy":
                out["null_families"] = _null_rows(args, pool)
            if runs:
                largest = max(runs)
                res = np.array([_estimate(units, args.surrogates, i) for i, (units, _) in enumerate(runs[largest])])
                out["intact_runs"] = {"runs": len(res), "agents": largest, "cycles": 50,
                                      "power": _rate(res[:, 0] < args.alpha),
                                      "verdict_power": _rate((res[:, 0] < args.alpha) & (res[:, 2] > 0)),
                                      "median_headline_bits": float(np.median(res[:, 1]))}
                print(f"intact real runs ({len(res)}, {largest} agents x 50 cycles): called integrated by the test "
                      f"{out['intact_runs']['power']:.3f}, by the verdict {out['intact_runs']['verdict_power']:.3f}, "
                      f"median headline {out['intact_runs']['median_headline_bits']:+.4f} bits", flush=True)
            if args.only != "nulls":
                out["accuracy"] = _accuracy_rows(args, pool)
    return out
