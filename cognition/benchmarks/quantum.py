"""Quantum bench: 1000 parameter sets per-set Aer loop vs one batched Aer call vs torch (issue 4, item 4).

Also re-measures the CPU crossover that backend `auto` encodes (quantum.select): for a
few batch sizes, the widest circuit at which batched torch still beats batched Aer.
All timings in one run, side by side; medians over --repeats.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

from cognition.benchmarks import refuse, suite_parser
from cognition.cli import int_between
from quantum import angle_encoded_reservoir, make_backend
from quantum.select import torch_is_faster_on_cpu

TARGETS = {"aer_batched": 3.0, "torch": 10.0}  # required speed-up over the per-set loop (issue 4)
MAX_AMPLITUDES = 2**24  # --sets x 2^width: 4 kept arrays of float64 probabilities, 512 MiB at the top


def _parser():
    p = suite_parser("quantum", description=__doc__.split("\n")[0] + " The probabilities of every path are kept "
                     "(4 arrays of sets x 2^width float64): sets x 2^(widest width) is refused above "
                     f"{MAX_AMPLITUDES:,}, one line, exit 2.")
    p.add_argument("--sets", type=int_between(1, 100_000), default=1000,
                   help="parameter sets per width (1 to 100000; default 1000)")
    p.add_argument("--widths", type=int_between(1, 20), nargs="+", default=[4, 8],
                   help="qubit counts (1 to 20; default 4 8)")
    p.add_argument("--depth", type=int_between(1, 100), default=3, help="reservoir layers (1 to 100; default 3)")
    p.add_argument("--repeats", type=int_between(1, 100), default=3,
                   help="timed repeats of each batched call; the median is reported (1 to 100)")
    p.add_argument("--loop-repeats", type=int_between(1, 100), default=1,
                   help="timed repeats of the per-set loop (default 1: it is itself --sets timed calls; 1 to 100)")
    p.add_argument("--threads", type=int_between(1, 1024), default=2,
                   help="Aer max_parallel_threads and torch threads (1 to 1024)")
    p.add_argument("--no-crossover", action="store_true", help="skip the auto-rule crossover sweep")
    return p


def _median_seconds(fn, repeats: int, stop_after_s: float = float("inf")) -> tuple[float, object]:
    """Median wall time of `repeats` calls (fewer, at least one, once `stop_after_s` seconds are spent)."""
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
        if sum(times) > stop_after_s:
            break
    return statistics.median(times), out


def _paths(width: int, args, aer, torch_backend) -> dict:
    circuit = angle_encoded_reservoir(width, width, args.depth, seed=0)
    params = np.random.default_rng(width).uniform(-1.0, 1.0, size=(args.sets, width))
    aer.probabilities(circuit, params[:2])  # transpile once (cached), warm both paths
    torch_backend.probabilities(circuit, params[:2])

    def loop():
        return np.concatenate([aer.probabilities(circuit, params[i:i + 1]) for i in range(args.sets)])

    t_loop, p_loop = _median_seconds(loop, args.loop_repeats)
    t_aer, p_aer = _median_seconds(lambda: aer.probabilities(circuit, params), args.repeats)
    t_torch, p_torch = _median_seconds(lambda: torch_backend.probabilities(circuit, params), args.repeats)
    return {"width": width, "sets": args.sets, "gates": len(circuit.gates),
            "seconds": {"aer_loop": t_loop, "aer_batched": t_aer, "torch": t_torch},
            "speedup": {"aer_batched": t_loop / t_aer, "torch": t_loop / t_torch},
            "max_abs_diff": {"aer_batched": float(np.abs(p_aer - p_loop).max()),
                             "torch": float(np.abs(p_torch - p_loop).max())}}


def _crossover(args, aer, torch_backend) -> list[dict]:
    """Per batch size: torch/aer time by width, while batch x 2^width <= 2^21 amplitudes and
    until Aer has won at two widths in a row."""
    rows = []
    for batch in (1, 16, 256, 1000):
        aer_wins_in_a_row = 0
        for width in range(4, 21, 2):
            if batch * 2**width > 2**21 or aer_wins_in_a_row == 2:  # past the crossover: stop
                break
            circuit = angle_encoded_reservoir(width, width, args.depth, seed=0)
            params = np.random.default_rng(batch + width).uniform(-1.0, 1.0, size=(batch, width))
            aer.probabilities(circuit, params[:1])
            torch_backend.probabilities(circuit, params[:1])
            t_aer, _ = _median_seconds(lambda: aer.probabilities(circuit, params), args.repeats, 1.0)
            t_torch, _ = _median_seconds(lambda: torch_backend.probabilities(circuit, params), args.repeats, 1.0)
            rule_torch, _ = torch_is_faster_on_cpu(width, batch)
            aer_wins_in_a_row = aer_wins_in_a_row + 1 if t_aer <= t_torch else 0
            rows.append({"batch": batch, "width": width, "aer_s": t_aer, "torch_s": t_torch,
                         "torch_faster": t_torch < t_aer, "rule_picks": "torch" if rule_torch else "aer"})
    return rows


def main(argv: list[str] | None = None) -> dict:
    args = _parser().parse_args(argv)
    if args.sets * 2 ** max(args.widths) > MAX_AMPLITUDES:
        refuse([f"--sets {args.sets} x 2^{max(args.widths)} (--widths): {args.sets * 2 ** max(args.widths):,} "
                f"probabilities per path; allowed at most {MAX_AMPLITUDES:,} (2^24)"])
    cap = max(max(args.widths), 20)
    common = dict(device="cpu", max_qubits=cap, threads=args.threads, memory_budget_bytes=2**31)
    aer, torch_backend = make_backend("aer", **common), make_backend("torch", **common)
    print(f"{args.sets} parameter sets, angle_encoded_reservoir(depth={args.depth}), threads={args.threads}, "
          f"median of {args.repeats} (loop: {args.loop_repeats})")
    print(f"{'qubits':>6} {'gates':>5} {'Aer loop s':>11} {'Aer batch s':>12} {'torch s':>9} "
          f"{'Aer x':>7} {'torch x':>8} {'max |dp|':>9}")
    rows = []
    for width in args.widths:
        r = _paths(width, args, aer, torch_backend)
        rows.append(r)
        s, x = r["seconds"], r["speedup"]
        print(f"{width:>6} {r['gates']:>5} {s['aer_loop']:>11.3f} {s['aer_batched']:>12.3f} {s['torch']:>9.3f} "
              f"{x['aer_batched']:>7.1f} {x['torch']:>8.1f} {max(r['max_abs_diff'].values()):>9.1e}")
    checks = {f"{path} >= {need:g}x loop at {r['width']} qubits": r["speedup"][path] >= need
              for r in rows for path, need in TARGETS.items()}
    for name, ok in checks.items():
        print(f"  {'PASS' if ok else 'FAIL'}  {name}")
    result = {"paths": rows, "checks": checks, "backends": [aer.describe(), torch_backend.describe()]}
    if not args.no_crossover:
        print("auto crossover (rule: torch when batch x 2^width < 2^20 amplitudes, else Aer)")
        print(f"{'batch':>6} {'qubits':>6} {'Aer s':>9} {'torch s':>9} {'faster':>7} {'rule':>6}")
        cross = _crossover(args, aer, torch_backend)
        for c in cross:
            print(f"{c['batch']:>6} {c['width']:>6} {c['aer_s']:>9.4f} {c['torch_s']:>9.4f} "
                  f"{'torch' if c['torch_faster'] else 'aer':>7} {c['rule_picks']:>6}")
        agree = sum((c["rule_picks"] == "torch") == c["torch_faster"] for c in cross)
        print(f"  rule agrees with this run's measurement at {agree}/{len(cross)} points")
        result["crossover"] = {"rows": cross, "rule_agrees": agree, "points": len(cross)}
    return result


if __name__ == "__main__":
    main()
