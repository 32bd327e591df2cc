"""IIT 4.0 cause and effect repertoires, forward probabilities and intrinsic information.

Binary units, PyPhi 2.0 conventions (Albantakis et al. 2023, PLoS Comput Biol 19(10):
e1011465; PyPhi 2.0 ``System``/``repertoire_algebra``):

- state-by-node TPM, shape (2^N, N): row r is the state at t written little-endian
  (state index = sum_i s_i 2^i); entry [r, j] = P(unit j ON at t+1 | state r).
- cm[i][j] = 1 for an edge i -> j (default: all ones). A unit's non-inputs (per cm, and
  per any cut) are marginalized out by a uniform average, as PyPhi's ``marginalize_out``.
- Candidate system S (``nodes``) in the current network state s.
  Effect side (Eq. 4, effect TPM): units outside S are fixed at their current state.
  Cause side (Eq. 4, cause TPM): the background's *previous* state w is weighted by its
  posterior given the whole current state, P(w | s) = sum_{s'} prod_i p(s_i | s', w) /
  sum_{s', w'} prod_i p(s_i | s', w'), and P(unit j at t | S's past) = sum_w p(j | S past,
  w) P(w | s) (PyPhi 2.0 ``cause_marginal``).

Repertoires (Eqs. 5 and 7) are flat vectors over purview states, little-endian over the
purview's units in ascending network index (entry sum_a z_a 2^a for the a-th purview
unit). Mechanisms and purviews are given as tuples of *network* indices inside the system.

- effect repertoire  p_e(z | m) = prod_{j in Z} p(z_j | m)                       (Eq. 5)
- cause repertoire   p_c(z | m) = prod_{i in M} p(m_i | z) / sum_z' (same)       (Eq. 7)
  (Bayes' rule with a uniform prior over the purview's past; per-unit factors p(m_i | z)
  average the unit's inputs outside Z)
- forward cause probability  p(m | z) = prod_{i in M} p(m_i | z) (unnormalized)
- unconstrained repertoires: cause uniform; effect prod_j mean_s p(z_j | s);
  forward ones: effect mean_{m'} p_e(z | m'), cause mean_z p(m | z) (Eq. 32).
- intrinsic information ("generalized intrinsic difference", PyPhi's GID measure)
  ii(z) = selectivity(z) x informativeness(z) in bits, with
  cause: selectivity = p_c(z | m) (backward), informativeness = log2(p(m|z) / mean_z' p(m|z'))
  effect: selectivity = p_e(z | m) (forward), informativeness = log2(p_e(z|m) / mean_m' p_e(z|m'))
  log2(0/q) and log2(p/0) are clipped to -/+ the largest float and 0/0 gives 0, as
  PyPhi's ``pointwise_mutual_information_vector`` (numpy ``nan_to_num``).

Known deliberate difference: for an empty purview PyPhi 2.0's forward cause repertoire
stores p(m) into an integer array (so it reads 0); here it is the float p(m). No system-
or distinction-level quantity uses an empty purview.

A *cut* is a (k, k) 0/1 matrix over the system's units in ascending order,
cut[a][b] = 1 severing the connection from unit a to unit b (a ``SystemPartition`` from
:mod:`.system_partitions` works too, via its ``cut_matrix``); a severed input is averaged
out like a non-input.

Stable API (used by the Phi-structure):

- ``prepare_candidate(tpm, state, cm=None, nodes=None, validate_state=True) -> CandidateSystem``
- ``CandidateSystem`` (frozen): ``nodes``, ``state`` (system state), ``network_state``,
  ``network_size``, ``network_cm``, ``size``, ``cm`` (k, k), ``inputs`` (k bitmasks),
  ``effect_on``/``effect_off``/``cause_on``/``cause_off`` (k, 2^k), ``position(node) -> int``,
  ``mask(nodes) -> int``
- ``cause_repertoire(system, mechanism, purview, cut=None) -> (2^|Z|,)``
- ``effect_repertoire(system, mechanism, purview, cut=None, mechanism_state=None) -> (2^|Z|,)``
- ``repertoire(system, direction, mechanism, purview, cut=None) -> (2^|Z|,)``
- ``unconstrained_cause_repertoire(system, purview)``, ``unconstrained_effect_repertoire(system, purview)``
- ``unconstrained_repertoire(system, direction, purview)``
- ``forward_cause_repertoire(system, mechanism, purview, cut=None, mechanism_state=None) -> (2^|Z|,)``
- ``forward_effect_repertoire(system, mechanism, purview, cut=None, mechanism_state=None)``
- ``forward_repertoire(system, direction, mechanism, purview, cut=None) -> (2^|Z|,)``
- ``forward_probability(system, direction, mechanism, purview, purview_state, cut=None) -> float``
- ``unconstrained_forward_repertoire(system, direction, mechanism, purview) -> (2^|Z|,)``
- ``intrinsic_information(system, direction, mechanism, purview) -> IntrinsicInformation``
  (``values`` (2^|Z|,), ``ii`` max in bits, ``states`` tied maximal purview states as
  tuples of 0/1 over the purview's units, in PyPhi's order; ``state`` = ``states[0]``)
- ``state_index(bits) -> int``, ``index_state(index, width) -> tuple``
- ``information_density(p, q) -> log2(p/q)`` with PyPhi's clipping
- ``CAUSE = "cause"``, ``EFFECT = "effect"``
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..iit3.tpm import _check_cm, _check_nodes, _check_state, as_state_by_node

CAUSE = "cause"
EFFECT = "effect"
DIRECTIONS = (CAUSE, EFFECT)

_BIG = np.finfo(float).max


def state_index(bits) -> int:
    """Little-endian index sum_a bits[a] 2^a of a 0/1 sequence."""
    return sum(int(b) << a for a, b in enumerate(bits))


def index_state(index: int, width: int) -> tuple[int, ...]:
    """Inverse of :func:`state_index`: the 0/1 tuple of length ``width``."""
    return tuple((int(index) >> a) & 1 for a in range(width))


def unit_namer(labels, nodes, text: bool = True):
    """The name of network unit i in printed and JSON results: ``str(labels[i])``, or without ``labels`` its
    index (a str when ``text``, else an int). ValueError (one line) when ``labels`` does not name every unit of
    ``nodes`` (network indices)."""
    if labels is None:
        return str if text else int
    try:
        labels = list(labels)
    except TypeError:
        raise ValueError(f"labels: got {type(labels).__name__}; allowed a sequence of names, one per network "
                         "unit") from None
    if any(not 0 <= int(i) < len(labels) for i in nodes):
        raise ValueError(f"labels: {len(labels)} name(s) for units up to {max(int(i) for i in nodes)}; allowed one "
                         "name per network unit")
    return lambda i: str(labels[int(i)])


def bits_table(k: int) -> np.ndarray:
    """(2^k, k) int array: row r holds the little-endian bits of r."""
    return (np.arange(1 << k)[:, None] >> np.arange(k)) & 1


def information_density(p, q) -> np.ndarray:
    """log2(p / q) elementwise, 0/0 -> 0, +-inf clipped to +-max float (PyPhi 2.0)."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.nan_to_num(np.log2(p / q), nan=0.0, posinf=_BIG, neginf=-_BIG)


