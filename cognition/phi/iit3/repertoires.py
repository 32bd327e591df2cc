"""Cause and effect repertoires of IIT 3.0 (Oizumi, Albantakis & Tononi 2014), as PyPhi 1.2.

Sets of nodes are bitmasks over the k subsystem nodes; a distribution over a purview P
is a 1-D array over its 2^|P| states, little-endian over P's nodes in ascending order.

Cause repertoire of mechanism M over purview P (uniform prior on the past, nodes
conditionally independent): p(x_P | m_t) is proportional to prod_{m in M} q_m(x_P), where
q_m(x_P) = P(m_t = its state | x_P) averaged uniformly over all other past nodes
(PyPhi's `_single_node_cause_repertoire`); it is normalised (or all zero if the state
of M cannot arise from any x_P, which PyPhi maps to phi = 0). Effect repertoire: the
product over p in P of P(p_t+1 | M = its state), other inputs of p averaged uniformly.
A system cut A -> B is applied by treating the edges A -> B as absent: a node in B
averages over its inputs from A (PyPhi's `Subsystem.apply_cut` + `Node`).

Every repertoire is built from per-node marginals q_m over a scope S and
P(p ON | x_S); the scope is what the cut leaves of P (or M) among the node's inputs,
then shrunk to the nodes the values really depend on. Caching on those scopes makes a
repertoire computed once serve every cut that leaves its scopes unchanged.
"""
from __future__ import annotations

from functools import cache

import numpy as np

from .tpm import PreparedSystem


@cache
def bits_of(mask: int) -> tuple[int, ...]:
    """Node indices in a bitmask, ascending."""
    out, i = [], 0
    while mask >> i:
        if mask >> i & 1:
            out.append(i)
        i += 1
    return tuple(out)


@cache
def subindex(outer: int, inner: int) -> np.ndarray:
    """For each state of `outer` (2^|outer|,), the index of its restriction to `inner`."""
    obits = bits_of(outer)
    states = np.arange(1 << len(obits))
    out = np.zeros(len(states), dtype=np.int64)
    for j, b in enumerate(bits_of(inner)):
        out |= ((states >> obits.index(b)) & 1) << j
    return out


def marginal(dist: np.ndarray, outer: int, inner: int) -> np.ndarray:
    """Marginal over `inner` of a distribution over `outer` (sum over the other nodes)."""
    return np.bincount(subindex(outer, inner), weights=dist, minlength=1 << bin(inner).count("1"))


def _cube(vec: np.ndarray, k: int) -> np.ndarray:
    """A function of the k-node state as a C-ordered ndarray, axis i = node i (PyPhi's layout)."""
    return np.ascontiguousarray(vec.reshape((2,) * k, order="F"))


def _marginalize_out(cube: np.ndarray, nodes) -> np.ndarray:
    """PyPhi's `tpm.marginalize_out`: sum over the axes `nodes` (kept as singletons)
    divided by the number of states summed, with PyPhi's exact numpy calls."""
    nodes = sorted(nodes)
    return cube.sum(tuple(nodes), keepdims=True) / (np.array(cube.shape)[nodes].prod())


def _condition(tpm: np.ndarray, fixed, state) -> np.ndarray:
    """PyPhi's `tpm.condition_tpm`: fix the axes in `fixed` at `state`, keeping them as
    singleton axes (indexing with [state, np.newaxis], as PyPhi does)."""
    index = []
    for i in range(len(state)):
        index.extend([state[i], np.newaxis] if i in fixed else [slice(None)])
    return tpm[tuple(index)]


def _flat(cube: np.ndarray) -> np.ndarray:
    """Values over the non-singleton axes, little-endian (PyPhi's `flatten`)."""
    return cube.squeeze().ravel(order="F") if cube.size > 1 else cube.ravel()


def pyphi_sum(vec: np.ndarray, k: int) -> float:
    """Sum of a distribution over k nodes in PyPhi's memory order (ndarray.sum())."""
    return float(_cube(vec, k).sum()) if k else float(vec.sum())


def _shrink(arr: np.ndarray, scope: int) -> tuple[int, np.ndarray]:
    """Drop nodes of `scope` the values do not depend on (exact equality of both halves)."""
    for b in bits_of(scope):
        j = bits_of(scope).index(b)
        cube = arr.reshape((2,) * bin(scope).count("1"), order="F")
        lo, hi = np.take(cube, 0, axis=j), np.take(cube, 1, axis=j)
        if np.array_equal(lo, hi):
            arr, scope = lo.ravel(order="F"), scope & ~(1 << b)
    return scope, arr


def merge_overlapping(masks) -> list[int]:
    """Join bitmasks that share a node, transitively (the connected components of their union)."""
    blocks: list[int] = []
    for mask in masks:
        merged, rest = mask, []
        for b in blocks:
            if b & merged:
                merged |= b
            else:
                rest.append(b)
        blocks = rest + [merged]
    return blocks


