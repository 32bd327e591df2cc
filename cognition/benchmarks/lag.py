"""``python -m cognition.bench lag``: ``lag="auto"`` on coupled oscillators and their shuffled controls.

Finely sampled continuous-time data (issue 44: 20 trials x 300 steps x 6 Kuramoto channels read as "not
integrated" at lag 1). Each draw is one system (``cognition.phi.calibration.kuramoto``: its own random
graph and natural frequencies, a period of about 25 samples) at each ``--couplings`` value, and its
shuffled control (``trial_shuffled``: each unit from another trial, every bipartition null). Both are
estimated as ``python -m cognition.phi`` does (``phi.estimate(X, lag=L)``, its defaults: interval across
trials, 200 permutations) at every lag of ``--lags`` ("auto" and integers). Reported per coupling and
lag: the lag used, the test's rejection rate, the interval above 0 and the verdict (both, the command's
"integrated: yes"), for the coupled systems (power) and the controls (false positives), with 95 %
Clopper-Pearson intervals. Then the rule itself against known time scales: AR(1) relaxations (their
decorrelation time ceil(-1 / ln rho)) and the oscillators (a quarter period), by the decorrelation
rule ``lag="auto"`` uses and by the first minimum of the auto mutual information it does not.
"""
from __future__ import annotations

import time
import zlib

import numpy as np

from cognition.analysis.summary import integration_verdict
from cognition.benchmarks import refuse, suite_parser
from cognition.benchmarks.compare import rate
from cognition.cli import MAX_WORKERS, int_between, lag_value
from cognition.phi.validation import MAX_RESAMPLES
from cognition.runtime.lifeline import bound_pool
from cognition.runtime.threads import cpu_threads

RULE_DRAWS = 20  # systems per row of the rule's check against known time scales
AR_RHOS = (0.5, 0.8, 0.95)


def _parser():
    p = suite_parser("lag", description=__doc__.splitlines()[0])
    p.add_argument("--draws", type=int_between(1, 100_000), default=100,
                   help="systems per coupling, each with its shuffled control (default 100)")
    p.add_argument("--couplings", type=float, nargs="+", default=[0.5, 1.5, 3.0], metavar="K",
                   help="Kuramoto coupling strengths, rad per unit time, 0 to 100 (default 0.5 1.5 3.0)")
    p.add_argument("--lags", type=lag_value, nargs="+", default=["auto", 1], metavar="LAG",
                   help="lags to estimate at: 'auto' and integers >= 1 (default auto 1)")
    p.add_argument("--trials", type=int_between(5, 1000), default=20, help="trials per system (default 20)")
    p.add_argument("--cycles", type=int_between(20, 20_000), default=300, help="samples per trial (default 300)")
    p.add_argument("--units", type=int_between(2, 10), default=6, help="oscillators (default 6)")
    p.add_argument("--surrogates", type=int_between(1, MAX_RESAMPLES), default=200,
                   help="permutations of the integration test (default 200, the command's)")
    p.add_argument("--alpha", type=float, default=0.05, help="level of the test (default 0.05)")
    p.add_argument("--seed", type=int_between(0, 2**32 - 1), default=44)
    p.add_argument("--jobs", type=int_between(1, MAX_WORKERS), default=1,
                   help="worker processes, one CPU thread each (default 1)")
    return p


_SETTINGS: dict = {}


def _share(settings: dict) -> None:
    _SETTINGS.update(settings)


def _draw_task(task) -> list[tuple]:
    """One system at one coupling and its shuffled control, estimated at every lag: rows (kind, lag asked,
    lag used, p, headline, lower, verdict)."""
    from cognition import phi
    from cognition.phi.calibration import kuramoto, trial_shuffled

    coupling, index = task
    s = _SETTINGS
    rng = np.random.default_rng([s["seed"], int(round(coupling * 1000)), index])
    with cpu_threads(1):
        X = kuramoto(rng, s["trials"], s["cycles"], s["units"], coupling)
        systems = {"coupled": X, "shuffled": trial_shuffled(rng, X)}
        rows = []
        for kind, data in systems.items():
            for lag in s["lags"]:
                r = phi.estimate(data, lag=lag, surrogates=s["surrogates"], seed=index)
                ci, p = list(r.ci["phi_r"]), r.p_value["phi_r"]
                passed = integration_verdict(r.headline_bits, ci, p, s["alpha"])["passed"]
                rows.append((kind, str(lag), r.lag, p, r.headline_bits, ci[0], bool(passed)))
    return rows


def _rates(hits: np.ndarray) -> dict:
    return rate(int(np.sum(hits)), len(hits))