def _check_direction(direction) -> str:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction: got {direction!r}; allowed: 'cause' or 'effect'")
    return direction


@dataclass(frozen=True, eq=False)
class CandidateSystem:
    """A candidate system S of a binary network in its current state.

    Attributes:
        nodes: network indices of S, ascending (k units).
        state: (k,) current state of S.
        network_state: (N,) the whole current state.
        network_size: N.
        cm: (k, k) connectivity among S's units (cm[a][b] = 1 for a -> b).
        inputs: k bitmasks over S's positions: bit a of inputs[b] when cm[a][b] = 1.
        effect_on, effect_off: (k, 2^k) P(unit ON / OFF at t+1 | S at t), background
            fixed at its current state, non-inputs (per cm) averaged out.
        cause_on, cause_off: (k, 2^k) P(unit ON / OFF at t | S at t-1), background past
            weighted by its posterior given the current network state, non-inputs averaged.
            (OFF is carried separately, averaged from 1 - P(ON) as PyPhi does, so that
            floating-point ties among states are PyPhi's.)
        network_tpm: (2^N, N) state-by-node TPM; network_cm: (N, N).
        effect_factors, cause_factors: per unit, PyPhi's (2,)*N + (2,) factor array
            (background axes of size 1) before any averaging over non-inputs.
    """

    nodes: tuple[int, ...]
    state: tuple[int, ...]
    network_state: tuple[int, ...]
    network_size: int
    cm: np.ndarray
    inputs: tuple[int, ...]
    effect_on: np.ndarray
    effect_off: np.ndarray
    cause_on: np.ndarray
    cause_off: np.ndarray
    network_tpm: np.ndarray
    network_cm: np.ndarray
    effect_factors: tuple = field(default=(), repr=False)
    cause_factors: tuple = field(default=(), repr=False)
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def size(self) -> int:
        return len(self.nodes)

    def position(self, node: int) -> int:
        """Position of network unit ``node`` inside S."""
        try:
            return self.nodes.index(int(node))
        except ValueError:
            raise ValueError(f"node: {node!r} is not in the system {self.nodes}") from None

    def mask(self, nodes) -> int:
        """Bitmask over S's positions of a tuple of network indices (all must be in S)."""
        out = 0
        for node in nodes:
            out |= 1 << self.position(node)
        return out


