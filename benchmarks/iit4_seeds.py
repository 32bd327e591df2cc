"""The architecture's table of IIT 4.0 by intervention in docs/iit4.md: both modes, seeds 0-9, 32 agents.

    python benchmarks/iit4_seeds.py OUT_DIR [--seeds 10] [--draws 256]

Runs ``python -m cognition.experiment iit4`` per mode, seed and condition (skipping a JSON already in OUT_DIR,
so a stopped call resumes): all 7 units intact (no test: ``--null 0``); one unit per owner
(expectation.content_mean, unconscious.content_mean, hybrid.p_act, workspace.broadcast_mean: every owner's
value can be set even under the lesions, where the expectation module's two units move together) intact and with
``--lesion broadcast`` and ``--lesion proposals``, each with 19 null TPMs. Then prints, per mode and condition, over all agents: the mean
phi_s, how many agents have phi_s > 0, how many tests reject at 0.05, the maximal complexes and how many span
modules and workspace, and the KL of the counted TPM from the product of its marginals beside its floor.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

FOUR = "expectation.content_mean,unconscious.content_mean,hybrid.p_act,workspace.broadcast_mean"
CONDITIONS = {"all7": ("all 7 units, intact", ["--null", "0"]),
              "intact4": ("one unit per owner, intact", ["--units", FOUR]),
              "broadcast4": ("one unit per owner, broadcast lesion", ["--units", FOUR, "--lesion", "broadcast"]),
              "proposals4": ("one unit per owner, proposals lesion", ["--units", FOUR, "--lesion", "proposals"])}
MODES = {"disabled": "--disable-quantum", "lite": "--quantum-lite"}


def spans(units: list) -> bool:
    owners = {u.split(".")[0] for u in units}
    return "workspace" in owners and len(owners) > 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--draws", type=int, default=256)
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for mode, flag in MODES.items():
        for seed in range(args.seeds):
            for cond, (_, extra) in CONDITIONS.items():
                f = out / f"{mode}-{seed}-{cond}.json"
                if not f.exists():
                    subprocess.run([sys.executable, "-m", "cognition.experiment", "iit4", flag, "--seed", str(seed),
                                    "--agents", "32", "--draws", str(args.draws), "--bootstrap", "0", "--null", "19",
                                    *extra, "--json", str(f)], check=True, stdout=subprocess.DEVNULL)
    print("| mode | elements, condition | mean phi_s | agents with phi_s > 0 | test rejects (0.05) | maximal complexes "
          "| spanning modules and workspace | KL / floor (bits) |")
    print("|---|---|---|---|---|---|---|---|")
    for mode in MODES:
        for cond, (label, _) in CONDITIONS.items():
            agents = [e for seed in range(args.seeds)
                      for e in json.loads((out / f"{mode}-{seed}-{cond}.json").read_text())["agents"]]
            n = len(agents)
            tested = [e for e in agents if e["p_value"] is not None]
            rejects = f"{sum(e['p_value'] <= 0.05 for e in tested)} / {len(tested)}" if tested else "(no test)"
            kinds = Counter("+".join(e["complex"]) or "(none)" for e in agents).most_common(4)
            print(f"| {mode} | {label} | {sum(e['phi_s'] for e in agents) / n:.4f} | "
                  f"{sum(e['phi_s'] > 0 for e in agents)} / {n} | {rejects} | "
                  + ", ".join(f"{k} {v}" for k, v in kinds)
                  + f" | {sum(spans(e['complex']) for e in agents)} / {n} | "
                  f"{sum(e['kl_bits'] for e in agents) / n:.2f} / {sum(e['kl_floor_bits'] for e in agents) / n:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
