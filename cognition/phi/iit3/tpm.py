"""Input checks and conversion for `iit3`: TPM, state, connectivity matrix, node subset.

Conventions are PyPhi 1.2's (Mayner et al. 2018, PLoS Comput Biol 14(7): e1006343):

- state-by-node TPM, shape (2^N, N): row r is the previous state written little-endian
  (node 0 is the lowest bit, so node 0 varies fastest); entry [r, j] = P(node j ON at t+1).
  The multidimensional form [2]*N + [N] and the state-by-state form (2^N, 2^N, rows and
  columns little-endian) are accepted too; a state-by-state TPM must be conditionally
  independent (it must factor into per-node marginals), else it has no state-by-node form.
- cm[i][j] = 1 means an edge i -> j; default all ones.
- the state must be reachable: some previous state gives it nonzero probability
  (PyPhi's VALIDATE_SUBSYSTEM_STATES, checked on the subsystem after fixing external nodes).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Tolerance for "is a probability" and conditional-independence checks.
PROBABILITY_ATOL = 1e-9


@dataclass(frozen=True)
class PreparedSystem:
    """A validated candidate system.

    Attributes:
        node_on: (k, 2^k) P(node ON at t+1) for each subsystem node given the subsystem's
            previous state (little-endian over subsystem nodes), external nodes fixed at
            their current state; not yet averaged over non-inputs.
        inputs: k bitmasks over subsystem nodes: inputs[j] has bit i when cm[i][j] = 1.
        state: (k,) current state of the subsystem nodes.
        nodes: network indices of the subsystem nodes, ascending.
        network_size: N.
        network_tpm: (2^N, N) the whole state-by-node TPM; network_cm: (N, N);
        network_state: (N,) the whole state (PyPhi builds its node TPMs from these).
    """

    node_on: np.ndarray
    inputs: tuple[int, ...]
    state: tuple[int, ...]
    nodes: tuple[int, ...]
    network_size: int
    network_tpm: np.ndarray
    network_cm: np.ndarray
    network_state: tuple[int, ...]


def _state_by_state_to_node(sbs: np.ndarray, n: int) -> np.ndarray:
    bits = (np.arange(1 << n)[:, None] >> np.arange(n)) & 1  # (2^n, n) little-endian
    sbn = sbs @ bits.astype(float)
    rebuilt = np.ones_like(sbs)
    for j in range(n):
        rebuilt *= np.where(bits[:, j][None, :] == 1, sbn[:, [j]], 1.0 - sbn[:, [j]])
    if not np.allclose(rebuilt, sbs, atol=PROBABILITY_ATOL):
        worst = int(np.argmax(np.abs(rebuilt - sbs).max(axis=1)))
        raise ValueError(
            f"tpm: state-by-state TPM is not conditionally independent (row {worst} does not "
            "factor into per-node marginals); IIT 3.0 here needs P(x_t+1 | x_t) = prod_j P(x_j | x_t)"
        )
    return sbn


def as_state_by_node(tpm) -> np.ndarray:
    """Return the TPM as a (2^N, N) state-by-node float array, or raise ValueError."""
    arr = np.asarray(tpm, dtype=float)
    if arr.ndim >= 2 and arr.ndim == arr.shape[-1] + 1 and arr.ndim > 2:
        n = arr.shape[-1]
        if arr.shape != (2,) * n + (n,):
            raise ValueError(f"tpm: multidimensional TPM must have shape {(2,) * n + (n,)}, got {arr.shape}")
        arr = arr.reshape(1 << n, n, order="F")
    elif arr.ndim != 2:
        raise ValueError(f"tpm: expected a 2-D state-by-node TPM of shape (2^N, N), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("tpm: entries must be finite probabilities")
    rows, cols = arr.shape
    if rows == cols and rows >= 2 and rows & (rows - 1) == 0:
        n = rows.bit_length() - 1
        if np.any(arr < -PROBABILITY_ATOL) or not np.allclose(arr.sum(axis=1), 1.0, atol=PROBABILITY_ATOL):
            raise ValueError("tpm: a square (state-by-state) TPM must have rows that are probability distributions")
        return _state_by_state_to_node(arr, n)
    if cols < 1 or rows != 1 << cols:
        raise ValueError(
            f"tpm: shape {arr.shape} is not a binary state-by-node TPM; nodes must be binary, "
            f"so N columns need 2^N rows (here 2^{cols} = {1 << cols} if N = {cols})"
        )
    if np.any(arr < -PROBABILITY_ATOL) or np.any(arr > 1 + PROBABILITY_ATOL):
        bad = arr[(arr < -PROBABILITY_ATOL) | (arr > 1 + PROBABILITY_ATOL)][0]
        raise ValueError(f"tpm: entries are P(node ON) and must lie in [0, 1]; found {bad}")
    return np.clip(arr, 0.0, 1.0)


def _check_cm(cm, n: int) -> np.ndarray:
    if cm is None:
        return np.ones((n, n), dtype=np.int64)
    arr = np.asarray(cm)
    if arr.shape != (n, n):
        raise ValueError(f"cm: connectivity matrix must have shape ({n}, {n}) for {n} nodes, got {arr.shape}")
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError("cm: connectivity matrix entries must be 0 or 1 (cm[i][j] = 1 for an edge i -> j)")
    return arr.astype(np.int64)


def _check_state(state, n: int) -> tuple[int, ...]:
    try:
        values = tuple(int(s) for s in state)
    except (TypeError, ValueError):
        raise ValueError(f"state: expected a sequence of {n} zeros and ones, got {state!r}") from None
    if len(values) != n:
        raise ValueError(f"state: has {len(values)} entries but the network has {n} nodes")
    if any(v not in (0, 1) for v in values) or any(float(s) not in (0.0, 1.0) for s in state):
        raise ValueError(f"state: entries must be 0 or 1 (binary nodes), got {tuple(state)}")
    return values


def _check_nodes(nodes, n: int) -> tuple[int, ...]:
    if nodes is None:
        return tuple(range(n))
    try:
        values = sorted({int(i) for i in nodes})
    except (TypeError, ValueError):
        raise ValueError(f"nodes: expected node indices in 0..{n - 1}, got {nodes!r}") from None
    if any(i < 0 or i >= n for i in values):
        raise ValueError(f"nodes: indices must lie in 0..{n - 1}, got {tuple(nodes)}")
    return tuple(values)


def prepare_system(tpm, state, cm=None, nodes=None) -> PreparedSystem:
    """Validate the inputs of `iit3` and condition the TPM on the external nodes."""
    sbn = as_state_by_node(tpm)
    n = sbn.shape[1]
    cm_arr = _check_cm(cm, n)
    full_state = _check_state(state, n)
    sub = _check_nodes(nodes, n)
    # Fix every external node at its current state (PyPhi's condition_tpm): keep the rows
    # whose external bits match, in little-endian order of the subsystem nodes.
    rows = np.arange(1 << n)
    keep = np.ones(1 << n, dtype=bool)
    for i in range(n):
        if i not in sub:
            keep &= ((rows >> i) & 1) == full_state[i]
    conditioned = sbn[keep][:, list(sub)]  # (2^k, k), rows little-endian over `sub`
    sub_state = np.array([full_state[i] for i in sub])
    # Reachable: some previous state gives the current subsystem state nonzero probability.
    prob = np.where(sub_state == 1, conditioned, 1.0 - conditioned).prod(axis=1) if sub else np.ones(1)
    if sub and not np.any(prob > 0):
        raise ValueError(
            f"state: {full_state} is unreachable for nodes {sub}: no previous state of the network "
            "leads to it with nonzero probability under this TPM"
        )
    inputs = tuple(
        sum(1 << a for a, i in enumerate(sub) if cm_arr[i, j]) for j in sub
    )
    return PreparedSystem(
        node_on=np.ascontiguousarray(conditioned.T),
        inputs=inputs,
        state=tuple(int(s) for s in sub_state),
        nodes=sub,
        network_size=n,
        network_tpm=sbn,
        network_cm=cm_arr,
        network_state=full_state,
    )
