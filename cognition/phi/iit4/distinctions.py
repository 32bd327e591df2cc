"""IIT 4.0 distinctions: maximal cause and effect of every mechanism (Albantakis et al. 2023).

For a mechanism M in its current state m and a purview Z (units of the candidate system S):

- intrinsic information ii(m, z) (Eqs. 10-13) picks the specified state
  z* = argmax_z ii(m, z) (all exact maximizers are kept as state ties); the repertoire
  layer's `cause_effect.intrinsic_information`, vectorized here bit for bit;
- for a mechanism partition theta (see `mechanism_partitions`) the integrated information at z*
  is the generalized intrinsic difference

      phi(m, Z, theta) = p_sel(z* | m) * log2( p_fwd(z* | m) / p_fwd^theta(z* | m) )    (bits)

  where, on the effect side, p_sel = p_fwd = p_e(z* | m) = prod_{j in Z} p(z*_j | m) and
  p_fwd^theta = prod_i prod_{j in Z_i} p(z*_j | m_i); on the cause side p_sel = p_c(z* | m)
  (normalized over z), p_fwd = p(m | z*) = prod_{k in M} p(m_k | z*) and
  p_fwd^theta = prod_i prod_{k in M_i} p(m_k | z*_i). Negative values are clipped to 0
  (|.|_+ of Eqs. 19-20), as PyPhi does;
- the minimum-information partition minimizes phi / |theta| (|theta| = number of
  connections the partition cuts); among partitions tied there (within PyPhi's 1e-13), the
  largest phi is taken (PyPhi 2.0's mip_tie_resolution = [NORMALIZED_PHI, NEGATIVE_PHI]);
  phi(m, Z) is phi at that MIP; with several tied z*, the largest phi wins (state ties keep
  every z* within 1e-13 of it);
- the maximal cause (effect) purview Z* maximizes phi(m, Z) over the purviews that are not
  trivially reducible given the connectivity; purviews within 1e-13 of the maximum
  are kept as purview ties, the first in PyPhi's order being the winner;
- phi_d(m) = min(phi_c(m), phi_e(m)); mechanisms with phi_d <= 1e-13 specify no
  distinction.

Ties are then resolved against the system's specified cause and effect states (paper S1 Text,
PyPhi's `Distinction.resolve_congruence`): in each direction the first tied state of the
winning purview congruent with the system state is taken; failing that, the largest purview
among the tied purviews whose (first) state is congruent; a distinction with no congruent
cause or effect is dropped (see `resolve_congruence`).

Implementation: `MechanismTables` holds, per candidate system, every single-unit forward
probability the computation needs (taken from the repertoire layer `cause_effect`);
`intrinsic_information` evaluates ii for all purview states at once with the repertoire layer's
floating-point operations (bit-identical, so the same exact ties); the partitions of each
(mechanism, purview) pair are evaluated together from `mechanism_partitions.partition_template`.

Purview order: PyPhi lists the candidate purviews by iterating a Python `set` of tuples; the
order of purview ties (which one wins, and which of equal size is taken as "largest congruent")
follows that iteration order, which `candidate_purviews` reproduces by building the same set
in the same way.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Sequence

import numpy as np

from . import cause_effect as ce
from .mechanism_partitions import partition_template

__all__ = [
    "Distinction",
    "Mice",
    "candidate_purviews",
    "block_reducible",
    "compute_mices",
    "resolve_congruence",
    "MechanismTables",
]

#: PyPhi's comparison tolerance for phi values (config.numerics.precision = 13).
PHI_PRECISION = 1e-13


def _eq(x: float, y: float) -> bool:
    """PyPhi's `utils.eq`: math.isclose with rel_tol = abs_tol = 1e-13."""
    return abs(x - y) <= max(PHI_PRECISION * max(abs(x), abs(y)), PHI_PRECISION)


def _is_positive(x: float) -> bool:
    return x > 0 and not _eq(x, 0.0)


