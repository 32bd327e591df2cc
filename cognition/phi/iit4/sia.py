"""IIT 4.0 system integrated information phi_s and the minimum information partition.

Albantakis et al. 2023 (PLoS Comput Biol 19(10): e1011465), with PyPhi 2.0's conventions
and tie rules; the 2026 formalism (Mayner, Marshall & Tononi, Entropy 2026) adds the
intrinsic-information cap of Eq. 23.

For a candidate system S in state s (k binary units, see :mod:`.cause_effect`):

1. Maximal cause/effect states: z_c* = argmax_z ii_c(z), z_e* = argmax_z
   ii_e(z) with ii_c(z) = p_c(z|s) log2(p(s|z) / mean_z' p(s|z')) and ii_e(z) = p_e(z|s)
   log2(p_e(z|s) / mean_s' p_e(z|s')), in bits. If ii_c or ii_e is <= 1e-13 (PyPhi's
   tolerance), phi_s = 0 (no cause / no effect).
2. For each directed set partition theta (:mod:`.system_partitions`), the
   integrated information (Eqs. 19-20)
     phi_c(theta) = p_c(z_c*|s) log2(p(s|z_c*) / p_theta(s|z_c*))
     phi_e(theta) = p_e(z_e*|s) log2(p_e(z_e*|s) / p_theta(z_e*|s))
   where p_theta averages every severed input like a non-input (product over units), and
   phi(theta) = |min(phi_c, phi_e)|+ = max(0, min(phi_c, phi_e)) (Eqs. 19-20).
3. MIP (Eqs. 21-22): theta* minimizes phi(theta) / n_cut(theta) (n_cut = number of severed
   directed connections, Eq. 24). PyPhi evaluates partitions in order and stops at the first
   with phi <= 1e-13; among the evaluated ones it takes the minimum of (normalized phi with
   a 1e-13 tolerance, -phi, cut matrix lexicographically) and the first of the tied.
   phi_s = phi(theta*). All partitions are evaluated at once (numpy over partitions, from
   per-unit tables of every retained-input subset); the short-circuit is emulated.
4. When several cause or effect states tie at maximal ii, every (cause, effect) pair gets
   its own MIP and the pair with the largest phi_s wins (S1 Text, Eq. 20); a remaining tie is
   broken by PyPhi's automorphism-canonical states when S is the whole network, else by
   enumeration order.
5. IIT_4_0_2026 (Eq. 23): phi_s = min(phi_s, ii_c, ii_e, idiff_c, idiff_e) on the MIP chosen
   as in 2023, with idiff = -log2 of the forward probability of the current state
   (p(s | z = s) for the cause, p_e(z = s | s) for the effect; 0 when that is 0 or 1).

Zero without partitions (PyPhi's null SIA): S not strongly connected (cm among S), or a
single unit without a self-loop; then no cause/effect states are reported.

Floating point: the per-unit factors, their averages over non-inputs and cuts, products and
sums are computed with PyPhi's operations in PyPhi's order (OFF probabilities kept
separately from 1 - ON), so that PyPhi's exact-equality ties among states and its
tolerance-based partition ties come out the same.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from functools import lru_cache
from itertools import permutations

import numpy as np

from ..iit3.partitions import is_strongly_connected
from ..iit3.tpm import _check_cm, _check_nodes, _check_state, as_state_by_node
from .cause_effect import (
    CandidateSystem,
    _prepare,
    bits_table,
    check_connectivity,
    index_state,
    information_density,
    unit_namer,
)
from .limits import check_size
from .system_partitions import PartitionTable, SystemPartition, describe, partition_table

FORMALISMS = ("IIT_4_0_2023", "IIT_4_0_2026")
#: PyPhi 2.0's comparison tolerance (config.numerics.precision = 13).
PRECISION = 1e-13


def _eq(x: float, y: float) -> bool:
    return math.isclose(x, y, rel_tol=PRECISION, abs_tol=PRECISION)


def _check_formalism(formalism) -> str:
    if formalism not in FORMALISMS:
        raise ValueError(f"formalism: got {formalism!r}; allowed: {', '.join(map(repr, FORMALISMS))}")
    return formalism


@dataclass(frozen=True)
class SystemIrreducibility:
    """Result of :func:`iit4` for one candidate system in one state.

    Attributes:
        phi_s: system integrated information in bits (>= 0).
        phi_cause, phi_effect: phi_c, phi_e of the MIP in bits, clamped at 0 as PyPhi
            reports them (None if no MIP).
        normalized_phi: phi_s / number of severed connections of the MIP.
        signed_phi: min(phi_c, phi_e) before clamping at 0 (capped in 2026).
        partition: the MIP (:class:`SystemPartition`, ``str()`` is readable) or None.
        cause_state, effect_state: maximal cause/effect states of the system units
            (0/1 tuples, ascending nodes) or None when PyPhi does not compute them.
        cause_ii, effect_ii: their intrinsic information in bits.
        cause_ties, effect_ties: all states tied at maximal ii.
        intrinsic_differentiation: (cause, effect) in bits, used by the 2026 cap.
        nodes: network indices of the system; state: its current state.
        formalism: "IIT_4_0_2023" or "IIT_4_0_2026".
        reason: why phi_s is 0 without a partition search (None otherwise).
        tied_partitions: how many partitions tie with the MIP.
    """

    phi_s: float
    phi_cause: float | None
    phi_effect: float | None
    normalized_phi: float
    signed_phi: float
    partition: SystemPartition | None
    cause_state: tuple[int, ...] | None
    effect_state: tuple[int, ...] | None
    cause_ii: float | None
    effect_ii: float | None
    cause_ties: tuple[tuple[int, ...], ...]
    effect_ties: tuple[tuple[int, ...], ...]
    intrinsic_differentiation: tuple[float, float] | None
    nodes: tuple[int, ...]
    state: tuple[int, ...]
    formalism: str
    reason: str | None = None
    tied_partitions: int = 0

    def __bool__(self) -> bool:
        return self.phi_s > PRECISION

    def __repr__(self) -> str:
        return f"SystemIrreducibility({self.describe()})"

    def describe(self, labels=None) -> str:
        """One line: phi_s, the system and its state, the MIP (or why there is none), the maximal cause and effect
        states; each unit as ``labels[i]`` (network index i; default the index)."""
        name = unit_namer(labels, self.nodes)

        def states(values):  # (1, 0) with indices, A=1, B=0 with labels
            return str(tuple(values)) if labels is None else ", ".join(f"{name(i)}={v}" for i, v in zip(self.nodes, values))

        line = (f"phi_s={self.phi_s:.6g} bits of {{{', '.join(name(i) for i in self.nodes)}}} in state "
                f"{states(self.state)}")
        if self.partition is None:
            return line + f"; no partition searched: {self.reason}" if self.reason else line
        ties = f" (and {self.tied_partitions} tied)" if self.tied_partitions else ""
        return (line + f"; MIP {self.partition.labelled(labels)}{ties}; cause {states(self.cause_state)}, "
                f"effect {states(self.effect_state)}")

    def to_dict(self, labels=None) -> dict:
        """JSON-able: every field (states and nodes as lists, the MIP as :meth:`SystemPartition.to_dict`), with
        ``labels`` (one per network unit) the units named."""
        name = unit_namer(labels, self.nodes, text=False)
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["partition"] = self.partition.to_dict(labels) if self.partition is not None else None
        out["nodes"] = [name(i) for i in self.nodes]
        for key in ("state", "cause_state", "effect_state", "intrinsic_differentiation"):
            out[key] = list(out[key]) if out[key] is not None else None
        for key in ("cause_ties", "effect_ties"):
            out[key] = [list(t) for t in out[key]]
        out["text"] = self.describe(labels)
        return out


# ---------------------------------------------------------------------------
# per-state quantities


def _product_rows(choose_on: np.ndarray, on: np.ndarray, off: np.ndarray) -> np.ndarray:
    """prod_j (choose_on[..., j] ? on[..., j] : off[..., j]) in unit order (PyPhi's order)."""
    out = np.where(choose_on[..., 0], on[..., 0], off[..., 0])
    for j in range(1, on.shape[-1]):
        out = out * np.where(choose_on[..., j], on[..., j], off[..., j])
    return out


def _pyphi_mean(vec: np.ndarray, k: int) -> float:
    """Mean summed in the C order of PyPhi's (2,)*k repertoire arrays."""
    return float(np.ascontiguousarray(vec.reshape((2,) * k, order="F")).mean()) if k else float(vec.mean())


def _pyphi_sum(vec: np.ndarray, k: int) -> float:
    return float(np.ascontiguousarray(vec.reshape((2,) * k, order="F")).sum()) if k else float(vec.sum())


@dataclass
class _Spec:
    ii: float
    states: tuple[int, ...]  # state indices tied at max


def _specify(values: np.ndarray, tolerance=None) -> _Spec:
    """The maximal ii and the states tied at it: equal to it exactly (PyPhi), or within ``tolerance`` bits of it
    (a number, or one per state) where a tolerance is given."""
    best = float(values.max())
    tied = values == best if tolerance is None else values >= best - tolerance
    return _Spec(best, tuple(int(r) for r in np.flatnonzero(tied)))


def check_state_tolerance(tolerance, k: int):
    """(cause, effect) tolerances for :func:`_specify` from ``state_tolerance`` (see :func:`iit4`), for a candidate
    system of k units; ValueError naming what is allowed."""
    allowed = ("allowed: None (PyPhi's exact ties), a number >= 0 of bits, or a pair (cause, effect) of such "
               f"numbers or of {1 << k} values, one per state of the {k}-unit system")
    if tolerance is None:
        return None, None
    pair = tolerance if isinstance(tolerance, (tuple, list)) and len(tolerance) == 2 else (tolerance, tolerance)
    out = []
    for side in pair:
        try:
            arr = np.asarray(side, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"state_tolerance: got {tolerance!r}; {allowed}") from None
        if arr.shape not in ((), (1 << k,)) or not np.isfinite(arr).all() or (arr < 0).any():
            raise ValueError(f"state_tolerance: got {np.array2string(np.asarray(side), threshold=6)}; {allowed}")
        out.append(float(arr) if arr.ndim == 0 else arr)
    return out[0], out[1]


def check_partition_tolerance(tolerance, k: int | None = None):
    """``partition_tolerance`` (see :func:`iit4`) as None, a float or a (P,) array for a k-unit system (k None: a
    number only); ValueError naming what is allowed."""
    if tolerance is None:
        return None
    count = len(partition_table(k)) if k is not None else None
    allowed = ("allowed: None (PyPhi's ties, within 1e-13), a number >= 0 of bits per severed connection" +
               (f", or {count} such numbers, one per directed partition of the {k}-unit system" if count else ""))
    try:
        arr = np.asarray(tolerance, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"partition_tolerance: got {tolerance!r}; {allowed}") from None
    if arr.shape not in ((), (count,)) or not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError(f"partition_tolerance: got {np.array2string(arr, threshold=6)}; {allowed}")
    return float(arr) if arr.ndim == 0 else arr


@dataclass
class _Prepared:
    """Per-state system quantities (k units, 2^k states)."""

    k: int
    s: int  # current system state index
    s_bits: np.ndarray
    inputs: np.ndarray  # (k,) int64 masks
    cut_effect: np.ndarray  # (k, 2^k masks, 2 values, 2^k states): see _cut_values
    cut_cause: np.ndarray
    pe: np.ndarray  # p_e(z | s) over z
    ue: np.ndarray  # mean_s' p_e(z | s')
    pc: np.ndarray  # p(s | z) over z
    rc: np.ndarray  # p_c(z | s)
    uc: float
    ii_c: np.ndarray
    ii_e: np.ndarray


def _effect_matrix(cs: CandidateSystem) -> np.ndarray:
    """(2^k s', 2^k z): p_e(z | s') as a product over units (PyPhi's order)."""
    bits = bits_table(cs.size).astype(bool)  # (2^k z, k)
    on, off = cs.effect_on.T[:, None, :], cs.effect_off.T[:, None, :]  # (2^k s', 1, k)
    return _product_rows(np.broadcast_to(bits[None], (bits.shape[0],) + bits.shape), on, off)


@lru_cache(maxsize=1024)
def _cut_layout(k: int, inputs: int, unit: int, order: tuple[int, ...]) -> tuple[tuple, np.ndarray]:
    """Where :func:`_cut_values` reads and writes for a unit at position ``unit`` with input mask ``inputs``.

    ``order``: the system positions from the slowest to the fastest in memory, the order in which numpy's
    multi-axis sum visits them. Returns (groups, out): per number q of kept inputs, (q, gather) with gather
    (sets, 2^(k-q), 2^q, 2) the flat indices into the unit's factor table laid out in ``order`` (the value
    fastest) of every kept set's terms (the averaged-out positions in that order), kept states and values;
    out (2^k masks, 2, 2^k states) indices into the groups' sums concatenated, with one past the end (nan)
    where no partition reaches (a self-loop severed while k > 1)."""
    groups, offsets, at = [], {}, 0
    weight = np.empty(k, dtype=np.int64)
    weight[list(order)] = 1 << np.arange(k - 1, -1, -1)  # each position's step in the table
    kept_sets = [m for m in range(1 << k) if m & inputs == m and not (k > 1 and inputs >> unit & 1
                                                                       and not m >> unit & 1)]
    for q in range(k + 1):
        sets = [m for m in kept_sets if bin(m).count("1") == q]
        if not sets:
            continue
        gather = np.empty((len(sets), 1 << (k - q), 1 << q, 2), dtype=np.int64)
        for number, m in enumerate(sets):
            kept = [p for p in order if m >> p & 1]
            dropped = [p for p in order if not m >> p & 1]
            t_bits = (np.arange(1 << (k - q))[:, None] >> np.arange(k - q - 1, -1, -1)) & 1  # C order
            y_bits = (np.arange(1 << q)[:, None] >> np.arange(q - 1, -1, -1)) & 1
            base = t_bits @ weight[dropped] if dropped else np.zeros(1, dtype=np.int64)
            kept_part = y_bits @ weight[kept] if kept else np.zeros(1, dtype=np.int64)
            gather[number] = 2 * (base[:, None, None] + kept_part[None, :, None]) + np.arange(2)[None, None, :]
            offsets[m] = at + number * (1 << q) * 2
        groups.append((q, gather))
        at += gather.shape[0] * (1 << q) * 2
    states = np.arange(1 << k)
    out = np.full((1 << k, 2, 1 << k), at, dtype=np.int64)
    for mask in range(1 << k):
        m = mask & inputs
        if m not in offsets:
            continue
        kept = [p for p in order if m >> p & 1]
        y = sum(((states >> p) & 1) << (len(kept) - 1 - i) for i, p in enumerate(kept)) if kept else 0 * states
        out[mask] = offsets[m] + 2 * y[None, :] + np.arange(2)[:, None]
    return tuple(groups), out


def _cut_values(cs: CandidateSystem, kind: str) -> np.ndarray:
    """(k, 2^k, 2, 2^k): [j, A, v, x] = P(unit j = v | system state x) when unit j keeps only
    its inputs in mask A (cm inputs outside A averaged out, as PyPhi's cut system does).

    PyPhi's ``marginalize_out`` sums the averaged-out axes at once, which numpy does one term
    after another in the array's memory order (the value axis, fastest, is never summed); every
    kept set's sum is done so here, all the sets with as many kept inputs in one numpy sum
    (:func:`_cut_layout`), so the values are PyPhi's to the bit, at a few numpy calls per unit
    instead of two per kept set."""
    k, n = cs.size, cs.network_size
    raws = cs.cause_factors if kind == "cause" else cs.effect_factors
    out = np.empty((k, 1 << k, 2, 1 << k))
    for j in range(k):
        raw = raws[j].reshape(tuple(raws[j].shape[i] for i in cs.nodes) + (2,))  # background axes have size 1
        strides = raw.strides[:k]
        order = tuple(sorted(range(k), key=lambda p: -strides[p]))
        table = np.transpose(raw, order + (k,)).reshape(-1)
        groups, where = _cut_layout(k, int(cs.inputs[j]), j, order)
        sums = [table[gather].sum(axis=1) / float(1 << (k - q)) for q, gather in groups]
        out[j] = np.concatenate([s.reshape(-1) for s in sums] + [np.array([np.nan])])[where]
    return out


def _prepare_state(cs: CandidateSystem, cache: dict) -> _Prepared:
    k = cs.size
    s_bits = np.array(cs.state, dtype=np.int64)
    s = int(sum(int(b) << a for a, b in enumerate(cs.state)))
    key = ("effect", cs.nodes, cs.network_cm.tobytes(), b"".join(f.tobytes() for f in cs.effect_factors))
    hit = cache.get(key)
    if hit is None:
        te = _effect_matrix(cs)
        hit = (te, te.mean(axis=0), _cut_values(cs, "effect"))
        cache[key] = hit
    te, ue, cut_effect = hit
    key_c = ("cause", cs.nodes, cs.network_cm.tobytes(), b"".join(f.tobytes() for f in cs.cause_factors))
    cut_cause = cache.get(key_c)
    if cut_cause is None:
        cut_cause = cache[key_c] = _cut_values(cs, "cause")
    pe = te[s]
    pc = _product_rows(np.broadcast_to(s_bits.astype(bool), (1 << k, k)), cs.cause_on.T, cs.cause_off.T)
    total = _pyphi_sum(pc, k)
    rc = pc / total if total != 0 else pc
    uc = _pyphi_mean(pc, k)
    ii_c = rc * information_density(pc, uc)
    ii_e = pe * information_density(pe, ue)
    return _Prepared(k, s, s_bits, np.array(cs.inputs, dtype=np.int64), cut_effect, cut_cause,
                     pe, ue, pc, rc, uc, ii_c, ii_e)


def _idiff(p: float) -> float:
    if p > 0:
        v = -math.log2(p)
        return v if v > 0 else 0.0
    return 0.0


# ---------------------------------------------------------------------------
# MIP search


@dataclass
class _Mip:
    phi: float  # clamped
    signed: float
    normalized: float
    phi_c: float
    phi_e: float
    index: int
    n_ties: int


@lru_cache(maxsize=256)
def _gather_index(k: int, inputs: tuple[int, ...]) -> np.ndarray:
    """(k, P) flat indices j * 2^k + (retained input mask of unit j) for every partition."""
    table = partition_table(k)
    keep = np.array(inputs, dtype=np.int64)[None, :] & ~table.sources  # (P, k)
    return np.ascontiguousarray((keep + (np.arange(k, dtype=np.int64) << k)[None, :]).T)


def _phi_arrays(prep: _Prepared, table: PartitionTable, zc: int, ze: int) -> tuple[np.ndarray, np.ndarray]:
    """phi_c and phi_e (signed, bits) of every partition for specified states zc, ze."""
    k = prep.k
    units = np.arange(k)
    z_e = (ze >> units) & 1
    idx = _gather_index(k, tuple(int(x) for x in prep.inputs))
    # effect: unit j's probability of z_e[j] given the current state s, cut inputs averaged
    tab_e = np.ascontiguousarray(prep.cut_effect[units, :, z_e, prep.s]).ravel()
    # cause: unit j's probability of its current state s_j given z_c, cut inputs averaged
    tab_c = np.ascontiguousarray(prep.cut_cause[units, :, prep.s_bits, zc]).ravel()
    qe = tab_e[idx[0]]
    qc = tab_c[idx[0]]
    for j in range(1, k):
        qe = qe * tab_e[idx[j]]
        qc = qc * tab_c[idx[j]]
    phi_e = prep.pe[ze] * information_density(prep.pe[ze], qe)
    phi_c = prep.rc[zc] * information_density(prep.pc[zc], qc)
    return phi_c, phi_e


class _Key:
    """PyPhi's SIA tie key: (normalized phi with tolerance, -phi exact, lex cut exact)."""

    __slots__ = ("norm", "neg", "lex")

    def __init__(self, norm, neg, lex):
        self.norm, self.neg, self.lex = norm, neg, lex

    def __eq__(self, other) -> bool:
        return _eq(self.norm, other.norm) and self.neg == other.neg and self.lex == other.lex

    def __lt__(self, other) -> bool:
        if not _eq(self.norm, other.norm):
            return self.norm < other.norm
        if self.neg != other.neg:
            return self.neg < other.neg
        return self.lex < other.lex


def _find_mip(prep: _Prepared, table: PartitionTable, zc: int, ze: int, tolerance: float | None = None) -> _Mip:
    """The MIP among the partitions for cause state zc and effect state ze (step 3 of the module docstring);
    ``tolerance``: partitions whose normalized phi lies within it of the minimum tie with it (see :func:`iit4`)."""
    phi_c, phi_e = _phi_arrays(prep, table, zc, ze)
    signed = np.minimum(phi_c, phi_e)
    phi = np.maximum(signed, 0.0)
    falsy = np.flatnonzero(phi <= PRECISION)
    stop = int(falsy[0]) + 1 if falsy.size else len(phi)  # PyPhi's short-circuit
    phi = phi[:stop]
    norm = np.maximum(signed[:stop] * (1.0 / table.n_cut[:stop]), 0.0)
    lo = float(norm.min())
    exact = max(1e-9, 1e-9 * abs(lo))
    tolerant = tolerance is not None and np.any(tolerance)
    extra = 0.0 if not tolerant else (tolerance[:stop] if np.ndim(tolerance) else tolerance)
    window = np.flatnonzero(norm <= lo + np.maximum(exact, extra))
    # within a tolerance every partition of the window ties on normalized phi: the largest phi, then lex, wins
    keys = [_Key(lo if tolerant else float(norm[i]), -float(phi[i]), table.lex_key(int(i))) for i in window]
    best = keys[0]
    for key in keys[1:]:
        if key < best:
            best = key
    tied = [int(i) for i, key in zip(window, keys) if key == best]
    i = tied[0]
    return _Mip(float(phi[i]), float(signed[i]), float(norm[i]), float(phi_c[i]), float(phi_e[i]), i, len(tied) - 1)


# ---------------------------------------------------------------------------
# canonical tie-break over automorphisms (PyPhi 2.0 pyphi.automorphism)


def _joint_bytes_key(sbn: np.ndarray, cm: np.ndarray, perm: tuple[int, ...]) -> tuple:
    n = sbn.shape[1]
    on = sbn.reshape((2,) * n + (n,), order="F")
    joint = np.stack([1.0 - on, on], axis=-1)  # (2,)*n + (n, 2)
    arr = joint.transpose((*perm, n, n + 1))[..., list(perm), :]
    cm_p = np.ascontiguousarray(cm[np.ix_(perm, perm)])
    arr_p = np.ascontiguousarray(np.round(arr, 12)) + 0.0
    return ((2,) * n, cm_p.astype(np.int64).tobytes(), arr_p.tobytes())


@lru_cache(maxsize=64)
def _achievers(sbn_bytes: bytes, n: int, cm_bytes: bytes) -> tuple[tuple[int, ...], ...]:
    sbn = np.frombuffer(sbn_bytes, dtype=float).reshape(1 << n, n)
    cm = np.frombuffer(cm_bytes, dtype=np.int64).reshape(n, n)
    best, winners = None, []
    for perm in permutations(range(n)):
        if not np.array_equal(cm[np.ix_(perm, perm)], cm):
            continue
        key = _joint_bytes_key(sbn, cm, perm)
        if best is None or key < best:
            best, winners = key, [perm]
        elif key == best:
            winners.append(perm)
    return tuple(winners)


def canonical_state(sbn: np.ndarray, cm: np.ndarray, state: tuple[int, ...]) -> tuple[int, ...]:
    """PyPhi 2.0's ``automorphism.canonical_state`` of a whole-network state."""
    n = sbn.shape[1]
    perms = np.array(_achievers(np.ascontiguousarray(sbn, dtype=float).tobytes(), n,
                                np.ascontiguousarray(cm, dtype=np.int64).tobytes()), dtype=np.int64)
    images = np.asarray(state, dtype=np.int64)[perms]  # (P, n): image[i] = state[perm[i]]
    # lexicographic min of 0/1 tuples = min of the big-endian binary numbers
    codes = images @ (1 << np.arange(n - 1, -1, -1, dtype=np.int64))
    return tuple(int(v) for v in images[int(np.argmin(codes))])


# ---------------------------------------------------------------------------
# main entry points


def _null(cs_nodes, state, formalism, reason, spec_c=None, spec_e=None, k=0) -> SystemIrreducibility:
    def states(spec):
        return tuple(index_state(r, k) for r in spec.states) if spec is not None else ()

    return SystemIrreducibility(
        phi_s=0.0, phi_cause=None, phi_effect=None, normalized_phi=0.0, signed_phi=0.0, partition=None,
        cause_state=states(spec_c)[0] if spec_c is not None else None,
        effect_state=states(spec_e)[0] if spec_e is not None else None,
        cause_ii=spec_c.ii if spec_c is not None else None,
        effect_ii=spec_e.ii if spec_e is not None else None,
        cause_ties=states(spec_c), effect_ties=states(spec_e), intrinsic_differentiation=None,
        nodes=tuple(cs_nodes), state=tuple(state), formalism=formalism, reason=reason,
    )


def analyze_candidate(cs: CandidateSystem, formalism: str = "IIT_4_0_2023", _cache: dict | None = None,
                      state_tolerance=None, partition_tolerance=None) -> SystemIrreducibility:
    """phi_s of a prepared candidate system (see the module docstring; the tolerances as :func:`iit4`)."""
    formalism = _check_formalism(formalism)
    k = cs.size
    tol_c, tol_e = check_state_tolerance(state_tolerance, k)
    tol_p = check_partition_tolerance(partition_tolerance, k)
    if k > 1 and not is_strongly_connected(cs.inputs):
        return _null(cs.nodes, cs.state, formalism, "not strongly connected")
    if k == 1 and not cs.cm[0, 0]:
        return _null(cs.nodes, cs.state, formalism, "single unit without a self-loop")
    prep = _prepare_state(cs, {} if _cache is None else _cache)
    spec_c, spec_e = _specify(prep.ii_c, tol_c), _specify(prep.ii_e, tol_e)
    # PyPhi compares ii <= 0 as a PyPhiFloat: within 1e-13 of 0 counts as no cause/effect
    if spec_c.ii <= PRECISION or spec_e.ii <= PRECISION:
        why = " and ".join(w for w, sp in (("no cause", spec_c), ("no effect", spec_e)) if sp.ii <= PRECISION)
        return _null(cs.nodes, cs.state, formalism, why, spec_c, spec_e, k)
    table = partition_table(k)
    pairs = [(c, e) for c in spec_c.states for e in spec_e.states]
    mips = {pair: _find_mip(prep, table, *pair, tol_p) for pair in pairs}
    if len(pairs) == 1:
        chosen = pairs[0]
    else:
        best = pairs[0]
        for pair in pairs[1:]:
            if mips[pair].phi > mips[best].phi and not _eq(mips[pair].phi, mips[best].phi):
                best = pair
        tied = [p for p in pairs if _eq(mips[p].phi, mips[best].phi)]
        if len(tied) == 1:
            chosen = tied[0]
        elif k == cs.network_size:
            chosen = min(tied, key=lambda p: (canonical_state(cs.network_tpm, cs.network_cm, index_state(p[0], k)),
                                              canonical_state(cs.network_tpm, cs.network_cm, index_state(p[1], k))))
        else:
            chosen = tied[0]
    mip = mips[chosen]
    zc, ze = chosen
    phi, signed, norm = mip.phi, mip.signed, mip.normalized
    idiff = (_idiff(float(prep.pc[prep.s])), _idiff(float(prep.pe[prep.s])))
    if formalism == "IIT_4_0_2026":
        signed = min(signed, max(spec_c.ii, 0.0), max(idiff[0], 0.0), max(spec_e.ii, 0.0), max(idiff[1], 0.0))
        phi = max(signed, 0.0)
        norm = max(signed / table.n_cut[mip.index], 0.0)
    return SystemIrreducibility(
        phi_s=float(phi), phi_cause=max(mip.phi_c, 0.0), phi_effect=max(mip.phi_e, 0.0), normalized_phi=float(norm), signed_phi=float(signed),
        partition=describe(table, mip.index, cs.nodes),
        cause_state=index_state(zc, k), effect_state=index_state(ze, k),
        cause_ii=spec_c.ii, effect_ii=spec_e.ii,
        cause_ties=tuple(index_state(r, k) for r in spec_c.states),
        effect_ties=tuple(index_state(r, k) for r in spec_e.states),
        intrinsic_differentiation=idiff, nodes=cs.nodes, state=cs.state, formalism=formalism,
        reason=None, tied_partitions=mip.n_ties,
    )


def tie_values(tpm, state, nodes=None, cause_state: int | None = None, effect_state: int | None = None,
               cm=None, max_nodes: int | None = None) -> dict:
    """What the tie rules of :func:`iit4` compare, for a candidate system in ``state`` (the state reachable or not):
    ``ii_cause`` and ``ii_effect`` (2^k,) the intrinsic information of every cause and effect state (bits), and for
    the pair (``cause_state``, ``effect_state``: little-endian state indices; default the first maximal ones)
    ``phi`` and ``normalized`` (P,) of every directed partition (clamped at 0, before PyPhi's short-circuit),
    with the pair used; ``max_nodes`` as :func:`iit4`. :mod:`cognition.analysis.perturbational` measures their
    sampling error with it."""
    sbn, cm_arr, full, sub = _system(tpm, cm, state, nodes, "tie_values", max_nodes)  # phi_s's limits
    prep = _prepare_state(_prepare(sbn, cm_arr, full, sub, False), {})
    zc = int(np.argmax(prep.ii_c)) if cause_state is None else int(cause_state)
    ze = int(np.argmax(prep.ii_e)) if effect_state is None else int(effect_state)
    table = partition_table(prep.k)
    phi_c, phi_e = _phi_arrays(prep, table, zc, ze)
    phi = np.maximum(np.minimum(phi_c, phi_e), 0.0)
    return {"ii_cause": prep.ii_c.copy(), "ii_effect": prep.ii_e.copy(), "phi": phi, "normalized": phi / table.n_cut,
            "cause_state": zc, "effect_state": ze}


def _system(tpm, cm, state, nodes, function: str, max_nodes):
    """(sbn, cm, full state, system nodes) of a candidate system, every argument checked (one-line ValueErrors),
    the size against ``function``'s node and memory limits."""
    sbn, cm_arr = _validated(tpm, cm)
    n = sbn.shape[1]
    full = _check_state(state, n)
    sub = _check_nodes(nodes, n)
    if not sub:
        raise ValueError("nodes: got an empty selection; allowed: one or more indices in 0..N-1")
    check_size(len(sub), function, max_nodes)
    return sbn, cm_arr, full, sub


def _validated(tpm, cm):
    sbn = as_state_by_node(tpm)
    n = sbn.shape[1]
    cm_arr = _check_cm(cm, n)
    check_connectivity(sbn, cm_arr)
    return sbn, cm_arr


def iit4(tpm, state, cm=None, nodes=None, formalism: str = "IIT_4_0_2023",
         validate_state: bool = True, max_nodes: int | None = None, state_tolerance=None,
         partition_tolerance=None) -> SystemIrreducibility:
    """Exact IIT 4.0 system integrated information phi_s of ``nodes`` in ``state``.

    Args:
        tpm: state-by-node TPM (2^N, N), little-endian rows (PyPhi's multidimensional or
            state-by-state forms also accepted).
        state: current network state (N zeros/ones).
        cm: (N, N) 0/1 connectivity, cm[i][j] = 1 for i -> j; default all ones. It must
            contain every edge the TPM depends on (PyPhi 2.0 rejects an under-specified cm).
        nodes: network indices of the candidate system (default: all); the other units are
            background conditions fixed at their current state.
        formalism: "IIT_4_0_2023" (default) or "IIT_4_0_2026" (the Eq. 23 cap).
        validate_state: PyPhi's ``validate_system_states`` (default True): the system's
            state must be reachable with the background fixed; False computes anyway.
        max_nodes: the largest candidate system computed (default None: 8,
            :data:`cognition.phi.iit4.limits.MAX_SYSTEM_NODES`); a larger one is refused before any work.
        state_tolerance: None (default): cause and effect states tie when their ii equal the maximum exactly
            (PyPhi 2.0). For a TPM that is an estimate, whose exact ties the sampling noise breaks, states
            within this many bits of the maximal ii are tied too (and, as for exact ties, the pair with the
            largest phi_s wins): a number for every state, or a pair (cause, effect) of numbers or of 2^k
            values, one per state of the candidate system (little-endian index).
        partition_tolerance: None (default): partitions tie on normalized phi within 1e-13 (PyPhi 2.0), and
            among tied ones the largest phi, then the cut's lexical order, wins. For an estimated TPM, a
            number of bits per severed connection (or one per directed partition, in the order of
            :func:`.system_partitions.partition_table`): every partition whose normalized phi lies within its
            tolerance of the minimum ties with the minimum (the largest phi wins). Exact phi_s jumps where partitions tie (a
            sampled TPM is never tied, so the untolerant estimate converges to the wrong side of the jump);
            :mod:`cognition.analysis.perturbational` sets both tolerances from the estimate's own sampling
            error.

    Returns:
        :class:`SystemIrreducibility` (phi_s in bits, the MIP, cause/effect states).

    Raises:
        ValueError: bad argument, or a state that PyPhi 2.0 rejects as unreachable.
    """
    formalism = _check_formalism(formalism)
    sbn, cm_arr, full, sub = _system(tpm, cm, state, nodes, "iit4", max_nodes)
    check_state_tolerance(state_tolerance, len(sub))
    check_partition_tolerance(partition_tolerance, len(sub))
    return analyze_candidate(_prepare(sbn, cm_arr, full, sub, bool(validate_state)), formalism,
                             state_tolerance=state_tolerance, partition_tolerance=partition_tolerance)


def iit4_batch(tpm, states, cm=None, nodes=None, formalism: str = "IIT_4_0_2023",
               validate_state: bool = True, max_nodes: int | None = None, state_tolerance=None,
               partition_tolerance=None) -> list:
    """phi_s for many states and/or many TPMs in one call.

    Args:
        tpm: one TPM (2^N, N) or a stack (m, 2^N, N) of TPMs.
        states: (s, N) array of network states, or one state (N,) for every TPM of a stack;
            with a stack and s = m, state i goes with TPM i.
        cm, nodes, formalism, validate_state, max_nodes, state_tolerance, partition_tolerance: as
            :func:`iit4` (shared by all).

    Returns:
        list of :class:`SystemIrreducibility` (None for a state PyPhi rejects as
        unreachable), in input order: one per state (single TPM), or one per TPM.
    """
    formalism = _check_formalism(formalism)
    arr = np.asarray(tpm, dtype=float)
    try:
        st = np.asarray(states)
    except (ValueError, TypeError):
        raise ValueError("states: rows of different lengths; allowed: an (s, N) array of zeros and ones") from None
    if st.ndim not in (1, 2):
        raise ValueError(f"states: expected shape (s, N) or (N,), got shape {st.shape}")
    if arr.ndim == 3 and arr.shape[1] != arr.shape[2]:
        tpms = [arr[i] for i in range(arr.shape[0])]
        if st.ndim == 1:
            pairs = [(t, st) for t in tpms]
        elif st.shape[0] == len(tpms):
            pairs = list(zip(tpms, st))
        else:
            raise ValueError(f"states: {st.shape[0]} states for {len(tpms)} TPMs; allowed: one state or one per TPM")
    else:
        st2 = st[None, :] if st.ndim == 1 else st
        pairs = [(arr, row) for row in st2]
    out = []
    prepared: dict = {}
    effect_cache: dict = {}
    factor_caches: dict = {}
    for number, (t, row) in enumerate(pairs):
        key = id(t) if t is arr else None
        if key is not None and key in prepared:
            sbn, cm_arr, sub = prepared[key]
        else:
            sbn, cm_arr = _validated(t, cm)
            sub = _check_nodes(nodes, sbn.shape[1])
            if not sub:
                raise ValueError("nodes: got an empty selection; allowed: one or more indices in 0..N-1")
            check_size(len(sub), "iit4_batch", max_nodes)
            check_state_tolerance(state_tolerance, len(sub))
            check_partition_tolerance(partition_tolerance, len(sub))
            if key is not None:
                prepared[key] = (sbn, cm_arr, sub)
        try:
            full = _check_state(row, sbn.shape[1])
        except ValueError as exc:
            raise ValueError(f"states: entry {number}: {exc}") from None
        try:
            shared = factor_caches.setdefault(key, {}) if key is not None else {}  # one TPM only
            cs = _prepare(sbn, cm_arr, full, sub, bool(validate_state), shared)
        except ValueError:
            out.append(None)
            continue
        # tables are shared between the states of one TPM; a stack of TPMs gets fresh ones
        out.append(analyze_candidate(cs, formalism, effect_cache if key is not None else {}, state_tolerance,
                                     partition_tolerance))
    return out
