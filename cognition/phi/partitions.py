"""Bipartitions of n nodes and the choice of the minimum-information bipartition (MIB).

A bipartition B = {M1, M2} is stored as a boolean mask over the nodes that is True on
the part holding node 0, so each of the 2^(n-1) - 1 bipartitions has exactly one mask.

MIB rule (Barrett & Seth 2011, PLoS Comput Biol 7:e1001052, Eq. 11; as in JIDT's
IntegratedInformationCalculatorGaussian): minimise Phi_WMS(B) / K(B) with
K(B) = min_k H(M^k_t), the smaller Gaussian differential entropy of the two parts.
Ties and K <= 0 are resolved as documented in ``select_mib`` and docs/phi.md.
"""
from __future__ import annotations

import functools
import itertools

import numpy as np

MAX_EXHAUSTIVE_NODES = 20  # 2^19 - 1 = 524 287 bipartitions; beyond that use Queyranne

# Two criterion values closer than this (relative to the larger magnitude, plus an
# absolute floor) are a tie: partitions that are equal in exact arithmetic (symmetric
# systems) differ only by rounding, and must not be told apart by it.
TIE_RTOL = 1e-9
TIE_ATOL = 1e-12


def n_bipartitions(n: int) -> int:
    """Number of bipartitions of n nodes into two non-empty parts: 2^(n-1) - 1."""
    return 2 ** (n - 1) - 1


@functools.lru_cache(maxsize=32)
def bipartitions_by_size(n: int) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """All bipartitions of n nodes, grouped by the size k of the part holding node 0.

    Returns, for k = 1 .. n-1, a pair (part0, part1) of int arrays with shapes
    (C(n-1, k-1), k) and (C(n-1, k-1), n-k): the node indices of each part, sorted.
    Within a size, rows are in lexicographic order. Read-only (cached).
    """
    if n > MAX_EXHAUSTIVE_NODES:
        raise ValueError(f"exhaustive search over n={n} nodes ({n_bipartitions(n)} bipartitions) "
                         f"is capped at n={MAX_EXHAUSTIVE_NODES}; use search='queyranne'")
    groups = []
    nodes = np.arange(n)
    for k in range(1, n):
        combos = list(itertools.combinations(range(1, n), k - 1))
        rest = np.array(combos, dtype=np.intp).reshape(len(combos), k - 1)
        part0 = np.concatenate([np.zeros((len(rest), 1), dtype=np.intp), rest], axis=1)
        mask = np.zeros((len(rest), n), dtype=bool)
        np.put_along_axis(mask, part0, True, axis=1)
        part1 = np.broadcast_to(nodes, mask.shape)[~mask].reshape(len(rest), n - k)
        for a in (part0, part1):
            a.setflags(write=False)
        groups.append((part0, part1))
    return tuple(groups)


def all_bipartition_masks(n: int) -> np.ndarray:
    """Masks (2^(n-1)-1, n) of every bipartition, in the order of ``bipartitions_by_size``."""
    rows = []
    for part0, _ in bipartitions_by_size(n):
        m = np.zeros((len(part0), n), dtype=bool)
        np.put_along_axis(m, part0, True, axis=1)
        rows.append(m)
    return np.concatenate(rows)


def mask_to_mib(mask: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Boolean mask over nodes -> ((part holding node 0), (other part)), sorted tuples."""
    mask = np.asarray(mask, dtype=bool)
    if not mask[0]:
        mask = ~mask
    return tuple(int(i) for i in np.flatnonzero(mask)), tuple(int(i) for i in np.flatnonzero(~mask))


def mib_to_mask(part, n: int) -> np.ndarray:
    """A part (iterable of node indices) -> canonical mask (True on the part with node 0)."""
    mask = np.zeros(n, dtype=bool)
    mask[list(part)] = True
    if not mask.any() or mask.all():
        raise ValueError(f"a bipartition needs two non-empty parts, got part {tuple(part)} of n={n} nodes")
    return mask if mask[0] else ~mask


def _near_min(values: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Boolean (R, P): entries within tie tolerance of the row minimum among ``allowed``."""
    v = np.where(allowed, values, np.inf)
    best = v.min(axis=1, keepdims=True)
    scale = np.maximum(np.abs(best), np.abs(np.where(allowed, values, 0.0)).max(axis=1, keepdims=True))
    return allowed & (v <= best + TIE_ATOL + TIE_RTOL * scale)


def select_mib(phi_wms: np.ndarray, k_norm: np.ndarray, masks: np.ndarray, normalise) -> np.ndarray:
    """Index of the MIB in each row; phi_wms, k_norm: (R, P) bits; masks: (P, n) bool.

    Criterion: Phi_WMS(B) / K(B) in rows where ``normalise`` ((R,) bool or a bool; the
    caller guarantees K > 0 there), else Phi_WMS(B). Ties (within TIE_RTOL / TIE_ATOL)
    are broken, in order, by (1) the smaller unnormalised Phi_WMS, (2) the more balanced
    bipartition (smaller | |M1| - |M2| |), (3) the smaller part holding node 0, then the
    lexicographically first list of its nodes. Returns (R,) ints.
    """
    normalise = np.broadcast_to(np.asarray(normalise, dtype=bool), phi_wms.shape[:1])[:, None]
    ratio = np.divide(phi_wms, k_norm, out=np.zeros_like(phi_wms), where=normalise & (k_norm > 0))
    crit = np.where(normalise, ratio, phi_wms)
    tied = _near_min(crit, np.ones_like(crit, dtype=bool))
    tied = _near_min(phi_wms, tied)
    size0 = masks.sum(axis=1)
    imbalance = np.abs(2 * size0 - masks.shape[1])
    imb = np.where(tied, imbalance[None, :], np.iinfo(np.int64).max)
    tied &= imb == imb.min(axis=1, keepdims=True)
    choice = np.argmax(tied, axis=1)
    for r in np.flatnonzero(tied.sum(axis=1) > 1):
        cands = np.flatnonzero(tied[r])
        choice[r] = min(cands, key=lambda p: (int(size0[p]), mask_to_mib(masks[p])[0]))
    return choice