def _network_factors(sbn: np.ndarray) -> list[np.ndarray]:
    """PyPhi's binary factors: per unit, stack([1 - p, p]) over the (2,)*N state cube."""
    n = sbn.shape[1]
    cube = sbn.reshape((2,) * n + (n,), order="F")
    return [np.stack([1.0 - cube[..., i], cube[..., i]], axis=-1) for i in range(n)]


def _marginalize(arr: np.ndarray, axes) -> np.ndarray:
    """PyPhi's ``marginalize_out``: sum over ``axes`` (keepdims) / product of their sizes."""
    axes = tuple(axes)
    return arr.sum(axes, keepdims=True) / (np.array(arr.shape)[list(axes)].prod())


def _system_values(arr: np.ndarray, sub: tuple, n: int) -> np.ndarray:
    """(2, 2^k) [off, on] of a factor array over S's states (little-endian), bg axes size 1."""
    shape = tuple(2 if i in sub else 1 for i in range(n)) + (2,)
    full = np.broadcast_to(arr, shape).reshape(tuple(2 for _ in sub) + (2,))
    k = len(sub)
    return np.stack([full[..., v].reshape(-1, order="F") if k else full[..., v].reshape(1) for v in (0, 1)])


def prepare_candidate(tpm, state, cm=None, nodes=None, validate_state: bool = True) -> CandidateSystem:
    """Validate inputs and build the cause/effect TPMs of candidate system ``nodes``.

    Args:
        tpm: state-by-node TPM (2^N, N) (or PyPhi's multidimensional / state-by-state form).
        state: current network state, N zeros and ones.
        cm: (N, N) 0/1 connectivity, cm[i][j] = 1 for i -> j; default all ones.
        nodes: network indices of the candidate system (default: all units).
        validate_state: PyPhi's ``validate_system_states`` (default True): S's state must
            be reachable with the background fixed at its current state.

    Raises:
        ValueError: bad argument, or an unreachable state (the network state must always
        have a possible past: the cause TPM conditions on it).
    """
    sbn = as_state_by_node(tpm)
    n = sbn.shape[1]
    cm_arr = _check_cm(cm, n)
    full = _check_state(state, n)
    sub = _check_nodes(nodes, n)
    if not sub:
        raise ValueError("nodes: the candidate system must contain at least one unit")
    check_connectivity(sbn, cm_arr)
    return _prepare(sbn, cm_arr, full, sub, bool(validate_state))


