"""Partitions and cuts of IIT 3.0, enumerated in PyPhi 1.2's order (ties go to the first).

Sets are bitmasks over the subsystem's k nodes. Orders reproduce `pyphi.partition`:
`bipartition` (undirected, bit i of the counter puts element i in the second part),
`directed_bipartition` (those followed by their reversals in reverse order), the
mechanism partitions `mip_bipartitions` (PARTITION_TYPE = 'BI') and the unidirectional
system cuts of `sia_bipartitions` ('3.0_STYLE'). `block_reducible` is PyPhi's test for
purviews that are trivially reducible given the connectivity (`connectivity.py`).
"""
from __future__ import annotations

from functools import cache
from itertools import combinations

from .repertoires import bits_of


def _gather(elements: tuple[int, ...], index_bits: tuple[int, ...]) -> int:
    return sum(1 << elements[i] for i in index_bits)


@cache
def bipartitions(mask: int) -> tuple[tuple[int, int], ...]:
    """Undirected bipartitions (part0, part1) of a set, PyPhi's `bipartition` order."""
    elems = bits_of(mask)
    n = len(elems)
    if n == 0:
        return ()
    out = []
    for i in range(1 << (n - 1)):
        part1 = tuple(j for j in range(n) if i >> j & 1)
        part0 = tuple(j for j in range(n) if not i >> j & 1)
        out.append((_gather(elems, part1), _gather(elems, part0)))
    return tuple(out)


@cache
def directed_bipartitions(mask: int) -> tuple[tuple[int, int], ...]:
    """Directed bipartitions (all ordered pairs), PyPhi's `directed_bipartition` order."""
    undirected = bipartitions(mask)
    if not undirected:
        return ((0, 0),) if mask == 0 else ()
    return undirected + tuple((b, a) for a, b in reversed(undirected))


@cache
def mechanism_partitions(mechanism: int, purview: int) -> tuple[tuple[int, int, int, int], ...]:
    """(M1, P1, M2, P2) for every 'BI' partition of mechanism/purview, PyPhi's order.

    Excluded: partitions where a part has neither mechanism nor purview nodes.
    """
    out = []
    for m0, m1 in bipartitions(mechanism):
        for p0, p1 in directed_bipartitions(purview):
            if (m0 or p0) and (m1 or p1):
                out.append((m0, p0, m1, p1))
    return tuple(out)


@cache
def system_cuts(k: int) -> tuple[tuple[int, int], ...]:
    """Unidirectional cuts (from_nodes, to_nodes) of k nodes, PyPhi's `sia_bipartitions`."""
    return directed_bipartitions((1 << k) - 1)[1:-1]


@cache
def powerset_masks(mask: int, nonempty: bool = False) -> tuple[int, ...]:
    """Subsets of `mask` by size, then lexicographically (itertools.combinations order)."""
    elems = bits_of(mask)
    out = []
    for r in range(1 if nonempty else 0, len(elems) + 1):
        out.extend(sum(1 << e for e in c) for c in combinations(elems, r))
    return tuple(out)


def _block_cm(rows: list[int], n_cols: int) -> bool:
    """PyPhi's `connectivity.block_cm` on a 0/1 matrix given as row bitmasks: can the
    sources be grouped so that each group only feeds its own block of sinks?"""
    if any(r == 0 for r in rows):
        return True
    if all(bin(r).count("1") == 1 for r in rows):
        return True
    counts = [bin(r).count("1") for r in rows]

    def outputs_of(sources: int) -> int:
        out = 0
        for i in bits_of(sources):
            out |= rows[i]
        return out

    def inputs_to(sinks: int) -> int:
        return sum(1 << i for i, r in enumerate(rows) if r & sinks)

    sources = 1 << counts.index(max(counts))  # np.argmax: the first row with most edges
    sinks = outputs_of(sources)
    sink_inputs = inputs_to(sinks)
    while True:
        if sink_inputs == sources:
            return True
        sources = sink_inputs
        sinks = outputs_of(sources)
        sink_inputs = inputs_to(sinks)
        if sinks == (1 << n_cols) - 1:
            return False


@cache
def block_reducible(sources: int, sinks: int, sink_inputs: tuple[int, ...]) -> bool:
    """Are the connections from `sources` to `sinks` trivially reducible? (PyPhi's
    `connectivity.block_reducible`.) `sink_inputs[c]` is the bitmask of the sources with
    an edge into the c-th sink (ascending).
    """
    if not sources or not sinks:
        return True
    src, dst = bits_of(sources), bits_of(sinks)
    rows = [sum(1 << c for c in range(len(dst)) if sink_inputs[c] >> i & 1) for i in src]
    hit = 0
    for r in rows:
        hit |= r
    if any(r == 0 for r in rows) or hit != (1 << len(dst)) - 1:
        return True
    if len(src) > 1 and len(dst) > 1:
        return _block_cm(rows, len(dst))
    return False


def is_strongly_connected(inputs: tuple[int, ...]) -> bool:
    """Is the directed graph (edge i -> j when bit i of inputs[j]) strongly connected?"""
    k = len(inputs)
    if k <= 1:
        return True
    outputs = [sum(1 << j for j in range(k) if inputs[j] >> i & 1) for i in range(k)]

    def reach(adj) -> int:
        seen, frontier = 1, 1
        while frontier:
            nxt = 0
            for i in bits_of(frontier):
                nxt |= adj[i]
            frontier = nxt & ~seen
            seen |= frontier
        return seen

    full = (1 << k) - 1
    return reach(outputs) == full and reach(list(inputs)) == full
