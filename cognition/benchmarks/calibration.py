"""``python -m cognition.bench calibration``: how far the printed Phi statistics can be trusted.

Measures, with ``cognition.phi.estimate`` at the package's settings (per-agent
standardisation, bias correction, jackknife interval, the intersection-union
trial-shuffling test of cognition.phi.cut_test):

* false-positive rate at alpha of "integrated" (p < alpha) on three families of
  systems with no integration across any bipartition: stationary independent AR(1) units;
  independent units with a shared start-up transient; and units of real runs of the loop
  with each module's units (and the workspace's) taken from a different agent, so that
  the modules are causally disconnected but keep their own dynamics;
* the median and mean reported (bias-corrected) Phi on independent units;
* power: the share of coupled systems called integrated, on the coupled VAR(1) at each
  sample size and on the intact real runs the third family is made from;
* coverage of the nominal CI of Phi_R on a coupled 8-node VAR(1) with exact Phi, against
  the exact Phi at the true MIB and at the bipartition the estimate states, at
  (agents, cycles) = (8, 50), (8, 200), (32, 50).
"""
from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from cognition.runtime.threads import cpu_threads

SIZES = ((8, 50), (8, 200), (32, 50))
# The measured table that reports quote; refresh it with
# python -m cognition.bench calibration --seed 1 --json cognition/benchmarks/calibration_record.json
RECORD = Path(__file__).with_name("calibration_record.json")
COMMAND = "python -m cognition.bench calibration"


def applicable_calibration(agents: int, cycles: int, record: Path = RECORD) -> dict | None:
    """The recorded calibration figures for a run's size: every null family, and the coverage row
    nearest (agents, cycles) on a log scale (None when no record is installed)."""
    if not record.exists():
        return None
    table = json.loads(record.read_text())
    table = table.get("calibration", table)  # the bench's --json wraps each suite's results by name
    row = min(table["coverage"], key=lambda r: abs(math.log(r["agents"] / agents)) + abs(math.log(r["cycles"] / cycles)))
    families = [{"family": f["family"], "false_positive_rate": f["false_positive_rate"], "systems": f["systems"]}
                for f in table["null_families"]]
    keep = ("agents", "cycles", "draws", "coverage_true_mib", "coverage_stated_mib", "power")
    return {"command": f"{COMMAND} --seed {table['settings']['seed']}", "alpha": table["settings"]["alpha"],
            "null_families": families,
            "coverage": {k: row[k] for k in keep if k in row},
            "exact_size": (row["agents"], row["cycles"]) == (agents, cycles)}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m cognition.bench calibration",
                                description="False-positive rates, bias and CI coverage of phi.estimate.")
    p.add_argument("--systems", type=int, default=200, help="systems per null family (default 200)")
    p.add_argument("--draws", type=int, default=200, help="VAR(1) draws per sample size (default 200)")
    p.add_argument("--surrogates", type=int, default=200, help="null surrogates per test (default 200)")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--runs", type=int, default=10, help="loop runs per mode for the real-run family")
    p.add_argument("--seed", type=int, default=0)
    return p


def _test(X, args, seed) -> tuple[float, float]:
    from cognition import phi

    r = phi.estimate(X, bootstrap=1, surrogates=args.surrogates, seed=seed)
    return r.p_value["phi_r"], r.headline("phi_r")


def _family_row(name: str, systems, args) -> dict:
    t0 = time.perf_counter()
    out = np.array([_test(X, args, args.seed + i) for i, X in enumerate(systems)])
    return {"family": name, "systems": len(out), "alpha": args.alpha,
            "false_positive_rate": float(np.mean(out[:, 0] < args.alpha)),
            "rejection_rate": float(np.mean(out[:, 0] < args.alpha)),
            "median_phi_r_bits": float(np.median(out[:, 1])), "mean_phi_r_bits": float(np.mean(out[:, 1])),
            "seconds": time.perf_counter() - t0}


def _synthetic(args, start_sd):
    from cognition.phi.calibration import independent_ar1

    rng = np.random.default_rng(args.seed)
    for _ in range(args.systems):
        yield independent_ar1(rng, 8, 50, 8, start_sd=start_sd)


