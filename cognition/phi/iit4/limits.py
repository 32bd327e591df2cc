"""How large a system exact IIT 4.0 computes without being asked: node limits per function, from measurements.

Exact IIT 4.0 grows faster than exponentially with the candidate system's size (directed system partitions,
purviews, mechanism partitions). Measured on this project's 2-core machine (a random logistic network, one
call; issue 43): ``iit4`` 7 nodes 0.33 s and 136 MB peak, 8 nodes 2.0 s and 383 MB, 9 nodes 12.8 s and 2.0 GB,
10 nodes 33 s and 3.7 GB, 12 nodes asked for 3 GiB in one array and 16 nodes for 32 GiB; ``phi_structure``
5 nodes 0.31 s and 113 MB, 6 nodes 3.4 s and 432 MB, 7 nodes asked for 8 GiB in one array (the mechanism
partitions). So each function refuses a larger system in one ValueError line, before any work, unless the
caller raises the limit with ``max_nodes=`` (at their own risk of time and memory).
"""
from __future__ import annotations

#: the largest candidate system each function computes by default (both under about 0.5 GB and a few seconds)
MAX_SYSTEM_NODES = 8      # iit4, iit4_batch, maximal_complex
MAX_STRUCTURE_NODES = 6   # phi_structure, phi_structures
MEASURED = {"iit4": "8 nodes 2.0 s and 0.4 GB, 9 nodes 13 s and 2.0 GB, 10 nodes 33 s and 3.7 GB",
            "phi_structure": "6 nodes 3.4 s and 0.4 GB, 7 nodes asked for 8 GiB"}


def check_size(nodes: int, function: str, max_nodes: int | None) -> None:
    """ValueError, one line naming the size, the limit, what was measured past it and how to ask anyway, when a
    candidate system of ``nodes`` nodes is above ``function``'s limit (``max_nodes`` given: the caller's)."""
    default = MAX_STRUCTURE_NODES if function in ("phi_structure", "phi_structures") else MAX_SYSTEM_NODES
    if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1):
        raise ValueError(f"max_nodes: got {max_nodes!r}; allowed: None (the default limit, {default}) or an "
                         "integer >= 1")
    limit = default if max_nodes is None else max_nodes
    if nodes > limit:
        kind = "phi_structure" if default == MAX_STRUCTURE_NODES else "iit4"
        raise ValueError(f"nodes: a candidate system of {nodes} nodes is above {function}'s limit of {limit} "
                         f"(measured: {MEASURED[kind]}; time and memory multiply with each node; docs/iit4.md); "
                         f"pass max_nodes={nodes} to compute it anyway")