def implied_edges(sbn: np.ndarray, tol: float = 1e-13) -> np.ndarray:
    """(N, N) 0/1: [a, b] = 1 when P(b ON | x) changes (> tol) with unit a's state."""
    n = sbn.shape[1]
    rows = np.arange(1 << n)
    out = np.zeros((n, n), dtype=np.int64)
    for a in range(n):
        low = rows[(rows >> a) & 1 == 0]
        out[a] = np.any(np.abs(sbn[low | (1 << a)] - sbn[low]) > tol, axis=0)
    return out


def check_connectivity(sbn: np.ndarray, cm_arr: np.ndarray) -> None:
    """Raise ValueError when the TPM depends on an edge the cm omits (PyPhi 2.0 rejects it)."""
    missing = np.argwhere((implied_edges(sbn) == 1) & (cm_arr == 0))
    if missing.size:
        edges = ", ".join(f"{a} -> {b}" for a, b in missing)
        raise ValueError(
            f"cm: omits edge(s) {edges} that the TPM depends on; allowed: a cm that contains "
            "every edge the TPM implies (extra edges are fine), or cm=None for all edges"
        )


def _prepare(sbn: np.ndarray, cm_arr: np.ndarray, full: tuple, sub: tuple, check_state: bool = True,
             cache: dict | None = None) -> CandidateSystem:
    """Build a CandidateSystem; ``cache`` (a dict reused across calls on one TPM and cm)
    shares the factor arrays and the averaged ON/OFF tables between states."""
    n = sbn.shape[1]
    k = len(sub)
    cache = {} if cache is None else cache
    factors = cache.get("factors")
    if factors is None:
        factors = cache["factors"] = _network_factors(sbn)
    bg = tuple(i for i in range(n) if i not in sub)
    # cause TPM (PyPhi 2.0 _cause_marginal_factored): background past weighted by its posterior
    pr_joint = np.ones((2,) * n)
    for i in range(n):
        pr_joint = pr_joint * factors[i][..., full[i]]
    norm = pr_joint.sum()
    if norm <= 0.0:
        raise ValueError(
            f"state: {tuple(full)} is unreachable: no previous state of the network leads to it "
            "with nonzero probability under this TPM"
        )
    pr_bg = pr_joint.sum(axis=tuple(sub), keepdims=True)
    weight = pr_bg / norm
    cause_factors, effect_factors = [], []
    for i in sub:
        weighted = factors[i] * weight[..., np.newaxis]
        if bg:
            weighted = weighted.sum(axis=bg, keepdims=True)
        cause_factors.append(weighted)
        # effect TPM: background fixed at its current state (PyPhi's select + expand_dims)
        idx: list = [slice(None)] * (n + 1)
        for j in bg:
            idx[j] = full[j]
        out = factors[i][tuple(idx)]
        for j in bg:
            out = np.expand_dims(out, axis=j)
        effect_factors.append(out)
    sub_state = tuple(full[i] for i in sub)
    cm_sub = cm_arr[np.ix_(sub, sub)]
    inputs = tuple(sum(1 << a for a in range(k) if cm_sub[a, b]) for b in range(k))
    eff = _averaged_tables(effect_factors, cm_arr, sub, n, cache, "effect")
    cau = _averaged_tables(cause_factors, cm_arr, sub, n, cache, "cause")
    if check_state:
        st = np.array(sub_state)[:, None]
        reach = _product_rows_generic(st == 1, eff[1], eff[0])
        if not np.any(reach > 0):
            raise ValueError(
                f"state: {full} is unreachable for nodes {sub}: with the other units fixed at "
                "their current state no previous state of these units leads to it"
            )
    return CandidateSystem(
        nodes=tuple(sub),
        state=sub_state,
        network_state=tuple(full),
        network_size=n,
        cm=cm_sub,
        inputs=inputs,
        effect_on=eff[1],
        effect_off=eff[0],
        cause_on=cau[1],
        cause_off=cau[0],
        network_tpm=sbn,
        network_cm=cm_arr,
        effect_factors=tuple(effect_factors),
        cause_factors=tuple(cause_factors),
    )


