"""``python -m cognition.bench compare``: the false-positive rate of ``cognition.report``'s comparisons.

Runs ``python -m cognition.validate`` (in-process, the same code path) for consecutive seeds
in each mode, then compares runs of the SAME mode made with different seeds, whose true
difference is zero by construction (a seed is an independent draw of the architecture's
weights and noise). Every test compares what ``cognition.report`` compares, each run's
headline Phi (report.json ``phi.headline_bits``, the mean over agents of each agent's own Phi):

* the across-run test (:func:`cognition.analysis.statistics.welch_difference` on the runs'
  headlines) on disjoint groups of ``--group-size`` seeds against ``--group-size`` other
  seeds: with N seeds per mode there are N / (2 k) comparisons that share no run, so that
  their outcomes are independent and the binomial interval of the rate is valid; overlapping
  splits of the same seeds would give more comparisons but not more information. Twice:
  groups of consecutive seeds (0-4 against 5-9, as a user numbers them) and of spaced seeds
  (:func:`splits`), with the correlation of neighbouring seeds' headlines beside them;
* for contrast, the within-seed test (the difference of two runs' headlines with the standard
  error across their agents, :func:`cognition.analysis.statistics.independent_difference`) on
  disjoint pairs of single runs from the same runs (N / 2 pairs per mode), whose standard
  error leaves out the seed-to-seed variation;
* power: the across-run test between the modes, group i of one mode against group i of
  the other.

Each rate comes with its exact (Clopper-Pearson) 95 % interval. Each run needs enough cycles
for a headline (``--cycles``; the runs' ``phi.whole_run_note`` says how many when it is too
few, and the command stops with it). ``--runs DIR`` keeps the runs, and a later call with the
same DIR reuses the finished runs there (delete DIR after changing the architecture: the
output lists the git SHAs the measured runs were made by). Without ``--runs`` every run is
made afresh, so the one command re-measures the current code.
"""
from __future__ import annotations

import contextlib
import io
import shutil
import sys
import tempfile
import time
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from cognition.benchmarks import refuse, suite_parser
from cognition.cli import MAX_WORKERS, int_between
from cognition.runtime.lifeline import bound_pool
from cognition.simulator.rundir import REPORT

COMMAND = "python -m cognition.bench compare"
MAX_RUNS = 10_000  # runs per mode: 2 x --group-size x --comparisons
MAX_AGENT_CYCLES = 10**7  # --agents x --cycles of one run
MODE_FLAGS = {"lite": "--quantum-lite", "disabled": "--disable-quantum", "full": None}


def _parser():
    p = suite_parser("compare", description=(
        "False-positive rate at alpha of cognition.report's across-run test of the runs' headline Phi on "
        "same-mode, different-seed groups of runs, beside the within-seed test on the same runs, and the power "
        "between modes."))
    p.add_argument("--modes", nargs="+", choices=sorted(MODE_FLAGS), default=["lite", "disabled"],
                   help="quantum modes to run (default: lite disabled)")
    p.add_argument("--group-size", type=int_between(2, 1000), default=5, help="seeds per group (2 to 1000; default 5)")
    p.add_argument("--comparisons", type=int_between(1, 10_000), default=40,
                   help="disjoint same-mode group comparisons per mode (default 40; needs 2 x group-size x this runs, "
                        f"at most {MAX_RUNS} per mode)")
    p.add_argument("--cycles", type=int_between(1, 100_000), default=50, help="cycles per run (1 to 100000; default 50)")
    p.add_argument("--agents", type=int_between(1, 4096), default=8, help="agents per run (1 to 4096; default 8)")
    p.add_argument("--control", choices=("yoked", "none"), default="none",
                   help="the runs' causal control (default none: an agent's numbers, and so the Phi compared, are "
                        "bit-identical with and without its yoked twin, which would triple the rows)")
    p.add_argument("--first-seed", type=int_between(0, 2**31), default=1000,
                   help="seeds first-seed, first-seed + 1, ... (0 to 2^31; default 1000)")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--workers", type=int_between(1, MAX_WORKERS), default=1,
                   help=f"runs made in parallel processes (1 to {MAX_WORKERS}; default 1)")
    p.add_argument("--runs", metavar="DIR", help="keep the runs in DIR and reuse the finished ones there "
                                                "(default: a temporary directory, removed at the end)")
    return p