def blocks_of(purview: int, scopes) -> tuple[int, ...]:
    """Connected components of `purview` under the given factor scopes (bitmasks)."""
    blocks = merge_overlapping(m for m in (s & purview for s in scopes) if m)
    covered = 0
    for b in blocks:
        covered |= b
    blocks += [1 << i for i in bits_of(purview & ~covered)]
    return tuple(sorted(blocks))


def _pyphi_conditioned_tpm(system: PreparedSystem) -> np.ndarray:
    """The network TPM in PyPhi's multidimensional layout, external nodes fixed at their
    state as singleton axes (`convert.to_multidimensional`, `tpm.condition_tpm`)."""
    n = system.network_size
    tpm = np.asarray(system.network_tpm).reshape([2] * n + [n], order="F").astype(float)
    return _condition(tpm, set(range(n)) - set(system.nodes), system.network_state)


class CauseRepertoire:
    """A cause repertoire: `probs` over `purview`, a product over the masks in `blocks`."""

    __slots__ = ("purview", "probs", "blocks", "is_zero")

    def __init__(self, purview: int, probs: np.ndarray, blocks: tuple[int, ...], is_zero: bool):
        self.purview, self.probs, self.blocks, self.is_zero = purview, probs, blocks, is_zero


class Repertoires:
    """Per-node marginals of one system, cached; every cut reuses them."""

    def __init__(self, system: PreparedSystem):
        self.k = len(system.nodes)
        self.state = system.state
        self.inputs = system.inputs
        self.nodes = system.nodes
        self.network_size = system.network_size
        self.network_state = system.network_state
        self._network_cm = system.network_cm
        self._system = system
        self._tpm = _pyphi_conditioned_tpm(system)
        self._size_two = frozenset(i for i in range(system.network_size) if self._tpm.shape[i] == 2)
        self._node_tpm: dict[tuple[int, int], tuple[np.ndarray, frozenset]] = {}
        self._factor: dict[tuple[int, int, int], tuple[int, np.ndarray]] = {}
        self._effect: dict[tuple[int, int, int], tuple[float, float]] = {}
        self._same: dict[tuple, bool] = {}
        self._cause_cache: dict[tuple, CauseRepertoire] = {}
        self._cause_front: dict[tuple, dict] = {}

    def __getstate__(self) -> dict:
        """For a pickled copy (the worker processes of workers > 1). The memory layout of
        the TPM and of the node TPMs decides the order of numpy's sums over their axes,
        hence their last bits, and unpickling would make them C-contiguous: the copy
        rebuilds them as PyPhi lays them out. `_cause_cache` is keyed on factor objects'
        ids, which the copy does not share: it starts empty too."""
        return {**self.__dict__, "_tpm": None, "_node_tpm": {}, "_cause_cache": {}}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._tpm = _pyphi_conditioned_tpm(self._system)

    def _net(self, mask: int) -> tuple[int, ...]:
        """Network indices of a local bitmask."""
        return tuple(self.nodes[i] for i in bits_of(mask))

    def node_tpm(self, j: int, inputs_j: int) -> tuple[np.ndarray, frozenset]:
        """(node TPM, input network indices) of subsystem node j whose inputs within the
        subsystem are `inputs_j` (a bitmask; fewer than in the cm when a cut severs some),
        exactly as PyPhi 1.2 builds it in a (cut) subsystem (`node.Node`): P(ON) averaged
        over the non-inputs in one sum, stacked with P(OFF) = 1 - P(ON) on a last axis.

        A cut system's values therefore differ from the uncut TPM averaged later in the
        last bits, as PyPhi's do; those bits decide 6th-decimal rounding ties.
        """
        key = (j, inputs_j)
        hit = self._node_tpm.get(key)
        if hit is None:
            net_j = self.nodes[j]
            external = {i for i in range(self.network_size) if self._network_cm[i, net_j] and i not in self.nodes}
            inputs = frozenset(self._net(inputs_j)) | frozenset(external)
            on = _marginalize_out(self._tpm[..., net_j], tuple(self._size_two - inputs))
            hit = self._node_tpm[key] = (np.stack([1 - on, on], axis=-1), inputs)
        return hit

    def cause_factor(self, m: int, inputs_m: int, scope: int) -> tuple[int, np.ndarray]:
        """(reduced scope, q_m over it): P(m = its state | x_scope), others averaged
        (PyPhi's `_single_node_cause_repertoire`, same numpy operations), for node m
        with (cut) inputs `inputs_m`. Bitwise equal to the uncut factor, it is that
        very object (so caches keyed on it are shared)."""
        key = (m, inputs_m, scope)
        hit = self._factor.get(key)
        if hit is None:
            node_tpm, node_inputs = self.node_tpm(m, inputs_m)
            tpm = node_tpm[..., self.state[m]]
            rest = node_inputs - set(self._net(scope))
            hit = _shrink(_flat(_marginalize_out(tpm, rest)), scope & inputs_m)
            if inputs_m != self.inputs[m]:
                uncut = self.cause_factor(m, self.inputs[m], scope)
                if uncut[0] == hit[0] and np.array_equal(uncut[1], hit[1]):
                    hit = uncut
            self._factor[key] = hit
        return hit

    def same_as_uncut(self, cause: bool, j: int, inputs_j: int, scope: int) -> bool:
        """Does node j with (cut) inputs `inputs_j` give, bit for bit, the uncut system's
        cause factors (cause=True) or effect marginals over every subset of `scope`?
        Then whatever is computed from them is the uncut system's too. (Always so for
        TPMs whose averages are exact in binary, e.g. deterministic ones.)"""
        if inputs_j == self.inputs[j]:
            return True
        key = (cause, j, inputs_j, scope)
        hit = self._same.get(key)
        if hit is None:
            hit, sub = True, scope
            while hit:
                if cause:
                    hit = self.cause_factor(j, inputs_j, sub) is self.cause_factor(j, self.inputs[j], sub)
                else:
                    hit = self.effect_off_on(j, inputs_j, sub) == self.effect_off_on(j, self.inputs[j], sub)
                if sub == 0:
                    break
                sub = (sub - 1) & scope  # every subset of scope, down to the empty one
            self._same[key] = hit
        return hit

    def effect_off_on(self, p: int, inputs_p: int, scope: int) -> tuple[float, float]:
        """(P(p OFF), P(p ON)) at t+1 given x_scope = current state, other inputs averaged
        (PyPhi's `_single_node_effect_repertoire`, same numpy operations), for node p
        with (cut) inputs `inputs_p`."""
        key = (p, inputs_p, scope & inputs_p)
        hit = self._effect.get(key)
        if hit is None:
            node_tpm, node_inputs = self.node_tpm(p, inputs_p)
            fixed = node_inputs & set(self._net(scope))
            marg = _marginalize_out(_condition(node_tpm, fixed, self.network_state), node_inputs - fixed)
            hit = tuple(float(x) for x in marg.ravel())
            self._effect[key] = hit
        return hit

    def cause(self, mechanism: int, purview: int, inputs) -> CauseRepertoire:
        """Cause repertoire of `mechanism` over `purview` given (possibly cut) `inputs`."""
        return self.cause_lookup(inputs)(mechanism, purview)

    def cause_lookup(self, inputs):
        """A fast `cause(mechanism, purview)` for one set of (cut) inputs."""
        front = self._cause_front.get(inputs)
        if front is None:
            front = self._cause_front[inputs] = {}

        def lookup(mechanism: int, purview: int) -> CauseRepertoire:
            hit = front.get((mechanism, purview))
            if hit is None:
                hit = front[(mechanism, purview)] = self._build_cause(mechanism, purview, inputs)
            return hit

        return lookup

    def _build_cause(self, mechanism: int, purview: int, inputs) -> CauseRepertoire:
        factors = tuple(self.cause_factor(m, inputs[m], purview & inputs[m]) for m in bits_of(mechanism))
        # The factor objects live in self._factor, so their ids identify their values.
        key = (purview, tuple((m, id(f)) for m, f in zip(bits_of(mechanism), factors, strict=True)))
        hit = self._cause_cache.get(key)
        if hit is not None:
            return hit
        size = 1 << bin(purview).count("1")
        probs = np.ones(size)
        for scope, arr in factors:
            if scope:
                probs = probs * arr[subindex(purview, scope)]
            else:
                probs = probs * arr[0]
        total = pyphi_sum(probs, bin(purview).count("1"))
        is_zero = total == 0
        if not is_zero:
            probs = probs / total
        hit = CauseRepertoire(purview, probs, blocks_of(purview, [s for s, _ in factors]), bool(is_zero))
        self._cause_cache[key] = hit
        return hit


    def effect_joint(self, mechanism: int, purview: int, inputs) -> np.ndarray:
        """The effect repertoire as PyPhi builds it: an ndarray with one axis per network
        node (size 2 on the purview), the product of the purview nodes' (OFF, ON) pairs
        in ascending order; np.array([1.0]) for an empty purview."""
        if not purview:
            return np.array([1.0])
        joint = None
        for p in bits_of(purview):
            shape = [1] * self.network_size
            shape[self.nodes[p]] = 2
            factor = np.array(self.effect_off_on(p, inputs[p], mechanism & inputs[p])).reshape(shape)
            joint = factor if joint is None else joint * factor
        return np.ones(joint.shape) * joint