def _averaged_tables(raw: list, cm_arr: np.ndarray, sub: tuple, n: int, cache: dict, kind: str) -> np.ndarray:
    """(2, k, 2^k) OFF/ON of each unit averaged over its non-inputs (cached by content)."""
    key = (kind, sub, b"".join(f.tobytes() for f in raw))
    hit = cache.get(key)
    if hit is None:
        hit = np.empty((2, len(sub), 1 << len(sub)))
        for b, i in enumerate(sub):
            non = [x for x in range(n) if not cm_arr[x, i]]
            hit[:, b] = _system_values(_marginalize(raw[b], non), sub, n)
        cache[key] = hit
    return hit


def _product_rows_generic(choose_on: np.ndarray, on: np.ndarray, off: np.ndarray) -> np.ndarray:
    """prod over units (axis 0) of on or off, in unit order starting from the first."""
    out = np.where(choose_on[0], on[0], off[0])
    for j in range(1, on.shape[0]):
        out = out * np.where(choose_on[j], on[j], off[j])
    return out


# ---------------------------------------------------------------------------
# marginal tables


def _cut_sources(system: CandidateSystem, cut) -> tuple[int, ...]:
    """Per target position b: bitmask of severed source positions (0 if no cut)."""
    k = system.size
    if cut is None:
        return (0,) * k
    mat = getattr(cut, "cut_matrix", cut)
    mat = np.asarray(mat)
    if mat.shape != (k, k):
        raise ValueError(f"cut: expected a ({k}, {k}) 0/1 matrix over the system's units, got shape {mat.shape}")
    return tuple(sum(1 << a for a in range(k) if mat[a, b]) for b in range(k))


def _marginal(system: CandidateSystem, kind: str, unit: int, keep: int, cut_src: int = 0) -> np.ndarray:
    """(2, 2^|keep|) [OFF, ON] probability of ``unit`` given the positions in ``keep``.

    As PyPhi: the unit's factor is first averaged over its non-inputs (cm minus the severed
    sources ``cut_src``), then over its remaining inputs outside ``keep``; little-endian
    over the positions of ``keep``.
    """
    key = (kind, unit, keep, cut_src)
    hit = system._cache.get(key)
    if hit is not None:
        return hit
    n = system.network_size
    nodes = system.nodes
    raw = (system.cause_factors if kind == CAUSE else system.effect_factors)[unit]
    target = nodes[unit]
    severed = {nodes[a] for a in _positions(cut_src)}
    inputs = {x for x in range(n) if system.network_cm[x, target] and x not in severed}
    first = _marginalize(raw, [x for x in range(n) if x not in inputs])
    kept_nodes = {nodes[a] for a in _positions(keep)}
    second = _marginalize(first, sorted(x for x in inputs if x in set(nodes) and x not in kept_nodes))
    keep_nodes = tuple(nodes[a] for a in _positions(keep))
    # index every axis outside `keep` at 0 (they are size 1 or averaged), keep the rest
    idx = tuple(slice(None) if x in kept_nodes else 0 for x in range(n))
    sub = second[idx]  # axes: keep nodes ascending (size 1 where not an input), then value
    sub = np.broadcast_to(sub, (2,) * len(keep_nodes) + (2,))
    out = np.stack([sub[..., v].reshape(-1, order="F") for v in (0, 1)])
    system._cache[key] = out
    return out


def _positions(mask: int) -> list[int]:
    return [a for a in range(mask.bit_length()) if mask >> a & 1]


def _spread(values: np.ndarray, among: int, into: int) -> np.ndarray:
    """Index map: for each state of ``into`` (little-endian), the state of ``among`` (subset)."""
    into_pos = _positions(into)
    bits = bits_table(len(into_pos))
    idx = np.zeros(1 << len(into_pos), dtype=np.int64)
    pos = 0
    for c, a in enumerate(into_pos):
        if among >> a & 1:
            idx |= bits[:, c] << pos
            pos += 1
    return values[idx]


