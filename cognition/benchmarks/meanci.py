"""``python -m cognition.bench meanci``: coverage of the report's CI of mean per-cycle Phi.

The report's ``phi.mean_bits`` is the mean of the per-cycle Phi_R series (each value over a
trailing window of cycles, pooled over agents) and ``phi.mean_ci_bits`` its interval
(:func:`cognition.analysis.statistics.batch_means_ci`). Its target is the expectation of a per-cycle
value. On a stationary coupled VAR(1) (``calibration_var1``, 8 nodes) that target is known to
Monte Carlo precision: the mean per-cycle Phi_R of many independent stationary windows of the
same length and agent count. Each run simulates ``agents`` independent agents for ``cycles``
cycles from the stationary distribution (``phi.simulate_var1``), computes the per-cycle series
as the loop does (every trailing window, pooled centring) and asks whether the interval covers
the target. The circular block bootstrap that batch means replaced is measured beside it on
the same series.
"""
from __future__ import annotations

import time

import numpy as np

from cognition.benchmarks import refuse, suite_parser
from cognition.cli import int_between

SIZES = ((8, 50), (32, 50), (8, 200), (32, 200))


def _parser():
    p = suite_parser("meanci", description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int_between(1, 100_000), default=300, help="runs per size (1 to 100000; default 300)")
    p.add_argument("--truth-windows", type=int_between(1, 1_000_000), default=4000,
                   help="independent stationary windows for the target (1 to 1000000; default 4000)")
    p.add_argument("--window", type=int_between(2, min(c for _, c in SIZES)), default=12,
                   help=f"per-cycle Phi window (2 to {min(c for _, c in SIZES)}, the shortest run; default 12, "
                        "the config's)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (0 < c < 1; default 0.95)")
    p.add_argument("--seed", type=int_between(0, 2**32 - 1), default=7)
    return p


def per_cycle_phi(X: np.ndarray, window: int) -> np.ndarray:
    """The per-cycle Phi_R series of X (agents, cycles, n): every trailing window, pooled centring, as the
    loop computes it (``IntegrationLoop.phi_at``; ``estimate_windows`` runs them as one batch)."""
    from cognition.phi.windows import estimate_windows

    return estimate_windows(X, window).phi_r


def block_bootstrap_ci(series: np.ndarray, block: int, n_boot: int, confidence: float, seed: int):
    """The interval batch means replaced (in the report for one commit, 8e0e688; 0.1.0 had the moving-block
    variant): percentile interval of the mean over circular block-bootstrap resamples (Politis & Romano
    1992), blocks of ``block`` values."""
    x = np.asarray(series, dtype=np.float64)
    T = len(x)
    starts = np.random.default_rng(seed).integers(0, T, size=(n_boot, -(-T // block)))
    idx = ((starts[:, :, None] + np.arange(block)) % T).reshape(n_boot, -1)[:, :T]
    lo, hi = np.quantile(x[idx].mean(axis=1), [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(lo), float(hi)


def coverage_row(agents: int, cycles: int, args) -> dict:
    from cognition.analysis.statistics import batch_means_ci
    from cognition.phi import simulate_var1
    from cognition.phi.calibration import calibration_var1

    t0 = time.perf_counter()
    A, noise = calibration_var1()
    rng = np.random.default_rng([args.seed, agents, cycles])
    target = float(np.mean([per_cycle_phi(simulate_var1(A, noise, args.window, agents, rng), args.window)[0]
                            for _ in range(args.truth_windows)]))
    methods = {"batch_means": lambda s, r: batch_means_ci(s, args.window, args.confidence),
               "block_bootstrap": lambda s, r: block_bootstrap_ci(s, args.window, 200, args.confidence, r)}
    hits, widths = {k: 0 for k in methods}, {k: [] for k in methods}
    for r in range(args.runs):
        series = per_cycle_phi(simulate_var1(A, noise, cycles, agents, rng), args.window)
        for name, ci_of in methods.items():
            lo, hi = ci_of(series, r)
            hits[name] += lo <= target <= hi
            widths[name].append(hi - lo)
    return {"agents": agents, "cycles": cycles, "runs": args.runs, "target_bits": target,
            **{f"coverage_{k}": hits[k] / args.runs for k in methods},
            **{f"mean_width_{k}_bits": float(np.mean(widths[k])) for k in methods},
            "seconds": time.perf_counter() - t0}


def main(argv: list[str] | None = None) -> dict:
    from cognition.runtime.threads import cpu_threads

    args = _parser().parse_args(argv)
    if not 0.0 < args.confidence < 1.0:  # also NaN
        refuse([f"--confidence {args.confidence}: allowed 0 < c < 1"])
    rows = []
    with cpu_threads(1):
        for agents, cycles in SIZES:
            row = coverage_row(agents, cycles, args)
            rows.append(row)
            print(f"{agents} agents x {cycles} cycles: target {row['target_bits']:.4f} bits; nominal "
                  f"{args.confidence:.0%}: batch means {row['coverage_batch_means']:.1%} (width "
                  f"{row['mean_width_batch_means_bits']:.3f}), block bootstrap {row['coverage_block_bootstrap']:.1%} "
                  f"(width {row['mean_width_block_bootstrap_bits']:.3f}); {row['runs']} runs, {row['seconds']:.0f} s",
                  flush=True)
    return {"settings": vars(args), "sizes": rows}
