"""Input checks shared by the decision models: one clear ``ValueError`` per user mistake.

Every message names the function and argument, the offending value and what is
allowed, on one line.
"""
from __future__ import annotations

import numbers

import numpy as np

#: Largest allowed ``|sum(cells) - 1|`` for a 2x2 answer table. Published tables are
#: rounded (Moore 2002 as tabled by Wang & Busemeyer 2013 sums to .9999 and 1.0001);
#: four cells rounded to two decimals can be off by up to .02, so 0.01 accepts
#: careful rounding and still rejects a table that is not a distribution.
CELLS_SUM_ATOL = 1e-2

#: Probabilities computed in floating point can stray from [0, 1] by an ulp or so; such
#: values are accepted and clipped, anything further out is an error.
PROBABILITY_ROUNDING = 1e-12


def probability_array(where: str, name: str, value, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """``value`` as a float array whose entries are finite and lie in [0, 1].

    ``shape`` (optional) is the exact shape required; ``-1`` in it means "any length".
    Entries within ``PROBABILITY_ROUNDING`` outside [0, 1] are clipped into it.
    """
    arr = real_array(where, name, value, shape)
    bad = np.flatnonzero((arr < -PROBABILITY_ROUNDING) | (arr > 1.0 + PROBABILITY_ROUNDING))
    if bad.size:
        i = np.unravel_index(bad[0], arr.shape) if arr.ndim else ()
        label = f"{name}[{', '.join(map(str, i))}]" if arr.ndim else name
        raise ValueError(f"{where}: {label} = {float(arr[i])!r} is outside [0, 1]; probabilities must lie in [0, 1]")
    return np.clip(arr, 0.0, 1.0)


def real_array(where: str, name: str, value, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """``value`` as a finite float array, optionally of an exact ``shape`` (-1 = any length)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {name} = {value!r} is not an array of real numbers") from None
    if shape is not None:
        ok = arr.ndim == len(shape) and all(s == -1 or s == a for s, a in zip(shape, arr.shape))
        if not ok:
            want = "(" + ", ".join("n" if s == -1 else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
            raise ValueError(f"{where}: {name} has shape {arr.shape}; expected shape {want}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{where}: {name} = {value!r} contains NaN or infinity; expected finite numbers")
    return arr


def answer_cells(where: str, name: str, value, sum_atol: float = CELLS_SUM_ATOL) -> np.ndarray:
    """A 2x2 answer table as 4 cells [yes-yes, yes-no, no-yes, no-no], summing to 1 +- ``sum_atol``."""
    cells = probability_array(where, name, value, shape=(4,))
    total = float(cells.sum())
    if abs(total - 1.0) > sum_atol:
        raise ValueError(
            f"{where}: {name} sums to {total:.6g}; the 4 cells [yes-yes, yes-no, no-yes, no-no] "
            f"must sum to 1 within {sum_atol:g}"
        )
    return cells


def sample_size(where: str, name: str, value) -> int:
    """A number of respondents: a positive integer."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{where}: {name} = {value!r}; expected a positive integer number of respondents")
    return int(value)


def integer_at_least(where: str, name: str, value, minimum: int) -> int:
    """An integer option (dimension, number of starts) no smaller than ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{where}: {name} = {value!r}; expected an integer >= {minimum}")
    return int(value)


def choice(where: str, name: str, value, allowed: tuple[str, ...]) -> str:
    """``value`` if it is one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{where}: {name} = {value!r}; allowed: {', '.join(map(repr, allowed))}")
    return value


def nonnegative(where: str, name: str, arr: np.ndarray, why: str) -> None:
    """Reject negative entries of an already-validated array; ``why`` says what they are."""
    if np.any(arr < 0):
        value = float(np.asarray(arr)[np.asarray(arr) < 0].flat[0])
        raise ValueError(f"{where}: {name} = {value!r} is negative; {why} must be >= 0")


def projector(where: str, name: str, value, dim: int | None = None, atol: float = 1e-9) -> np.ndarray:
    """A square Hermitian idempotent matrix (an orthogonal projector), within ``atol``."""
    try:
        p = np.asarray(value, dtype=complex)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {name} is not a numeric matrix") from None
    if p.ndim != 2 or p.shape[0] != p.shape[1] or (dim is not None and p.shape[0] != dim):
        want = f"({dim}, {dim})" if dim is not None else "(d, d)"
        raise ValueError(f"{where}: {name} has shape {p.shape}; expected a square projector of shape {want}")
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{where}: {name} contains NaN or infinity")
    if not (np.allclose(p, p.conj().T, atol=atol) and np.allclose(p @ p, p, atol=atol)):
        raise ValueError(f"{where}: {name} is not an orthogonal projector (need P = P^dagger = P @ P within {atol:g})")
    return p


def state_vector(where: str, name: str, value, atol: float = 1e-9) -> np.ndarray:
    """A 1-D unit vector of amplitudes (complex allowed), norm 1 within ``atol``."""
    try:
        psi = np.asarray(value, dtype=complex)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {name} is not a numeric vector") from None
    if psi.ndim != 1 or psi.size < 2:
        raise ValueError(f"{where}: {name} has shape {psi.shape}; expected a state vector of shape (d,), d >= 2")
    if not np.all(np.isfinite(psi)):
        raise ValueError(f"{where}: {name} contains NaN or infinity")
    norm = float(np.linalg.norm(psi))
    if abs(norm - 1.0) > atol:
        raise ValueError(f"{where}: {name} has norm {norm:.6g}; a state vector must have norm 1 within {atol:g}")
    return psi
