"""Effect-side small phi of IIT 3.0 for every candidate purview at once (PyPhi 1.2).

An effect repertoire is a product over purview nodes, so PyPhi's effect EMD of a
partition (M0/P0) x (M1/P1) is a sum over purview nodes p of
d(p, S) = |P(p OFF | M) - P(p OFF | S)|, S being the mechanism part p is paired with
(`distance.effect_emd`; Oizumi et al. 2014, eq. 6 with the Hamming metric). For one
mechanism bipartition (M0, M1) every assignment of purview nodes to the parts is a
partition (PARTITION_TYPE 'BI'), so the smallest distance is
sum_p min(d(p, M0), d(p, M1)); when M0 is empty, P0 must not be (PyPhi drops parts
with neither mechanism nor purview nodes) and the smallest is min_p d(p, {}). The small
phi is the minimum over mechanism bipartitions, so one matrix product gives it for all
purviews. PyPhi rounds each distance to 6 decimals; where the minimum sits on a rounding
tie (x * 1e6 ending in .5) the last bit of PyPhi's own summation decides, and the
caller re-evaluates that purview PyPhi's way (`MechanismAnalyzer.effect_phi`).
"""
from __future__ import annotations

from functools import cache

import numpy as np

from .partitions import bipartitions
from .repertoires import Repertoires, bits_of


@cache
def _bipartition_arrays(mechanism: int) -> tuple[np.ndarray, np.ndarray]:
    """(M0 masks, M1 masks) of the mechanism's bipartitions with M0 nonempty."""
    pairs = [(m0, m1) for m0, m1 in bipartitions(mechanism) if m0]
    return np.array([a for a, _ in pairs], dtype=np.intp), np.array([b for _, b in pairs], dtype=np.intp)


@cache
def _indicator(purviews: tuple[int, ...], k: int) -> np.ndarray:
    """(len(purviews), k) 0/1 matrix: node j in purview i."""
    return ((np.array(purviews, dtype=np.int64)[:, None] >> np.arange(k)) & 1).astype(float)


def at_rounding_tie(x):
    """Is x within float noise of a 6th-decimal rounding tie (x * 1e6 ending in .5)?
    Elementwise on arrays."""
    return abs((x * 1e6) % 1.0 - 0.5) <= 1e-6


class EffectTables:
    """Per node and (cut) input set: P(p OFF) given every mechanism, as one array."""

    def __init__(self, reps: Repertoires):
        self.reps = reps
        self._off: dict[tuple[int, int], np.ndarray] = {}

    def off(self, p: int, inputs_p: int) -> np.ndarray:
        """(2^k,) P(p OFF at t+1 | mechanism S in its state) indexed by the bitmask S."""
        key = (p, inputs_p)
        hit = self._off.get(key)
        if hit is None:
            values = {}
            for s in range(1 << self.reps.k):
                scope = s & inputs_p
                if scope not in values:
                    values[scope] = self.reps.effect_off_on(p, inputs_p, scope)[0]
            hit = self._off[key] = np.array([values[s & inputs_p] for s in range(1 << self.reps.k)])
        return hit

    def min_distances(self, mechanism: int, purviews: tuple[int, ...], inputs) -> np.ndarray:
        """For each purview: the smallest effect distance over its partitions (float
        noise aside; round it only away from rounding ties, see `at_rounding_tie`)."""
        k = self.reps.k
        offs = np.array([self.off(p, inputs[p]) for p in range(k)])  # (k, 2^k)
        whole = offs[:, mechanism]
        m0, m1 = _bipartition_arrays(mechanism)
        ind = _indicator(purviews, k)
        lone = np.abs(whole - offs[:, 0])  # every purview node with the empty part
        best = np.where(ind > 0, lone[None, :], np.inf).min(axis=1)
        if len(m0):
            d0 = np.abs(whole[:, None] - offs[:, m0])
            d1 = np.abs(whole[:, None] - offs[:, m1])
            best = np.minimum(best, (ind @ np.minimum(d0, d1)).min(axis=1))
        return best

    def repertoire(self, mechanism: int, purview: int, inputs) -> np.ndarray:
        """(|P|, 2) (P(OFF), P(ON)) per purview node given the mechanism's state."""
        return np.array([self.reps.effect_off_on(p, inputs[p], mechanism & inputs[p]) for p in bits_of(purview)])
