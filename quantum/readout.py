"""Read-outs computed from exact Born probabilities, shared by every backend.

probabilities: (B, 2^n) float64, little-endian (bit q of the index is qubit q).
Z has eigenvalue +1 on |0> and -1 on |1>, so <Z_q> = P(q=0) - P(q=1) and
<Z_a Z_b> = P(a = b) - P(a != b): both are exact sums over the distribution.
"""
from __future__ import annotations

import numpy as np


def _axis(n: int, q: int) -> int:
    # a (B, 2, ..., 2) row-major view puts the most significant bit first: qubit q is axis n - q
    return n - q


def _halves(probabilities: np.ndarray, n: int, q: int) -> np.ndarray:
    """(B, 2): P(q=0), P(q=1), each row summed on its own (the same rounding whatever the batch)."""
    return probabilities.reshape(probabilities.shape[0], 1 << (n - q - 1), 2, 1 << q).sum(axis=(1, 3))


def z_expectations(probabilities: np.ndarray, n: int) -> np.ndarray:
    """<Z_q> for q = 0..n-1: (B, n) float64."""
    out = np.empty((probabilities.shape[0], n))
    for q in range(n):
        halves = _halves(probabilities, n, q)
        out[:, q] = halves[:, 0] - halves[:, 1]
    return out


def one_probabilities(probabilities: np.ndarray, n: int) -> np.ndarray:
    """The single-qubit Born marginals P(q=1) for q = 0..n-1: (B, n) float64."""
    out = np.empty((probabilities.shape[0], n))
    for q in range(n):
        out[:, q] = _halves(probabilities, n, q)[:, 1]
    return out


def validate_pairs(pairs, n: int) -> list[tuple[int, int]]:
    """pairs as a list of (a, b) with distinct qubits in range(n); a clear ValueError otherwise."""
    out = []
    for i, pair in enumerate(pairs):
        a, b = (int(x) for x in pair)
        if a == b or not (0 <= a < n and 0 <= b < n):
            raise ValueError(f"pairs[{i}]={tuple(pair)} must be two distinct qubits in 0..{n - 1}")
        out.append((a, b))
    return out


def zz_expectations(probabilities: np.ndarray, n: int, pairs: list[tuple[int, int]]) -> np.ndarray:
    """<Z_a Z_b> for each (a, b) in pairs: (B, len(pairs)) float64."""
    b = probabilities.shape[0]
    out = np.empty((b, len(pairs)))
    for i, (qa, qb) in enumerate(pairs):
        lo, hi = min(qa, qb), max(qa, qb)
        m = probabilities.reshape(b, 1 << (n - hi - 1), 2, 1 << (hi - lo - 1), 2, 1 << lo).sum(axis=(1, 3, 5))
        out[:, i] = m[:, 0, 0] + m[:, 1, 1] - m[:, 0, 1] - m[:, 1, 0]
    return out


def validate_seeds(seeds, batch: int) -> np.ndarray:
    """seeds as a (batch,) uint64 array; ValueError naming the problem otherwise."""
    arr = np.asarray(seeds)
    if arr.shape != (batch,):
        raise ValueError(f"seeds has shape {arr.shape}; expected ({batch},), one seed per parameter set")
    if not np.issubdtype(arr.dtype, np.integer) or (arr.dtype.kind == "i" and (arr < 0).any()):
        raise ValueError(f"seeds must be non-negative integers (uint64), got dtype {arr.dtype}")
    return arr.astype(np.uint64)


def sample_counts(probabilities: np.ndarray, shots: int, seeds: np.ndarray) -> np.ndarray:
    """Counts (B, 2^n) int64: row b is np.random.default_rng(seeds[b]).multinomial(shots, p_b).

    Each row has its own generator, so a row's counts depend only on its seed and its
    probabilities, never on the other rows of the batch. p_b is clipped at 0 and
    renormalised first (single precision leaves sums 1 +- 1e-7).
    """
    counts = np.empty(probabilities.shape, dtype=np.int64)
    for row, (p, seed) in enumerate(zip(probabilities, seeds)):
        p = np.clip(p, 0.0, None)
        counts[row] = np.random.default_rng(int(seed)).multinomial(shots, p / p.sum())
    return counts


def product_counts(marginals: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Counts (B, 2^n) int64 of shots of n independent qubits: qubit q of shot s of row b is 1
    when uniforms[b, s, q] < marginals[b, q].

    marginals (B, n): P(q=1) per row; uniforms (B, shots, n) on [0, 1). Each qubit is a
    Bernoulli(marginals[b, q]) draw per shot, independent of the others, so a qubit's count
    over the shots is Binomial(shots, P(q=1)), as in a circuit's sample, and every correlation
    between qubits is gone. Little-endian like the probabilities (bit q of the index is qubit q).
    """
    b, shots, n = uniforms.shape
    outcomes = ((uniforms < marginals[:, None, :]).astype(np.int64) << np.arange(n)).sum(axis=2)  # (B, shots)
    return np.stack([np.bincount(row, minlength=1 << n) for row in outcomes])
