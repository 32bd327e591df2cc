"""``python -m cognition.bench phi``: Gaussian Phi MIB search speed and Queyranne's accuracy.

Times (medians over repeats, wall clock, this process):
  - exhaustive MIB search of an exact VAR(1) covariance, n = 4..16;
  - Queyranne + local search, n = 32..128 (and side by side with exhaustive at n <= 16);
  - the integration loop's calls: per-cycle ``estimate`` (n = 8, 8 agents, 15-step
    window, Ledoit-Wolf) and the end-of-run call (8 agents x 50 cycles, 200 bootstrap
    replicates, 200 surrogates).
Accuracy: on random sparse VAR(1) systems, how often Queyranne's MIB is the exhaustive
MIB, and the worst relative excess of its criterion Phi_WMS / K.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from cognition.benchmarks import device_problem, refuse, suite_parser
from cognition.cli import int_between
from cognition.runtime.threads import cpu_threads


def _random_var1(n: int, rng: np.random.Generator) -> np.ndarray:
    A = rng.normal(size=(n, n)) * (rng.random((n, n)) < 0.5) + np.diag(rng.normal(size=n))
    return A * rng.uniform(0.5, 0.95) / np.max(np.abs(np.linalg.eigvals(A)))


def _median_seconds(fn, repeats: int) -> tuple[float, float]:
    """Median wall-clock and median CPU seconds (this process) of ``fn()`` over repeats.

    CPU time is reported beside wall time because on a shared machine other processes
    stretch the wall clock; with one BLAS thread, CPU time is the work itself.
    """
    fn()  # warm caches (bipartition tables, imports)
    wall, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return float(np.median(wall)), float(np.median(cpu))


def _parser():
    p = suite_parser("phi", description=__doc__.split("\n")[0])
    p.add_argument("--exhaustive", type=int_between(2, 20), nargs="+", default=[4, 6, 8, 10, 12, 14, 16],
                   metavar="N", help="node counts of the exhaustive search (2 to 20: 2^(N-1) - 1 bipartitions)")
    p.add_argument("--queyranne", type=int_between(2, 256), nargs="+", default=[32, 64, 96, 128], metavar="N",
                   help="node counts of Queyranne's search (2 to 256)")
    p.add_argument("--repeats", type=int_between(1, 1000), default=5,
                   help="timed repeats per size (median reported; 1 to 1000)")
    p.add_argument("--agreement", type=int_between(2, 20), nargs="*", default=[8, 10, 12, 14, 16], metavar="N",
                   help="sizes for the Queyranne-vs-exhaustive agreement (2 to 20; none: skip)")
    p.add_argument("--systems", type=int_between(1, 100_000), default=30,
                   help="random systems per agreement size (1 to 100000)")
    p.add_argument("--device", default=None, help="torch device for the exhaustive search: cpu, cuda or cuda:N "
                                                  "(default: numpy); a device this machine lacks is refused")
    p.add_argument("--blas-threads", type=int_between(0, 1024), default=1,
                   help="OpenBLAS threads while timing (default 1; 0: leave the library default; 0 to 1024)")
    p.add_argument("--seed", type=int_between(0, 2**32 - 1), default=0)
    return p


def main(argv: list[str] | None = None) -> dict:
    args = _parser().parse_args(argv)
    if args.device is not None:
        refuse([problem for problem in [device_problem("--device", args.device)] if problem])
    with cpu_threads(args.blas_threads or None) as threads:
        print(f"CPU threads: {threads}")
        results = _run(args)
    results["blas_threads"] = threads
    return results


def _run(args: argparse.Namespace) -> dict:
    from cognition import phi
    from cognition.phi.search import phi_at_mib

    rng = np.random.default_rng(args.seed)
    results: dict = {"exhaustive_s": {}, "queyranne_s": {}, "loop_s": {}, "agreement": {}}

    print(f"{'n':>4} {'search':<11} {'bipartitions':>12} {'wall s':>9} {'cpu s':>9}")

    def row(n, search, count, times, extra=""):
        results[f"{search}_s"][n] = {"wall": times[0], "cpu": times[1]}
        print(f"{n:>4} {search:<11} {count:>12} {times[0]:>9.4f} {times[1]:>9.4f}{extra}")

    for n in args.exhaustive:
        cov = phi.lagged_joint_covariance(_random_var1(n, rng), np.eye(n))[None]
        ex = _median_seconds(lambda: phi_at_mib(cov, "exhaustive", args.device), args.repeats)
        row(n, "exhaustive", phi.n_bipartitions(n), ex)
        if n >= 12:
            qu = _median_seconds(lambda: phi_at_mib(cov, "queyranne"), args.repeats)
            row(n, "queyranne", "", qu, f"   (exhaustive / queyranne wall = {ex[0] / qu[0]:.2f})")
    for n in args.queyranne:
        cov = phi.lagged_joint_covariance(_random_var1(n, rng), np.eye(n))[None]
        row(n, "queyranne", "", _median_seconds(lambda: phi_at_mib(cov, "queyranne"), min(args.repeats, 3 if n > 64 else 5)))

    A = _random_var1(8, rng)
    window = phi.simulate_var1(A, np.eye(8), 15, agents=8, seed=1)
    A7 = _random_var1(7, rng)
    run = phi.simulate_var1(A7, np.eye(7), 50, agents=32, seed=2)
    loop = {
        "per_cycle (8 agents x 15 steps, n=8, pooled, ledoit-wolf)":
            lambda: phi.estimate(window, shrinkage="ledoit-wolf", centre="pooled"),
        "end_of_run (32 agents x 50 steps, n=7, per agent, 40 bias ensembles, interval, 200 permutations)":
            lambda: phi.estimate(run, bootstrap=1, surrogates=200, seed=3),
    }
    print(f"\n{'wall s':>9} {'cpu s':>9}  integration-loop call")
    for name, fn in loop.items():
        wall, cpu = _median_seconds(fn, args.repeats)
        results["loop_s"][name] = {"wall": wall, "cpu": cpu}
        print(f"{wall:>9.4f} {cpu:>9.4f}  {name}")

    if args.agreement:
        print(f"\n{'n':>4} {'systems':>8} {'same MIB':>9} {'worst excess of Phi/K':>22} {'worst |dPhi_WMS| bits':>22}")
    for n in args.agreement:
        same, excess, dphi = 0, 0.0, 0.0
        for _ in range(args.systems):
            cov = phi.lagged_joint_covariance(_random_var1(n, rng), np.eye(n))[None]
            ex, qu = phi_at_mib(cov, "exhaustive"), phi_at_mib(cov, "queyranne")
            same += bool((ex["masks"] == qu["masks"]).all())
            crit = [r["phi_wms"][0] / r["k_norm"][0] for r in (ex, qu)]
            excess = max(excess, (crit[1] - crit[0]) / abs(crit[0]))
            dphi = max(dphi, abs(qu["phi_wms"][0] - ex["phi_wms"][0]))
        results["agreement"][n] = {"systems": args.systems, "same_mib": same,
                                   "worst_relative_excess": excess, "worst_abs_phi_wms_difference_bits": dphi}
        print(f"{n:>4} {args.systems:>8} {same:>9} {excess:>22.3g} {dphi:>22.3g}")
    return results
