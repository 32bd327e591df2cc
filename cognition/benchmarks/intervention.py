"""``python -m cognition.bench intervention``: IIT 4.0 by intervention (issue 46) on known networks and its cost.

Known networks run through the module protocol and the real loop (``binary_net.py`` beside this file, loaded as
a plug-in by path): per network and number of draws, over ``--agents`` agents (independent replications of the
same network), the estimate of phi_s against the exact value (``phi.iit4`` on the true TPM, in each agent's
modal state), the coverage of its interval and the rejections of its test. Then the cost on the architecture:
TPM and IIT 4.0 of each of ``--arch-agents`` agents x 7 units in each mode at each of ``--arch-draws`` (the
scaling in agents and draws; the command's defaults are 32 agents and 256 draws). Between them, the lesion analysis's control that
can fail: a loop through the workspace (``binary_net.XorLoop``) intact and with each lesion.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from cognition.benchmarks import refuse, suite_parser
from cognition.cli import int_between
from cognition.phi.validation import MAX_RESAMPLES

TOY = Path(__file__).resolve().parent / "binary_net.py"
NETWORKS = ("copy_ring3", "copy_ring4", "independent3", "two_pairs4", "or_and_xor3")


def _parser():
    p = suite_parser("intervention", description=__doc__.splitlines()[0])
    p.add_argument("--networks", nargs="+", choices=NETWORKS, default=list(NETWORKS), help="known networks")
    p.add_argument("--draws", type=int_between(1, 10_000), nargs="+", default=[64, 256],
                   help="interventions per macro state (default 64 256)")
    p.add_argument("--agents", type=int_between(2, 1000), default=50, help="agents per network (default 50)")
    p.add_argument("--cycles", type=int_between(8, 100_000), default=600, help="recorded cycles (default 600)")
    p.add_argument("--bootstrap", type=int_between(0, MAX_RESAMPLES), default=100, help="default 100")
    p.add_argument("--null", type=int_between(0, MAX_RESAMPLES), default=100, help="default 100")
    p.add_argument("--seed", type=int_between(0, 2**31), default=0)
    p.add_argument("--arch-agents", type=int_between(0, 4096), nargs="+", default=[8, 32],
                   help="agents of the architecture's cost rows (0: none; default 8 32)")
    p.add_argument("--arch-draws", type=int_between(1, 10_000), nargs="+", default=[64, 256],
                   help="draws of the architecture's cost rows (default 64 256)")
    return p


def toy_loop(network: str, agents: int, seed: int = 0):
    """The agents' loop of a known network (``binary_net.py``), its true TPM and its unit names."""
    from cognition.config.settings import load_config
    from cognition.simulator.build import assemble

    module, cls = ("binary_net4", "BinaryNet4") if network.endswith("4") else ("binary_net", "BinaryNet")
    cfg = load_config(overrides={"modules": {"plugins": [f"{TOY}:{cls}"], "enabled": [module],
                                             "settings": {module: {"network": network}}},
                                 "control": {"yoked": False}, "quantum": {"mode": "disabled"},
                                 "run": {"agents": agents, "seed": seed}})
    loop = assemble(cfg).loop
    n = loop.modules[module].tpm.shape[1]
    return loop, loop.modules[module].tpm.cpu().numpy(), [f"{module}.{c}" for c in "ABCD"[:n]]


def toy_row(network: str, draws: int, args) -> dict:
    from cognition.analysis.perturbational import iit4_by_intervention, tpm_by_intervention
    from cognition.phi.iit4 import iit4

    t0 = time.perf_counter()
    loop, true, names = toy_loop(network, args.agents, args.seed)
    est = tpm_by_intervention(loop, cycles=args.cycles, burn=20, draws=draws, seed=args.seed, units=names)
    res = iit4_by_intervention(est, bootstrap=args.bootstrap, null=args.null, seed=args.seed + 1, complexes=False)
    exact = np.array([iit4(true, tuple(e["state"].values()), validate_state=False).phi_s for e in res])
    phi = np.array([e["phi_s"] for e in res])
    covered = sum(e["phi_s_ci"] is not None and e["phi_s_ci"][0] <= x <= e["phi_s_ci"][1] for e, x in zip(res, exact))
    z = (est.tpm - true[None]) / np.sqrt(np.maximum(true * (1 - true), 1e-12) / draws)[None]
    return {"network": network, "draws": draws, "agents": args.agents, "exact_mean": float(exact.mean()),
            "mean_error": float((phi - exact).mean()), "median_abs_error": float(np.median(np.abs(phi - exact))),
            "covered": int(covered), "rejected": int(sum(e["p_value"] <= 0.05 for e in res if e["p_value"])),
            "tpm_chi2": float((z**2).sum()), "tpm_df": int(z.size), "seconds": time.perf_counter() - t0}


