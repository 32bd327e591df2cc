"""Agents as a batch vs a per-agent Python loop, per quantum mode, in one run.

For each mode (disable-quantum, quantum-lite, full) and agent count, times
``IntegrationLoop.advance`` (modules, workspace, learning; the per-cycle Phi is
timed apart, below) over a few cycles with all agents in one launch, and with one
agent per launch (the per-agent loop), and reports cycles/s, agent-cycles/s
and their ratio. Medians over repeats; both figures come from the same run.
``--no-loop`` skips the per-agent loop (its keys are then null), which at thousands of agents
takes that many times the batched cycle.

Beside each row, the roofline (cognition/benchmarks/roofline.py, docs/performance.md): the
FLOP and bytes of one agent-cycle of the mode, the machine's batched small-matrix GFLOP/s and
copy bandwidth on the suite's threads, the agent-cycles/s they bound and the fraction of it
reached (CPU rows only; ``--no-roofline`` skips the micro-benchmark); and the per-cycle Phi cost: the time of
the loop's own per-cycle Phi call (``IntegrationLoop.phi_at``, what ``step`` adds to
``advance``) at that agent count, over a window of the run's real unit signals, timed alone
(``--no-phi`` skips it). ``--profile N`` profiles the batched cycles of each row with cProfile
and prints the top N functions by own and by cumulative time.

``--compile MODE`` also times the batched step with ``runtime.compile: MODE``
beside the eager one (compilation happens in the untimed warm-up cycle). On a
CUDA device (``--device``) GPU utilisation is sampled during the batched runs
(:class:`cognition.runtime.gpu_monitor.GpuSampler`: NVML or nvidia-smi), and for
each mode the agent count where agent-cycles/s saturates is reported
(:func:`cognition.runtime.gpu_monitor.saturation`); give a range, e.g.
``--agents 1 16 256 1024 4096``.
"""
from __future__ import annotations

import statistics
import time

from cognition.benchmarks import costs, device_problem, refuse, roofline, suite_parser
from cognition.cli import int_between

MAX_AGENTS = 2**20  # --agents: rows of one launch, and the per-agent loop's launches per cycle
MAX_AGENT_CYCLES = 10**8  # --agents x (--cycles + 1) x --repeats, a row's agent-cycles (about 10^3-10^4 s on a CPU)
MAX_MACHINE_AGENTS = 16384  # the roofline's batched products: about 0.2 MiB per agent, 3.2 GiB at the top

MODES = {"disabled": "disable-quantum", "lite": "quantum-lite", "full": "full (Aer)"}


def _config(mode: str, agents: int, device: str, compile_mode: str = "off", control: str = "yoked"):
    from cognition.config.settings import load_config

    return load_config(overrides={"run": {"agents": agents, "cycles": 64}, "quantum": {"mode": mode},
                                  "runtime": {"device": device, "compile": compile_mode},
                                  "control": {"yoked": control == "yoked"}})


def _loop(mode: str, agents: int, device: str, compile_mode: str = "off", control: str = "yoked"):
    from cognition.simulator.build import assemble

    return assemble(_config(mode, agents, device, compile_mode, control)).loop


