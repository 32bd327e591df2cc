"""Deterministic multi-start least squares, shared by the disjunction and question-order fits."""
from __future__ import annotations

from typing import Callable

import numpy as np


def multistart_minimize(
    loss: Callable[[np.ndarray], float],
    starts: np.ndarray,
    bounds: list[tuple[float | None, float | None]] | None = None,
) -> tuple[np.ndarray, float]:
    """Minimise ``loss`` from each row of ``starts`` (n_starts, n_params); return the best (x, loss).

    L-BFGS-B with finite-difference gradients; the starts are chosen by the caller
    (grid or seeded draws), so the result is deterministic. Ties go to the earliest start.
    """
    from scipy.optimize import minimize

    best_x, best_loss = None, np.inf
    for x0 in np.atleast_2d(starts):
        res = minimize(loss, x0, method="L-BFGS-B", bounds=bounds, options={"maxiter": 2000, "ftol": 1e-15, "gtol": 1e-12})
        if res.fun < best_loss:
            best_x, best_loss = np.asarray(res.x, dtype=float), float(res.fun)
    return best_x, best_loss
