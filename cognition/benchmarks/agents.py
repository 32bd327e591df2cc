"""Agents as a batch vs a per-agent Python loop, per quantum mode, in one run.

For each mode (disable-quantum, quantum-lite, full) and agent count, times
``IntegrationLoop.advance`` (modules, workspace, learning; Phi is timed by the
``phi`` suite) over a few cycles with all agents in one launch, and with one
agent per launch (the per-agent loop), and reports cycles/s, agent-cycles/s
and their ratio. Medians over repeats; both figures come from the same run.
"""
from __future__ import annotations

import argparse
import statistics
import time

MODES = {"disabled": "disable-quantum", "lite": "quantum-lite", "full": "full (Aer)"}


def _loop(mode: str, agents: int):
    from cognition.assemble import assemble
    from cognition.config import load_config

    cfg = load_config(overrides={"run": {"agents": agents, "cycles": 64}, "quantum": {"mode": mode}})
    return assemble(cfg).loop


def _time_cycles(loop, cycles: int, batch, repeats: int) -> float:
    """Median seconds per cycle."""
    times = []
    for _ in range(repeats):
        state = loop.initial_state()
        state, _ = loop.advance(state, batch)  # warm-up: first-call costs (transpile, caches)
        t0 = time.perf_counter()
        for _ in range(cycles):
            state, _ = loop.advance(state, batch)
        times.append((time.perf_counter() - t0) / cycles)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(prog="python -m cognition.bench agents")
    p.add_argument("--agents", type=int, nargs="+", default=[1, 16, 256])
    p.add_argument("--modes", nargs="+", choices=list(MODES), default=list(MODES))
    p.add_argument("--cycles", type=int, default=3, help="timed cycles per repeat")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=1, help="torch and OpenBLAS threads (0: library defaults)")
    args = p.parse_args(argv)
    import torch  # noqa: F401  (so that cpu_threads sets torch's pool too)

    from cognition.runtime.threads import cpu_threads

    with cpu_threads(args.threads or None) as threads:
        print(f"CPU threads: {threads}")
        result = _run(args)
    result["cpu_threads"] = threads
    return result


def _run(args) -> dict:
    rows = []
    print(f"{'mode':16} {'agents':>6} {'batched cyc/s':>14} {'agent-cyc/s':>12} {'loop cyc/s':>11} {'ratio':>7}")
    for mode in args.modes:
        for agents in args.agents:
            loop = _loop(mode, agents)
            batched = _time_cycles(loop, args.cycles, None, args.repeats)
            per_agent = _time_cycles(loop, args.cycles, 1, args.repeats) if agents > 1 else batched
            row = {"mode": mode, "agents": agents, "batched_s_per_cycle": batched,
                   "per_agent_loop_s_per_cycle": per_agent, "cycles_per_s": 1 / batched,
                   "agent_cycles_per_s": agents / batched, "speedup_vs_loop": per_agent / batched,
                   "backend": next((m.backend_name for m in loop.modules.values() if m.variant == "quantum"),
                                   "classical")}
            rows.append(row)
            print(f"{MODES[mode]:16} {agents:6d} {row['cycles_per_s']:14.1f} {row['agent_cycles_per_s']:12.0f} "
                  f"{1 / per_agent:11.1f} {row['speedup_vs_loop']:6.1f}x")
    print(f"(medians of {args.repeats} x {args.cycles} cycles)")
    return {"rows": rows, "cycles": args.cycles, "repeats": args.repeats}