def _summary_rows(results: dict, args) -> list[dict]:
    rows = []
    for coupling, draws in results.items():
        table = [row for rows_of_draw in draws for row in rows_of_draw]
        for kind in ("coupled", "shuffled"):
            for lag in dict.fromkeys(str(x) for x in args.lags):
                mine = [r for r in table if r[0] == kind and r[1] == lag]
                used = np.array([r[2] for r in mine])
                p, head, lower, verdict = (np.array([r[i] for r in mine]) for i in (3, 4, 5, 6))
                row = {"coupling": coupling, "system": kind, "lag": lag, "draws": len(mine),
                       "lag_used": {"median": float(np.median(used)), "min": int(used.min()), "max": int(used.max())},
                       "test": _rates(p < args.alpha), "ci_above_zero": _rates(lower > 0),
                       "verdict": _rates(verdict), "median_headline_bits": float(np.median(head))}
                rows.append(row)
                what = "power" if kind == "coupled" else "false positives"
                print(f"K {coupling:g}, {kind}, lag {lag} (used {row['lag_used']['median']:g}, "
                      f"{row['lag_used']['min']}..{row['lag_used']['max']}): {what}: test "
                      f"{_pct(row['test'])}, CI above 0 {_pct(row['ci_above_zero'])}, verdict {_pct(row['verdict'])}; "
                      f"median headline {row['median_headline_bits']:+.4f} bits", flush=True)
    return rows


def _pct(measured: dict) -> str:
    lo, hi = measured["ci"]
    return f"{measured['rate']:.1%} [{lo:.1%}, {hi:.1%}]"


def rule_rows(seed: int, trials: int, cycles: int, units: int) -> list[dict]:
    """The decorrelation rule and the first AMI minimum against known time scales (RULE_DRAWS systems each):
    AR(1) units of coefficient rho (decorrelation time ceil(-1 / ln rho)) and the oscillators at coupling 1.5
    (a quarter of the mean period, 2 pi / omega / dt / 4 samples)."""
    from cognition.phi.autolag import choose_lag, first_ami_minimum
    from cognition.phi.estimate import auto_lag_range
    from cognition.phi.calibration import independent_ar1, kuramoto

    max_lag = auto_lag_range(trials, cycles, units, "agent")
    cases = [(f"AR(1) rho {rho}", float(np.ceil(-1.0 / np.log(rho))), "decorrelation time",
              lambda rng, rho=rho: independent_ar1(rng, trials, cycles, units, rho)) for rho in AR_RHOS]
    cases.append(("Kuramoto K 1.5", 2 * np.pi / 1.0 / 0.25 / 4, "quarter period",
                  lambda rng: kuramoto(rng, trials, cycles, units, 1.5)))
    rows = []
    for name, truth, meaning, make in cases:
        rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
        decor, first_min = [], []
        for _ in range(RULE_DRAWS):
            X = make(rng)
            decor.append(choose_lag(X, max_lag).lag)
            first_min.append(float(np.median(first_ami_minimum(X, max_lag))))
        row = {"system": name, "reference": truth, "reference_is": meaning, "draws": RULE_DRAWS,
               "auto_lag_median": float(np.median(decor)), "auto_lag_range": [int(min(decor)), int(max(decor))],
               "first_ami_minimum_median": float(np.median(first_min)),
               "first_ami_minimum_range": [float(min(first_min)), float(max(first_min))]}
        rows.append(row)
        print(f"rule, {name}: {meaning} {truth:.1f}; lag='auto' (decorrelation) median {row['auto_lag_median']:g} "
              f"({row['auto_lag_range'][0]}..{row['auto_lag_range'][1]}); first AMI minimum median "
              f"{row['first_ami_minimum_median']:g} ({row['first_ami_minimum_range'][0]:g}.."
              f"{row['first_ami_minimum_range'][1]:g})", flush=True)
    return rows


def main(argv: list[str] | None = None) -> dict:
    args = _parser().parse_args(argv)
    bad = [f"--couplings {k}: allowed 0 to 100" for k in args.couplings if not 0.0 <= k <= 100.0]
    bad += [f"--alpha {args.alpha}: allowed 0 < alpha < 1"] if not 0.0 < args.alpha < 1.0 else []
    bad += [f"--units {args.units}: at most --trials ({args.trials}), the shuffled control takes each unit from "
            "another trial"] if args.units > args.trials else []
    refuse(bad)
    settings = {"seed": args.seed, "trials": args.trials, "cycles": args.cycles, "units": args.units,
                "surrogates": args.surrogates, "alpha": args.alpha, "lags": args.lags}
    out = {"settings": {**vars(args)}}
    t0 = time.perf_counter()
    with cpu_threads(1):
        out["rule"] = rule_rows(args.seed, args.trials, args.cycles, args.units)
        with bound_pool(args.jobs, initializer=_share, initargs=(settings,)) as pool:  # workers die with us
            results = {k: list(pool.map(_draw_task, [(k, i) for i in range(args.draws)], chunksize=1))
                       for k in args.couplings}
    out["rows"] = _summary_rows(results, args)
    out["seconds"] = time.perf_counter() - t0
    return out