def _time_cycles(loop, cycles: int, batch, repeats: int) -> float:
    """Median seconds per cycle."""
    times = []
    for _ in range(repeats):
        state = loop.initial_state()
        state, *_ = loop.advance(state, batch)  # warm-up: first-call costs (transpile, caches)
        t0 = time.perf_counter()
        for _ in range(cycles):
            state, *_ = loop.advance(state, batch)
        times.append((time.perf_counter() - t0) / cycles)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> dict:
    p = suite_parser("agents", description="Cycles/s and agent-cycles/s per mode and agent count, batched "
                     "vs a per-agent loop. Every count is bounded, and a row's agents x (cycles + 1) x repeats "
                     f"at most {MAX_AGENT_CYCLES:,}; each agent count must fit host memory by the run's own plan "
                     "(cognition/runtime/planner.py); anything else is refused in one line, exit 2, before any work.")
    p.add_argument("--agents", type=int_between(1, MAX_AGENTS), nargs="+", default=[1, 16, 256],
                   help=f"agent counts to time, one row each (run.agents; 1 to {MAX_AGENTS}; default 1 16 256)")
    p.add_argument("--modes", nargs="+", choices=list(MODES), default=list(MODES),
                   help="quantum.mode of the rows (default: all three)")
    p.add_argument("--cycles", type=int_between(1, 10_000), default=3,
                   help="timed cycles per repeat (1 to 10000; default 3)")
    p.add_argument("--repeats", type=int_between(1, 100), default=3,
                   help="repeats per row; the median is reported (1 to 100; default 3)")
    p.add_argument("--threads", type=int_between(0, 1024), default=1,
                   help="torch and OpenBLAS threads (0: library defaults; 0 to 1024; default 1)")
    p.add_argument("--device", default="auto",
                   help="auto | cpu | cuda | cuda:N (runtime.device); a device this machine lacks is refused")
    p.add_argument("--compile", choices=["off", "default", "reduce-overhead"], default="off",
                   help="also time the batched step compiled with this runtime.compile mode")
    p.add_argument("--no-loop", action="store_true",
                   help="skip the per-agent loop (its keys are null): it costs agents x the batched time")
    p.add_argument("--no-roofline", action="store_true", help="skip the roofline's machine micro-benchmark")
    p.add_argument("--machine-agents", type=int_between(1, MAX_MACHINE_AGENTS), default=4096,
                   help=f"batch of the micro-benchmark's small-matrix products (1 to {MAX_MACHINE_AGENTS}, about "
                        "0.2 MiB each; default 4096)")
    p.add_argument("--no-phi", action="store_true", help="skip timing the per-cycle Phi")
    p.add_argument("--controls", nargs="+", choices=["yoked", "none"], default=["yoked"],
                   help="control.yoked of the rows: yoked (default; 4 batch rows per agent: the agent, its donor and "
                        "its two twins) and/or none (1 row), timed side by side")
    p.add_argument("--profile", type=int_between(0, 1000), default=0, metavar="N",
                   help="profile each row's batched cycles (cProfile); print the top N functions (0 to 1000)")
    args = p.parse_args(argv)
    _check(args)
    import torch  # noqa: F401  (so that cpu_threads sets torch's pool too)

    from cognition.runtime.host_memory import retain_freed_memory
    from cognition.runtime.threads import cpu_threads

    host_allocator = retain_freed_memory()  # as a run's Session does
    with cpu_threads(args.threads or None) as threads:
        print(f"CPU threads: {threads}; host allocator: {host_allocator}")
        result = _run(args)
    result["cpu_threads"], result["host_allocator"] = threads, host_allocator
    return result


