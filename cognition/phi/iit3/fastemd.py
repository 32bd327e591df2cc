"""PyPhi-compatible EMD: the arithmetic of pyemd's C++ backend (FastEMD), reproduced exactly.

PyPhi 1.2 computes every EMD except the effect-side small phi with `pyemd.emd`, whose
C++ backend (Pele & Werman 2009, "Fast and robust Earth Mover's Distances", ICCV;
`emd_hat_impl<double>`) does not solve the real-valued problem: it

1. moves min(P_i, Q_i) in place for free (the ground distance is a metric);
2. scales the remaining masses by 1e6 / max(sum P, sum Q) and the costs by
   1e6 / max(C), rounding each to the nearest integer (floor(x + 0.5));
3. solves that integer transport exactly, the heavier side leaving its excess for free;
4. scales back, and adds (max sum - min sum) * max(C).

The result differs from the exact EMD by up to a few 1e-6, which moves PyPhi's 6-decimal
small phi values and can flip which purview wins a tie (e.g. 0.124998 instead of 0.125).
PyPhi's published Phi values come from this arithmetic, so `iit3` reproduces it by
default (steps 1, 2 and 4 with the same double operations, step 3 with an exact
integer solver); `emd_mode="exact"` uses the mathematically exact EMD instead.
"""
from __future__ import annotations

from functools import cache

import numpy as np

from .emd import hamming_emd_diffs, hamming_emd_upper_bounds, marginal_lower_bounds, strong_lower_bound
from .hypercube import MAX_EXACT_DUAL_BITS
from .network_simplex import PivotLimitError, hamming_emd_simplex
from .transport import min_cost_transport

MULT_FACTOR = 1000000.0
PRECISION = 6  # PyPhi's config.PRECISION: small phi and Phi are rounded to 6 decimals


@cache
def hamming_matrix(k: int) -> np.ndarray:
    """(2^k, 2^k) Hamming distances between little-endian states, float64."""
    bits = (np.arange(1 << k)[:, None] >> np.arange(k)) & 1
    return np.abs(bits[:, None, :] - bits[None, :, :]).sum(-1).astype(float)


