"""Batch-invariant small matrix products: one product per row, whatever the batch."""
from __future__ import annotations

import torch


# Products with at most this many weights per row (k x d) and k <= SUM_MAX_DEPTH run as k fused multiply-adds over
# the rows; larger ones as bmm. Measured at 2048 rows, one thread, float64, on the 2-core development machine
# (2026-11-24, median of 9): (8 x 48) 0.26 ms against bmm's 1.6, (16 x 16) 0.24 against 0.61, (8 x 16) 0.11
# against 0.36; (16 x 48) 0.84 against 0.50.
SUM_MAX_WEIGHTS, SUM_MAX_DEPTH = 384, 16


def rowwise_matmul(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """Row a of x (rows, k) times row a's w (rows, k, d), as one small product per row.

    A shared w (k, d) is expanded over the rows. A 2-D GEMM lets the BLAS block the
    rows (register tiles of 4 rows, a GEMV for one row), so a row's rounding depends on
    how many rows share the launch. Here every row's arithmetic is its own whatever the
    batch (runtime.batch, an OOM fallback, a chunked simulation): small products are k
    elementwise multiply-adds in order of k, larger ones bmm (each row's (1, k) x (k, d)
    product on its own).
    """
    if w.dim() == 2:
        w = w.expand(x.shape[0], *w.shape)
    k, d = w.shape[1], w.shape[2]
    if 0 < k <= SUM_MAX_DEPTH and k * d <= SUM_MAX_WEIGHTS:
        out = x[:, :1] * w[:, 0]
        for j in range(1, k):
            out.addcmul_(x[:, j:j + 1], w[:, j])
        return out
    return torch.bmm(x.unsqueeze(1), w).squeeze(1)