def _check(args) -> None:
    """One line on stderr and exit 2, before any work: a row too long, a device this machine lacks, an agent
    count whose state does not fit host memory by the run's own plan (cognition.runtime.planner.plan_run on
    the memory available now, half kept as headroom), a micro-benchmark batch that does not fit."""
    from cognition.runtime.planner import HEADROOM, available_host_bytes, plan_run

    most = max(args.agents)
    if most * (args.cycles + 1) * args.repeats > MAX_AGENT_CYCLES:
        refuse([f"--agents {most} x (--cycles {args.cycles} + 1) x --repeats {args.repeats}: "
                f"{most * (args.cycles + 1) * args.repeats:,} agent-cycles in a row; allowed at most "
                f"{MAX_AGENT_CYCLES:,}"])
    refuse([problem for problem in [device_problem("--device", args.device)] if problem])
    available = available_host_bytes()
    if available is None:
        return
    for mode in args.modes:
        for control in args.controls:
            cfg = _config(mode, most, "cpu", control=control)
            plan = plan_run(cfg, available)
            if plan.total_bytes > available * (1 - HEADROOM):
                fit = int(available * (1 - HEADROOM) * most // plan.total_bytes)
                refuse([f"--agents {most}: does not fit host memory ({MODES[mode]}, control {control}): the run's "
                        f"memory plan needs about {plan.total_bytes / 2**30:.3g} GiB, {available / 2**30:.3g} GiB "
                        f"is available with {HEADROOM:.0%} kept as headroom; allowed at most {fit} agents"])
    roofline_bytes = roofline.machine_bytes(args.machine_agents)
    if not args.no_roofline and roofline_bytes > available * (1 - HEADROOM):
        refuse([f"--machine-agents {args.machine_agents}: the micro-benchmark needs about "
                f"{roofline_bytes / 2**30:.3g} GiB, {available / 2**30:.3g} GiB is available with {HEADROOM:.0%} "
                f"kept as headroom; lower it or pass --no-roofline"])


def _batched(loop, args):
    """Seconds per cycle with all agents in one launch, and GPU utilisation sampled meanwhile."""
    if not str(loop.device).startswith("cuda"):
        return _time_cycles(loop, args.cycles, None, args.repeats), None
    from cognition.runtime.gpu_monitor import GpuSampler

    with GpuSampler(str(loop.device), interval_s=0.05) as sampler:
        seconds = _time_cycles(loop, args.cycles, None, args.repeats)
    return seconds, sampler.summary()


def _row(args, mode: str, agents: int, control: str = "yoked") -> dict:
    loop = _loop(mode, agents, args.device, control=control)
    batched, gpu = _batched(loop, args)
    per_agent = batched if agents == 1 else None if args.no_loop else _time_cycles(loop, args.cycles, 1, args.repeats)
    row = {"mode": mode, "agents": agents, "control": control, "device": str(loop.device),
           "batched_s_per_cycle": batched,
           "per_agent_loop_s_per_cycle": per_agent, "cycles_per_s": 1 / batched,
           "agent_cycles_per_s": agents / batched, "speedup_vs_loop": per_agent and per_agent / batched,
           "backend": next((m.backend_name for m in loop.modules.values() if m.variant == "quantum"),
                           "classical"), "gpu_utilisation": gpu}
    if args.compile != "off":
        compiled = _time_cycles(_loop(mode, agents, args.device, args.compile, control), args.cycles, None,
                                args.repeats)
        row.update(compile=args.compile, compiled_s_per_cycle=compiled, compiled_speedup_vs_eager=batched / compiled)
    counted = roofline.count(loop.cfg)
    row.update(flop_per_agent_cycle=counted["flop_per_agent_cycle"],
               bytes_per_agent_cycle=counted["bytes_per_agent_cycle"])
    if not args.no_phi:
        row.update(costs.phi_cost(loop, args.repeats))
        row["phi_share_of_step"] = row["phi_s_per_cycle"] / (row["phi_s_per_cycle"] + batched)
    if args.profile:
        row["profile"] = costs.profile(loop, args.cycles, args.profile)
    return row


def _line(row: dict) -> str:
    loop = row["per_agent_loop_s_per_cycle"]
    text = (f"{MODES[row['mode']]:16} {row['control']:>7} {row['agents']:6d} {row['cycles_per_s']:14.1f} "
            f"{row['agent_cycles_per_s']:12.0f} "
            + (f"{1 / loop:11.1f} {row['speedup_vs_loop']:6.1f}x" if loop else f"{'-':>11} {'-':>7}"))
    if "compiled_s_per_cycle" in row:
        text += f" {1 / row['compiled_s_per_cycle']:14.1f} {row['compiled_speedup_vs_eager']:7.2f}x"
    gpu = row["gpu_utilisation"]
    if gpu and gpu.get("available"):
        mean = gpu["util_mean_pct"]
        text += f"   GPU util mean {mean:.0f} %" if mean is not None else "   GPU util n/a"
    return text


def _run(args) -> dict:
    roofs = None
    if not args.no_roofline:
        roofs = roofline.machine(args.machine_agents)
        print(f"roofline: batched products over {args.machine_agents} agents and a copy, "
              f"{roofs['threads']} thread(s), medians of {roofs['repeats']}:")
        print("\n".join(roofline.machine_lines(roofs)))
    rows = []
    header = f"{'mode':16} {'control':>7} {'agents':>6} {'batched cyc/s':>14} {'agent-cyc/s':>12} {'loop cyc/s':>11} {'ratio':>7}"
    if args.compile != "off":
        header += f" {'compiled cyc/s':>14} {'vs eager':>8}"
    print(header)
    for mode in args.modes:
        for agents in args.agents:
            for control in args.controls:
                rows.append(_row(args, mode, agents, control))
                print(_line(rows[-1]))
    print(f"(medians of {args.repeats} x {args.cycles} cycles; device {rows[0]['device']})")
    return {"rows": rows, "cycles": args.cycles, "repeats": args.repeats, "saturation": _saturation(args, rows),
            "roofline": _roofline(args, rows, roofs)}


def _roofline(args, rows: list[dict], roofs: dict | None) -> dict:
    """Each row's bound and the fraction of it reached, the per-cycle Phi, the term breakdowns, profiles."""
    counts = {(mode, control): roofline.count(_config(mode, args.agents[0], args.device, control=control))
              for mode in args.modes for control in args.controls}
    for (mode, control), counted in counts.items():
        print(f"FLOP and bytes of one cycle, {MODES[mode]}, control {control} (cognition/benchmarks/roofline.py):")
        print("\n".join(roofline.breakdown_lines(counted)))
    print(f"{'mode':16} {'control':>7} {'agents':>6} {'agent-cyc/s':>12} {'FLOP/a-c':>9} {'bytes/a-c':>9} {'bound a-c/s':>12} "
          f"{'by':>7} {'of bound':>9} {'Phi ms/cycle':>12} {'Phi share':>9}")
    for row in rows:
        if roofs is not None and row["device"] == "cpu":  # the roofs are the CPU's, measured on its threads
            row.update(roofline.bound(counts[row["mode"], row["control"]], roofs))
            row["fraction_of_bound"] = row["agent_cycles_per_s"] / row["bound_agent_cycles_per_s"]
        text = (f"{MODES[row['mode']]:16} {row['control']:>7} {row['agents']:6d} "
                f"{row['agent_cycles_per_s']:12.0f} {row['flop_per_agent_cycle']:9d} {row['bytes_per_agent_cycle']:9d}")
        text += (f" {row['bound_agent_cycles_per_s']:12.0f} {row['bound_by']:>7} "
                 f"{100 * row['fraction_of_bound']:7.2f} %" if "bound_by" in row else f" {'-':>12} {'-':>7} {'-':>9}")
        if "phi_s_per_cycle" in row:
            text += f" {1e3 * row['phi_s_per_cycle']:12.3f} {100 * row['phi_share_of_step']:7.1f} %"
        print(text)
    for row in rows:
        if "profile" in row:
            print(f"profile of {MODES[row['mode']]} at {row['agents']} agents:")
            print("\n".join(costs.profile_lines(row["profile"])))
    return {"machine": roofs, "counts": {f"{mode}/{control}": c for (mode, control), c in counts.items()}}


def _saturation(args, rows: list[dict]) -> dict:
    from cognition.runtime.gpu_monitor import saturation

    out = {}
    for mode in args.modes:
        for control in args.controls:
            points = [(r["agents"], r["agent_cycles_per_s"]) for r in rows if (r["mode"], r["control"]) == (mode, control)]
            key = mode if len(args.controls) == 1 else f"{mode}/{control}"
            out[key] = saturation(points)
            at, seen = out[key]["saturates_at"], out[key]["saturated"]
            print(f"{MODES[mode]}, control {control}: agent-cycles/s reaches 90 % of its peak at {at} agents"
                  + ("" if seen else " (the largest count measured: no plateau observed yet)"))
    return out