def _mech_state(system: CandidateSystem, mech_mask: int, mechanism_state=None) -> dict[int, int]:
    pos = _positions(mech_mask)
    if mechanism_state is None:
        return {a: system.state[a] for a in pos}
    vals = tuple(int(v) for v in mechanism_state)
    if len(vals) != len(pos) or any(v not in (0, 1) for v in vals):
        raise ValueError(f"mechanism_state: expected {len(pos)} zeros and ones, got {mechanism_state!r}")
    return dict(zip(pos, vals))


def _masks(system: CandidateSystem, mechanism, purview) -> tuple[int, int]:
    return system.mask(tuple(mechanism)), system.mask(tuple(purview))


def _effect_given(system, p: int, mech_mask: int, mstate: dict, cut_src) -> tuple[float, float]:
    """(P(OFF), P(ON)) of purview unit p given the mechanism state (retained inputs only)."""
    keep = mech_mask & ~cut_src[p]
    table = _marginal(system, EFFECT, p, keep, cut_src[p])
    r = state_index([mstate[a] for a in _positions(keep)])
    return float(table[0, r]), float(table[1, r])


def effect_repertoire(system: CandidateSystem, mechanism, purview, cut=None, mechanism_state=None) -> np.ndarray:
    """p_e(z | m) = prod_{j in Z} p(z_j | m) over purview states, (2^|Z|,) (Eq. 5).

    Each p(z_j | m) conditions unit j's retained inputs in the mechanism on ``m`` (default:
    the current state) and averages its other inputs; empty purview -> [1.0].
    """
    mmask, zmask = _masks(system, mechanism, purview)
    cut_src = _cut_sources(system, cut)
    mstate = _mech_state(system, mmask, mechanism_state)
    rep = np.ones(1)
    for p in _positions(zmask):
        off, on = _effect_given(system, p, mmask, mstate, cut_src)
        rep = np.concatenate([rep * off, rep * on])
    return rep


def forward_effect_repertoire(system, mechanism, purview, cut=None, mechanism_state=None) -> np.ndarray:
    """Identical to the effect repertoire (PyPhi 2.0)."""
    return effect_repertoire(system, mechanism, purview, cut, mechanism_state)


def _cause_factors(system, mmask: int, zmask: int, cut_src, mstate: dict) -> np.ndarray:
    """prod_{i in M} p(m_i | z) over purview states z (unnormalized), (2^|Z|,)."""
    out = np.ones(1 << bin(zmask).count("1"))
    for i in _positions(mmask):
        keep = zmask & ~cut_src[i]
        table = _marginal(system, CAUSE, i, keep, cut_src[i])
        out = out * _spread(table[1 if mstate[i] else 0], keep, zmask)
    return out


def forward_cause_repertoire(system, mechanism, purview, cut=None, mechanism_state=None) -> np.ndarray:
    """p(m | z) = prod_{i in M} p(m_i | z) for every purview state z, (2^|Z|,) (unnormalized)."""
    mmask, zmask = _masks(system, mechanism, purview)
    mstate = _mech_state(system, mmask, mechanism_state)
    return _cause_factors(system, mmask, zmask, _cut_sources(system, cut), mstate)


def cause_repertoire(system: CandidateSystem, mechanism, purview, cut=None) -> np.ndarray:
    """p_c(z | m): the forward cause repertoire normalized over z (Eq. 7).

    Empty purview -> [1.0]; empty mechanism -> uniform; all-zero stays all-zero (PyPhi).
    """
    mmask, zmask = _masks(system, mechanism, purview)
    if not zmask:
        return np.ones(1)
    if not mmask:
        return unconstrained_cause_repertoire(system, purview)
    joint = _cause_factors(system, mmask, zmask, _cut_sources(system, cut), _mech_state(system, mmask))
    total = joint.sum()
    return joint / total if total != 0 else joint


def repertoire(system, direction, mechanism, purview, cut=None) -> np.ndarray:
    """Cause or effect repertoire (the selectivity repertoire of the intrinsic information)."""
    if _check_direction(direction) == CAUSE:
        return cause_repertoire(system, mechanism, purview, cut)
    return effect_repertoire(system, mechanism, purview, cut)


