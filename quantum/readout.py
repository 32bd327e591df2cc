"""Read-outs computed from exact Born probabilities, shared by every backend.

probabilities: (B, 2^n) float64, little-endian (bit q of the index is qubit q).
Z has eigenvalue +1 on |0> and -1 on |1>, so <Z_q> = P(q=0) - P(q=1) and
<Z_a Z_b> = P(a = b) - P(a != b): both are exact sums over the distribution.
"""
from __future__ import annotations

import numpy as np
import torch

from quantum.rowwise import rowwise_matmul


TABLE_MAX_QUBITS = 12  # up to here a (2^n, n) sign table (<= 0.8 MiB) and one small product per row; beyond, sums


def _halves(probabilities: np.ndarray, n: int, q: int) -> np.ndarray:
    """(B, 2): P(q=0), P(q=1), each row summed on its own (the same rounding whatever the batch)."""
    return probabilities.reshape(probabilities.shape[0], 1 << (n - q - 1), 2, 1 << q).sum(axis=(1, 3))


def _pair_block_sums(probabilities: np.ndarray, n: int, qa: int, qb: int) -> np.ndarray:
    """(B, 2, 2): P(bit_hi, bit_lo) of the pair, each row summed on its own."""
    lo, hi = min(qa, qb), max(qa, qb)
    b = probabilities.shape[0]
    return probabilities.reshape(b, 1 << (n - hi - 1), 2, 1 << (hi - lo - 1), 2, 1 << lo).sum(axis=(1, 3, 5))


def z_signs(n: int) -> torch.Tensor:
    """(2^n, n) float64: entry (k, q) is the eigenvalue of Z_q on basis state k, +1 for bit 0, -1 for bit 1."""
    bits = (torch.arange(1 << n)[:, None] >> torch.arange(n)) & 1
    return 1.0 - 2.0 * bits.to(torch.float64)


def _rows_times(probabilities: np.ndarray, table: torch.Tensor) -> np.ndarray:
    """probabilities (B, 2^n) times a fixed (2^n, m) table, each row on its own (batch-invariant)."""
    p = torch.from_numpy(np.ascontiguousarray(probabilities, dtype=np.float64))
    return rowwise_matmul(p, table).numpy()


def parities(probabilities: np.ndarray, n: int) -> torch.Tensor:
    """(B, 2^n): column m is <prod_{q in m} Z_q> = sum_k p_k (-1)^popcount(k & m), every parity of every
    subset m of the qubits (bit q of m: qubit q), column 0 the total probability; float64, or integer
    signed sums (exact) for integer counts. :func:`walsh_hadamard_` on a batch-last copy (the caller's
    array is never written)."""
    rows = np.asarray(probabilities)
    rows = torch.from_numpy(rows if np.issubdtype(rows.dtype, np.integer) else rows.astype(np.float64, copy=False))
    v = torch.empty((rows.shape[1], rows.shape[0]), dtype=rows.dtype)  # (2^n, B)
    v.copy_(rows.T)
    return walsh_hadamard_(v, n).T


def walsh_hadamard_(v: torch.Tensor, n: int) -> torch.Tensor:
    """The parities (2^n, B) of batch-last probabilities v (2^n, B), which it overwrites (returns v or a
    second buffer): n butterfly stages, stage q replacing the two entries that differ in bit q by their sum
    and difference (n 2^n additions: half a (2^n x n) sign table's multiply-adds for <Z> and <ZZ>
    together). Each stage is a contiguous loop along the batch, elementwise, so a column's numbers do
    not depend on the batch."""
    spare = torch.empty_like(v) if n else v
    for q in range(n):
        pair = v.view(1 << (n - q - 1), 2, 1 << q, v.shape[1])
        out = spare.view(pair.shape)
        torch.add(pair[:, 0], pair[:, 1], out=out[:, 0])
        torch.sub(pair[:, 0], pair[:, 1], out=out[:, 1])
        v, spare = spare, v
    return v


def z_zz_columns(n: int, pairs: list[tuple[int, int]]) -> list[int]:
    """The parities' columns of <Z_q> (q = 0..n-1) and then of <Z_a Z_b> for each pair."""
    return [1 << q for q in range(n)] + [(1 << a) | (1 << b) for a, b in pairs]


def z_expectations(probabilities: np.ndarray, n: int) -> np.ndarray:
    """<Z_q> for q = 0..n-1: (B, n) float64, sum_k p_k z_q(k)."""
    return z_zz_expectations(probabilities, n, [])[0]


def one_probabilities(probabilities: np.ndarray, n: int) -> np.ndarray:
    """The single-qubit Born marginals P(q=1) for q = 0..n-1: (B, n) float64 (sums of the p_k with bit q
    set, not (1 - <Z_q>) / 2, which would lose a small marginal's digits)."""
    if n > TABLE_MAX_QUBITS:
        return np.stack([_halves(probabilities, n, q)[:, 1] for q in range(n)], axis=1)
    return _rows_times(probabilities, (1.0 - z_signs(n)) / 2.0)


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
    """<Z_a Z_b> for each (a, b) in pairs: (B, len(pairs)) float64, sum_k p_k z_a(k) z_b(k)."""
    return z_zz_expectations(probabilities, n, pairs)[1]


