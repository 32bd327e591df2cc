"""``python -m cognition.bench iit4``: exact IIT 4.0 phi_s and Phi-structure, seconds by node count.

Cases: rings of n cells of elementary cellular automaton rule 30 with noise (P(ON) = 0.9
where the rule gives 1, else 0.1; every unit reads its left neighbour, itself and its
right neighbour) for n = 3..8 in state 10...0, and for n = 2 the noisy majority ring
(rule 232); and per n a dense network (all-to-all, P(ON) drawn uniformly in [0.05, 0.95],
seed n) in state 1010... Timed (wall seconds here, `--repeats` warm calls, median; the
first, cold call, which also builds the partition tables, reported separately):

- phi_s (``iit4``, system level) of each case of `--nodes` (default 2..7);
- all 2^5 states of the 5-node ring in one batched call (``iit4_batch``), and with 8 in `--nodes` all 2^8 of the
  8-node ring (one warm call: each state evaluates 2 x 510 313 directed partitions);
- the peak memory of the largest phi_s case (tracemalloc);
- the Phi-structure (``phi_structure``: SIA, distinctions resolved for congruence,
  relations, big Phi) of the same ring and dense cases for `--structure-nodes` (default
  2..5); returned under "structure".

With PyPhi 2.0's virtualenv (``--pyphi-venv``, default /tmp/pyphi2/venv when it exists)
PyPhi's own CPU seconds on the same networks are measured in the same run by
benchmarks/pyphi_compare/pyphi2_worker.py (one process per case, PyPhi's parallelism off),
and the ratio printed: ``sia`` up to `--pyphi-max-nodes` nodes, and the Phi-structure
(what="ces": SIA, congruent distinctions, analytical relations) up to
`--pyphi-structure-max-nodes` nodes (at 5 nodes 1-3 minutes per network, so from 5 nodes on
only the ring unless `--pyphi-structure-all` is given), with whether big Phi and phi_s agree
within 1e-6 relative.
"""
from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

from cognition.benchmarks import suite_parser
from cognition.cli import int_between

from .iit3 import elementary_ca

DEFAULT_VENV = "/tmp/pyphi2/venv"
WORKER = Path(__file__).resolve().parents[2] / "benchmarks" / "pyphi_compare" / "pyphi2_worker.py"


