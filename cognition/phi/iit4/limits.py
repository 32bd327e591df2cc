"""How large a system exact IIT 4.0 computes: node limits per function and the time and memory it needs.

Exact IIT 4.0 grows faster than exponentially with the candidate system's size (directed system partitions,
purviews, mechanism partitions). Measured on this project's 2-core machine (a random logistic network, one
call, peak RSS; issue 43): ``iit4`` 7 nodes 0.33 s and 136 MB, 8 nodes 2.0 s and 383 MB, 9 nodes 12.8 s and
2.0 GB, 10 nodes stopped by a MemoryError after 33 s at 3.7 GB (a 4 GB limit), 12 nodes asked for 3 GiB in
one array and 16 nodes for 32 GiB; ``phi_structure`` 5 nodes 0.31 s and 113 MB, 6 nodes 3.4 s and 432 MB,
7 nodes asked for 8 GiB in one array (the mechanism partitions).

So each function refuses a larger system than its limit in one ValueError line, before any work, unless the
caller raises the limit with ``max_nodes=``; and whatever the limit, a system whose estimated memory
(:func:`estimated_cost`) exceeds what the tightest host limit leaves (MemAvailable, the cgroup's limit,
``ulimit -v``: :mod:`cognition.runtime.memlimits`) is refused in one line naming the need, the limit and the
largest size that fits, where it would otherwise be killed by the OOM killer or stop in a MemoryError.
"""
from __future__ import annotations

from cognition.runtime.memlimits import describe, host_limits, tightest

#: the largest candidate system each function computes by default (both under about 0.5 GB and a few seconds)
MAX_SYSTEM_NODES = 8      # iit4, iit4_batch, maximal_complex
MAX_STRUCTURE_NODES = 6   # phi_structure, phi_structures
MB = 10**6
#: measured cost per size, (seconds, peak resident bytes) of one call (the docstring's measurements). The
#: 10-node iit4 row is what it had reached when it failed, and the 7-node phi_structure row's memory the one
#: array it asked for (its time the 5 -> 6 growth): lower bounds.
MEASURED_COST = {
    "iit4": {7: (0.33, 136 * MB), 8: (2.0, 383 * MB), 9: (12.8, 2000 * MB), 10: (33.0, 3700 * MB)},
    "phi_structure": {5: (0.31, 113 * MB), 6: (3.4, 432 * MB), 7: (3.4 * 3.4 / 0.31, 8 * 2**30)},
}
#: growth per node past the measured sizes: the last measured complete step's (iit4 8 -> 9: x6.4 time, x5.2
#: memory; phi_structure 5 -> 6 x11 time, 6 -> 7 x19.9 memory)
GROWTH = {"iit4": (12.8 / 2.0, 2000 / 383), "phi_structure": (3.4 / 0.31, 8 * 2**30 / (432 * MB))}
MEASURED = {"iit4": "8 nodes 2.0 s and 0.4 GB, 9 nodes 13 s and 2.0 GB, 10 nodes 33 s and 3.7 GB",
            "phi_structure": "6 nodes 3.4 s and 0.4 GB, 7 nodes asked for 8 GiB"}


def _kind(function: str) -> str:
    return "phi_structure" if function in ("phi_structure", "phi_structures") else "iit4"


def estimated_cost(nodes: int, function: str = "iit4") -> tuple[float, int]:
    """(seconds, peak resident bytes) one exact call on a candidate system of ``nodes`` nodes takes, from
    :data:`MEASURED_COST`: the measured value, the smallest measured size's below it, and past the largest
    measured size that value times the last measured growth per node (a rough model: time and memory then
    depend on the network too; docs/iit4.md)."""
    table = MEASURED_COST[_kind(function)]
    if nodes in table:
        return table[nodes]
    low, high = min(table), max(table)
    if nodes < low:
        return table[low]
    seconds, peak = table[high]
    t_growth, m_growth = GROWTH[_kind(function)]
    steps = nodes - high
    return seconds * t_growth ** steps, int(peak * m_growth ** steps)


def _gb(n: float) -> str:
    return f"{n / 1e9:.3g} GB"


def _seconds(s: float) -> str:
    if s < 120:
        return f"{s:.2g} s"
    return f"{s / 60:.3g} min" if s < 7200 else f"{s / 3600:.3g} h"


def check_size(nodes: int, function: str, max_nodes: int | None, limits: list | None = None) -> None:
    """ValueError, one line, before any work, when a candidate system of ``nodes`` nodes is above
    ``function``'s node limit (``max_nodes`` given: the caller's), naming the size, the limit, the estimated
    need and how to ask anyway; or, within the limit, when its estimated memory exceeds what the tightest
    host limit leaves (``limits``: :func:`cognition.runtime.memlimits.host_limits`, read now when None),
    naming the need, the limit and the largest size that fits."""
    kind = _kind(function)
    default = MAX_STRUCTURE_NODES if kind == "phi_structure" else MAX_SYSTEM_NODES
    if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1):
        raise ValueError(f"max_nodes: got {max_nodes!r}; allowed: None (the default limit, {default}) or an "
                         "integer >= 1")
    limit = default if max_nodes is None else max_nodes
    seconds, need = estimated_cost(nodes, kind)
    if nodes > limit:
        raise ValueError(f"nodes: a candidate system of {nodes} nodes is above {function}'s limit of {limit} "
                         f"(it needs about {_seconds(seconds)} and {_gb(need)}; measured: "
                         f"{MEASURED[kind]}; docs/iit4.md); pass max_nodes={nodes} to compute it anyway")
    host = tightest(host_limits() if limits is None else limits, {"resident": need, "virtual": need})
    if host is None or need <= host.headroom_bytes:
        return
    fits = [n for n in range(1, nodes) if estimated_cost(n, kind)[1] <= host.headroom_bytes]
    largest = f"the largest system that fits is {max(fits)} nodes" if fits else "no system fits"
    raise ValueError(f"nodes: a candidate system of {nodes} nodes needs about {_gb(need)} for {function} (and "
                     f"about {_seconds(seconds)}; docs/iit4.md), more than the tightest host memory limit leaves, "
                     f"{describe(host)}; {largest}")
