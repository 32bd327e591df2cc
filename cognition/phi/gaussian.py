"""Gaussian information helpers: log-determinants, entropies, conditional covariances.

Pure functions on covariance matrices, batched over leading dimensions. They accept
numpy arrays, and torch tensors when a caller has moved the work to a device (torch is
never imported here unless a tensor is passed in). Every logarithm is natural (nats)
unless the name says bits; ``NATS_TO_BITS`` converts.

The Gaussian identities used throughout (Cover & Thomas, *Elements of Information
Theory*, 2nd ed., Thm 8.4.1 and Sec. 8.6):

    H(X)    = 1/2 log((2 pi e)^k det S_X)                    (differential entropy)
    I(X; Y) = 1/2 (log det S_X + log det S_Y - log det S_XY)
    S_{X|Y} = S_X - S_XY S_Y^-1 S_YX                          (Schur complement)
"""
from __future__ import annotations

import math

import numpy as np
import scipy.special

NATS_TO_BITS = 1.0 / math.log(2.0)
LOG_2PIE = math.log(2.0 * math.pi * math.e)


def _is_torch(x) -> bool:
    return type(x).__module__.startswith("torch")


def to_numpy(x) -> np.ndarray:
    """A numpy array from a numpy array or a (possibly device) torch tensor."""
    if _is_torch(x):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def cholesky(cov, what: str = "covariance"):
    """Lower Cholesky factors of (..., k, k) positive-definite matrices (numpy or torch).

    A matrix that is not numerically positive definite raises ValueError naming ``what``.
    """
    if _is_torch(cov):
        import torch

        chol, info = torch.linalg.cholesky_ex(cov)
        failed = bool((info != 0).any())
    else:
        try:
            chol, failed = np.linalg.cholesky(cov), False
        except np.linalg.LinAlgError:
            failed = True
    if failed:
        raise ValueError(f"{what} is not positive definite (Cholesky failed); "
                         "it needs more samples, shrinkage, or non-degenerate nodes")
    return chol


def log_diagonal(chol):
    """log of the diagonal of (..., k, k) matrices -> (..., k)."""
    if _is_torch(chol):
        import torch

        return torch.log(torch.diagonal(chol, dim1=-2, dim2=-1))
    return np.log(np.diagonal(chol, axis1=-2, axis2=-1))


def logdet(cov, what: str = "covariance"):
    """log det of symmetric positive-definite matrices, shape (..., k, k) -> (...,), nats.

    Uses a Cholesky factorisation (log det S = 2 sum log diag L); a matrix that is not
    numerically positive definite raises ValueError naming ``what`` instead of returning NaN.
    """
    return 2.0 * log_diagonal(cholesky(cov, what)).sum(-1)


def principal_submatrices(cov, index):
    """Stack of principal submatrices cov[..., idx, idx], one per row of ``index`` (P, m).

    cov: (..., d, d) -> (..., P, m, m). All rows have the same size m, so that the P
    submatrices batch into one factorisation.
    """
    if _is_torch(cov):
        import torch

        index = torch.as_tensor(np.asarray(index), device=cov.device)
    return cov[..., index[:, :, None], index[:, None, :]]


def principal_logdets(cov, index, what: str = "covariance"):
    """log det of cov[..., idx, idx] for each row idx of ``index`` (P, m); (..., P) nats."""
    return logdet(principal_submatrices(cov, index), what)


def masked_logdets(cov, mask, what: str = "covariance"):
    """log det of the principal submatrix of ``cov`` picked by a boolean ``mask``, nats.

    cov: (..., d, d); mask: (..., d) bool, broadcast against cov's leading dimensions.
    Rows and columns outside the mask are replaced by those of the identity, which leaves
    the determinant of the kept block unchanged; so masks of different sizes batch together.
    """
    if _is_torch(cov):
        import torch

        mask = torch.as_tensor(np.asarray(mask), device=cov.device)
        both = mask[..., :, None] & mask[..., None, :]
        eye = torch.eye(cov.shape[-1], dtype=cov.dtype, device=cov.device)
        return logdet(torch.where(both, cov, eye), what)
    both = mask[..., :, None] & mask[..., None, :]
    return logdet(np.where(both, cov, np.eye(cov.shape[-1])), what)


def wishart_logdet_bias(k: int, dof: float) -> float:
    """E[log det S] - log det Sigma (nats) for a k x k sample covariance S = W / dof, W ~ Wishart_k(dof, Sigma).

    E[log det W] = log det Sigma + k log 2 + sum_{i=1}^{k} psi((dof - i + 1) / 2) (Anderson 2003, *An
    Introduction to Multivariate Statistical Analysis*, 3rd ed., Sec. 7.5.3; the unbiased entropy estimator of
    Ahmed & Gokhale 1989, IEEE Trans. Inf. Theory 35:688, and Misra, Singh & Demchuk 2005, J. Multivariate
    Anal. 92:324). It depends on k and dof only, not on Sigma, so subtracting it from every log det makes a
    Gaussian entropy or mutual information from independent samples unbiased. ``dof`` > k - 1.
    """
    if dof <= k - 1:
        raise ValueError(f"the Wishart log-det bias needs dof > k - 1, got dof={dof} for k={k}")
    i = np.arange(1, k + 1)
    return float(np.sum(scipy.special.digamma((dof - i + 1) / 2.0)) + k * math.log(2.0 / dof))


def gaussian_entropy(cov) -> float | np.ndarray:
    """Differential entropy of N(mu, cov) in bits; cov (..., k, k) -> (...,).

    H = 1/2 log2((2 pi e)^k det cov) (Cover & Thomas Thm 8.4.1). Can be negative.
    """
    cov = np.asarray(cov, dtype=float)
    return entropy_from_logdet(cov.shape[-1], logdet(cov))


def entropy_from_logdet(k, logdet_cov):
    """Gaussian differential entropy in bits of k variables from log det of their covariance (nats)."""
    return 0.5 * (k * LOG_2PIE + logdet_cov) * NATS_TO_BITS


def conditional_covariance(cov, target, given):
    """Covariance of the variables ``target`` given ``given`` (Schur complement).

    cov: (..., d, d); target, given: integer index sequences. Returns (..., |target|, |target|):
    S_t - S_tg S_g^-1 S_gt. With ``given`` empty, the marginal block S_t.
    """
    cov = np.asarray(cov, dtype=float)
    t = np.asarray(target, dtype=int)
    g = np.asarray(given, dtype=int)
    s_tt = cov[..., t[:, None], t[None, :]]
    if g.size == 0:
        return s_tt
    s_tg = cov[..., t[:, None], g[None, :]]
    s_gg = cov[..., g[:, None], g[None, :]]
    return s_tt - s_tg @ np.linalg.solve(s_gg, np.swapaxes(s_tg, -1, -2))


def mutual_information(cov, a, b) -> float | np.ndarray:
    """I(X_a; X_b) in bits for jointly Gaussian variables with covariance ``cov`` (..., d, d).

    a, b: disjoint integer index sequences. 1/2 (log det S_a + log det S_b - log det S_ab).
    """
    cov = np.asarray(cov, dtype=float)
    a = np.asarray(a, dtype=int)
    b = np.asarray(b, dtype=int)
    ab = np.concatenate([a, b])
    lds = [principal_logdets(cov, idx[None, :])[..., 0] for idx in (a, b, ab)]
    return 0.5 * (lds[0] + lds[1] - lds[2]) * NATS_TO_BITS

