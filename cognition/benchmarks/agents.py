"""Agents as a batch vs a per-agent Python loop, per quantum mode, in one run.

For each mode (disable-quantum, quantum-lite, full) and agent count, times
``IntegrationLoop.advance`` (modules, workspace, learning; Phi is timed by the
``phi`` suite) over a few cycles with all agents in one launch, and with one
agent per launch (the per-agent loop), and reports cycles/s, agent-cycles/s
and their ratio. Medians over repeats; both figures come from the same run.

``--compile MODE`` also times the batched step with ``runtime.compile: MODE``
beside the eager one (compilation happens in the untimed warm-up cycle). On a
CUDA device (``--device``) GPU utilisation is sampled during the batched runs
(:class:`cognition.runtime.gpu_monitor.GpuSampler`: NVML or nvidia-smi), and for
each mode the agent count where agent-cycles/s saturates is reported
(:func:`cognition.runtime.gpu_monitor.saturation`); give a range, e.g.
``--agents 1 16 256 1024 4096``.
"""
from __future__ import annotations

import argparse
import statistics
import time

MODES = {"disabled": "disable-quantum", "lite": "quantum-lite", "full": "full (Aer)"}


def _loop(mode: str, agents: int, device: str, compile_mode: str = "off"):
    from cognition.assemble import assemble
    from cognition.config import load_config

    cfg = load_config(overrides={"run": {"agents": agents, "cycles": 64}, "quantum": {"mode": mode},
                                 "runtime": {"device": device, "compile": compile_mode}})
    return assemble(cfg).loop


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
    p = argparse.ArgumentParser(prog="python -m cognition.bench agents")
    p.add_argument("--agents", type=int, nargs="+", default=[1, 16, 256])
    p.add_argument("--modes", nargs="+", choices=list(MODES), default=list(MODES))
    p.add_argument("--cycles", type=int, default=3, help="timed cycles per repeat")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=1, help="torch and OpenBLAS threads (0: library defaults)")
    p.add_argument("--device", default="auto", help="auto | cpu | cuda | cuda:N (runtime.device)")
    p.add_argument("--compile", choices=["off", "default", "reduce-overhead"], default="off",
                   help="also time the batched step compiled with this runtime.compile mode")
    args = p.parse_args(argv)
    import torch  # noqa: F401  (so that cpu_threads sets torch's pool too)

    from cognition.runtime.threads import cpu_threads

    with cpu_threads(args.threads or None) as threads:
        print(f"CPU threads: {threads}")
        result = _run(args)
    result["cpu_threads"] = threads
    return result


def _batched(loop, args):
    """Seconds per cycle with all agents in one launch, and GPU utilisation sampled meanwhile."""
    if not str(loop.device).startswith("cuda"):
        return _time_cycles(loop, args.cycles, None, args.repeats), None
    from cognition.runtime.gpu_monitor import GpuSampler

    with GpuSampler(str(loop.device), interval_s=0.05) as sampler:
        seconds = _time_cycles(loop, args.cycles, None, args.repeats)
    return seconds, sampler.summary()


def _row(args, mode: str, agents: int) -> dict:
    loop = _loop(mode, agents, args.device)
    batched, gpu = _batched(loop, args)
    per_agent = _time_cycles(loop, args.cycles, 1, args.repeats) if agents > 1 else batched
    row = {"mode": mode, "agents": agents, "device": str(loop.device), "batched_s_per_cycle": batched,
           "per_agent_loop_s_per_cycle": per_agent, "cycles_per_s": 1 / batched,
           "agent_cycles_per_s": agents / batched, "speedup_vs_loop": per_agent / batched,
           "backend": next((m.backend_name for m in loop.modules.values() if m.variant == "quantum"),
                           "classical"), "gpu_utilisation": gpu}
    if args.compile != "off":
        compiled = _time_cycles(_loop(mode, agents, args.device, args.compile), args.cycles, None, args.repeats)
        row.update(compile=args.compile, compiled_s_per_cycle=compiled, compiled_speedup_vs_eager=batched / compiled)
    return row


def _line(row: dict) -> str:
    text = (f"{MODES[row['mode']]:16} {row['agents']:6d} {row['cycles_per_s']:14.1f} "
            f"{row['agent_cycles_per_s']:12.0f} {1 / row['per_agent_loop_s_per_cycle']:11.1f} "
            f"{row['speedup_vs_loop']:6.1f}x")
    if "compiled_s_per_cycle" in row:
        text += f" {1 / row['compiled_s_per_cycle']:14.1f} {row['compiled_speedup_vs_eager']:7.2f}x"
    gpu = row["gpu_utilisation"]
    if gpu and gpu.get("available"):
        mean = gpu["util_mean_pct"]
        text += f"   GPU util mean {mean:.0f} %" if mean is not None else "   GPU util n/a"
    return text


def _run(args) -> dict:
    rows = []
    header = f"{'mode':16} {'agents':>6} {'batched cyc/s':>14} {'agent-cyc/s':>12} {'loop cyc/s':>11} {'ratio':>7}"
    if args.compile != "off":
        header += f" {'compiled cyc/s':>14} {'vs eager':>8}"
    print(header)
    for mode in args.modes:
        for agents in args.agents:
            rows.append(_row(args, mode, agents))
            print(_line(rows[-1]))
    print(f"(medians of {args.repeats} x {args.cycles} cycles; device {rows[0]['device']})")
    return {"rows": rows, "cycles": args.cycles, "repeats": args.repeats, "saturation": _saturation(args, rows)}


def _saturation(args, rows: list[dict]) -> dict:
    from cognition.runtime.gpu_monitor import saturation

    out = {}
    for mode in args.modes:
        points = [(r["agents"], r["agent_cycles_per_s"]) for r in rows if r["mode"] == mode]
        out[mode] = saturation(points)
        at, seen = out[mode]["saturates_at"], out[mode]["saturated"]
        print(f"{MODES[mode]}: agent-cycles/s reaches 90 % of its peak at {at} agents"
              + ("" if seen else " (the largest count measured: no plateau observed yet)"))
    return out
