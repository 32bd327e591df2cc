"""``python -m cognition.validate``: run the architecture and write a Phi report.

Exit codes: 0 every criterion passed; 1 a criterion failed, or the run stopped
(a signal, an unrecoverable out-of-memory error, a full disk or any other failure
after the start: one line naming the cause, the last good checkpoint and the
``--resume`` command); 2 usage or configuration error, or a run directory locked by
another process (nothing is written).
"""
from __future__ import annotations

import re
import sys

from cognition.runtime import early_signals

if __name__ == "__main__":  # before the imports below (a second or more): a signal from the first instant is one line
    early_signals.install()

from cognition.config.settings import RunConfig, available_presets, load_config
from cognition.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, OneLineParser, int_at_least, non_empty_path, run_command
from cognition.errors import RunFailure, RunStopped, UsageError

QUICK_CYCLES = 3
DEFAULT_AGENTS = RunConfig().agents  # the help text's default is the configuration's


def build_parser() -> OneLineParser:
    p = OneLineParser(prog="python -m cognition.validate", description=(
        "Run the hybrid cognitive architecture and write a Phi report into a new run directory. "
        "Exit 0 when every success criterion passes, 1 when one fails or the run stops, 2 on bad input."))
    p.add_argument("--cycles", type=int_at_least(1), help="cycles to run (config run.cycles, default 50)")
    p.add_argument("--seed", type=int_at_least(0),
                   help="master seed: every agent's weights and noise (config run.seed, default 0)")
    p.add_argument("--agents", type=int_at_least(1),
                   help="independent agents, each with its own module weights, simulated as one batch "
                        f"(run.agents, default {DEFAULT_AGENTS})")
    p.add_argument("--config", metavar="FILE", help="YAML file overriding the preset")
    p.add_argument("--preset", metavar="NAME", help=f"named preset from configs/: {', '.join(available_presets())}")
    p.add_argument("--out", type=non_empty_path, metavar="DIR", help="run directory to create (must not exist, or be empty or hold "
                   "only a killed start's leftovers); default runs/<time>-<mode>-<random>")
    p.add_argument("--device", metavar="DEV", help="auto | cpu | cuda | cuda:N (runtime.device, default auto)")
    p.add_argument("--allow-cpu-fallback", action="store_true",
                   help="if the requested CUDA device cannot be used, run on the CPU (recorded in the report)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--disable-quantum", action="store_true",
                      help="classical counterparts for every quantum component; never imports qiskit")
    mode.add_argument("--quantum-lite", action="store_true",
                      help="real circuits under a qubit cap (quantum.lite_max_qubits, default 16) and "
                           "an Aer thread limit (quantum.lite_threads, default 4)")
    p.add_argument("--control", choices=("yoked", "none"),
                   help="yoked (default): every agent also runs as two twins, one whose modules read an "
                        "independent agent's broadcast and one whose workspace competes over that agent's "
                        "proposals, and the report tests that each direction of the loop carries information (the loop test); "
                        "none: no twins, and no criterion on them (control.yoked)")
    p.add_argument("--lesion", metavar="WHAT", help="broadcast (modules read the fixed initial broadcast), "
                   "proposals (each workspace competes over an independent agent's proposals: a feedforward "
                   "workspace; needs the yoked control) or module:NAME (NAME can never win the workspace) "
                   "(control.lesion)")
    p.add_argument("--quick", action="store_true",
                   help=f"smoke test in seconds: imports, device, {QUICK_CYCLES} cycles, no Phi criteria")
    p.add_argument("--resume", type=non_empty_path, metavar="RUN_DIR", help="continue a stopped or killed run from its last good "
                   "checkpoint (locks RUN_DIR; flags that contradict its config.yaml are refused)")
    p.add_argument("--accept-plugin-change", action="store_true",
                   help="with --resume: continue although a modules.plugins file changed since the run last ran "
                        "(e.g. a module fixed after it stopped the run); without it such a resume is refused")
    p.add_argument("--inject-fault", metavar="SPEC", help="rehearse failures, e.g. oom@7, oom@5:always or "
                   "enospc@9 (a full disk); see docs/runtime.md")
    return p


def _overrides(args) -> dict:
    ov: dict = {}
    put = lambda section, key, value: ov.setdefault(section, {}).__setitem__(key, value)  # noqa: E731
    if args.cycles is not None:
        put("run", "cycles", args.cycles)
    if args.seed is not None:
        put("run", "seed", args.seed)
    if args.agents is not None:
        put("run", "agents", args.agents)
    if args.device is not None:
        put("runtime", "device", args.device)
    if args.allow_cpu_fallback:
        put("runtime", "allow_cpu_fallback", True)
    if args.disable_quantum:
        put("quantum", "mode", "disabled")
    if args.quantum_lite:
        put("quantum", "mode", "lite")
    if args.control is not None:
        put("control", "yoked", args.control == "yoked")
        if args.control == "none":
            put("criteria", "require_closed_loop", False)
    if args.lesion is not None:
        put("control", "lesion", args.lesion)
    if args.quick:
        put("run", "cycles", QUICK_CYCLES)
        put("phi", "bootstrap", 0)
        put("phi", "surrogates", 0)
        ov["criteria"] = {"require_phi": False, "min_mean_phi_bits": None, "require_significant": False,
                          "require_closed_loop": False}
    return ov