def noisy_ring(rule: int, n: int, noise: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """(tpm, cm) of a ring of n elementary-CA cells with P(ON) = 1 - noise / noise."""
    det, cm = elementary_ca(rule, n)
    return noise + (1.0 - 2.0 * noise) * det, cm


def dense_network(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(tpm, cm): all-to-all, P(ON) uniform in [0.05, 0.95] rounded to 2 decimals (seed n)."""
    rng = np.random.default_rng(n)
    return np.round(rng.uniform(0.05, 0.95, size=(1 << n, n)), 2), np.ones((n, n), dtype=int)


def cases(sizes) -> dict[str, dict]:
    """name -> {tpm, cm, state, n}: per node count the noisy ring and a dense network."""
    out = {}
    for n in sizes:
        rule = 232 if n == 2 else 30
        tpm, cm = noisy_ring(rule, n)
        out[f"ring{rule}_{n}"] = dict(tpm=tpm, cm=cm, state=(1,) + (0,) * (n - 1), n=n)
        tpm, cm = dense_network(n)
        out[f"dense_{n}"] = dict(tpm=tpm, cm=cm, state=(1, 0) * (n // 2) + (1,) * (n % 2), n=n)
    return out


def _time(fn, repeats: int) -> tuple[float, float, object]:
    """(first call seconds, median of the next `repeats`, last result)."""
    start = time.perf_counter()
    result = fn()
    first = time.perf_counter() - start
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        seconds.append(time.perf_counter() - start)
    return first, statistics.median(seconds), result


def _peak_mib(fn) -> float:
    """Peak traced Python/numpy allocation (MiB) of fn() with the partition caches cleared."""
    from cognition.phi.iit4 import sia, system_partitions

    system_partitions.partition_table.cache_clear()
    sia._gather_index.cache_clear()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def pyphi_times(venv: str | None, named: dict[str, dict], formalism: str, timeout: float,
                what: str = "sia") -> tuple[dict, str | None]:
    """PyPhi 2.0's CPU seconds per case via pyphi2_worker.py (one process per case, the
    PyPhi calls alone timed, PyPhi's parallelism off), or ({}, reason skipped). `what`: "sia"
    (phi_s) or "ces" (the Phi-structure: SIA, congruent distinctions, analytical relations)."""
    if venv is None:
        return {}, f"no --pyphi-venv given and {DEFAULT_VENV} does not exist"
    python = Path(venv) / "bin" / "python"
    if not python.exists():
        return {}, f"no PyPhi 2.0 virtualenv at {venv}"
    if not WORKER.exists():
        return {}, f"{WORKER} not found (benchmarks/pyphi_compare/ is not in this checkout)"
    out = {}
    for name, case in named.items():
        request = [{"name": name, "what": what, "formalism": formalism, "tpm": case["tpm"].tolist(),
                    "cm": case["cm"].tolist(), "state": list(case["state"]), "nodes": None}]
        env = dict(os.environ, PYPHI_WELCOME_OFF="yes", OPENBLAS_NUM_THREADS="1")
        try:
            proc = subprocess.run([str(python), str(WORKER)], input=json.dumps(request),
                                  capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            out[name] = {"seconds": None, "error": f"timeout after {timeout:g} s"}
            continue
        if proc.returncode != 0:
            tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
            return out, f"pyphi2_worker.py failed on {name}: {tail}"
        reply = json.loads(proc.stdout)["results"][0]
        if reply.get("error"):
            out[name] = {"seconds": None, "error": reply["error"]}
            continue
        out[name] = {"seconds": reply.get("cpu_s"), "phi": reply.get("phi_s"), "big_phi": reply.get("big_phi")}
    return out, None


def _agrees(ours: float, theirs: float | None) -> bool | None:
    """Within 1e-6 relative (plus 1e-12 absolute, for zeros); None without PyPhi's value."""
    if theirs is None:
        return None
    return abs(ours - theirs) <= 1e-6 * abs(theirs) + 1e-12


def structure_rows(named: dict[str, dict], formalism: str, repeats: int) -> list[dict]:
    """The Phi-structure (``phi_structure``) of each case: cold first call and warm median."""
    from cognition.phi.iit4 import phi_structure

    rows = []
    print("Phi-structure (phi_structure):")
    print(f"{'case':<10} {'nodes':>5} {'big Phi':>10} {'phi_s':>10} {'#d':>4} {'#r':>6} {'first s':>9} {'median s':>9}")
    for name, case in named.items():
        first, median, result = _time(
            lambda c=case: phi_structure(c["tpm"], c["state"], c["cm"], formalism=formalism), repeats)
        print(f"{name:<10} {case['n']:>5} {result.big_phi:>10.6f} {result.phi_s:>10.6f} {result.n_distinctions:>4} "
              f"{result.n_relations:>6} {first:>9.4f} {median:>9.4f}")
        rows.append(dict(case=name, nodes=case["n"], big_phi=result.big_phi, phi_s=result.phi_s,
                         n_distinctions=result.n_distinctions, n_relations=result.n_relations,
                         first_seconds=first, seconds_median=median, repeats=repeats))
    return rows


def pyphi_structure_cases(named: dict[str, dict], max_nodes: int, all_kinds: bool) -> dict[str, dict]:
    """The cases PyPhi's Phi-structure is timed on: up to `max_nodes` nodes, and at 5 nodes or
    more (1-3 minutes per network for PyPhi) only the ring unless `all_kinds`."""
    return {k: v for k, v in named.items()
            if v["n"] <= max_nodes and (all_kinds or v["n"] < 5 or k.startswith("ring"))}


def _slowest(rows: list[dict]) -> dict:
    """node count -> the largest median time among its cases (s)."""
    by_nodes: dict = {}
    for row in rows:
        by_nodes.setdefault(row["nodes"], []).append(row["seconds_median"])
    return {n: max(v) for n, v in sorted(by_nodes.items())}


def main(argv: list[str] | None = None) -> dict:
    from cognition.phi.iit4 import iit4, iit4_batch

    p = suite_parser("iit4", description=__doc__.splitlines()[0])
    p.add_argument("--nodes", type=int_between(2, 8), nargs="+", default=[2, 3, 4, 5, 6, 7, 8],
                   help="node counts to run (2 to 8; 8: a second or two to build its partition table)")
    p.add_argument("--repeats", type=int_between(1, 1000), default=5, help="warm runs per case (median; 1 to 1000)")
    p.add_argument("--formalism", choices=["IIT_4_0_2023", "IIT_4_0_2026"], default="IIT_4_0_2023",
                   help="IIT 4.0 formalism (default IIT_4_0_2023)")
    p.add_argument("--pyphi-venv", default=None,
                   help=f"PyPhi 2.0 virtualenv to time PyPhi in the same run (default {DEFAULT_VENV} if it exists)")
    p.add_argument("--pyphi-max-nodes", type=int_between(2, 7), default=6,
                   help="largest node count PyPhi's phi_s (sia) is timed on (2 to 7; 6: about 30 s, 7: many minutes)")
    p.add_argument("--pyphi-timeout", type=int_between(1, 36000), default=900,
                   help="seconds allowed per PyPhi case (1 to 36000)")
    p.add_argument("--structure-nodes", type=int_between(2, 6), nargs="+", default=[2, 3, 4, 5],
                   help="node counts whose Phi-structure is timed (2 to 6; 6: seconds per call)")
    p.add_argument("--pyphi-structure-max-nodes", type=int_between(2, 6), default=5,
                   help="largest node count PyPhi's Phi-structure is timed on (2 to 6; 5: 1-3 minutes per network)")
    p.add_argument("--pyphi-structure-all", action="store_true",
                   help="at 5 nodes or more time PyPhi's Phi-structure on the dense network too, not only the ring")
    args = p.parse_args(argv)
    named = cases(sorted(set(args.nodes)))
    rows = []
    print(f"{'case':<10} {'nodes':>5} {'phi_s':>10} {'first s':>9} {'median s':>9}")  # first: cold call
    for name, case in named.items():
        first, median, result = _time(
            lambda c=case: iit4(c["tpm"], c["state"], c["cm"], formalism=args.formalism), args.repeats)
        print(f"{name:<10} {case['n']:>5} {result.phi_s:>10.6f} {first:>9.4f} {median:>9.4f}")
        rows.append(dict(case=name, nodes=case["n"], phi_s=result.phi_s, partition=str(result.partition),
                         first_seconds=first, seconds_median=median, repeats=args.repeats))
    batch = None
    if 5 in args.nodes:
        tpm, cm = noisy_ring(30, 5)
        states = (np.arange(32)[:, None] >> np.arange(5)) & 1
        first, median, results = _time(lambda: iit4_batch(tpm, states, cm, formalism=args.formalism), args.repeats)
        batch = dict(case="ring30_5", states=32, first_seconds=first, seconds_median=median,
                     phi_s=[r.phi_s if r is not None else None for r in results])
        print(f"all 32 states of ring30_5 in one iit4_batch call: {median:.4f} s (first {first:.4f} s)")
    batch8 = None
    if 8 in args.nodes:
        tpm, cm = noisy_ring(30, 8)
        states = (np.arange(256)[:, None] >> np.arange(8)) & 1
        first, median, results = _time(lambda: iit4_batch(tpm, states, cm, formalism=args.formalism), 1)
        batch8 = dict(case="ring30_8", states=256, first_seconds=first, seconds=median,
                      phi_s=[r.phi_s if r is not None else None for r in results])
        print(f"all 256 states of ring30_8 in one iit4_batch call: {median:.2f} s ({median / 256 * 1e3:.1f} ms per "
              f"state; first {first:.2f} s)")
    largest = max(named.values(), key=lambda c: c["n"])
    peak = _peak_mib(lambda: iit4(largest["tpm"], largest["state"], largest["cm"], formalism=args.formalism))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak traced memory of the {largest['n']}-node case (cold caches): {peak:.1f} MiB; "
          f"process max RSS so far: {rss:.0f} MiB")
    venv = args.pyphi_venv or (DEFAULT_VENV if Path(DEFAULT_VENV).exists() else None)
    timed = {k: v for k, v in named.items() if v["n"] <= args.pyphi_max_nodes}
    pyphi, skipped = pyphi_times(venv, timed, args.formalism, args.pyphi_timeout)
    if skipped:
        print(f"PyPhi 2.0 not timed: {skipped}")
    for row in rows:
        entry = pyphi.get(row["case"])
        if entry and entry.get("seconds"):
            row["pyphi_seconds"] = entry["seconds"]
            row["pyphi_phi_s"] = entry.get("phi")
            row["speedup"] = entry["seconds"] / row["seconds_median"]
    if pyphi:
        print(f"{'case':<10} {'PyPhi s':>9} {'ours s':>9} {'ratio':>8} {'PyPhi phi_s':>12}")
        for row in rows:
            if "pyphi_seconds" in row:
                print(f"{row['case']:<10} {row['pyphi_seconds']:>9.3f} {row['seconds_median']:>9.4f} "
                      f"{row['speedup']:>8.0f} {row['pyphi_phi_s'] if row['pyphi_phi_s'] is not None else '-':>12}")
    slowest = _slowest(rows)
    print("slowest case by node count (s):", ", ".join(f"{n}: {t:.4f}" for n, t in slowest.items()))
    structure = structure_section(args, venv)
    sys.stdout.flush()
    return {"cases": rows, "slowest_seconds_by_nodes": slowest, "batch_all_states_5": batch,
            "batch_all_states_8": batch8, "peak_mib": peak,
            "max_rss_mib": rss, "pyphi_skipped": skipped,
            "formalism": args.formalism, "structure": structure}


def structure_section(args, venv: str | None) -> dict:
    """Time the Phi-structure here and (with the venv) PyPhi's on the same networks; the JSON "structure"."""
    named = cases(sorted(set(args.structure_nodes)))
    rows = structure_rows(named, args.formalism, args.repeats)
    timed = pyphi_structure_cases(named, args.pyphi_structure_max_nodes, args.pyphi_structure_all)
    pyphi, skipped = pyphi_times(venv, timed, args.formalism, args.pyphi_timeout, what="ces")
    if skipped:
        print(f"PyPhi 2.0 Phi-structure not timed: {skipped}")
    for row in rows:
        entry = pyphi.get(row["case"])
        if entry and entry.get("error"):
            row["pyphi_error"] = entry["error"]
        if entry and entry.get("seconds"):
            row["pyphi_seconds"] = entry["seconds"]
            row["pyphi_big_phi"] = entry.get("big_phi")
            row["pyphi_phi_s"] = entry.get("phi")
            row["speedup"] = entry["seconds"] / row["seconds_median"]
            row["big_phi_agrees"] = _agrees(row["big_phi"], row["pyphi_big_phi"])
            row["phi_s_agrees"] = _agrees(row["phi_s"], row["pyphi_phi_s"])
    if pyphi:
        print("Phi-structure, PyPhi 2.0 (what=\"ces\") on the same networks; agree: within 1e-6 relative")
        print(f"{'case':<10} {'PyPhi s':>9} {'ours s':>9} {'ratio':>8} {'PyPhi big Phi':>14} "
              f"{'big Phi agrees':>14} {'phi_s agrees':>12}")
        for row in rows:
            if "pyphi_seconds" in row:
                print(f"{row['case']:<10} {row['pyphi_seconds']:>9.3f} {row['seconds_median']:>9.4f} "
                      f"{row['speedup']:>8.0f} {row['pyphi_big_phi']:>14.6f} {str(row['big_phi_agrees']):>14} "
                      f"{str(row['phi_s_agrees']):>12}")
            elif "pyphi_error" in row:
                print(f"{row['case']:<10} PyPhi not timed: {row['pyphi_error']}")
    compared = [row for row in rows if "big_phi_agrees" in row]
    all_agree = bool(compared) and all(row["big_phi_agrees"] for row in compared)
    if compared:
        print(f"big Phi agrees with PyPhi 2.0 within 1e-6 relative on {sum(r['big_phi_agrees'] for r in compared)}"
              f" of {len(compared)} networks")
    slowest = _slowest(rows)
    print("Phi-structure, slowest case by node count (s):", ", ".join(f"{n}: {t:.4f}" for n, t in slowest.items()))
    return {"cases": rows, "slowest_seconds_by_nodes": slowest, "pyphi_skipped": skipped,
            "pyphi_max_nodes": args.pyphi_structure_max_nodes, "pyphi_all_kinds": args.pyphi_structure_all,
            "big_phi_all_agree": all_agree if compared else None}
