"""Distance between cause-effect structures: IIT 3.0's extended EMD (PyPhi 1.2).

A concept is a point in concept space: its cause and effect repertoires, expanded to a
common purview (missing nodes get the unconstrained repertoire: uniform on the cause
side, the unconstrained effect marginals on the effect side). The distance between two
concepts is the Hamming EMD of the expanded cause repertoires plus that of the effect
repertoires (`concept_distance`). The distance between structures C1 and C2 (Oizumi et
al. 2014, "extended EMD"; PyPhi `ces_distance`) transports the small-phi mass of the
concepts found in only one of them, with the null concept (the unconstrained
repertoires) absorbing the difference in total phi; when one side has no unique
concepts this reduces to sum(phi * distance to null) over the concepts that vanished.
The result is rounded to 6 decimals, as PyPhi does.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from .emd import bernoulli_product_emd, hamming_emd_upper_bounds, strong_lower_bounds
from .fastemd import pyemd_emd, quantization_bound
from .hypercube import MAX_EXACT_DUAL_BITS
from .mechanism import PRECISION, Mice
from .repertoires import Repertoires, bits_of, pyphi_sum, subindex


@dataclass(frozen=True)
class ConceptPoint:
    """A concept (phi > 0) of a possibly cut system, local bitmasks; `inputs` are that
    system's (cut) node inputs, which its unconstrained effect repertoire comes from
    (PyPhi expands a concept with its own subsystem's repertoires)."""

    mechanism: int
    phi: float
    cause: Mice
    effect: Mice
    inputs: tuple[int, ...]

    def emd_eq(self, other: ConceptPoint) -> bool:
        """PyPhi's `Concept.emd_eq`: same phi, mechanism and repertoires."""
        return (
            self.phi == other.phi
            and self.mechanism == other.mechanism
            and self.cause.purview == other.cause.purview
            and self.effect.purview == other.effect.purview
            and np.array_equal(self.cause.repertoire, other.cause.repertoire)
            and np.array_equal(self.effect.repertoire, other.effect.repertoire)
        )


def _product(pairs) -> np.ndarray:
    """Joint distribution of independent nodes from their (P(OFF), P(ON)) pairs, in
    PyPhi's multiplication order (first node first), little-endian over the nodes."""
    joint = np.ones(1)
    for off, on in pairs:
        joint = np.concatenate([joint * off, joint * on])
    return joint


class ConceptSpace:
    """Concept distances of one system, memoised on the concepts' repertoires."""

    def __init__(self, reps: Repertoires, engine):
        self.reps = reps
        self.engine = engine
        self._clear()

    def _clear(self) -> None:
        """(Re)start the caches, all keyed on ids of MICE objects."""
        self._cache: dict[tuple, float] = {}
        self._expanded: dict[tuple, tuple] = {}
        self._numbers: dict[int, int] = {}
        self._bound_lo = self._bound_hi = np.full((0, 0), np.nan)
        self._profile: dict[tuple, list[float]] = {}
        self._joints: dict[tuple, np.ndarray] = {}

    def __getstate__(self) -> dict:
        # A pickled copy (workers > 1) holds new MICE objects, with new ids.
        copy = object.__new__(ConceptSpace)
        copy.__dict__.update(self.__dict__)
        copy._clear()
        return copy.__dict__

    def _expanded_cause(self, mice: Mice, union: int) -> tuple[np.ndarray, tuple[int, ...]]:
        """The cause repertoire times the uniform distribution on the missing nodes."""
        key = (id(mice), union)  # Mice objects live in the analyzer's caches: ids are stable
        hit = self._expanded.get(key)
        if hit is None:
            hit = self._expanded[key] = self._expand_cause(mice, union)
        return hit

    def _expand_cause(self, mice: Mice, union: int) -> tuple[np.ndarray, tuple[int, ...]]:
        n_union = bin(union).count("1")
        extra = union & ~mice.purview
        singles = tuple(1 << b for b in bits_of(extra))
        if mice.repertoire is None:  # null concept
            probs, blocks = np.ones(1), ()
        else:
            probs, blocks = mice.repertoire, mice.blocks
        probs = probs[subindex(union, mice.purview)] * (1.0 / (1 << bin(extra).count("1")))
        return probs / pyphi_sum(probs, n_union), blocks + singles

    def _unconstrained(self, p: int, inputs) -> tuple[float, float]:
        """Node p's unconstrained effect marginal in the system with these (cut) inputs."""
        return self.reps.effect_off_on(p, inputs[p], 0)

    def _expanded_effect(self, mice: Mice, union: int, inputs) -> np.ndarray:
        """(P(OFF), P(ON)) per union node, unconstrained where the concept says nothing."""
        own = dict(zip(bits_of(mice.purview), mice.repertoire, strict=True)) if mice.repertoire is not None else {}
        return np.array([own[p] if p in own else self._unconstrained(p, inputs) for p in bits_of(union)])

    def _effect_distance(self, a: ConceptPoint, b: ConceptPoint) -> float:
        union = a.effect.purview | b.effect.purview
        if self.engine.name == "exact":
            x, y = self._expanded_effect(a.effect, union, a.inputs), self._expanded_effect(b.effect, union, b.inputs)
            return bernoulli_product_emd(x[:, 1], y[:, 1])
        p = self._effect_joint(a.effect, union, a.inputs)
        q = self._effect_joint(b.effect, union, b.inputs)
        return self.engine.hamming(p, (), q, (), union)

    def _effect_joint(self, mice: Mice, union: int, inputs) -> np.ndarray:
        """PyPhi's expanded effect repertoire over `union`: (own repertoire) times (the
        unconstrained repertoire of the rest, in the concept's own system), normalised;
        memoised on the MICE object and the inputs of the rest."""
        rest = union & ~mice.purview
        key = (id(mice), union, tuple(inputs[p] for p in bits_of(rest)))
        hit = self._joints.get(key)
        if hit is None:
            own = _product(mice.repertoire) if mice.repertoire is not None else np.ones(1)
            uc = _product([self._unconstrained(p, inputs) for p in bits_of(rest)])
            joint = own[subindex(union, mice.purview)] * uc[subindex(union, rest)]
            hit = self._joints[key] = joint / pyphi_sum(joint, bin(union).count("1"))
        return hit

    def _cause_distance(self, c1: Mice, c2: Mice) -> float:
        union = c1.purview | c2.purview
        if not union:
            return 0.0
        p, pb = self._expanded_cause(c1, union)
        q, qb = self._expanded_cause(c2, union)
        return self.engine.hamming(p, pb, q, qb, union)

    @staticmethod
    def _key(a: ConceptPoint, b: ConceptPoint) -> tuple:
        """What the distance of a and b depends on: their MICE (objects that live in the
        analyzer's caches, so ids are stable) and the inputs of the nodes where their
        effect repertoires are expanded with unconstrained ones."""
        union = a.effect.purview | b.effect.purview
        return (id(a.cause), id(a.effect), tuple(a.inputs[p] for p in bits_of(union & ~a.effect.purview)),
                id(b.cause), id(b.effect), tuple(b.inputs[p] for p in bits_of(union & ~b.effect.purview)))

    def distance(self, a: ConceptPoint, b: ConceptPoint) -> float:
        """Concept distance (PyPhi `concept_distance`): cause EMD + effect EMD."""
        key = self._key(a, b)
        hit = self._cache.get(key)
        if hit is None:
            # The Mice objects stay alive in the analyzer's cache, so their ids are stable.
            hit = self._cause_distance(a.cause, b.cause) + self._effect_distance(a, b)
            self._cache[key] = hit
        return hit

    def to_null(self, c: ConceptPoint) -> float:
        """Distance from a concept to its system's null concept (PyPhi's `null_concept`
        of the concept's own, possibly cut, subsystem: unconstrained repertoires)."""
        return self.distance(c, _null_of(c))

    def ces_distance(self, c1: list[ConceptPoint], c2: list[ConceptPoint], cutoff: float = np.inf) -> float:
        """PyPhi's `ces_distance` between two cause-effect structures, rounded; when it
        provably exceeds `cutoff`, possibly only a lower bound above `cutoff`."""
        only_1 = [a for a in c1 if not any(a.emd_eq(b) for b in c2)]
        only_2 = [b for b in c2 if not any(b.emd_eq(a) for a in c1)]
        if not only_1 or not only_2:
            bigger, smaller = (c2, c1) if len(c2) > len(c1) else (c1, c2)
            gone = [a for a in bigger if not any(a.emd_eq(b) for b in smaller)]
            dist = sum(a.phi * self.to_null(a) for a in gone)
            # In PyPhi a concept's phi is a numpy float when its effect side is the smaller
            # (effect_emd returns numpy floats), which makes this sum a numpy float, and
            # numpy rounds half to even on dist * 1e6 (see mechanism._pyphi_effect_emd).
            if any(a.effect.phi < a.cause.phi for a in gone):
                return float(round(np.float64(dist), PRECISION))
        else:
            dist = self._extended_emd(only_1, only_2, cutoff)
        return round(float(dist), PRECISION)

    def _extended_emd(self, only_1: list[ConceptPoint], only_2: list[ConceptPoint], cutoff: float = np.inf) -> float:
        n, m = len(only_1), len(only_2)
        first = [a.phi for a in only_1] + [0.0] * (m + 1)
        second = [0.0] * n + [b.phi for b in only_2] + [0.0]
        # The phi that disappeared sits on the null concept (negative if phi appeared).
        second[-1] = sum(first) - sum(second)
        first, second = np.array(first), np.array(second)
        if self.engine.name == "exact":
            to_null = np.array([self.to_null(c) for c in (*only_1, *only_2)])
            between = np.array([[self.distance(a, b) for b in only_2] for a in only_1])
            return self.engine.transport(first, second, _ces_cost(between, to_null))
        return self._lazy_pyemd(only_1, only_2, first, second, cutoff)

    def _lazy_pyemd(self, only_1, only_2, first, second, cutoff: float = np.inf) -> float:
        """PyPhi's extended EMD, computing only the concept distances that matter.

        Every concept distance, between the two sets or to the null concept, has cheap
        bounds lo <= d <= hi. The largest cost sets pyemd's cost scale: the largest
        distance between the sets plus 1 (PyPhi's cost within a set), or a larger
        distance to the null concept; the distances that can be the largest are computed.
        Then the integer transport is solved with lo in place of unknown distances, and
        any unknown distance the plan uses is computed and the transport solved again. A
        plan using only known distances costs the same under the true ones, and no plan
        is cheaper under them (lo <= d), so the value is PyPhi's.
        """
        n, m = len(only_1), len(only_2)
        concepts = (*only_1, *only_2)
        lo, hi = self._pair_bounds(only_1, only_2)
        null_lo, null_hi, null_known = self._null_bounds(concepts)
        if cutoff < np.inf:
            # The real transport on the lower bounds is below the real one on the true
            # distances; pyemd's value is within `slack` of the real one, on either cost
            # matrix (each of the 2N rounded masses is off by <= 0.5e-6 * max_sum and moving
            # that costs <= max_c; each unit of flow pays <= 0.5e-6 * max_c for rounded
            # costs; max_c is at least either matrix's largest cost).
            cost = _ces_cost(lo, null_lo, top=float(hi.max()))
            max_c = max(float(cost.max()), float(null_hi.max()))
            max_sum = max(float(np.abs(first).sum()), float(np.abs(second).sum()))
            slack = max_c * max_sum * 1e-6 * (len(first) + 1) * 1.01 + 1e-9
            lower = pyemd_emd(first, second, cost) - 2 * slack
            if lower > cutoff + 1e-6:  # above the cutoff even after rounding to 6 decimals
                return lower
        known = np.full(lo.shape, np.nan)

        def compute(i: int, j: int) -> None:
            known[i, j] = self.distance(only_1[i], only_2[j])

        def compute_null(i: int) -> None:
            null_known[i] = self.to_null(concepts[i])

        for flat in np.argsort(-hi, axis=None, kind="stable"):
            i, j = divmod(int(flat), m)
            if np.any(~np.isnan(known)) and hi[i, j] < np.nanmax(known):
                break
            compute(i, j)
        top = float(np.nanmax(known))  # the largest distance between the sets, exactly

        def largest() -> float:  # the largest cost, once no unknown distance can exceed it
            return max(top + 1.0, float(np.nanmax(null_known))) if np.any(~np.isnan(null_known)) else top + 1.0

        for i in np.argsort(-null_hi, kind="stable"):
            if null_hi[i] < largest():
                break
            if np.isnan(null_known[i]):
                compute_null(int(i))
        null = len(first) - 1
        basis: dict = {}  # each re-solve starts from the last optimal basis (only costs change)
        while True:
            between = np.where(np.isnan(known), np.minimum(lo, top), known)
            to_null = np.where(np.isnan(null_known), null_lo, null_known)  # below largest()
            cost = _ces_cost(between, to_null, top=top)
            flows: dict = {}
            value = pyemd_emd(first, second, cost, flows=flows, basis=basis)
            missing = [(i, c - n) for (i, c), x in flows.items()
                       if i < n and n <= c < n + m and np.isnan(known[i, c - n])]
            # Flows to or from the null concept (the cost matrix is symmetric).
            missing_null = {c if i == null else i for (i, c) in flows if null in (i, c) and i != c}
            missing_null = [x for x in missing_null if np.isnan(null_known[x])]
            if not missing and not missing_null:
                return value
            for i, j in missing:
                compute(i, j)
            for i in missing_null:
                compute_null(i)

    def _pair_bounds(self, only_1, only_2) -> tuple[np.ndarray, np.ndarray]:
        """Bounds (lo, hi), shape (n, m), on PyPhi's concept distances between the sets.

        Effect side: the exact EMD of product distributions (sum of |P(ON)| differences).
        Cause side: the exact EMD for unions of <= 4 nodes (Lipschitz vertices), else the
        strong lower bound (exact EMDs of 3-node marginals) and the cheapest binomial-tree
        transport. Each is then widened by the bound on pyemd's rounding error.
        """
        effect_1, epur_1 = self._effect_profiles(only_1)
        effect_2, epur_2 = self._effect_profiles(only_2)
        effect = np.abs(effect_1[:, None, :] - effect_2[None, :, :]).sum(-1)
        slack_e = quantization_bound(_popcount(self.reps.k)[np.bitwise_or.outer(epur_1, epur_2)])
        cause_lo, cause_hi = self._cause_bounds_of([(a.cause, b.cause) for a in only_1 for b in only_2])
        lo = cause_lo.reshape(effect.shape) + np.maximum(effect - slack_e, 0.0)
        hi = cause_hi.reshape(effect.shape) + effect + slack_e
        return lo, hi

    def _null_bounds(self, concepts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(lo, hi, known) for each concept's distance to its null concept, as
        `_pair_bounds`; `known` holds the distances already computed (NaN elsewhere),
        and there lo = hi = the distance."""
        nulls = [_null_of(c) for c in concepts]
        own, epur = self._effect_profiles(concepts)
        unconstrained, _ = self._effect_profiles(nulls)
        effect = np.abs(own - unconstrained).sum(-1)
        slack_e = quantization_bound(_popcount(self.reps.k)[epur])
        cause_lo, cause_hi = self._cause_bounds_of([(c.cause, _NULL) for c in concepts])
        lo = cause_lo + np.maximum(effect - slack_e, 0.0)
        hi = cause_hi + effect + slack_e
        known = np.array([self._cache.get(self._key(c, z), np.nan) for c, z in zip(concepts, nulls, strict=True)])
        done = ~np.isnan(known)
        lo[done], hi[done] = known[done], known[done]
        return lo, hi, known

    def _cause_bounds_of(self, pairs) -> tuple[np.ndarray, np.ndarray]:
        """The cause side of `_pair_bounds` for a list of (cause MICE, cause MICE),
        memoised per pair (most pairs recur from cut to cut: the unpartitioned
        concepts, and the undamaged ones) in a table indexed by the MICE's numbers."""
        rows = np.array([self._number(a) for a, _ in pairs], dtype=np.intp)
        cols = np.array([self._number(b) for _, b in pairs], dtype=np.intp)
        size = len(self._numbers)
        if size > len(self._bound_lo):  # grow the tables (NaN: not yet known)
            grown = max(size, 2 * len(self._bound_lo))
            for name in ("_bound_lo", "_bound_hi"):
                old, new = getattr(self, name), np.full((grown, grown), np.nan)
                new[:len(old), :len(old)] = old
                setattr(self, name, new)
        lo, hi = self._bound_lo[rows, cols], self._bound_hi[rows, cols]
        groups: dict[int, list] = {}
        for r in np.flatnonzero(np.isnan(lo)):
            a, b = pairs[r]
            union = a.purview | b.purview
            p, _ = self._expanded_cause(a, union)
            q, _ = self._expanded_cause(b, union)
            groups.setdefault(bin(union).count("1"), []).append((r, p - q))
        for k, items in groups.items():
            at = np.array([r for r, _ in items])
            diffs = np.array([d for _, d in items])
            high = np.concatenate([hamming_emd_upper_bounds(diffs[s:s + 32]) for s in range(0, len(diffs), 32)])
            # (3-node marginals: at 5 nodes nearly as tight as 4-node ones, 10x cheaper)
            low = high if k <= MAX_EXACT_DUAL_BITS else strong_lower_bounds(diffs, 3)
            slack = float(quantization_bound(k))
            lo[at] = self._bound_lo[rows[at], cols[at]] = np.maximum(low - slack, 0.0)
            hi[at] = self._bound_hi[rows[at], cols[at]] = high + slack
        return lo, hi

    def _number(self, mice: Mice) -> int:
        """A number per MICE object (they live in the analyzer's caches: ids are stable)."""
        return self._numbers.setdefault(id(mice), len(self._numbers))

    def _effect_profiles(self, concepts) -> tuple[np.ndarray, np.ndarray]:
        """Per concept: effect P(ON) per node (unconstrained off the purview, in the
        concept's own system), and the effect purviews."""
        rows = []
        for c in concepts:
            key = (id(c.effect), c.inputs)  # Mice objects live in the analyzer's caches
            row = self._profile.get(key)
            if row is None:
                row = [self._unconstrained(p, c.inputs)[1] for p in range(self.reps.k)]
                for j, p in enumerate(bits_of(c.effect.purview)):
                    row[p] = c.effect.repertoire[j][1]
                self._profile[key] = row
            rows.append(row)
        return np.array(rows), np.array([c.effect.purview for c in concepts], dtype=np.int64)


@cache
def _popcount(k: int) -> np.ndarray:
    """Number of nodes in each bitmask over k nodes."""
    return np.array([bin(x).count("1") for x in range(1 << k)], dtype=np.int64)


def _ces_cost(between: np.ndarray, to_null: np.ndarray, top: float | None = None) -> np.ndarray:
    """PyPhi's cost matrix over [C1 concepts, C2 concepts, null]."""
    n, m = between.shape
    cost = np.full((n + m + 1, n + m + 1), (between.max() if top is None else top) + 1.0)
    cost[:n, n:-1] = between
    cost[n:-1, :n] = between.T
    cost[-1, :-1] = to_null
    cost[:-1, -1] = to_null
    cost[-1, -1] = 0.0
    return cost


_NULL = Mice(0.0, 0, None)


def _null_of(c: ConceptPoint) -> ConceptPoint:
    """The null concept of c's (possibly cut) system: no purviews, unconstrained."""
    return ConceptPoint(0, 0.0, _NULL, _NULL, c.inputs)
