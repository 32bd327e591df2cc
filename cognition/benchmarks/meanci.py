"""``python -m cognition.bench meanci``: coverage of the report's CI of mean per-cycle Phi.

The report's ``phi.mean_bits`` is the mean of the per-cycle Phi_R series (each value over a
trailing window of cycles, pooled over agents) and ``phi.mean_ci_bits`` its interval
(:func:`cognition.analysis.batch_means_ci`). Its target is the expectation of a per-cycle
value. On a stationary coupled VAR(1) (``calibration_var1``, 8 nodes) that target is known to
Monte Carlo precision: the mean per-cycle Phi_R of many independent stationary windows of the
same length and agent count. Each run simulates ``agents`` independent agents for ``cycles``
cycles from the stationary distribution, computes the per-cycle series as the loop does
(``phi.estimate``, pooled centring) and asks whether the interval covers the target. The
block bootstrap the report used before (circular, blocks as long as the window) is measured
beside it on the same series.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

SIZES = ((8, 50), (32, 50), (8, 200), (32, 200))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m cognition.bench meanci", description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=300, help="runs per size (default 300)")
    p.add_argument("--truth-windows", type=int, default=4000,
                   help="independent stationary windows for the target (default 4000)")
    p.add_argument("--window", type=int, default=12, help="per-cycle Phi window (default 12, the config's)")
    p.add_argument("--confidence", type=float, default=0.95)
    p.add_argument("--seed", type=int, default=7)
    return p


class StationaryVar1:
    """Stationary simulations of ``calibration_var1``: (agents, cycles, n) arrays."""

    def __init__(self):
        from cognition.phi.calibration import calibration_var1, stationary_covariance

        self.A, noise = calibration_var1()
        self.n = self.A.shape[0]
        self._start = np.linalg.cholesky(stationary_covariance(self.A, noise))
        self._noise = np.linalg.cholesky(noise)

    def simulate(self, rng: np.random.Generator, agents: int, cycles: int) -> np.ndarray:
        x = rng.standard_normal((agents, self.n)) @ self._start.T
        X = np.empty((agents, cycles, self.n))
        for t in range(cycles):
            x = x @ self.A.T + rng.standard_normal((agents, self.n)) @ self._noise.T
            X[:, t] = x
        return X


def per_cycle_phi(X: np.ndarray, window: int) -> np.ndarray:
    """The per-cycle Phi_R series of X (agents, cycles, n) as the loop computes it."""
    from cognition import phi

    return np.array([phi.estimate(X[:, t - window + 1:t + 1], lag=1, shrinkage=None, centre="pooled").phi_r
                     for t in range(window - 1, X.shape[1])])


def block_bootstrap_ci(series: np.ndarray, block: int, n_boot: int, confidence: float, seed: int):
    """The interval the report used before 0.2.0's batch means: percentile interval of the mean over
    circular block-bootstrap resamples (Politis & Romano 1992), blocks of ``block`` values."""
    x = np.asarray(series, dtype=np.float64)
    T = len(x)
    starts = np.random.default_rng(seed).integers(0, T, size=(n_boot, -(-T // block)))
    idx = ((starts[:, :, None] + np.arange(block)) % T).reshape(n_boot, -1)[:, :T]
    lo, hi = np.quantile(x[idx].mean(axis=1), [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(lo), float(hi)


def coverage_row(var: StationaryVar1, agents: int, cycles: int, args) -> dict:
    from cognition.analysis import batch_means_ci

    t0 = time.perf_counter()
    rng = np.random.default_rng([args.seed, agents, cycles])
    target = float(np.mean([per_cycle_phi(var.simulate(rng, agents, args.window), args.window)[0]
                            for _ in range(args.truth_windows)]))
    methods = {"batch_means": lambda s, r: batch_means_ci(s, args.window, args.confidence),
               "block_bootstrap": lambda s, r: block_bootstrap_ci(s, args.window, 200, args.confidence, r)}
    hits, widths = {k: 0 for k in methods}, {k: [] for k in methods}
    for r in range(args.runs):
        series = per_cycle_phi(var.simulate(rng, agents, cycles), args.window)
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
    rows = []
    with cpu_threads(1):
        var = StationaryVar1()
        for agents, cycles in SIZES:
            row = coverage_row(var, agents, cycles, args)
            rows.append(row)
            print(f"{agents} agents x {cycles} cycles: target {row['target_bits']:.4f} bits; nominal "
                  f"{args.confidence:.0%}: batch means {row['coverage_batch_means']:.1%} (width "
                  f"{row['mean_width_batch_means_bits']:.3f}), block bootstrap {row['coverage_block_bootstrap']:.1%} "
                  f"(width {row['mean_width_block_bootstrap_bits']:.3f}); {row['runs']} runs, {row['seconds']:.0f} s",
                  flush=True)
    return {"settings": vars(args), "sizes": rows}