def z_zz_expectations(probabilities: np.ndarray, n: int, pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """(<Z_q> (B, n), <Z_a Z_b> (B, len(pairs))): columns of :func:`parities` up to TABLE_MAX_QUBITS
    qubits, sums over halves and quarters of each row beyond (no 2^n-wide second copy)."""
    if n > TABLE_MAX_QUBITS:
        z = np.stack([h[:, 0] - h[:, 1] for h in (_halves(probabilities, n, q) for q in range(n))], axis=1)
        blocks = [_pair_block_sums(probabilities, n, a, b) for a, b in pairs]
        zz = [m[:, 0, 0] + m[:, 1, 1] - m[:, 0, 1] - m[:, 1, 0] for m in blocks]
        return z, np.stack(zz, axis=1) if zz else np.empty((probabilities.shape[0], 0))
    both = parities(probabilities, n)[:, z_zz_columns(n, pairs)].numpy()
    return both[:, :n], both[:, n:]


def validate_uniforms(uniforms, batch: int) -> np.ndarray:
    """uniforms as a (batch, shots) float64 array on [0, 1); ValueError naming the problem otherwise."""
    arr = np.asarray(uniforms.cpu() if hasattr(uniforms, "cpu") else uniforms, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] != batch or arr.shape[1] < 1:
        raise ValueError(f"uniforms has shape {arr.shape}; expected ({batch}, shots >= 1), one row per parameter set")
    if not ((arr >= 0.0) & (arr < 1.0)).all():
        raise ValueError("uniforms must lie in [0, 1)")
    return arr


SEARCH_ROW_BLOCK = 1024  # rows per block of the outcome search: its (rows, shots) index stays in cache


def outcomes_at(cdf: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """(B, shots) int64: for each v[b, s], the first outcome k with cdf[b, k] > v[b, s] (the last if none).

    The same outcome as ``torch.searchsorted(cdf, v, right=True).clamp_max(K - 1)`` (tested equal, ties and
    zero-probability outcomes included), by a branch-free binary search over K outcomes padded to a power
    of two W with +inf: steps W/2, ..., 1, each adding `step` where cdf[idx + step - 1] <= v, leave idx =
    the number of cdf[0 .. W-2] that are <= v, which is the answer or, past the last outcome, clamped to it
    (the first step compares with one column, no gather). Every search takes the same steps, so nothing
    waits on a mispredicted branch (searchsorted's data-dependent branches cost about half the shot
    sampler's time here: docs/performance.md).
    """
    rows, K = cdf.shape
    width = 1 << max(K - 1, 0).bit_length()
    if width != K:
        cdf = torch.cat([cdf, cdf.new_full((rows, width - K), float("inf"))], dim=1)
    steps = [1 << b for b in range(width.bit_length() - 2, -1, -1)]
    out = torch.empty(v.shape, dtype=torch.int64, device=v.device)
    if not steps:
        return out.zero_()
    for start in range(0, rows, SEARCH_ROW_BLOCK):
        block = slice(start, start + SEARCH_ROW_BLOCK)
        c, x, idx = cdf[block], v[block], out[block]
        torch.mul(c[:, steps[0] - 1:steps[0]] <= x, steps[0], out=idx)  # invariant: cdf[:idx] <= v
        for step in steps[1:]:  # cdf[idx + step - 1] read as column idx of the view from column step - 1
            idx.add_(c[:, step - 1:].gather(1, idx) <= x, alpha=step)
        idx.clamp_max_(K - 1)
    return out


def sample_counts(probabilities: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Counts (B, 2^n) int64 of shots drawn by inverse transform: shot s of row b is the
    outcome k with cdf_b(k - 1) <= u[b, s] * cdf_b(last) < cdf_b(k).

    probabilities (B, 2^n), clipped at 0 (single precision leaves tiny negatives); uniforms
    (B, shots) on [0, 1), one row per parameter set, e.g. from the agent's counter-based stream
    (cognition.architecture.streams). Scaling u by the row's total instead of renormalising p keeps the
    sampling exact for rows that sum to 1 +- 1e-7. An outcome of probability 0 is never drawn.
    Each row is searched on its own (:func:`outcomes_at`), so a row's counts depend only on its
    probabilities and its uniforms, never on the other rows of the batch.
    """
    cdf = torch.from_numpy(np.ascontiguousarray(probabilities, dtype=np.float64)).clamp_min(0.0).cumsum(dim=1)
    u = torch.from_numpy(np.ascontiguousarray(uniforms, dtype=np.float64))
    outcome = outcomes_at(cdf, u * cdf[:, -1:])
    one_each = torch.ones(1, dtype=torch.int64).expand(outcome.shape)
    counts = torch.zeros(cdf.shape, dtype=torch.int64).scatter_add_(1, outcome, one_each)
    return counts.numpy()


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
    rows = np.arange(b)[:, None] << n  # row b counts into bins b * 2^n ..: one bincount for the whole batch
    return np.bincount((outcomes + rows).ravel(), minlength=b << n).reshape(b, 1 << n)