@dataclass(frozen=True)
class Distinction:
    """A distinction: a mechanism with its maximal cause and effect, phi_d = min(phi_c, phi_e).

    Attributes:
        mechanism: network indices of the mechanism (ascending).
        mechanism_state: its current state.
        cause_purview, effect_purview: network indices of the maximal purviews.
        cause_state, effect_state: the specified purview states (0/1 per purview unit).
        phi_c, phi_e: integrated information of the cause and of the effect (bits).
        phi_d: min(phi_c, phi_e) (bits).
    """

    mechanism: tuple[int, ...]
    mechanism_state: tuple[int, ...]
    cause_purview: tuple[int, ...]
    cause_state: tuple[int, ...]
    phi_c: float
    effect_purview: tuple[int, ...]
    effect_state: tuple[int, ...]
    phi_e: float

    @property
    def phi_d(self) -> float:
        return min(self.phi_c, self.phi_e)

    @property
    def phi(self) -> float:
        """Alias of `phi_d`."""
        return self.phi_d

    def __repr__(self) -> str:
        return f"Distinction({self.describe()})"

    def describe(self, labels=None) -> str:
        """One line, PyPhi's way: the mechanism in its state, its cause and effect purviews in their specified
        states, phi_c, phi_e and phi_d (bits); units as ``labels[i]`` (default their network indices)."""
        name = ce.unit_namer(labels, self.mechanism + self.cause_purview + self.effect_purview)

        def units(nodes, values):  # {0, 1}=(1, 0) with indices, {A=1, B=0} with labels
            if labels is None:
                return "{" + ", ".join(map(str, nodes)) + "}=" + str(tuple(values))
            return "{" + ", ".join(f"{name(i)}={v}" for i, v in zip(nodes, values)) + "}"

        return (f"phi_d={self.phi_d:.6g} bits: mechanism {units(self.mechanism, self.mechanism_state)}, cause "
                f"{units(self.cause_purview, self.cause_state)} (phi_c={self.phi_c:.6g}), effect "
                f"{units(self.effect_purview, self.effect_state)} (phi_e={self.phi_e:.6g})")

    def to_dict(self, labels=None) -> dict:
        """JSON-able, with ``phi_d`` and, with ``labels``, the units named."""
        name = ce.unit_namer(labels, self.mechanism + self.cause_purview + self.effect_purview, text=False)
        return {"mechanism": [name(i) for i in self.mechanism], "mechanism_state": list(self.mechanism_state),
                "cause_purview": [name(i) for i in self.cause_purview], "cause_state": list(self.cause_state),
                "effect_purview": [name(i) for i in self.effect_purview], "effect_state": list(self.effect_state),
                "phi_c": self.phi_c, "phi_e": self.phi_e, "phi_d": self.phi_d}


@dataclass(frozen=True)
class Mice:
    """A maximally irreducible cause or effect, before congruence resolution.

    Attributes:
        direction: "cause" or "effect".
        purview: the winning purview (network indices); () when no purview qualifies.
        state: its specified state (the first of `state_ties`).
        phi: its integrated information (bits).
        state_ties: ((state, phi), ...) the winning purview's tied specified states.
        purview_ties: ((purview, state, phi), ...) all purviews tied at the maximum, winner
            first, in PyPhi's order, each with its own first specified state.
    """

    direction: str
    purview: tuple[int, ...]
    state: tuple[int, ...]
    phi: float
    state_ties: tuple
    purview_ties: tuple


# ---------------------------------------------------------------------------
# candidate purviews


def _bipartite_connected(rows: list[int], n_cols: int) -> bool:
    """Whether the bipartite graph given by row bitmasks (row -> columns) is connected."""
    all_cols = (1 << n_cols) - 1
    reached_rows = 1
    reached_cols = rows[0]
    while True:
        grown = reached_rows
        for r, row in enumerate(rows):
            if row & reached_cols:
                grown |= 1 << r
        if grown == reached_rows:
            break
        reached_rows = grown
        for r, row in enumerate(rows):
            if grown >> r & 1:
                reached_cols |= row
    return reached_rows == (1 << len(rows)) - 1 and reached_cols == all_cols


def block_reducible(cm: np.ndarray, sources: Sequence[int], targets: Sequence[int]) -> bool:
    """Whether the connections sources -> targets are trivially reducible (PyPhi semantics).

    True when either side is empty, some source reaches no target, some target gets no input
    from the sources, or (both sides of size > 1) the bipartite source -> target graph falls
    apart into more than one component (a cut between the components severs nothing).
    """
    if len(sources) == 0 or len(targets) == 0:
        return True
    cm = np.asarray(cm)
    rows = [sum(1 << c for c, t in enumerate(targets) if cm[s, t]) for s in sources]
    if not all(rows):
        return True
    covered = 0
    for row in rows:
        covered |= row
    if covered != (1 << len(targets)) - 1:
        return True
    if len(sources) > 1 and len(targets) > 1:
        return not _bipartite_connected(rows, len(targets))
    return False