def real_run_units(mode: str, seed: int, agents: int = 8, cycles: int = 50) -> tuple[np.ndarray, list[str]]:
    """Units (agents, cycles, n) of a run of the loop's agents (default config, no Phi; not their
    yoked twins or donors), and their names."""
    from cognition.assemble import assemble
    from cognition.config import load_config

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


def _loop_runs(args) -> list[tuple[np.ndarray, list[str]]]:
    return [real_run_units(mode, seed) for mode in ("lite", "disabled") for seed in range(args.runs)]


def _real_runs(args, runs):
    rng = np.random.default_rng(args.seed)
    per_run = -(-args.systems // len(runs))
    for units, names in runs:
        for _ in range(per_run):
            yield disconnect_modules(units, names, rng)


def coverage_rows(args) -> list[dict]:
    from cognition import phi
    from cognition.phi.calibration import ExactPhi, calibration_var1

    A, noise = calibration_var1()
    exact = ExactPhi(A, noise)
    truth = exact.result.phi_r
    rows = []
    for agents, T in SIZES:
        t0 = time.perf_counter()
        res = []
        for d in range(args.draws):
            X = phi.simulate_var1(A, noise, T, agents=agents, seed=args.seed * 100_000 + d)
            r = phi.estimate(X, bootstrap=1, surrogates=args.surrogates, seed=d)
            lo, hi = r.ci["phi_r"]
            stated = exact.at(r.mib)
            res.append((lo <= truth <= hi, lo <= stated <= hi, hi - lo, r.headline(), r.mib == exact.result.mib,
                        r.mib_stability, r.p_value["phi_r"] < args.alpha))
        a = np.array(res, dtype=float)
        rows.append({"agents": agents, "cycles": T, "draws": args.draws, "exact_phi_r_bits": truth,
                     "coverage_true_mib": float(a[:, 0].mean()), "coverage_stated_mib": float(a[:, 1].mean()),
                     "mean_width_bits": float(a[:, 2].mean()), "median_phi_r_bits": float(np.median(a[:, 3])),
                     "true_mib_found": float(a[:, 4].mean()), "mean_mib_stability": float(a[:, 5].mean()),
                     "power": float(a[:, 6].mean()),
                     "seconds": time.perf_counter() - t0})
    return rows


def main(argv: list[str] | None = None) -> dict:
    args = _parser().parse_args(argv)
    with cpu_threads(1):
        families = [_family_row("stationary independent AR(1)", _synthetic(args, None), args),
                    _family_row("independent, shared start-up transient (3 SD)", _synthetic(args, 3.0), args)]
        print(_family_line(families[0]), flush=True)
        print(_family_line(families[1]), flush=True)
        runs = _loop_runs(args)
        families.append(_family_row("real runs, modules from different agents", _real_runs(args, runs), args))
        print(_family_line(families[2]), flush=True)
        intact = _family_row("real runs, intact (power)", (units for units, _ in runs), args)
        print(_family_line(intact).replace("false positives", "called integrated"), flush=True)
        coverage = coverage_rows(args)
    for row in coverage:
        print(f"coverage (agents {row['agents']}, cycles {row['cycles']}, {row['draws']} draws): "
              f"true MIB {row['coverage_true_mib']:.3f}, stated MIB {row['coverage_stated_mib']:.3f}, "
              f"width {row['mean_width_bits']:.3f} bits, median Phi_R {row['median_phi_r_bits']:.3f} "
              f"(exact {row['exact_phi_r_bits']:.4f}), true MIB found {row['true_mib_found']:.2f}, "
              f"called integrated {row['power']:.3f}")
    return {"settings": vars(args), "null_families": families, "intact_runs": intact, "coverage": coverage}


def _family_line(row: dict) -> str:
    return (f"{row['family']}: {row['systems']} systems, false positives {row['false_positive_rate']:.3f} "
            f"at alpha {row['alpha']}, median reported Phi_R {row['median_phi_r_bits']:.4f} bits "
            f"(mean {row['mean_phi_r_bits']:.4f}), {row['seconds']:.0f} s")
