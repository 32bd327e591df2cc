"""Batch-invariant small matrix products: one product per row, whatever the batch."""
from __future__ import annotations

import torch


def rowwise_matmul(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """Row a of x (rows, k) times row a's w (rows, k, d), as one small product per row.

    A shared w (k, d) is expanded over the rows. A 2-D GEMM lets the BLAS block the
    rows (register tiles of 4 rows, a GEMV for one row), so a row's rounding depends on
    how many rows share the launch. bmm runs each row's (1, k) x (k, d) product on its
    own, so every row's arithmetic is the same whatever the batch (runtime.batch, an OOM
    fallback, a chunked simulation).
    """
    if w.dim() == 2:
        w = w.expand(x.shape[0], *w.shape)
    return torch.bmm(x.unsqueeze(1), w).squeeze(1)