def _contradictions(args, run_config: dict) -> list[str]:
    """Each setting a flag asks for that differs from the resumed run's own config.yaml."""
    out = []
    for section, values in _overrides(args).items():
        for key, value in values.items():
            have = run_config.get(section, {}).get(key)
            if have != value:
                out.append(f"{section}.{key} = {value!r} (the run has {have!r})")
    return out


def _simulator(args, argv):
    """The run as :class:`cognition.api.Simulator` builds it: a new run, or ``--resume`` with the run's own
    config.yaml, locked, and the flags that contradict it refused."""
    from cognition.api import Simulator, fault_injector

    fault_injector(args.inject_fault)  # a bad spec: one line, before the run directory is locked
    argv = list(sys.argv if argv is None else argv)
    if not args.resume:
        if args.accept_plugin_change:
            raise UsageError("--accept-plugin-change goes with --resume RUN_DIR (a new run loads the files as they are)")
        cfg = load_config(preset=args.preset, path=args.config, overrides=_overrides(args))
        return Simulator(cfg, out=args.out, faults=args.inject_fault, _argv=argv)
    stray = [f"--{f}" for f in ("config", "preset", "out") if getattr(args, f) is not None]
    if stray:
        raise UsageError(f"--resume continues a run with its own config.yaml; {stray[0]} cannot be used with it")

    def check(data: dict) -> None:
        contradicting = _contradictions(args, data)
        if contradicting:
            raise UsageError(f"--resume {args.resume}: the flags contradict the run's config.yaml: "
                             f"{'; '.join(contradicting)}; a resumed run keeps its own settings, drop those flags")

    return Simulator.resume(args.resume, faults=args.inject_fault, accept_plugin_change=args.accept_plugin_change,
                            _check=check, _argv=argv)


def main(argv: list[str] | None = None) -> int:

    try:
        sim = _simulator(build_parser().parse_args(argv), argv)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except RunFailure as exc:  # a module's fault in its weights or initial state, before anything is written
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    try:
        report = sim.run(read_back=False)
    except RunStopped as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        sim.close()
    _print_summary(report, sim.run_dir, report["telemetry"]["run_wall_seconds"])
    return EXIT_OK if report["passed"] else EXIT_FAILED


def _print_summary(report: dict, run_dir, seconds: float) -> None:
    """seconds: the report's ``telemetry.run_wall_seconds`` (cycles, analysis and report), so the two say the same."""
    from cognition.analysis import fmt, wording  # here, not at the top: --help and bad flags stay fast
    from cognition.reporting.iit4_report import summary_line
    from cognition.reporting.sections import calibration_text, criterion_value

    phi = report["phi"]
    if phi.get("headline_bits") is None:
        line = f"{wording.headline_name(phi)}: not estimated"
    else:  # worded as report.md's summary words it, with the same interval and test
        line = f"{wording.headline_name(phi)}: {wording.headline_numbers(phi)}"
        if phi.get("weakest_cut"):
            line += " (weakest cut: " + " | ".join(", ".join(part) for part in phi["weakest_cut"]) + ")"
    print(f"run directory: {run_dir}")
    print(f"status: {report['status']}, {report['cycles_completed']} cycles in {fmt.seconds(seconds)} "
          f"(wall clock: cycles, analysis, report); {line}")
    if phi.get("calibration"):
        print(f"  {calibration_text(phi['calibration'])}")
    comp = report.get("competition") or {}
    if "winner_share" in comp:
        shares = ", ".join(f"{m} {v:.0%}" for m, v in comp["winner_share"].items())
        print(f"  workspace: won by {shares}, no access {comp['no_access']:.0%}; switching rate "
              f"{comp['switching_rate']:.0%}")
    if report.get("iit4"):  # analysis.iit4: true, worded as the report's section and the iit4 command word it
        print(f"  IIT 4.0 by intervention: {summary_line(report['iit4'])}")
    for c in report["criteria"]:
        print(f"  [{'pass' if c['passed'] else 'FAIL'}] {c['name']}: {criterion_value(c)} (required {c['required']})")
    if report["message"]:
        print(report["message"])
    failed = [re.split(r"[:(]", c["name"])[0].strip() for c in report["criteria"] if not c["passed"]]
    print("criteria met" if report["passed"] else
          f"criteria NOT met: {', '.join(failed)} (the FAIL lines above say why; report.md and load(run).explain() too)")


if __name__ == "__main__":
    run_command(main)
