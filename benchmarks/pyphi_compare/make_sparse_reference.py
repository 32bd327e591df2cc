"""PyPhi 1.2.0 reference values for sparse stochastic networks (issue 20).

    python benchmarks/pyphi_compare/make_sparse_reference.py            # writes tests/reference/iit3_sparse.json
    python benchmarks/pyphi_compare/make_sparse_reference.py --seed 20 --per-setting 2 --out FILE

Networks come from `cognition.benchmarks.iit3_networks.sparse_logistic_suite` (logistic
units on a random strongly connected graph; n = 3-5, density 0.3-0.6, beta 1, 2, 4).
Each network is sent alone to pyphi_worker.py in PyPhi's own virtualenv (see README.md),
which runs `pyphi.compute.sia` with pyemd's C++ backend, in sequential mode
(PARALLEL_CUT_EVALUATION = False) and in parallel mode (True, with NUMBER_OF_CORES = 1,
so one worker process). Stored per network: the TPM, cm and state; from sequential mode
PyPhi's Phi, MIP cut, every concept's small phi and seconds; under "parallel" the Phi,
cut and seconds of parallel mode (the two modes can differ in the last decimals, see
docs/iit3.md). The file is rewritten after every run, and what it already holds is
skipped, so an interrupted run resumes where it stopped. Nothing here runs `cognition.phi.iit3`: the file holds
PyPhi's values only.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare import run_pyphi  # noqa: E402
from cognition.benchmarks.iit3_networks import sparse_logistic_suite  # noqa: E402

DEFAULT_OUT = ROOT / "tests" / "reference" / "iit3_sparse.json"


def _write(path: Path, data: dict) -> None:
    """JSON with one network per line (diffable, compact)."""
    head = {k: v for k, v in data.items() if k != "networks"}
    lines = [json.dumps(net) for net in data["networks"]]
    text = json.dumps(head, indent=1)[:-2] + ',\n "networks": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n"
    json.loads(text)  # well-formed
    path.write_text(text)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="make_sparse_reference.py", description=__doc__.splitlines()[0])
    p.add_argument("--venv", default="/tmp/pyphi-venv", help="PyPhi 1.2.0 virtualenv (see setup_venv.sh)")
    p.add_argument("--seed", type=int, default=20, help="seed of the network generator")
    p.add_argument("--per-setting", type=int, default=2, help="networks per (n, density, beta)")
    p.add_argument("--sizes", type=int, nargs="+", default=[3, 4, 5])
    p.add_argument("--densities", type=float, nargs="+", default=[0.3, 0.4, 0.5, 0.6])
    p.add_argument("--betas", type=float, nargs="+", default=[1.0, 2.0, 4.0])
    p.add_argument("--modes", nargs="+", default=["sequential", "parallel"], choices=["sequential", "parallel"],
                   help="PyPhi cut evaluations to record (parallel runs with NUMBER_OF_CORES = 1)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = p.parse_args(argv)
    python = Path(args.venv) / "bin" / "python"
    if not python.exists():
        print(f"error: --venv {args.venv}: no {python}; run setup_venv.sh first", file=sys.stderr)
        return 2
    generator = dict(function="cognition.benchmarks.iit3_networks.sparse_logistic_suite", seed=args.seed,
                     sizes=args.sizes, densities=args.densities, betas=args.betas, per_setting=args.per_setting)
    data = {"source": "PyPhi 1.2.0 (pyphi.compute.sia, pyemd C++ backend), made by "
                      "benchmarks/pyphi_compare/make_sparse_reference.py",
            "generator": generator, "networks": []}
    if args.out.exists():
        old = json.loads(args.out.read_text())
        if old.get("generator") == generator:
            data = old
    stored = {net["name"]: net for net in data["networks"]}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for net in sparse_logistic_suite(args.seed, sizes=tuple(args.sizes), densities=tuple(args.densities),
                                     betas=tuple(args.betas), per_setting=args.per_setting):
        entry = stored.get(net["name"])
        if entry is None:
            entry = stored[net["name"]] = dict(
                name=net["name"], n=net["n"], density=net["density"], beta=net["beta"],
                tpm=net["tpm"].tolist(), cm=net["cm"].tolist(), state=list(net["state"]))
            data["networks"].append(entry)
        elif entry["tpm"] != net["tpm"].tolist() or entry["state"] != list(net["state"]):
            raise SystemExit(f"{args.out}: {net['name']} differs from what the generator makes now; "
                             "write to a new --out")
        case = dict(tpm=net["tpm"], cm=net["cm"], state=net["state"], nodes=None)
        for mode in args.modes:
            if (mode == "sequential" and "phi" in entry) or (mode == "parallel" and "parallel" in entry):
                continue
            res = run_pyphi(python, net["name"], case, [mode], 1, cores=1)
            out = res["results"][net["name"]][mode]
            data["pyphi_version"], data["numpy"] = res["pyphi_version"], res["numpy"]
            if mode == "sequential":
                entry.update(phi=out["phi"], cut=out["cut"], small_phis=out["small_phis"],
                             pyphi_seconds=out["seconds"][0])
            else:
                entry["parallel"] = dict(phi=out["phi"], cut=out["cut"], pyphi_seconds=out["seconds"][0])
            _write(args.out, data)
            print(f"{net['name']:<18} {mode:<10} Phi {out['phi']:.6f} cut {out['cut']} {out['seconds'][0]:.1f} s",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
