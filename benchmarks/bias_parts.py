"""Where the per-agent estimate's time goes: each part of ``phi.agents.corrected_tables`` and of the rest of
``phi.estimate`` timed on its own (issue 45).

    python benchmarks/bias_parts.py --shape 32 500 7          # a simulated ensemble (agents, T, n)
    python benchmarks/bias_parts.py --file big.npy            # a recording (agents, T, n)

Runs the same steps in the same order as ``corrected_tables`` and ``estimate``'s per-agent path (the data
prepared, their tables, the VAR fit, the 40 bias ensembles simulated, prepared and tabled a block at a time, the
boundary's surrogates, the trial-shuffling test) and prints each part's wall seconds and share. The simulated
ensemble: independent coupled VAR(1) agents (``phi.simulate_var1``, seed 1) plus a shared AR(0.9) course (seed 2).
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from cognition.phi import agents, cut_test, simulate
from cognition.phi.estimate import DEFAULT_SURROGATES
from cognition.phi.measures import every_bipartition
from cognition.phi.var1 import lagged_joint_covariance


def refuse(line: str) -> None:
    """One line on stderr and exit code 2 (bad input)."""
    print(line, file=sys.stderr)
    raise SystemExit(2)


def series(args) -> np.ndarray:
    """The ensemble to time; exit code 2 with one line for a file that is not an (agents, T, n) array, or a
    shape the estimate refuses."""
    if args.file:
        try:
            X = np.load(args.file)
        except (OSError, ValueError) as exc:
            refuse(f"--file {args.file!r}: not a readable .npy ({exc})")
        if X.ndim != 3:
            refuse(f"--file {args.file!r}: shape {X.shape}, expected (agents, T, n)")
        return X
    A, T, n = args.shape
    if A < 5 or n < 2 or n > agents.MAX_NODES or T < agents.PAIRS_PER_VARIABLE * 2 * n + 1:
        refuse(f"--shape {A} {T} {n}: needs agents >= 5, 2 <= n <= {agents.MAX_NODES} and "
               f"T >= {agents.PAIRS_PER_VARIABLE * 2} n + 1")
    rng = np.random.default_rng(0)
    coupling = 0.3 * rng.standard_normal((n, n)) / np.sqrt(n)
    own = simulate.simulate_var1(coupling, np.eye(n), T, agents=A, seed=1)
    return own + 0.5 * simulate.simulate_var1(0.9 * np.eye(n), np.eye(n), T, seed=2)[None]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shape", type=int, nargs=3, default=(32, 500, 7), metavar=("AGENTS", "T", "N"))
    parser.add_argument("--file", help="a .npy of shape (agents, T, n) instead of a simulated ensemble")
    args = parser.parse_args()
    X = series(args)
    A, T, n = X.shape
    rng = np.random.default_rng(0)
    seconds: dict[str, float] = {}

    def timed(label, work):
        start = time.perf_counter()
        out = work()
        seconds[label] = seconds.get(label, 0.0) + time.perf_counter() - start
        return out

    units = timed("data prepared", lambda: np.ascontiguousarray(agents.prepared(X, True)))
    cov = timed("data tables", lambda: agents.agent_covariances(units, 1))
    timed("data tables", lambda: every_bipartition(cov, T - 2))
    B, noise = timed("VAR fit and exact values", lambda: agents.fit_var1(cov, 1))
    timed("VAR fit and exact values", lambda: every_bipartition(
        np.stack([lagged_joint_covariance(b, c, 1) for b, c in zip(B, noise)])))
    block = max(1, agents.REPLICATE_BLOCK_VALUES // (A * T * n))
    blocks = simulate.simulate_agent_blocks(B, noise, T, rng, agents.BIAS_REPLICATES, block)
    covs = []
    while True:
        sims = timed("ensembles simulated", lambda: next(blocks, None))
        if sims is None:
            break
        prepared = timed("ensembles prepared", lambda: agents.prepared(sims, True))
        covs.append(timed("ensembles' covariances", lambda: agents.agent_covariances(prepared, 1)))
    timed("ensembles' bipartitions", lambda: every_bipartition(np.concatenate(covs).reshape(-1, 2 * n, 2 * n), T - 2))
    masks = every_bipartition(cov[:1])["masks"]
    timed("boundary surrogates", lambda: cut_test.shuffled_means(units, 1, masks))
    timed("trial-shuffling test", lambda: cut_test.every_cut_test(units, 1, DEFAULT_SURROGATES, rng))
    total = sum(seconds.values())
    print(f"{A} agents x {T} time steps x {n} units, bias ensembles in blocks of {block}:")
    for label, value in seconds.items():
        print(f"  {label:26s} {value:8.3f} s  {100 * value / total:5.1f} %")
    print(f"  {'total':26s} {total:8.3f} s")


if __name__ == "__main__":
    main()