def quantize(p: np.ndarray, q: np.ndarray, cost: np.ndarray):
    """FastEMD's steps 1-2: (integer masses a, b, integer costs, scale factors, sums)."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    sum_p = float(np.add.accumulate(p)[-1])  # sequential, as the C++ loop
    sum_q = float(np.add.accumulate(q)[-1])
    max_c = float(cost.max())
    lower = p < q
    p_rest = np.where(lower, 0.0, p - q)
    q_rest = np.where(lower, q - p, 0.0)
    max_sum, min_sum = max(sum_p, sum_q), min(sum_p, sum_q)
    pq_norm = MULT_FACTOR / max_sum
    c_norm = MULT_FACTOR / max_c
    ip = np.floor(p_rest * pq_norm + 0.5)
    iq = np.floor(q_rest * pq_norm + 0.5)
    return ip, iq, c_norm, pq_norm, max_sum, min_sum, max_c


def integer_emd_hat(ip: np.ndarray, iq: np.ndarray, icost: np.ndarray, flows: dict | None = None,
                    basis: dict | None = None) -> float:
    """Exact integer EMD-hat with zero extra-mass penalty (FastEMD's integral core).

    If `flows` is a dict it receives {(i, j): amount} moved from bin i of the first
    histogram to bin j of the second (or the reverse when the second is heavier).
    """
    swapped = ip.sum() < iq.sum()
    if swapped:
        ip, iq, icost = iq, ip, icost.T
    src = np.flatnonzero(ip)
    dst = np.flatnonzero(iq)
    if len(dst) == 0:
        return 0.0
    local: dict | None = {} if flows is not None else None
    value = min_cost_transport(ip[src], iq[dst], icost[np.ix_(src, dst)], local, basis)
    if flows is not None:
        for (i, j), x in local.items():
            a, b = int(src[i]), int(dst[j])
            flows[(b, a) if swapped else (a, b)] = x
    return value


def _integer_hamming_emd_hat(ip: np.ndarray, iq: np.ndarray, icost: np.ndarray, k: int) -> float:
    """`integer_emd_hat` for Hamming costs. When the rounded costs are u * Hamming
    distance (u = 1e6 / k an integer) the integer optimum is u times the hypercube flow
    optimum of ip - iq (with a free sink for the heavier side's excess); balanced masses
    on <= 4 nodes take the Lipschitz dual, others the hypercube network simplex."""
    unit = MULT_FACTOR / k
    if unit == int(unit):
        diff = ip - iq
        if diff.sum() < 0:
            diff = -diff  # the cost is symmetric: the heavier side supplies
        if k <= 4 and diff.sum() == 0:
            return unit * float(hamming_emd_diffs(diff[None, :])[0])
        try:
            return unit * hamming_emd_simplex(diff, k, free_excess=True)
        except PivotLimitError:
            pass
    return integer_emd_hat(ip, iq, icost)


def pyemd_emd(
    p: np.ndarray, q: np.ndarray, cost: np.ndarray, hamming_bits: int | None = None, flows: dict | None = None,
    basis: dict | None = None,
) -> float:
    """`pyemd.emd(p, q, cost, backend='cpp')` with the default extra-mass penalty.

    `flows`, if a dict, receives the integer plan's cells with positive flow; `basis`
    warm-starts the transport (see `transport.min_cost_transport`).
    """
    cost = np.asarray(cost, dtype=float)
    ip, iq, c_norm, pq_norm, max_sum, min_sum, max_c = quantize(p, q, cost)
    if max_c == 0 or max_sum == 0:
        return 0.0
    icost = np.floor(cost * c_norm + 0.5)
    if hamming_bits:
        dist = _integer_hamming_emd_hat(ip, iq, icost, hamming_bits)
    else:
        dist = integer_emd_hat(ip, iq, icost, flows, basis)
    dist = dist / pq_norm
    dist = dist / c_norm
    return dist + (max_sum - min_sum) * max_c


def pyemd_hamming(p: np.ndarray, q: np.ndarray) -> float:
    """PyPhi's `hamming_emd` on flattened little-endian distributions over 2^k states."""
    k = len(p).bit_length() - 1
    return pyemd_emd(p, q, hamming_matrix(k), hamming_bits=k)


def quantization_bound(k):
    """Bound on |pyemd_hamming - exact EMD| for any two distributions over 2^k states.

    Each of the 2 * 2^k rounded masses is off by at most 0.5e-6 (of the larger total,
    about 1) and moving that costs at most k; each unit of flow pays at most 0.5e-6 * k
    of cost rounding. Works elementwise on arrays of k.
    """
    k = np.asarray(k, dtype=float)
    return k * 1e-6 * (2.0**k + 1.0) * 1.01 + 1e-12


@cache
def _cost_rounding_error(k: int) -> float:
    """max |rounded cost / scale - cost| for the Hamming matrix on 2^k states."""
    h = hamming_matrix(k)
    c_norm = MULT_FACTOR / h.max()
    return float(np.abs(np.floor(h * c_norm + 0.5) / c_norm - h).max())


@cache
def cost_rounding_relative(k: int) -> float:
    """max over distances d >= 1 of |rounded cost / scale - d| / d for the Hamming matrix
    on 2^k states: with rounded costs every plan costs within this fraction of its
    Hamming cost, so pyemd's transport is within it of the exact EMD (same masses)."""
    d = np.arange(1, k + 1, dtype=float)
    c_norm = MULT_FACTOR / k
    return float((np.abs(np.floor(d * c_norm + 0.5) / c_norm - d) / d).max()) if k else 0.0


def quantization_margins(whole: np.ndarray, parts: np.ndarray, robust: bool = False,
                         costs: bool = True) -> np.ndarray:
    """Per row of `parts`: a bound on |pyemd_hamming(whole, part) - exact EMD|.

    Moving a mass error e costs at most e * max(C), and each unit of flow pays at most the
    cost rounding error; the masses' rounding errors are computed exactly per row. With
    `robust`, the bound also holds for any arrays within float noise of these (a mass
    near a rounding midpoint is charged the largest rounding error, half a unit). With
    costs=False only the masses' part (see `cost_rounding_relative` for the costs').
    """
    k = whole.shape[-1].bit_length() - 1
    max_c = float(k)
    whole = np.atleast_2d(whole)  # (1 or B, 2^k), one whole per row of parts
    sum_p = whole.sum(axis=1)
    sum_q = parts.sum(axis=1)
    max_sum = np.maximum(sum_p, sum_q)
    scale = MULT_FACTOR / max_sum
    # Only one of the two residuals (p - q)+ and (q - p)+ is nonzero per state.
    scaled = np.abs(whole - parts) * scale[:, None]
    err = np.abs(np.floor(scaled + 0.5) - scaled)
    if robust:
        err = np.where(err > 0.5 - 1e-6, 0.5 + 1e-6, err)
    errors = err.sum(axis=1) / scale
    slack = max_c * errors + np.abs(sum_p - sum_q) * max_c
    if costs:
        slack = slack + _cost_rounding_error(k) * max_sum
    return slack * 1.01 + 1e-12


def _settled_min(diffs: np.ndarray, mass: np.ndarray, floor: np.ndarray) -> float | None:
    """The smallest pyemd value over the rows, to PRECISION, without integer transports
    when the exact EMDs (<= 4 nodes) and the rounding margins pin it down.

    Row j's pyemd value lies within m_j = mass_j + r (e_j + mass_j) of its exact EMD e_j
    (mass_j: the masses' rounding, r: `cost_rounding_relative`), so the minimum lies in
    [lo, hi] = [min (e - m), min (e + m)]; rows whose lower bound `floor` is above hi
    cannot lower either end. When every number in [lo, hi] rounds to the same 6
    decimals (always, unless the minimum sits within the margin of a rounding midpoint),
    hi is returned: it rounds as PyPhi's value does. Else None.
    """
    rel = cost_rounding_relative(diffs.shape[1].bit_length() - 1) * 1.01
    lo = hi = np.inf
    for j in np.argsort(floor, kind="stable"):
        if floor[j] >= hi:
            break
        exact = float(hamming_emd_diffs(diffs[j:j + 1])[0])
        margin = mass[j] + rel * (exact + mass[j])
        hi, lo = min(hi, exact + margin), min(lo, exact - margin)
    return hi if round(lo, PRECISION) == round(hi, PRECISION) else None


class PyPhiEMD:
    """EMD engine reproducing PyPhi 1.2 + pyemd's C++ backend (the published values)."""

    name = "pyphi"

    def __init__(self):
        self._memo: dict[bytes, float] = {}

    def mip_distance(self, whole: np.ndarray, parts: np.ndarray, part_blocks, whole_blocks, purview,
                     exact_row=None) -> float:
        """min over rows of `parts` of PyPhi's EMD(whole, part); exact bounds prune rows.

        With `exact_row`, `parts` may be off by float noise (`cause.CauseTables`): they
        only bound, and the EMD of row j is taken on `exact_row(j)`, PyPhi's own array.
        """
        k = bin(purview).count("1")
        diffs = whole[None, :] - parts
        mass = quantization_margins(whole, parts, robust=exact_row is not None, costs=False)
        # Repertoires sum to at most 1 (+ float noise): the costs' part of the margin.
        margin = mass + _cost_rounding_error(k) * 1.01 * (1 + 1e-9)
        floor = marginal_lower_bounds(diffs) - margin
        if k <= MAX_EXACT_DUAL_BITS:
            settled = _settled_min(diffs, mass, floor)
            if settled is not None:
                return settled
        best = np.inf
        for j in np.argsort(floor, kind="stable"):
            if floor[j] >= best:
                break
            # A tighter bound before the integer transport: exact for <= 4 nodes.
            tight = hamming_emd_diffs(diffs[j : j + 1])[0] if k <= 4 else strong_lower_bound(diffs[j])
            if tight - margin[j] >= best:
                continue
            best = min(best, pyemd_hamming(whole, parts[j] if exact_row is None else exact_row(j)))
            if best == 0:
                break
        return best

    def upper_bounds(self, wholes: np.ndarray, parts: np.ndarray) -> np.ndarray:
        """Per whole (B, 2^k), an upper bound of `mip_distance` from its rows (B, R, 2^k):
        per row, the exact EMD (or a spanning-tree transport's cost above 4 nodes) plus
        that row's rounding bound, robust to float noise in the arrays: the masses' part,
        and the costs' part relative to the transport's cost (as in `_settled_min`), so
        that rows equal to the whole bound 0."""
        b, r, n = parts.shape
        flat_wholes = np.repeat(wholes, r, axis=0)
        flat = parts.reshape(b * r, n)
        upper = hamming_emd_upper_bounds(flat_wholes - flat)
        mass = quantization_margins(flat_wholes, flat, robust=True, costs=False)
        rel = cost_rounding_relative(n.bit_length() - 1) * 1.01
        upper = upper + mass + rel * (upper + mass)
        return upper.reshape(b, r).min(axis=1)

    def hamming(self, p: np.ndarray, p_blocks, q: np.ndarray, q_blocks, purview: int) -> float:
        key = p.tobytes() + q.tobytes()
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = pyemd_hamming(p, q)
        return hit

    def transport(self, first: np.ndarray, second: np.ndarray, cost: np.ndarray) -> float:
        return pyemd_emd(first, second, cost)