def run_dir(root: Path, mode: str, seed: int, cycles: int, agents: int) -> Path:
    return root / f"{mode}-a{agents}-c{cycles}-s{seed}"


def make_run(path: str, mode: str, seed: int, cycles: int, agents: int, control: str = "none") -> str:
    """One ``cognition.validate`` run into ``path`` (replaced if it holds anything); its output is discarded."""
    from cognition.validate import main

    path = Path(path)
    if path.exists():
        shutil.rmtree(path)
    argv = ["--cycles", str(cycles), "--agents", str(agents), "--seed", str(seed), "--device", "cpu",
            "--control", control, "--out", str(path)]
    if MODE_FLAGS[mode]:
        argv.append(MODE_FLAGS[mode])
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        rc = main(argv)
    if rc not in (0, 1) or not (path / REPORT).is_file():
        raise RuntimeError(f"cognition.validate {' '.join(argv)} exited {rc} without a report")
    return str(path)


def make_runs(root: Path, jobs: list[tuple[str, int]], args) -> dict[tuple[str, int], Path]:
    """Every (mode, seed) run under ``root``, reusing the finished ones; progress on stdout."""
    paths = {job: run_dir(root, *job, args.cycles, args.agents) for job in jobs}
    todo = [job for job in jobs if not (paths[job] / REPORT).is_file()]
    print(f"runs: {len(jobs) - len(todo)} of {len(jobs)} reused from {root}, {len(todo)} to make "
          f"({args.workers} worker{'s' if args.workers > 1 else ''})", flush=True)
    t0 = time.perf_counter()
    with bound_pool(max(1, args.workers), mp_context=get_context("spawn")) as pool:  # workers die with us
        futures = [pool.submit(make_run, str(paths[job]), *job, args.cycles, args.agents, args.control) for job in todo]
        for i, f in enumerate(futures, 1):
            f.result()
            if i % 20 == 0 or i == len(futures):
                print(f"  {i}/{len(futures)} runs made, {time.perf_counter() - t0:.0f} s", flush=True)
    return paths


def rate(hits: int, n: int, confidence: float = 0.95) -> dict:
    """A rejection rate with its exact (Clopper-Pearson) interval."""
    from scipy.stats import binomtest

    ci = binomtest(hits, n).proportion_ci(confidence, method="exact") if n else None
    return {"rejected": hits, "of": n, "rate": hits / n if n else None,
            "ci": [float(ci.low), float(ci.high)] if ci else None}


def _rejections(p_values: list[float], alpha: float) -> dict:
    """How many p-values fall below alpha, as a rate with its exact interval (a NaN p-value counts as no test)."""
    ps = np.asarray(p_values, dtype=float)
    return rate(int(np.sum(ps[np.isfinite(ps)] < alpha)), int(np.isfinite(ps).sum()))


def _p(groups) -> float:
    """The p-value ``cognition.report`` gives for two groups of runs (the same code path)."""
    from cognition.reporting.compare import compare_groups

    (test,) = compare_groups(groups)["tests"]
    if "p_value" not in test:
        raise RuntimeError(f"no test between {test['a']} and {test['b']}: {test.get('note')}")
    return test["p_value"]


def splits(n_runs: int, k: int, spaced: bool = False) -> list[tuple[list[int], list[int]]]:
    """Disjoint k-vs-k comparisons of run indices 0 .. n_runs - 1 (seeds in order), n_runs // (2k) of them.

    Consecutive: seeds 0-4 against 5-9, 10-14 against 15-19, ... (as a user numbers seeds).
    Spaced: comparison c takes seeds c, c + 2C, c + 4C, ... against c + C, c + 3C, ... (C comparisons),
    so that no two seeds of a comparison are neighbours: were neighbouring seeds alike, the
    consecutive groups would show it and these would not."""
    C = n_runs // (2 * k)
    if spaced:
        return [([c + 2 * C * j for j in range(k)], [c + C + 2 * C * j for j in range(k)]) for c in range(C)]
    return [(list(range(2 * c * k, (2 * c + 1) * k)), list(range((2 * c + 1) * k, (2 * c + 2) * k))) for c in range(C)]


