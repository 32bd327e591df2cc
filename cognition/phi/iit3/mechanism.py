"""Mechanism level of IIT 3.0: small phi, maximally irreducible causes and effects.

For a mechanism M and purview P, phi(M, P) is the EMD between the repertoire and the
closest partitioned repertoire over all bipartitions (M1/P1) x (M2/P2) (Oizumi et al.
2014, eqs. 5-6; PyPhi `Subsystem.find_mip`), rounded to PRECISION = 6 decimals as PyPhi
does. The MIC / MIE is the purview with the largest phi; ties go to the larger purview,
then to the first in PyPhi's purview order (`RepertoireIrreducibilityAnalysis.order_by`).
Purviews whose connections to M are trivially reducible are skipped (PyPhi
`potential_purviews`). A concept's phi is min(phi_cause, phi_effect). Effect small phi
comes from `effect.EffectTables` for all purviews at once; cause purviews are ranked and
pruned with bounds from `cause.CauseTables`, and their MIP searched on PyPhi's arrays.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .cause import CauseTables
from .effect import EffectTables, at_rounding_tie
from .fastemd import PRECISION
from .partitions import block_reducible, mechanism_partitions, powerset_masks
from .repertoires import Repertoires, bits_of, subindex

CAUSE, EFFECT = "cause", "effect"


@dataclass(frozen=True)
class Mice:
    """Maximally irreducible cause or effect of a mechanism (bitmasks, local indices).

    `repertoire` is the cause distribution over the purview's 2^|P| states (a product
    over the node masks in `blocks`), or for an effect the (P(OFF), P(ON)) pair of each
    purview node, shape (|P|, 2).
    """

    phi: float
    purview: int
    repertoire: np.ndarray | None
    blocks: tuple[int, ...] = ()


#: A MICE of phi 0 without a purview. Where the largest small phi is 0, the mechanism is
#: no concept, and which purview PyPhi would name does not matter (nothing reads it).
NO_MICE = Mice(0.0, 0, None)


def _potential_purviews(direction: str, mechanism: int, inputs: tuple[int, ...]) -> tuple[int, ...]:
    """Purviews not trivially reducible given the (cut) connectivity (PyPhi's
    `potential_purviews`), in PyPhi's purview order. Only the edges into the mechanism
    (cause) or out of it (effect) matter, so the cache sees just those."""
    if direction == CAUSE:
        relevant = tuple(x if mechanism >> j & 1 else 0 for j, x in enumerate(inputs))
    else:
        relevant = tuple(x & mechanism for x in inputs)
    return _irreducible_purviews(direction, mechanism, relevant)


@lru_cache(maxsize=65536)
def _irreducible_purviews(direction: str, mechanism: int, inputs: tuple[int, ...]) -> tuple[int, ...]:
    k = len(inputs)
    if direction == CAUSE:  # sources: purview nodes; sinks: mechanism nodes
        sink_inputs = [inputs[j] for j in bits_of(mechanism)]
        full = (1 << k) - 1  # purview nodes feeding every mechanism node
        for x in sink_inputs:
            full &= x
    else:  # sources: the mechanism; sinks: purview nodes
        full = sum(1 << j for j in range(k) if inputs[j] & mechanism == mechanism)
    out = []
    for purview in powerset_masks((1 << k) - 1, True):
        if purview & ~full == 0:
            out.append(purview)  # every edge present: never reducible
            continue
        src, dst = (purview, mechanism) if direction == CAUSE else (mechanism, purview)
        if not block_reducible(src, dst, tuple(inputs[j] & src for j in bits_of(dst))):
            out.append(purview)
    return tuple(out)


def damaged_by_cut(direction: str, mechanism: int, purview: int, cut: tuple[int, int]) -> bool:
    """PyPhi's `damaged_by_cut`: does the cut A -/-> B split the mechanism, or sever a
    connection from the purview to the mechanism (cause) or from the mechanism to the
    purview (effect)? Edges count whether or not the cm has them (PyPhi's `cut_matrix`)."""
    source, target = cut
    src, dst = (purview, mechanism) if direction == CAUSE else (mechanism, purview)
    return bool((mechanism & source and mechanism & target) or (src & source and dst & target))


@lru_cache(maxsize=4096)
def _effect_table(mechanism: int, purview: int, partitions: tuple) -> tuple[tuple[int, ...], np.ndarray]:
    """Mechanism subsets (ending with the whole mechanism) and, per partition and purview
    node, the index of the mechanism part that node is paired with."""
    used = {m1 if p1 >> p & 1 else m2 for m1, p1, m2, _ in partitions for p in bits_of(purview)}
    subsets = tuple(sorted(used - {mechanism})) + (mechanism,)
    where = {m: i for i, m in enumerate(subsets)}
    table = np.array(
        [[where[m1 if p1 >> p & 1 else m2] for p in bits_of(purview)] for m1, p1, m2, _ in partitions],
        dtype=np.intp,
    )
    return subsets, table


def _pyphi_effect_emd(d1: np.ndarray, d2: np.ndarray) -> np.float64:
    """PyPhi 1.2's `distance.effect_emd`: sum over array axes of |P1(OFF) - P2(OFF)|, each
    marginal summed from the joint array (bit-for-bit PyPhi's float operations).

    The result is a numpy float64, and rounding it (`round(x, 6)`, as PyPhi does) rounds
    half to even on x * 1e6 (numpy), not on x's decimal expansion (Python floats): the
    two differ when x * 1e6 lands on .5, e.g. 0.1339375 -> 0.133938 vs 0.133937.
    """
    total = np.float64(0.0)
    for i in range(d1.ndim):
        index = tuple(0 if a == i else slice(None) for a in range(d1.ndim))
        total += abs(d1[index].sum() - d2[index].sum())
    return total


class MechanismAnalyzer:
    """Small phi and MICE of a system under any cut, with caches shared across cuts."""

    def __init__(self, reps: Repertoires, engine, reuse_uncut: bool = True):
        self.reps = reps
        self.engine = engine
        self.reuse_uncut = reuse_uncut
        self.effects = EffectTables(reps)
        self.tables = CauseTables(reps)
        self.k = reps.k
        self._phi: dict[tuple, tuple[float, np.ndarray | None]] = {}
        self._mice: dict[tuple, Mice] = {}
        self._interned: dict[tuple, Mice] = {}
        self._bound: dict[tuple, float] = {}
        self._node_keys: dict[tuple[int, int], list[tuple[int, int]]] = {}

    # -- small phi ------------------------------------------------------------------
    def _cause_parts(self, purview: int, inputs, partitions) -> tuple[np.ndarray, list | None]:
        """Partitioned cause repertoires (one row per partition) and, for the exact
        engine, the node blocks each row factors over."""
        cause = self.reps.cause_lookup(inputs)
        rows = []
        want_blocks = self.engine.name == "exact"
        blocks = [] if want_blocks else None
        for m1, p1, m2, p2 in partitions:
            if p1 and p2:
                a, b = cause(m1, p1), cause(m2, p2)
                rows.append(a.probs[subindex(purview, p1)] * b.probs[subindex(purview, p2)])
                if want_blocks:
                    blocks.append(a.blocks + b.blocks)
            else:
                m, p = (m1, p1) if p1 else (m2, p2)
                a = cause(m, p)
                rows.append(a.probs)
                if want_blocks:
                    blocks.append(a.blocks)
        return np.array(rows), blocks

    def cause_phi(self, mechanism: int, purview: int, inputs) -> tuple[float, np.ndarray | None, tuple]:
        rep = self.reps.cause(mechanism, purview, inputs)
        if rep.is_zero:
            return 0.0, None, ()  # unreachable from every purview state: PyPhi returns phi = 0
        if self.engine.name == "exact":  # needs each row's factor blocks
            rows, blocks = self._cause_parts(purview, inputs, mechanism_partitions(mechanism, purview))
            best = self.engine.mip_distance(rep.probs, rows, blocks, rep.blocks, purview)
        else:  # rows from the tables bound; the EMDs that count use PyPhi's arrays
            rows, partitions = self.tables.partition_rows(mechanism, purview, inputs)
            best = self.engine.mip_distance(
                rep.probs, rows, None, rep.blocks, purview,
                exact_row=lambda j: self._cause_parts(purview, inputs, partitions[j:j + 1])[0][0])
        return round(float(best), PRECISION), rep.probs, rep.blocks

    def _effect_distances(self, mechanism: int, purview: int, inputs, partitions) -> np.ndarray:
        """PyPhi's `effect_emd` per partition: sum over nodes of |P(OFF) - P_cut(OFF)|."""
        nodes = bits_of(purview)
        subsets, table = _effect_table(mechanism, purview, partitions)
        off = self.reps.effect_off_on
        offs = np.array([[off(p, inputs[p], sub & inputs[p])[0] for p in nodes] for sub in subsets])
        whole = offs[-1]  # the last subset is the whole mechanism
        return np.abs(whole[None, :] - offs[table, np.arange(len(nodes))[None, :]]).sum(axis=1)

    def effect_phi(self, mechanism: int, purview: int, inputs) -> float:
        """The effect small phi of one purview, every partition enumerated; at a
        6th-decimal rounding tie the closest partitions are re-evaluated with PyPhi's
        own arithmetic (it sums marginals of the joint arrays), whose last bit decides."""
        partitions = mechanism_partitions(mechanism, purview)
        dists = self._effect_distances(mechanism, purview, inputs, partitions)
        low = float(dists.min())
        if not at_rounding_tie(low):  # the last bit is moot
            return float(round(np.float64(low), PRECISION))
        near = np.flatnonzero(dists <= low + 1e-9)
        whole_joint = self.reps.effect_joint(mechanism, purview, inputs)
        best = min(
            round(_pyphi_effect_emd(whole_joint, self._effect_partitioned(partitions[j], inputs)), PRECISION)
            for j in near
        )
        return float(best)

    def effect_phis(self, mechanism: int, purviews: tuple[int, ...], inputs) -> list[float]:
        """Effect small phi of every purview at once (`effect.EffectTables`), rounded as
        PyPhi rounds; purviews at a rounding tie go through `effect_phi`."""
        if not purviews:
            return []
        lows = self.effects.min_distances(mechanism, purviews, inputs)
        # np.round on the array rounds each value as round(np.float64(x), 6) does.
        phis = np.round(lows, PRECISION).tolist()
        for i in np.flatnonzero(at_rounding_tie(lows)):
            phis[i] = self.effect_phi(mechanism, purviews[i], inputs)
        return phis

    def _effect_partitioned(self, partition, inputs) -> np.ndarray:
        m1, p1, m2, p2 = partition
        return self.reps.effect_joint(m1, p1, inputs) * self.reps.effect_joint(m2, p2, inputs)

    def cached_upper_bounds(self, mechanism: int, purviews, inputs, keys=None) -> list[float]:
        """Per purview: the cause small phi itself when already known (e.g. from another
        cut), else an upper bound from the partitions that cut off a single node.
        `keys`: the purviews' `phi_keys`, if already at hand."""
        if keys is None:
            keys = self.phi_keys(mechanism, purviews, inputs)
        phi, bound = self._phi, self._bound
        out = [phi[key][0] if key in phi else bound.get(key) for key in keys]
        missing: dict[int, list[int]] = {}
        for i, value in enumerate(out):
            if value is None:
                missing.setdefault(bin(purviews[i]).count("1"), []).append(i)
        for group in missing.values():
            wholes, rows = self.tables.single_cut_rows(mechanism, [purviews[i] for i in group], inputs)
            bounds = self.engine.upper_bounds(wholes, rows)
            for i, whole, value in zip(group, wholes, bounds, strict=True):
                # A repertoire with no mass: the state is unreachable, and PyPhi's phi is 0.
                out[i] = bound[keys[i]] = round(float(value), PRECISION) if whole.any() else 0.0
        return out

    def phi_keys(self, mechanism: int, purviews, inputs) -> list[tuple]:
        """Per purview, everything the cause small phi of (mechanism, purview) depends on
        under a cut, to the last bit: each mechanism node's factors over subsets of its
        inputs in the purview. PyPhi builds a node's TPM from its cut inputs
        (`Repertoires.node_tpm`), so they can differ from the uncut ones in the last
        bits: the key names the cut inputs unless they give the same bits."""
        per_node = []
        for m in bits_of(mechanism):
            table = self._node_keys.get((m, inputs[m]))
            if table is None:
                table = self._node_keys[(m, inputs[m])] = self._node_key_table(m, inputs[m])
            per_node.append([table[p] for p in purviews])
        return [(mechanism, p, parts) for p, parts in zip(purviews, zip(*per_node), strict=True)]

    def _node_key_table(self, m: int, cut_m: int) -> list[tuple[int, int]]:
        """Node m's part of the phi key, for every purview (indexed by its bitmask)."""
        reps, uncut_m = self.reps, self.reps.inputs[m]
        return [(cut_m & p, uncut_m if cut_m == uncut_m or reps.same_as_uncut(True, m, cut_m, cut_m & p) else cut_m)
                for p in range(1 << self.k)]

    def small_phi(self, mechanism: int, purview: int, inputs, key=None):
        """(phi, repertoire, blocks) of the cause side, cached on its `phi_keys` key."""
        if key is None:
            key = self.phi_keys(mechanism, (purview,), inputs)[0]
        hit = self._phi.get(key)
        if hit is None:
            hit = self._phi[key] = self.cause_phi(mechanism, purview, inputs)
        return hit

    def mice(self, direction: str, mechanism: int, inputs, cut: tuple[int, int] | None = None) -> Mice:
        """The MIC / MIE of `mechanism` in the system with (cut) `inputs`.

        In a system cut A -/-> B (`cut` = (A, B) bitmasks), PyPhi 1.2 first looks in the
        uncut system's MICE cache (`cache.DictMICECache`, filled with the MICE of phi > 0):
        a MICE that the cut does not damage (`MaximallyIrreducibleCauseOrEffect.
        damaged_by_cut`: the cut neither splits the mechanism nor runs from a purview node
        to a mechanism node, for a cause, or the other way, for an effect) is reused as it
        is, arrays included, without looking at other purviews. This is reproduced when
        `reuse_uncut` (PyPhi's sequential cut evaluation). PyPhi's parallel mode computes
        the uncut concepts in worker processes, so its cache stays empty and every MICE
        of a cut system is recomputed (`reuse_uncut=False`).
        """
        if cut is not None and self.reuse_uncut and not (mechanism & cut[0] and mechanism & cut[1]):
            # (A split mechanism is damaged whatever its MICE: no need to look it up.)
            uncut = self.mice(direction, mechanism, self.reps.inputs)
            if uncut.phi > 0 and not damaged_by_cut(direction, mechanism, uncut.purview, cut):
                return uncut
        if direction == CAUSE:
            mkey = (CAUSE, mechanism, tuple(inputs[m] for m in bits_of(mechanism)))
        else:
            mkey = (EFFECT, mechanism, inputs)
        hit = self._mice.get(mkey)
        if hit is None:
            candidates = _potential_purviews(direction, mechanism, inputs)
            if direction == CAUSE:
                found = self._cause_candidates(mechanism, candidates, inputs)
            else:
                found = {i: (phi, None, ()) for i, phi in enumerate(self.effect_phis(mechanism, candidates, inputs))}
            best: Mice | None = None
            for i in sorted(found):  # PyPhi's order: larger phi, then larger purview, then first
                phi, rep, blocks = found[i]
                purview = candidates[i]
                if best is None or (phi, bin(purview).count("1")) > (best.phi, bin(best.purview).count("1")):
                    best = Mice(phi, purview, rep, blocks)
            if best is None:
                best = NO_MICE
            elif direction == EFFECT:
                best = Mice(best.phi, best.purview, self.effects.repertoire(mechanism, best.purview, inputs))
            # One object per distinct MICE, so distances cached on it serve every cut.
            ident = (direction, mechanism, best.phi, best.purview,
                     None if best.repertoire is None else best.repertoire.tobytes())
            hit = self._mice[mkey] = self._interned.setdefault(ident, best)
        return hit

    def _cause_candidates(self, mechanism: int, candidates, inputs) -> dict[int, tuple]:
        """(phi, repertoire, blocks) of the candidate purviews that can win: purviews are
        evaluated by decreasing upper bound, and one whose bound is below the best phi
        found cannot win or tie, so its MIP search is skipped."""
        keys = self.phi_keys(mechanism, candidates, inputs)
        if len(candidates) > 1:
            bounds = self.cached_upper_bounds(mechanism, candidates, inputs, keys)
        else:
            bounds = [np.inf] * len(candidates)
        size = [bin(p).count("1") for p in candidates]
        found: dict[int, tuple] = {}
        top, lead = -np.inf, None  # best phi so far, and the candidate holding it
        # Likely winners first: larger bound, then PyPhi's tie-break (larger, then first).
        for i in sorted(range(len(candidates)), key=lambda i: (-bounds[i], -size[i], i)):
            if bounds[i] < top or bounds[i] <= 0:
                # Bound 0: this and every later candidate have phi 0. Either a phi > 0 is
                # already found, or the largest phi is 0 and the purview does not matter.
                break
            if bounds[i] == top and (size[i], -i) < (size[lead], -lead):
                continue  # at best a tie that PyPhi's order gives to the leader
            found[i] = self.small_phi(mechanism, candidates[i], inputs, keys[i])
            if found[i][0] > top or (found[i][0] == top and (size[i], -i) > (size[lead], -lead)):
                top, lead = found[i][0], i
        return found