def _powerset(items: Sequence[int]):
    for size in range(len(items) + 1):
        yield from combinations(items, size)


@lru_cache(maxsize=4096)
def _candidate_purviews(cm_key: bytes, n: int, direction: str, mechanism: tuple[int, ...],
                        nodes: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    cm = np.frombuffer(cm_key, dtype=np.int64).reshape(n, n)

    def reducible(purview):
        src, dst = (purview, mechanism) if direction == ce.CAUSE else (mechanism, purview)
        return block_reducible(cm, src, dst)

    substrate_level = [p for p in _powerset(tuple(range(n))) if not reducible(p)]
    as_set = set(substrate_level)  # PyPhi iterates this set: its order is the purview order
    node_set = set(nodes)
    inside = [p for p in as_set if set(p).issubset(node_set)]
    return tuple(p for p in inside if not reducible(p))


def candidate_purviews(network_cm: np.ndarray, direction: str, mechanism: tuple[int, ...],
                       nodes: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The purviews PyPhi 2.0 evaluates for `mechanism`, in PyPhi's order.

    All subsets of the network's units that are not trivially reducible from (effect) or to
    (cause) the mechanism under `network_cm`, collected in a Python set exactly as PyPhi does
    (`Substrate.potential_purviews` then `System` filtering), then restricted to `nodes`.
    """
    cm = np.ascontiguousarray(network_cm, dtype=np.int64)
    return list(_candidate_purviews(cm.tobytes(), cm.shape[0], direction,
                                    tuple(int(i) for i in mechanism), tuple(int(i) for i in nodes)))


# ---------------------------------------------------------------------------
# per-system tables of single-unit forward probabilities


class MechanismTables:
    """Single-unit forward probabilities of a candidate system, for all conditioning sets.

    Built from the repertoire layer (`cause_effect.forward_*_repertoire`), so every entry is
    the repertoire layer's own number (OFF and ON probabilities kept separately, as PyPhi's
    factors are):

    - effect_p[j, S, x, v]: P(unit j = v at t+1 | units S in the state of full system state x
      restricted to S, other inputs averaged), (k, 2^k, 2^k, 2), S a bitmask over positions;
    - cause_p[i, S, x, v]: P(unit i = v at t | units S at t-1 in the state x restricted to S),
      (k, 2^k, 2^k, 2).
    """

    def __init__(self, system: ce.CandidateSystem):
        k = system.size
        nodes = system.nodes
        self.system = system
        self.k = k
        self.state = np.asarray(system.state, dtype=np.int64)
        self.state_index = ce.state_index(system.state)
        full = 1 << k
        bits = ce.bits_table(k)  # (2^k, k)
        self.effect_p = np.empty((k, full, full, 2))
        self.cause_p = np.empty((k, full, full, 2))
        for s_mask in range(full):
            members = [a for a in range(k) if s_mask >> a & 1]
            s_nodes = tuple(nodes[a] for a in members)
            # index of each full state x restricted to S (little-endian over S's positions)
            sub_idx = np.zeros(full, dtype=np.int64)
            for c, a in enumerate(members):
                sub_idx |= bits[:, a] << c
            for j in range(k):
                for v in (0, 1):
                    p = ce.forward_cause_repertoire(system, (nodes[j],), s_nodes, mechanism_state=(v,))
                    self.cause_p[j, s_mask, :, v] = p[sub_idx]
                eff = np.array([
                    ce.forward_effect_repertoire(system, s_nodes, (nodes[j],),
                                                 mechanism_state=ce.index_state(r, len(members)))
                    for r in range(1 << len(members))
                ])  # (2^|S|, 2): [off, on]
                self.effect_p[j, s_mask] = eff[sub_idx]


def intrinsic_information(tables: MechanismTables, direction: str, mpos: np.ndarray, zpos: np.ndarray):
    """(values, selectivity, forward) of `cause_effect.intrinsic_information`, vectorized.

    Same quantities and the same floating-point operations in the same order as the
    repertoire layer (so exact ties among purview states are the same): products over units
    in ascending position starting from 1, the effect's unconstrained forward repertoire as
    the mean over mechanism states (little-endian), the cause's as the mean over purview
    states. mpos, zpos: system positions of the mechanism and purview units.
    """
    a, b = len(mpos), len(zpos)
    if direction == ce.EFFECT:
        mech_states = _subset_masks(mpos)  # x of every mechanism state (other bits 0)
        m_mask = int(mech_states[-1])
        fwd_all = np.ones((1 << a, 1))
        for j in zpos:
            p = tables.effect_p[j, m_mask, mech_states]  # (2^a, 2)
            fwd_all = np.concatenate([fwd_all * p[:, :1], fwd_all * p[:, 1:]], axis=1)
        unc = np.mean(fwd_all, axis=0)
        current = ce.state_index(tables.state[mpos])
        fwd = fwd_all[current]
        sel = fwd
    else:
        pur_states = _subset_masks(zpos)
        z_mask = int(pur_states[-1])
        fwd = np.ones(1 << b)
        for i in mpos:
            fwd = fwd * tables.cause_p[i, z_mask, pur_states, tables.state[i]]
        total = fwd.sum()
        sel = fwd / total if total != 0 else fwd
        unc = np.full(fwd.shape, fwd.mean())
    return sel * _log2_ratio(fwd, unc), sel, fwd


def _subset_masks(positions: np.ndarray) -> np.ndarray:
    """(2^len,) system-position bitmask of each subset (little-endian) of `positions`."""
    return _subset_masks_cached(tuple(int(p) for p in positions))


@lru_cache(maxsize=None)
def _subset_masks_cached(positions: tuple[int, ...]) -> np.ndarray:
    bits = ce.bits_table(len(positions))
    out = bits @ (np.int64(1) << np.asarray(positions, dtype=np.int64))
    out.setflags(write=False)
    return out


_BIG = np.finfo(float).max


def _log2_ratio(p, q) -> np.ndarray:
    """`cause_effect.information_density` (log2(p/q), 0/0 -> 0, +-inf -> +-max float), with
    the clean-up only when something is not finite (the common case skips nan_to_num)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log2(np.divide(p, q))
    if not np.all(np.isfinite(out)):
        out = np.nan_to_num(out, nan=0.0, posinf=_BIG, neginf=-_BIG)
    return out


def _partitioned_forward(tables: MechanismTables, direction: str, mpos: np.ndarray, zpos: np.ndarray,
                         z_state: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """p_fwd^theta(z*) for every distinct partition, and |theta|: ((P,), (P,))."""
    a, b = len(mpos), len(zpos)
    template = partition_template(a, b, direction)
    z = np.asarray(z_state, dtype=np.int64)
    if direction == ce.EFFECT:
        mech_sub = _subset_masks(mpos)  # (2^a,)
        vals = tables.effect_p[zpos[:, None], mech_sub[None, :], tables.state_index, z[:, None]]  # (b, 2^a)
        picked = vals[np.arange(b)[None, :], template.masks]  # (P, b)
    else:
        pur_sub = _subset_masks(zpos)  # (2^b,)
        x = int(np.sum(z << zpos)) if b else 0
        m_state = tables.state[mpos]
        vals = tables.cause_p[mpos[:, None], pur_sub[None, :], x, m_state[:, None]]  # (a, 2^b)
        picked = vals[np.arange(a)[None, :], template.masks]  # (P, a)
    return np.prod(picked, axis=1), template.n_cut


def _mip_phi(sel: float, fwd: float, partitioned: np.ndarray, n_cut: np.ndarray) -> float:
    """phi at the MIP: min phi/|theta| (ties within 1e-13 -> largest phi), clipped at 0."""
    signed = sel * _log2_ratio(fwd, partitioned)
    phi = np.maximum(signed, 0.0)
    norm = np.maximum(signed * (1.0 / n_cut), 0.0)
    if np.any(np.abs(phi) <= PHI_PRECISION):
        return 0.0  # a partition with phi 0 has the least normalized phi, 0: it is the MIP (PyPhi stops there)
    best = float(norm.min())
    tied = np.abs(norm - best) <= np.maximum(PHI_PRECISION * np.maximum(np.abs(norm), abs(best)), PHI_PRECISION)
    return float(phi[tied].max())


def _purview_mice(tables: MechanismTables, direction: str, mechanism: tuple[int, ...],
                  purview: tuple[int, ...]):
    """(((state, phi), ...) tied specified states, their phi) of `mechanism` over `purview`.

    The states are the exact maximizers of ii (little-endian order); each gets its MIP phi and
    those within 1e-13 of the largest are kept, the first being the specified state. An
    unreachable mechanism state (all-zero cause repertoire) gives phi 0, as PyPhi's null MIP.
    """
    system = tables.system
    mpos = np.array([system.position(i) for i in mechanism], dtype=np.int64)
    zpos = np.array([system.position(i) for i in purview], dtype=np.int64)
    values, sel, fwd = intrinsic_information(tables, direction, mpos, zpos)
    top = values.max()
    states = [ce.index_state(int(r), len(purview)) for r in np.flatnonzero(values == top)]
    if direction == ce.CAUSE and not np.any(sel):
        return (((states[0], 0.0),), 0.0)  # unreachable mechanism state: PyPhi's null MIP
    phis = []
    for z in states:
        zi = ce.state_index(z)
        partitioned, n_cut = _partitioned_forward(tables, direction, mpos, zpos, z)
        phis.append(_mip_phi(float(sel[zi]), float(fwd[zi]), partitioned, n_cut))
    best = max(phis)
    ties = tuple((z, p) for z, p in zip(states, phis) if _eq(p, best))
    return ties, ties[0][1]


def find_mice(tables: MechanismTables, direction: str, mechanism: tuple[int, ...],
              purviews: Sequence[tuple[int, ...]]) -> Mice:
    """The maximally irreducible cause or effect of `mechanism` over `purviews` (in order)."""
    results = []
    for purview in purviews:
        ties, phi = _purview_mice(tables, direction, mechanism, purview)
        results.append((purview, ties, phi))
    if not results:
        return Mice(direction, (), (), 0.0, (), ())
    best = max(r[2] for r in results)
    tied = [r for r in results if _eq(r[2], best)]
    purview, state_ties, phi = tied[0]
    purview_ties = tuple((p, t[0][0], ph) for p, t, ph in tied)
    return Mice(direction, purview, state_ties[0][0], phi, state_ties, purview_ties)


def compute_mices(system: ce.CandidateSystem, tables: MechanismTables | None = None):
    """Every mechanism's (mechanism, cause Mice, effect Mice) with phi_d > 1e-13, before
    congruence resolution; mechanisms in PyPhi's order (by size, then lexicographic)."""
    tables = tables if tables is not None else MechanismTables(system)
    nodes = system.nodes
    out = []
    for size in range(1, len(nodes) + 1):
        for mechanism in combinations(nodes, size):
            mices = []
            for direction in (ce.CAUSE, ce.EFFECT):
                purviews = candidate_purviews(system.network_cm, direction, mechanism, nodes)
                mices.append(find_mice(tables, direction, mechanism, purviews))
            if _is_positive(min(mices[0].phi, mices[1].phi)):
                out.append((mechanism, mices[0], mices[1]))
    return out


def _congruent(purview: Sequence[int], state: Sequence[int], system_state: dict[int, int]) -> bool:
    return all(system_state[i] == s for i, s in zip(purview, state))


def _resolve_direction(mice: Mice, system_state: dict[int, int]):
    """(purview, state, phi) congruent with the system state, or None (PyPhi's cascade)."""
    for state, phi in mice.state_ties:
        if _congruent(mice.purview, state, system_state):
            return mice.purview, state, phi
    congruent = [t for t in mice.purview_ties if _congruent(t[0], t[1], system_state)]
    if congruent:
        best = max(len(t[0]) for t in congruent)
        return next(t for t in congruent if len(t[0]) == best)
    return None


def resolve_congruence(system: ce.CandidateSystem, mices, cause_state: Sequence[int],
                       effect_state: Sequence[int]) -> list[Distinction]:
    """Resolve each mechanism's ties against the system's specified cause and effect states
    (0/1 over the system's units) and return the distinctions that survive."""
    nodes = system.nodes
    cs = dict(zip(nodes, (int(s) for s in cause_state)))
    es = dict(zip(nodes, (int(s) for s in effect_state)))
    out = []
    for mechanism, cause, effect in mices:
        c = _resolve_direction(cause, cs)
        e = _resolve_direction(effect, es)
        if c is None or e is None:
            continue
        out.append(Distinction(
            mechanism=tuple(mechanism),
            mechanism_state=tuple(system.state[system.position(i)] for i in mechanism),
            cause_purview=tuple(c[0]), cause_state=tuple(c[1]), phi_c=float(c[2]),
            effect_purview=tuple(e[0]), effect_state=tuple(e[1]), phi_e=float(e[2]),
        ))
    return out
