"""``python -m cognition.experiment iit4``: IIT 4.0 of the running architecture by intervention (docs/iit4.md).

Builds the agents' own loop (no twins) from a preset or configuration, estimates each agent's TPM of its units
by perturbing the loop (:func:`cognition.analysis.perturbational.tpm_by_intervention`) and computes exact IIT 4.0
per agent (:func:`cognition.analysis.perturbational.iit4_by_intervention`): phi_s, its interval and test, the
MIP, the maximal complex and its big Phi. Prints a table and the summary across agents; ``--json OUT`` writes
``units``, ``grain``, ``agents`` (one entry per agent) and ``summary``.
"""
from __future__ import annotations

import json
import sys
import time

from cognition.cli import EXIT_OK, EXIT_USAGE, check_output_file, int_between, non_empty_path
from cognition.errors import ConfigError, UsageError
from cognition.phi.validation import MAX_RESAMPLES
from cognition.reporting.iit4_report import HEADER, agent_cells, summary_line

AGENTS = 32  # as the main job


def add_parser(sub) -> None:
    from cognition.analysis.perturbational import DEFAULTS

    p = sub.add_parser("iit4", help="IIT 4.0 of each agent's loop, by intervention (docs/iit4.md)",
                       description="IIT 4.0 of the running architecture by intervention: each agent's TPM of its "
                                   "units estimated by setting every macro state of its own loop and advancing one "
                                   "cycle with fresh noise; per agent phi_s with its interval and test, the MIP, "
                                   "the maximal complex and its big Phi (docs/iit4.md).")
    p.add_argument("--preset", help="named preset from configs/ (default: the defaults)")
    p.add_argument("--config", type=non_empty_path, help="YAML file overriding the preset")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quantum-lite", action="store_true", help="real circuits under the qubit cap")
    mode.add_argument("--disable-quantum", action="store_true", help="classical counterparts of every component")
    p.add_argument("--lesion", help="broadcast (modules read the fixed initial broadcast), proposals (each "
                                    "workspace competes over an independent donor's proposals) or module:NAME "
                                    "(NAME never wins the workspace)")
    p.add_argument("--cycles", type=int_between(8, 100_000), default=DEFAULTS["cycles"],
                   help=f"recorded cycles per agent after the burn-in (8 to 100000; default {DEFAULTS['cycles']})")
    p.add_argument("--burn", type=int_between(0, 100_000), default=DEFAULTS["burn"],
                   help=f"cycles run before recording (default {DEFAULTS['burn']})")
    p.add_argument("--agents", type=int_between(1, 4096), default=AGENTS, help=f"agents (1 to 4096; default {AGENTS})")
    p.add_argument("--draws", type=int_between(1, 10_000), default=DEFAULTS["draws"],
                   help=f"interventions per macro state and agent (1 to 10000; default {DEFAULTS['draws']})")
    p.add_argument("--seed", type=int_between(0, 2**63 - 1), default=0,
                   help="run seed (the agents' weights and noise), also the choice of recorded states (default 0)")
    p.add_argument("--bootstrap", type=int_between(0, MAX_RESAMPLES), default=DEFAULTS["bootstrap"],
                   help=f"resampled TPMs for phi_s's interval (default {DEFAULTS['bootstrap']})")
    p.add_argument("--null", type=int_between(0, MAX_RESAMPLES), default=DEFAULTS["null"],
                   help=f"null TPMs for the test of phi_s > 0 (default {DEFAULTS['null']})")
    p.add_argument("--units", help="comma-separated unit names, 2 to 7 (default: all of the run's)")
    p.add_argument("--no-complexes", action="store_true", help="skip the maximal complex and big Phi")
    p.add_argument("--json", type=non_empty_path, metavar="OUT", help="also write the results as JSON to OUT")


def _config(args):
    from cognition.api import configure

    # the proposals lesion's workspaces compete over the yoked control's donors' proposals: the control is kept
    # for it (the analysis then runs the agents and their donors, no twins: cognition.simulator.build)
    sections = {"run": {"agents": args.agents, "seed": args.seed},
                "control": {"yoked": args.lesion == "proposals", "lesion": args.lesion}}
    if args.quantum_lite or args.disable_quantum:
        sections["quantum"] = {"mode": "lite" if args.quantum_lite else "disabled"}
    try:
        return configure(preset=args.preset, path=args.config, **sections)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def _check_memory(cfg, args, n_units: int) -> None:
    """UsageError when the recorded states (cycles x agents x each row's state and units) and one launch of
    interventions cannot fit what the tightest host limit leaves."""
    from cognition.architecture.perturb import ROWS_PER_LAUNCH
    from cognition.modules import state_values_per_row, weight_values_per_agent
    from cognition.runtime.memlimits import describe, host_limits, tightest
    from cognition.runtime.planner import RUN_MAPS_BYTES, RUN_RESIDENT_BYTES

    # a recorded row: the modules' state, the broadcast, the workspace's access, fatigue and evidence window per
    # module, winner and dwell, and the units
    modules = len(cfg.modules.enabled)
    per_row = (state_values_per_row(cfg) + cfg.run.content_dim + modules * (2 + cfg.workspace.surprise_window)
               + 2 + n_units)
    rows = args.agents * (2 if args.lesion == "proposals" else 1)  # the proposals lesion records the donors too
    recorded = args.cycles * rows * per_row * 8
    launch = ROWS_PER_LAUNCH * (4 * per_row + weight_values_per_agent(cfg)) * 8  # assembled, advanced, weights
    fixed = {"resident": RUN_RESIDENT_BYTES, "virtual": RUN_MAPS_BYTES[cfg.quantum.mode]}  # the libraries
    limit = tightest(host_limits(), {kind: recorded + launch + b for kind, b in fixed.items()})
    room = None if limit is None else limit.headroom_bytes - fixed[limit.kind]
    need = recorded + launch
    if room is not None and need > room:
        fits = max(0, (room - launch) // (rows * per_row * 8))
        raise UsageError(f"--cycles {args.cycles} x --agents {args.agents}: the recorded states need about "
                         f"{need / 2**30:.3g} GiB, the tightest host limit is {describe(limit)}; at most {fits} "
                         "cycles fit")


def run(args) -> int:
    from cognition.api import iit4_by_intervention
    from cognition.modules import unit_signal_count

    try:
        if args.json is not None:
            check_output_file("--json", args.json)
        cfg = _config(args)
        units = [u.strip() for u in args.units.split(",")] if args.units else None
        _check_memory(cfg, args, len(units) if units else unit_signal_count(cfg) + 2)
        t0 = time.perf_counter()
        print(f"iit4: {args.agents} agents x {args.cycles} recorded cycles (burn-in {args.burn}), {args.draws} "
              "interventions per macro state, then exact IIT 4.0 per agent", flush=True)
        doc = iit4_by_intervention(cfg, cycles=args.cycles, burn=args.burn, draws=args.draws, seed=args.seed,
                                   units=units, bootstrap=args.bootstrap, null=args.null,
                                   complexes=not args.no_complexes)
    except (UsageError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    doc["seconds"] = time.perf_counter() - t0
    _print(doc)
    if args.json is not None:
        with open(args.json, "w") as fh:
            json.dump(doc, fh, indent=2)
    return EXIT_OK


def _print(doc: dict) -> None:
    print(f"grain: {doc['grain']}")
    print("  ".join(HEADER))
    for e in doc["agents"]:
        print("  ".join(cell for cell in agent_cells(e) if cell))
    print(f"{summary_line(doc)}; {doc['seconds']:.1f} s")
