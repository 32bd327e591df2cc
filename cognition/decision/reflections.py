"""|exp(-iHt) psi|^2 in closed form for a Hamiltonian whose square has two eigenvalues, for a batch at once.

Pothos & Busemeyer's Hamiltonian is H = H_A - gamma H_B with two reflections: each 2 x 2 block of
H_A is [[m, 1], [1, -m]] / sqrt(1 + m^2) and H_B is a fixed symmetric orthogonal matrix, so
H_A^2 = H_B^2 = I, each with a two-dimensional +1 eigenspace. By Jordan's lemma on two subspaces
(Halmos 1969, "Two subspaces"), R^4 splits into invariant planes on which the reflections meet at an
angle theta_j and H^2 = (1 + gamma^2 - 2 gamma cos 2 theta_j) I. So Z = H^2 has at most two
eigenvalues z_1 >= z_2 >= 0 and (Z - z_1)(Z - z_2) = 0 (tested to rounding in tests/decision/test_decision_reflections.py).

The exponential's power series splits into even and odd powers of H,

    exp(-iHt) = C(Z) - i H S(Z),   C(z) = cos(t sqrt z),   S(z) = t sinc(t sqrt z),

and a function of a matrix with that minimal polynomial is its two-point interpolant (Higham 2008,
"Functions of Matrices", Thm 1.12 and 1.2): f(Z) = fbar I + f[z_1, z_2] (Z - m I), with
m = (z_1 + z_2)/2, fbar = (f(z_1) + f(z_2))/2 and the divided difference f[z_1, z_2] (f' at z_1 = z_2).
With y_j = t sqrt z_j, a = (y_1 + y_2)/2 and d = (y_1 - y_2)/2:

    Cbar = cos a cos d,   C[z_1, z_2] = -(t^2 / 2) sinc a sinc d,
    Sbar = t (sinc y_1 + sinc y_2) / 2,   S[z_1, z_2] = t^3 D,   D = (sinc y_1 - sinc y_2) / (y_1^2 - y_2^2),

each without a cancellation that grows as z_1 -> z_2 (D's three regimes: :func:`_sinc_divided_difference`).
For real psi both C(Z) psi and H S(Z) psi are real, so the Born probabilities are their squares summed.
One eigendecomposition per agent (numpy's eigh, a LAPACK call per 4 x 4 matrix) becomes a few
vectorised operations over the batch; every row's arithmetic is its own.
"""
from __future__ import annotations

import math

import numpy as np

# D by its power series where y_1^2 - y_2^2 < _NEAR and y_1^2 <= _SERIES_MAX: the k-th term is at most
# k 4^(k-1) / (2k + 1)!, below 1e-20 from k = 14 on.
_NEAR, _SERIES_MAX, _SERIES_TERMS = 1.0, 4.0, 16
_INVERSE_ODD_FACTORIALS = [(-1) ** k / math.factorial(2 * k + 1) for k in range(_SERIES_TERMS + 1)]


def _sinc(x: np.ndarray) -> np.ndarray:
    """sin(x) / x, 1 at 0 (numpy's np.sinc is the normalised sin(pi x) / (pi x))."""
    safe = np.where(x == 0.0, 1.0, x)
    return np.where(x == 0.0, 1.0, np.sin(safe) / safe)


def _sinc_divided_difference(y1: np.ndarray, y2: np.ndarray, w_gap: np.ndarray) -> np.ndarray:
    """D = (sinc y1 - sinc y2) / (y1^2 - y2^2) for y1 >= y2 >= 0, with w_gap = y1^2 - y2^2 >= 0 computed
    without cancellation. Three regimes, each accurate to rounding where it is used:
    far (w_gap >= 1): the quotient itself, its numerator's rounding divided by at least 1;
    near and small (y1^2 <= 4): the divided difference of sinc(sqrt w) = sum_k (-1)^k w^k / (2k + 1)!,
        term k being (-1)^k h_{k-1}(w1, w2) / (2k + 1)!, h the complete homogeneous polynomial;
    near and large: (cos a sinc d - sinc a cos d) / (2 y1 y2) (a, d the half sum and half difference),
        whose denominator is then above 6.
    """
    w1, w2 = y1 * y1, y2 * y2
    far = (_sinc(y1) - _sinc(y2)) / np.where(w_gap >= _NEAR, w_gap, 1.0)

    h, w2_power, series = np.ones_like(w1), np.ones_like(w1), np.zeros_like(w1)
    small1, small2 = np.minimum(w1, _SERIES_MAX), np.minimum(w2, _SERIES_MAX)  # no overflow where unused
    for k in range(1, _SERIES_TERMS + 1):
        series += _INVERSE_ODD_FACTORIALS[k] * h  # h = h_{k-1}(w1, w2)
        w2_power = w2_power * small2
        h = small1 * h + w2_power

    a, d = 0.5 * (y1 + y2), 0.5 * (y1 - y2)
    near_large = (w_gap < _NEAR) & (w1 > _SERIES_MAX)  # there y2^2 > 3
    large = (np.cos(a) * _sinc(d) - _sinc(a) * np.cos(d)) / np.where(near_large, 2.0 * y1 * y2, 1.0)
    return np.where(w_gap >= _NEAR, far, np.where(near_large, large, series))


def evolved_probabilities(h: np.ndarray, psi: np.ndarray, t: np.ndarray) -> np.ndarray:
    """|exp(-i h t) psi|^2: (B, n, k) for h (B, n, n) real symmetric whose square has at most two
    eigenvalues (as Pothos & Busemeyer's, see the module docstring), psi (B, n, k) real, t (B,) >= 0."""
    eye = np.eye(h.shape[-1])
    z = h @ h
    m = np.trace(z, axis1=-2, axis2=-1) / h.shape[-1]  # the eigenvalues' mean: each has half the dimensions
    centred = z - m[:, None, None] * eye  # eigenvalues +-half_gap
    half_gap = np.sqrt((centred * centred).sum(axis=(-2, -1)) / h.shape[-1])
    root1, root2 = np.sqrt(m + half_gap), np.sqrt(np.maximum(m - half_gap, 0.0))
    y1, y2 = t * root1, t * root2
    roots = root1 + root2
    d = t * half_gap / np.where(roots > 0.0, roots, 1.0)  # (y1 - y2) / 2 without cancellation
    a = 0.5 * (y1 + y2)

    c_mean, c_slope = np.cos(a) * np.cos(d), -0.5 * t * t * _sinc(a) * _sinc(d)
    s_mean = 0.5 * t * (_sinc(y1) + _sinc(y2))
    s_slope = t**3 * _sinc_divided_difference(y1, y2, 2.0 * t * t * half_gap)

    spread = centred @ psi
    cos_part = c_mean[:, None, None] * psi + c_slope[:, None, None] * spread
    sin_part = h @ (s_mean[:, None, None] * psi + s_slope[:, None, None] * spread)
    return cos_part * cos_part + sin_part * sin_part