def null_rates(runs: list, args) -> dict:
    """Same-mode rates: across-run tests on disjoint k-vs-k groups (consecutive and spaced seeds), the
    within-seed test on disjoint pairs of neighbouring seeds; the headlines' spread across seeds and
    the median standard error of one headline across its agents."""
    k, count = args.group_size, (lambda ps: _rejections(ps, args.alpha))  # noqa: E731
    pick = lambda idx: [runs[i] for i in idx]  # noqa: E731
    consecutive, spaced = splits(len(runs), k), splits(len(runs), k, spaced=True)
    across = [_p([pick(a), pick(b)]) for a, b in consecutive]
    across_spaced = [_p([pick(a), pick(b)]) for a, b in spaced]
    within = [_p([[runs[2 * i]], [runs[2 * i + 1]]]) for i in range(len(runs) // 2)]
    values = np.array([r.report["phi"]["headline_bits"] for r in runs])
    measure = runs[0].report["phi"]["measure"]
    within_se = [r.report["phi"]["whole_run"]["se"][measure] for r in runs]
    return {"runs": len(runs), "across_runs": count(across), "across_runs_spaced": count(across_spaced),
            "within_seed": count(within), "across_runs_random_splits": _random_splits(values, k, args),
            "p_values_across_runs": across, "p_values_across_runs_spaced": across_spaced,
            "p_values_within_seed": within,
            "seed_to_seed_sd_bits": float(np.std(values, ddof=1)), "mean_headline_bits": float(np.mean(values)),
            "neighbour_seed_correlation": float(np.corrcoef(values[:-1], values[1:])[0, 1]),
            "median_within_seed_se_bits": float(np.median(within_se))}


def _random_splits(values: np.ndarray, k: int, args, draws: int = 3000) -> dict:
    """The across-run test on random k-vs-k splits of all the runs' headlines: no partition's luck, but the
    splits share runs, so the rate has no binomial interval."""
    from cognition.analysis.statistics import welch_difference

    rng = np.random.default_rng(args.first_seed)
    picks = [rng.choice(len(values), 2 * k, replace=False) for _ in range(draws)]
    ps = np.array([welch_difference(values[i[:k]], values[i[k:]])["p_value"] for i in picks])
    return {"draws": draws, "rate": float(np.mean(ps < args.alpha))}


def power_rate(by_mode: dict, args) -> dict | None:
    """Across-run test between the first two modes, group j of one against group j of the other."""
    if len(by_mode) < 2:
        return None
    (m1, r1), (m2, r2) = list(by_mode.items())[:2]
    k = args.group_size
    pairs = [(r1[j * k:(j + 1) * k], r2[j * k:(j + 1) * k]) for j in range(min(len(r1), len(r2)) // k)]
    count = lambda ps: _rejections(ps, args.alpha)  # noqa: E731
    return {"modes": [m1, m2], "across_runs": count([_p([a, b]) for a, b in pairs])}


def _require_headlines(runs: list) -> None:
    """Exit 2 with one line when a run has no headline the comparison can use (too few cycles or agents)."""
    from cognition.reporting.compare import headline_missing

    for r in runs:
        why = headline_missing(r.report["phi"])
        if why:
            print(f"error: {r.path}: no headline Phi to compare ({why}); change --cycles or --agents", file=sys.stderr)
            raise SystemExit(2)


def _line(name: str, r: dict, unit: str) -> str:
    return (f"  {name}: {r['rejected']} of {r['of']} {unit} significant at alpha, rate {r['rate']:.3f} "
            f"[95 % CI {r['ci'][0]:.3f}, {r['ci'][1]:.3f}]")


def main(argv: list[str] | None = None) -> dict:
    from cognition.reporting.rundata import load_run

    args = _parser().parse_args(argv)
    bad = [] if 0 < args.alpha < 1 else [f"--alpha {args.alpha}: between 0 and 1 allowed"]
    if 2 * args.group_size * args.comparisons > MAX_RUNS:
        bad.append(f"--group-size {args.group_size} x --comparisons {args.comparisons}: "
                   f"{2 * args.group_size * args.comparisons} runs per mode; allowed at most {MAX_RUNS}")
    if args.agents * args.cycles > MAX_AGENT_CYCLES:
        bad.append(f"--agents {args.agents} x --cycles {args.cycles}: {args.agents * args.cycles:,} agent-cycles per "
                   f"run; allowed at most {MAX_AGENT_CYCLES:,}")
    refuse(bad)
    seeds = list(range(args.first_seed, args.first_seed + 2 * args.group_size * args.comparisons))
    keep = args.runs is not None
    root = Path(args.runs) if keep else Path(tempfile.mkdtemp(prefix="compare-calibration-"))
    try:
        root.mkdir(parents=True, exist_ok=True)
        paths = make_runs(root, [(m, s) for s in seeds for m in args.modes], args)
        by_mode = {m: [load_run(paths[(m, s)]) for s in seeds] for m in args.modes}
        _require_headlines([r for rs in by_mode.values() for r in rs])
        shas = sorted({str(r.provenance.get("package", {}).get("git_sha")) for rs in by_mode.values() for r in rs})
        null = {m: null_rates(rs, args) for m, rs in by_mode.items()}
        pooled = {key: rate(sum(r[key]["rejected"] for r in null.values()), sum(r[key]["of"] for r in null.values()))
                  for key in ("across_runs", "across_runs_spaced", "within_seed")}
        result = {"settings": vars(args), "seeds": [seeds[0], seeds[-1]], "git_sha": shas, "null": null,
                  "null_all_modes": pooled, "power": power_rate(by_mode, args)}
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    print(f"same mode, different seeds ({args.cycles} cycles, {args.agents} agents, seeds {seeds[0]}-{seeds[-1]}, "
          f"alpha {args.alpha}; runs made by {', '.join(shas)}):")
    for mode, r in result["null"].items():
        print(f"{mode}: {r['runs']} runs, headline Phi over seeds {r['mean_headline_bits']:.4f} bits, SD across seeds "
              f"{r['seed_to_seed_sd_bits']:.4f} bits, median standard error of one run's headline across its agents "
              f"{r['median_within_seed_se_bits']:.4f} bits")
        print(f"  correlation of neighbouring seeds' headlines {r['neighbour_seed_correlation']:+.3f}")
        print(_line(f"across runs, {args.group_size} vs {args.group_size} consecutive seeds (used)", r["across_runs"],
                    "disjoint comparisons"))
        print(_line(f"across runs, {args.group_size} vs {args.group_size} spaced seeds (same test)",
                    r["across_runs_spaced"], "disjoint comparisons"))
        print(f"  the same test on {r['across_runs_random_splits']['draws']} random {args.group_size} vs "
              f"{args.group_size} splits of these runs (overlapping): rate {r['across_runs_random_splits']['rate']:.3f}")
        print(_line("within seed, 1 vs 1 run (headline difference, standard error across agents)", r["within_seed"],
                    "disjoint pairs"))
    if len(result["null"]) > 1:
        r = result["null_all_modes"]
        print("all modes together (each comparison within one mode):")
        print(_line("across runs, consecutive seeds (used)", r["across_runs"], "disjoint comparisons"))
        print(_line("across runs, spaced seeds (same test)", r["across_runs_spaced"], "disjoint comparisons"))
        print(_line("within seed", r["within_seed"], "disjoint pairs"))
    if result["power"]:
        modes = " vs ".join(result["power"]["modes"])
        print(f"power, {modes}, {args.group_size} vs {args.group_size} seeds, disjoint groups:")
        print(_line("across runs (used)", result["power"]["across_runs"], "comparisons"))
    return result
