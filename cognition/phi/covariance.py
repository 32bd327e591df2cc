"""Covariance of lagged pairs (X_{t-tau}, X_t) from data, with optional shrinkage.

Data are (agents, T, n). Lagged pairs are formed within each agent (never across the
boundary between two agents) and pooled. Everything downstream (bootstrap replicates,
sliding windows) is a weighted sum over "units" (agents, or blocks of consecutive pairs),
so each unit is reduced once to its sufficient statistics: count, sum and sum of outer
products of the centred 2n-vectors.
"""
from __future__ import annotations

import dataclasses

import numpy as np


def lagged_pairs(X: np.ndarray, lag: int) -> np.ndarray:
    """(agents, T, n) -> (agents, T - lag, 2n): rows [X_{t-lag}, X_t], past first."""
    return np.concatenate([X[:, :-lag], X[:, lag:]], axis=-1)


@dataclasses.dataclass(frozen=True)
class UnitStatistics:
    """Sufficient statistics of U units of centred lagged pairs z (2n-vectors).

    counts (U,), sums (U, 2n), outer (U, 2n, 2n) = sum over the unit's pairs of z z^T,
    fourth (U,) = sum of |z|^4 (for the Ledoit-Wolf intensity).
    """

    counts: np.ndarray
    sums: np.ndarray
    outer: np.ndarray
    fourth: np.ndarray

    def covariance(self, weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Covariance (R, 2n, 2n) of the pairs (divided by N - 1), unit u counted weights[r, u] times.

        weights: (R, U) non-negative (bootstrap counts); None means every unit once.
        Also returns N (R,) and the weighted sums of |z|^4 (R,) (for Ledoit-Wolf).
        """
        w = np.ones((1, len(self.counts))) if weights is None else np.asarray(weights, dtype=float)
        n_pairs = w @ self.counts
        if np.any(n_pairs < 2):
            raise ValueError("a covariance needs at least 2 lagged samples")
        s = w @ self.sums
        q = np.einsum("ru,upq->rpq", w, self.outer)
        cov = (q - s[:, :, None] * s[:, None, :] / n_pairs[:, None, None]) / (n_pairs - 1)[:, None, None]
        return 0.5 * (cov + np.swapaxes(cov, -1, -2)), n_pairs, w @ self.fourth


def unit_statistics(z: np.ndarray, block_length: int | None = None) -> UnitStatistics:
    """Reduce centred pairs z (agents, T', 2n) to per-unit statistics.

    block_length None: one unit per agent. Otherwise each agent's pairs are cut into
    consecutive non-overlapping blocks of ``block_length`` pairs (the last, shorter block
    of each agent is a unit too); units never straddle two agents.
    """
    agents, length, p = z.shape
    if block_length is None or block_length >= length:
        return UnitStatistics(*_segment_statistics(z))
    n_full = length // block_length
    segments = [z[:, :n_full * block_length].reshape(agents * n_full, block_length, p)]
    if length > n_full * block_length:
        segments.append(z[:, n_full * block_length:])
    parts = [_segment_statistics(seg) for seg in segments]
    return UnitStatistics(*(np.concatenate(field) for field in zip(*parts)))


def _segment_statistics(seg: np.ndarray) -> tuple[np.ndarray, ...]:
    """(U, L, 2n) equal-length units -> counts, sums, outer products, sums of |z|^4."""
    counts = np.full(seg.shape[0], float(seg.shape[1]))
    sums = seg.sum(axis=1)
    outer = np.matmul(np.swapaxes(seg, 1, 2), seg)
    fourth = (np.einsum("ulp,ulp->ul", seg, seg) ** 2).sum(axis=1)
    return counts, sums, outer, fourth


def pooled_pairs(X: np.ndarray, lag: int) -> tuple[np.ndarray, np.ndarray]:
    """Centred lagged pairs of all agents, stacked: (agents, T - lag, 2n), and their pooled mean (2n,)."""
    pairs = lagged_pairs(X, lag)
    mean = pairs.reshape(-1, pairs.shape[-1]).mean(axis=0)
    return pairs - mean, mean


def ledoit_wolf_intensity(outer: np.ndarray, fourth, n_pairs) -> np.ndarray:
    """Shrinkage intensity lambda in [0, 1] toward mu I, mu = tr(S)/p (Ledoit & Wolf 2004).

    outer: (..., p, p) sum of z z^T over N centred pairs z; fourth: (...,) sum of |z|^4;
    n_pairs: (...,) N. Returns (...,). Ledoit & Wolf (2004), J. Multivariate Anal.
    88:365-411, Lemma 3.3 and Thm 3.1, with the 1/N sample covariance S = outer / N:
    d^2 = |S - mu I|^2, b^2 = min(d^2, N^-2 sum_k |z_k z_k^T - S|^2), lambda = b^2 / d^2
    (Frobenius norms; for centred z, sum_k |z_k z_k^T - S|^2 = sum_k |z_k|^4 - N |S|^2).
    """
    n_pairs = np.asarray(n_pairs, dtype=float)
    s = outer / n_pairs[..., None, None]
    p = s.shape[-1]
    mu = np.trace(s, axis1=-2, axis2=-1) / p
    d2 = np.sum((s - mu[..., None, None] * np.eye(p)) ** 2, axis=(-2, -1))
    b2_bar = (np.asarray(fourth) - n_pairs * np.sum(s * s, axis=(-2, -1))) / n_pairs**2
    b2 = np.minimum(np.maximum(b2_bar, 0.0), d2)
    return np.divide(b2, d2, out=np.zeros_like(d2), where=d2 > 0)


def shrink(cov: np.ndarray, intensity) -> np.ndarray:
    """(1 - lambda) S + lambda mu I with mu = tr(S)/p, per matrix of (..., p, p); lambda scalar or (...,)."""
    lam = np.asarray(intensity, dtype=float)
    if not lam.any():
        return cov
    p = cov.shape[-1]
    mu = np.trace(cov, axis1=-2, axis2=-1) / p
    lam = lam[..., None, None]
    return (1.0 - lam) * cov + lam * mu[..., None, None] * np.eye(p)
