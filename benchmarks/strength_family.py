"""Accuracy and coverage on agents that differ in strength (issue 42, criterion 2).

    python benchmarks/strength_family.py --sizes 32x50,8x50,32x200 --draws 100

Each ensemble: half its agents (in a random order) the calibration's near-tied system with random unit signs
(``calibration.near_tied_system``, exact Phi_R 2.044 bits each), the other half eight independent AR(1) units of
coefficients drawn from U(0.3, 0.8) (exact Phi_R 0: every bipartition is independent), drawn from seed
[42, agents, cycles, index]. Each is estimated with the calibration's own call, ``phi.estimate(X, bootstrap=1,
surrogates=200, seed=index)``; the truth is the exact mean per-agent Phi_R (``calibration.exact_per_agent``).
Prints per size the median and mean error of the headline, the interval's coverage and width, the test's power.
"""
from __future__ import annotations

import time

import numpy as np

from cognition import phi
from cognition.benchmarks.calibration import _sizes
from cognition.cli import OneLineParser, int_between, refusing_usage, run_command
from cognition.phi import calibration as C
from cognition.phi.agents import PAIRS_PER_VARIABLE

NODES = 8  # the near-tied system's units (and the independent agents')


def ensemble(rng: np.random.Generator, agents: int) -> np.ndarray:
    """(agents, 8, 8): half the near-tied system with random unit signs, half independent AR(1) units, shuffled."""
    strong = C.sign_flipped(C.near_tied_system(), rng, agents // 2)
    n = strong.shape[-1]
    zero = np.stack([np.diag(rng.uniform(0.3, 0.8, n)) for _ in range(agents - agents // 2)])
    return np.concatenate([strong, zero])[rng.permutation(agents)]


def main(argv=None) -> int:
    return refusing_usage(_main, argv)


def _main(argv) -> int:
    p = OneLineParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=_sizes, default=_sizes("32x50"), help="agents x cycles (default 32x50)")
    p.add_argument("--draws", type=int_between(1, 10_000), default=100, help="ensembles per size (default 100)")
    args = p.parse_args(argv)
    short = [f"{a}x{t}" for a, t in args.sizes if t < PAIRS_PER_VARIABLE * 2 * NODES + 1]
    if short:
        p.error(f"--sizes {','.join(short)}: the per-agent estimate of {NODES} units needs at least "
                f"{PAIRS_PER_VARIABLE * 2 * NODES + 1} cycles")
    for agents, cycles in args.sizes:
        err, cover, power, width = [], [], [], []
        t0 = time.perf_counter()
        for i in range(args.draws):
            rng = np.random.default_rng([42, agents, cycles, i])
            A = ensemble(rng, agents)
            truth = float(C.exact_per_agent(A).mean())
            r = phi.estimate(C.simulate_ensemble(A, cycles, rng), bootstrap=1, surrogates=200, seed=i)
            lo, hi = r.ci["phi_r"]
            err.append(r.headline("phi_r") - truth)
            cover.append(lo <= truth <= hi)
            width.append(hi - lo)
            power.append(r.p_value["phi_r"] < 0.05)
        print(f"{agents} x {cycles}: {args.draws} ensembles, exact mean Phi_R {truth:.3f} bits (last ensemble), "
              f"median error {np.median(err):+.3f} (mean {np.mean(err):+.3f}), coverage {100 * np.mean(cover):.0f} %, "
              f"mean width {np.mean(width):.3f}, test power {100 * np.mean(power):.0f} %, "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    run_command(main)
