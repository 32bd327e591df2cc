"""Where a cycle's time goes, for the ``agents`` suite: the per-cycle Phi timed alone, and a profile.

:func:`phi_cost` times the loop's own per-cycle Phi call (:meth:`cognition.architecture.loop.IntegrationLoop.phi_at`,
what :meth:`~cognition.architecture.loop.IntegrationLoop.step` adds to ``advance`` every cycle once the
window has filled) on a full window of the run's own unit signals. :func:`profile` runs batched
cycles under cProfile and keeps the functions with the most own and cumulative time. cProfile
charges every Python call a little, so it inflates call-heavy code (per-agent loops) against
time spent inside torch and numpy kernels; its shares rank the costs, the bench's timings (taken
without it) measure them.
"""
from __future__ import annotations

import statistics
import time


def phi_cost(loop, repeats: int) -> dict:
    """Median seconds of ``loop.phi_at`` alone over ``repeats`` calls after an untimed first one
    (imports, caches), on the signals of ``phi_window`` untimed cycles (rows, W - 1, units) and the last."""
    import numpy as np

    state, signals = loop.initial_state(), []
    for _ in range(loop.phi_window):
        state, _, cycle_signals = loop.advance(state)
        signals.append(cycle_signals)
    window, last = np.stack(signals[:-1], axis=1), signals[-1]  # oldest first, as the runner keeps it
    times, note = [], None
    for _ in range(repeats + 1):
        t0 = time.perf_counter()
        try:
            loop.phi_at(window, last)
        except ValueError as exc:  # as in IntegrationLoop._record: Phi undefined (a constant unit), still timed
            note = str(exc)
        times.append(time.perf_counter() - t0)
    return {"phi_s_per_cycle": statistics.median(times[1:]), "phi_window": loop.phi_window, "phi_note": note}


def profile(loop, cycles: int, top: int) -> dict:
    """cProfile of ``cycles`` batched cycles after a warm-up one: the ``top`` functions by own time
    and by cumulative time, with their shares of the profiled total."""
    import cProfile
    import pstats

    state = loop.initial_state()
    state, *_ = loop.advance(state)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(cycles):
        state, *_ = loop.advance(state)
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = stats.total_tt
    entries = [{"function": name if path == "~" else f"{'/'.join(path.split('/')[-2:])}:{line}({name})",
                "calls": calls, "own_s": own, "own_share": own / total, "cum_s": cum, "cum_share": cum / total}
               for (path, line, name), (_, calls, own, cum, _) in stats.stats.items()]
    return {"cycles": cycles, "total_s": total,
            "by_own_time": sorted(entries, key=lambda e: -e["own_s"])[:top],
            "by_cumulative_time": sorted(entries, key=lambda e: -e["cum_s"])[:top]}


def profile_lines(prof: dict) -> list[str]:
    lines = [f"  {prof['cycles']} batched cycles, {prof['total_s']:.3f} s under cProfile"]
    for key, title in (("by_own_time", "own"), ("by_cumulative_time", "cumulative")):
        lines += [f"  by {title} time:", f"    {'own %':>6} {'cum %':>6} {'calls':>8}  function"]
        lines += [f"    {100 * e['own_share']:6.1f} {100 * e['cum_share']:6.1f} {e['calls']:8d}  {e['function']}"
                  for e in prof[key]]
    return lines
