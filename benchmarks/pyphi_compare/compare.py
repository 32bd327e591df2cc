"""Side-by-side: `cognition.phi.iit3` against PyPhi 1.2.0 on the same cases, same run.

    python benchmarks/pyphi_compare/compare.py                      # 3-6 node cases
    python benchmarks/pyphi_compare/compare.py --cases basic big --json out.json

Set OPENBLAS_NUM_THREADS=1 (both sides inherit it) to time one core against one core.

Ours runs in this environment; PyPhi runs in its own virtualenv (see README.md and
setup_venv.sh) through pyphi_worker.py, case by case, interleaved with ours so both see
the same machine load. Printed: Phi from each, their difference, median wall seconds,
and the speed-up (PyPhi seconds / ours). PyPhi is timed in sequential mode (its
fastest on a small machine) and in parallel-cut mode (its default configuration).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cognition.benchmarks.iit3 import cases, node_count, time_case  # noqa: E402

WORKER = Path(__file__).with_name("pyphi_worker.py")


def run_pyphi(python: Path, name: str, case: dict, modes: list[str], repeats: int, cores: int | None = None) -> dict:
    request = {
        "repeats": repeats,
        "modes": modes,
        "cores": cores,
        "cases": [{
            "name": name,
            "tpm": case["tpm"].tolist(),
            "cm": None if case["cm"] is None else case["cm"].tolist(),
            "state": list(case["state"]),
            "nodes": None if case["nodes"] is None else list(case["nodes"]),
        }],
    }
    # PyPhi writes pyphi.log and a cache folder into its working directory.
    with tempfile.TemporaryDirectory() as cwd:
        proc = subprocess.run([str(python), str(WORKER)], input=json.dumps(request), capture_output=True,
                              text=True, cwd=cwd, env={**os.environ, "PYPHI_WELCOME_OFF": "yes"})
    if proc.returncode != 0:
        raise RuntimeError(f"PyPhi worker failed on {name}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    all_cases = cases()
    p = argparse.ArgumentParser(prog="compare.py", description=__doc__.splitlines()[0])
    p.add_argument("--venv", default="/tmp/pyphi-venv", help="PyPhi 1.2.0 virtualenv (see setup_venv.sh)")
    p.add_argument("--cases", nargs="+", choices=list(all_cases),
                   default=[name for name, case in all_cases.items() if node_count(case) <= 6])
    p.add_argument("--repeats", type=int, default=3, help="runs of ours per case (median)")
    p.add_argument("--pyphi-repeats", type=int, default=1, help="runs of PyPhi per case and mode")
    p.add_argument("--parallel-max-nodes", type=int, default=5,
                   help="time PyPhi's parallel mode only up to this many nodes")
    p.add_argument("--pyphi-cores", type=int, default=1,
                   help="processes of PyPhi's parallel mode (NUMBER_OF_CORES; 0: PyPhi's default, all)")
    p.add_argument("--pyphi-max-nodes", type=int, default=6,
                   help="run PyPhi only up to this many nodes (above: ours alone)")
    p.add_argument("--workers", type=int, default=1, help="processes for our cut evaluation")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = p.parse_args(argv)
    python = Path(args.venv) / "bin" / "python"
    if not python.exists():
        print(f"error: --venv {args.venv}: no {python}; create it with "
              f"bash {Path(__file__).with_name('setup_venv.sh')} {args.venv}", file=sys.stderr)
        return 2
    rows = []
    header = (f"{'case':<10} {'n':>2} {'Phi PyPhi':>11} {'Phi ours':>11} {'|diff|':>8} "
              f"{'PyPhi seq s':>11} {'PyPhi par s':>11} {'ours s':>8} {'x seq':>7} {'x par':>7}")
    print(header)
    for name in args.cases:
        case = all_cases[name]
        n = node_count(case)
        modes = ["sequential"] + (["parallel"] if n <= args.parallel_max_nodes else [])
        ours_s, ours = time_case(case, args.repeats, args.workers)
        if n > args.pyphi_max_nodes:
            rows.append(dict(case=name, nodes=n, phi_ours=ours.phi, ours_s=ours_s, workers=args.workers,
                             cut_ours=[list(ours.cut.from_nodes), list(ours.cut.to_nodes)] if ours.cut else None))
            print(f"{name:<10} {n:>2} {'-':>11} {ours.phi:>11.6f} {'-':>8} {'-':>11} {'-':>11} {ours_s:>8.3f}",
                  flush=True)
            continue
        ref = run_pyphi(python, name, case, modes, args.pyphi_repeats, cores=args.pyphi_cores or None)
        res = ref["results"][name]
        seq = statistics.median(res["sequential"]["seconds"])
        par = statistics.median(res["parallel"]["seconds"]) if "parallel" in res else None
        phi_ref = res["sequential"]["phi"]
        row = dict(case=name, nodes=n, phi_pyphi=phi_ref, phi_ours=ours.phi, abs_diff=abs(phi_ref - ours.phi),
                   cut_pyphi=res["sequential"]["cut"], cut_ours=[list(ours.cut.from_nodes), list(ours.cut.to_nodes)]
                   if ours.cut else None, pyphi_sequential_s=seq, pyphi_parallel_s=par, ours_s=ours_s,
                   speedup_vs_sequential=seq / ours_s, speedup_vs_parallel=(par / ours_s) if par else None,
                   phi_pyphi_parallel=res["parallel"]["phi"] if par else None, workers=args.workers)
        rows.append(row)
        par_txt = f"{par:>11.2f}" if par else f"{'-':>11}"
        xpar = f"{row['speedup_vs_parallel']:>7.1f}" if par else f"{'-':>7}"
        print(f"{name:<10} {n:>2} {phi_ref:>11.6f} {ours.phi:>11.6f} {row['abs_diff']:>8.1e} "
              f"{seq:>11.2f} {par_txt} {ours_s:>8.3f} {row['speedup_vs_sequential']:>7.1f} {xpar}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"pyphi": "1.2.0", "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