def lesion_row(lesion: str | None, draws: int, args) -> dict:
    """The loop through the workspace (``binary_net.XorLoop``), intact or with the broadcast or the proposals
    lesion: phi_s of the module's bit and the broadcast's mean, and how many agents' tests reject (integrated
    intact, feedforward, so reducible, under either lesion)."""
    from cognition.analysis.perturbational import iit4_by_intervention, tpm_by_intervention
    from cognition.config.settings import load_config
    from cognition.simulator.build import intervention_loop

    cfg = load_config(overrides={"modules": {"plugins": [f"{TOY}:XorLoop"], "enabled": ["xor_loop"]},
                                 "control": {"yoked": lesion == "proposals", "lesion": lesion},
                                 "quantum": {"mode": "disabled"}, "run": {"agents": args.agents, "seed": args.seed}})
    est = tpm_by_intervention(intervention_loop(cfg), cycles=args.cycles, burn=20, draws=draws, seed=args.seed,
                              units=["xor_loop.bit", "workspace.broadcast_mean"])
    res = iit4_by_intervention(est, bootstrap=0, null=args.null, seed=args.seed + 1, complexes=False)
    phi = np.array([e["phi_s"] for e in res])
    return {"lesion": lesion, "draws": draws, "agents": args.agents, "phi_s_mean": float(phi.mean()),
            "rejected": int(sum(e["p_value"] <= 0.05 for e in res))}


def arch_row(mode: str, agents: int, draws: int, seed: int) -> dict:
    """The cost of the command's analysis on ``agents`` agents x 7 units at ``draws``: the TPMs, phi_s alone, and
    IIT 4.0 at the command's defaults (bootstrap, null, complexes and their intervals)."""
    from cognition.analysis.perturbational import DEFAULTS, iit4_by_intervention, tpm_by_intervention
    from cognition.config.settings import load_config
    from cognition.simulator.build import intervention_loop

    loop = intervention_loop(load_config(overrides={"quantum": {"mode": mode}, "run": {"agents": agents}}))
    t0 = time.perf_counter()
    est = tpm_by_intervention(loop, cycles=DEFAULTS["cycles"], burn=DEFAULTS["burn"], draws=draws, seed=seed)
    t1 = time.perf_counter()
    iit4_by_intervention(est, bootstrap=0, null=0, complexes=False)
    t2 = time.perf_counter()
    iit4_by_intervention(est, bootstrap=DEFAULTS["bootstrap"], null=DEFAULTS["null"], seed=seed)
    t3 = time.perf_counter()
    return {"mode": mode, "agents": agents, "units": est.n, "draws": draws, "rows": agents * 2**est.n * draws,
            "tpm_s": t1 - t0, "phi_s_s": t2 - t1, "defaults_iit4_s": t3 - t2, "command_s": (t1 - t0) + (t3 - t2)}


def main(argv: list[str]) -> dict:
    args = _parser().parse_args(argv)
    refuse([f"--cycles {args.cycles}: allowed >= 50 for the known networks to visit every state"]
           if args.cycles < 50 else [])
    rows = []
    print("network       draws  exact   mean err  median |err|  covered  rejected  TPM chi2/df   s")
    for network in args.networks:
        for draws in args.draws:
            try:
                r = toy_row(network, draws, args)
            except ValueError as exc:  # a state the network never visited in --cycles
                print(f"{network:<13} {draws:>5}  refused: {exc}")
                continue
            rows.append(r)
            print(f"{network:<13} {draws:>5}  {r['exact_mean']:.4f}  {r['mean_error']:+.4f}   {r['median_abs_error']:.4f}"
                  f"        {r['covered']:>3}/{r['agents']}   {r['rejected']:>3}/{r['agents']}   "
                  f"{r['tpm_chi2']:.0f}/{r['tpm_df']}  {r['seconds']:.1f}", flush=True)
    lesions = []
    print("the loop through the workspace (xor_loop: its bit and workspace.broadcast_mean): intact, broadcast lesion, "
          "proposals lesion")
    for lesion in (None, "broadcast", "proposals"):
        for draws in args.draws:
            r = lesion_row(lesion, draws, args)
            lesions.append(r)
            print(f"  {lesion or 'intact':<9} {draws:>5} draws: mean phi_s {r['phi_s_mean']:.4f}, test rejects "
                  f"{r['rejected']}/{r['agents']}", flush=True)
    arch = []
    sizes = [(a, d) for a in args.arch_agents if a for d in args.arch_draws]
    if sizes:
        print("architecture: mode, agents x units, draws, rows; TPM s, phi_s s (no interval), IIT 4.0 s at the "
              "command's defaults (bootstrap 50, null 19, complexes), TPM + IIT 4.0 s (what the command takes)")
        for mode in ("disabled", "lite"):
            for agents, draws in sizes:
                r = arch_row(mode, agents, draws, args.seed)
                arch.append(r)
                print(f"  {mode:<8} {r['agents']:>3} x {r['units']}, {r['draws']:>4} draws, {r['rows']:>9,} rows; "
                      f"{r['tpm_s']:5.1f} s, {r['phi_s_s']:5.1f} s, {r['defaults_iit4_s']:5.1f} s, "
                      f"{r['command_s']:5.1f} s", flush=True)
    return {"toys": rows, "lesion_toy": lesions, "architecture": arch}