def forward_repertoire(system, direction, mechanism, purview, cut=None) -> np.ndarray:
    """Forward repertoire: p(m | z) for the cause, p_e(z | m) for the effect."""
    if _check_direction(direction) == CAUSE:
        return forward_cause_repertoire(system, mechanism, purview, cut)
    return effect_repertoire(system, mechanism, purview, cut)


def forward_probability(system, direction, mechanism, purview, purview_state, cut=None) -> float:
    """One entry of :func:`forward_repertoire` at ``purview_state`` (0/1 over the purview)."""
    zlen = len(tuple(purview))
    bits = tuple(int(b) for b in purview_state)
    if len(bits) != zlen or any(b not in (0, 1) for b in bits):
        raise ValueError(f"purview_state: expected {zlen} zeros and ones, got {purview_state!r}")
    return float(forward_repertoire(system, direction, mechanism, purview, cut)[state_index(bits)])


def unconstrained_cause_repertoire(system, purview) -> np.ndarray:
    """Uniform (maximum-entropy) distribution over the purview's past states."""
    size = 1 << len(tuple(purview))
    return np.full(size, 1.0 / size)


def unconstrained_effect_repertoire(system, purview) -> np.ndarray:
    """prod_j mean_s p(z_j | s): each purview unit with all its inputs averaged."""
    return effect_repertoire(system, (), purview)


def unconstrained_repertoire(system, direction, purview) -> np.ndarray:
    if _check_direction(direction) == CAUSE:
        return unconstrained_cause_repertoire(system, purview)
    return unconstrained_effect_repertoire(system, purview)


def unconstrained_forward_repertoire(system, direction, mechanism, purview) -> np.ndarray:
    """Cause: mean_z p(m | z) everywhere; effect: mean over mechanism states m' of p_e(z | m')."""
    if _check_direction(direction) == CAUSE:
        fwd = forward_cause_repertoire(system, mechanism, purview)
        return np.full(fwd.shape, fwd.mean())
    mech = tuple(mechanism)
    reps = [
        effect_repertoire(system, mech, purview, mechanism_state=index_state(r, len(mech)))
        for r in range(1 << len(mech))
    ]
    return np.mean(reps, axis=0)


@dataclass(frozen=True)
class IntrinsicInformation:
    """Intrinsic information of a mechanism over a purview (the generalized intrinsic difference).

    Attributes:
        direction: "cause" or "effect".
        values: (2^|Z|,) ii(z) in bits for every purview state (little-endian).
        ii: the maximum, in bits.
        states: all purview states attaining the maximum exactly, in PyPhi's order
            (little-endian enumeration), as 0/1 tuples over the purview's units.
        selectivity, forward, unconstrained_forward: the (2^|Z|,) repertoires used.
    """

    direction: str
    values: np.ndarray
    ii: float
    states: tuple[tuple[int, ...], ...]
    selectivity: np.ndarray
    forward: np.ndarray
    unconstrained_forward: np.ndarray

    @property
    def state(self) -> tuple[int, ...]:
        return self.states[0]


def intrinsic_information(system, direction, mechanism, purview) -> IntrinsicInformation:
    """ii(z) = selectivity(z) * log2(forward(z) / unconstrained_forward(z)).

    Cause: selectivity p_c(z | m), forward p(m | z); effect: p_e(z | m) for both.
    The specified state is the maximizer; exact ties are all returned (PyPhi's
    ``intrinsic_information`` keeps states whose value equals the maximum exactly).
    """
    direction = _check_direction(direction)
    sel = repertoire(system, direction, mechanism, purview)
    fwd = forward_repertoire(system, direction, mechanism, purview)
    unc = unconstrained_forward_repertoire(system, direction, mechanism, purview)
    values = sel * information_density(fwd, unc)
    return _ii_result(direction, values, sel, fwd, unc, len(tuple(purview)))


def _ii_result(direction, values, sel, fwd, unc, width) -> IntrinsicInformation:
    best = float(values.max())
    states = tuple(index_state(r, width) for r in np.flatnonzero(values == best))
    return IntrinsicInformation(direction, values, best, states, sel, fwd, unc)
