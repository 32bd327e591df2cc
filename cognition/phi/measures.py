"""Gaussian integrated-information measures of a bipartition, from a joint covariance.

All functions take the covariance of the stacked vector (X_{t-tau}, X_t) of an n-node
system: ``cov`` has shape (R, 2n, 2n) (R replicates: bootstrap samples, windows, ...),
rows 0..n-1 the past and n..2n-1 the present. Results are in bits.

For a bipartition B = {M1, M2} (Barrett & Seth 2011, PLoS Comput Biol 7:e1001052;
Mediano, Seth & Barrett 2019, Entropy 21:17; Mediano, Rosas et al. 2021, arXiv:2109.13186):

    TDMI        = I(X_{t-tau}; X_t)
    Phi_WMS(B)  = TDMI - sum_k I(M^k_{t-tau}; M^k_t)
    Phi_R(B)    = Phi_WMS(B) + min_{i,j} I(M^i_{t-tau}; M^j_t)          (MMI redundancy)
    SI(B)       = sum_k H(M^k_t | M^k_{t-tau}) - H(X_t | X_{t-tau})      (stochastic interaction)
    K(B)        = min_k H(M^k_t)                                          (normalisation)
"""
from __future__ import annotations

import numpy as np

from cognition.phi.gaussian import (
    NATS_TO_BITS,
    cholesky,
    entropy_from_logdet,
    log_diagonal,
    logdet,
    masked_logdets,
    principal_logdets,
    principal_submatrices,
    to_numpy,
    wishart_logdet_bias,
)
from cognition.phi.partitions import all_bipartition_masks, bipartitions_by_size

# Replicates are processed in chunks so that the stacked submatrices of one size stay
# under this many float64 entries (~256 MiB).
_CHUNK_ENTRIES = 32 * 2**20


def whole_system(cov) -> dict[str, np.ndarray]:
    """log det (nats) of the past, present and joint covariance, and the TDMI in bits; numpy (R,)."""
    n = cov.shape[-1] // 2
    ld_past = to_numpy(logdet(cov[..., :n, :n], "covariance of X_{t-tau}"))
    ld_present = to_numpy(logdet(cov[..., n:, n:], "covariance of X_t"))
    ld_joint = to_numpy(logdet(cov, "joint covariance of (X_{t-tau}, X_t)"))
    tdmi = 0.5 * (ld_past + ld_present - ld_joint) * NATS_TO_BITS
    return {"ld_past": ld_past, "ld_present": ld_present, "ld_joint": ld_joint, "tdmi": tdmi}


def exhaustive_scores(cov, whole: dict) -> tuple[np.ndarray, np.ndarray]:
    """Phi_WMS and K for every bipartition, shapes (R, 2^(n-1)-1), bits.

    Order of the columns: ``partitions.all_bipartition_masks(n)``. One stacked
    Cholesky factorisation per part size (no Python loop over partitions): the joint
    block [M_past, M_present] yields log det of both its past block (leading factor)
    and of itself; the present block is factorised separately.
    """
    n = cov.shape[-1] // 2
    R = cov.shape[0]
    phi_cols, k_cols = [], []
    for part0, part1 in bipartitions_by_size(n):
        per_rep = len(part0) * 4 * n * n
        step = max(1, _CHUNK_ENTRIES // per_rep)
        mi, ent = [], []
        for start in range(0, R, step):
            c = cov[start:start + step]
            terms = [_part_terms(c, part, n) for part in (part0, part1)]
            mi.append(terms[0][0] + terms[1][0])
            ent.append(np.minimum(terms[0][1], terms[1][1]))
        phi_cols.append(whole["tdmi"][:, None] - np.concatenate(mi))
        k_cols.append(np.concatenate(ent))
    return np.concatenate(phi_cols, axis=1), np.concatenate(k_cols, axis=1)


def _part_terms(cov, part: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(I(M_{t-tau}; M_t), H(M_t)) in bits for parts given as index rows (P, k); each (R, P)."""
    k = part.shape[1]
    joint_idx = np.concatenate([part, part + n], axis=1)
    chol = cholesky(principal_submatrices(cov, joint_idx), "joint covariance of a part")
    logdiag = 2.0 * log_diagonal(chol)
    ld_past = logdiag[..., :k].sum(-1)
    ld_joint = logdiag.sum(-1)
    ld_present = principal_logdets(cov, part + n, "covariance of a part's present state")
    mi = 0.5 * (ld_past + ld_present - ld_joint) * NATS_TO_BITS
    return to_numpy(mi), to_numpy(entropy_from_logdet(k, ld_present))


def every_bipartition(cov: np.ndarray, dof: float | None = None) -> dict[str, np.ndarray]:
    """Phi_WMS and Phi_R (bits) of every bipartition of each covariance ``cov`` (R, 2n, 2n); numpy only.

    Returns {"phi_wms": (R, P), "phi_r": (R, P), "masks": (P, n)} with the columns in the order of
    ``partitions.all_bipartition_masks(n)``. ``dof``: when given, each log det of a k-variable block is
    corrected by its Wishart bias (``gaussian.wishart_logdet_bias(k, dof)``), so every mutual information
    in Phi_WMS and in the MMI redundancy of Phi_R is the unbiased estimate for ``dof`` + 1 independent
    Gaussian samples (exact there; for a time series the serial dependence leaves a residual bias that
    ``cognition.phi.agents`` removes by a parametric bootstrap).
    """
    cov = np.asarray(cov, dtype=float)
    n = cov.shape[-1] // 2
    columns = [bipartition_values(cov, part0, part1, dof) for part0, part1 in bipartitions_by_size(n)]
    return {"phi_wms": np.concatenate([c[0] for c in columns], axis=1),
            "phi_r": np.concatenate([c[1] for c in columns], axis=1), "masks": all_bipartition_masks(n)}


def bipartition_values(cov: np.ndarray, part0: np.ndarray, part1: np.ndarray,
                       dof: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(Phi_WMS, Phi_R) in bits, each (R, P), of the bipartitions given as index rows part0 (P, k), part1 (P, n - k).

    cov (R, 2n, 2n), numpy. Four stacked Cholesky factorisations per bipartition, each block ordered so that
    its leading factor is another block needed: a part's joint [M_past, M_present] yields its past block, and
    the cross block of MMI's redundancy, ordered [M^j_present, M^i_past], yields the present block of M^j.
    ``dof``: as in :func:`every_bipartition`.
    """
    n = cov.shape[-1] // 2

    def bias(k: int) -> float:
        return 0.0 if dof is None else wishart_logdet_bias(k, dof)

    def block_logdiag(index: np.ndarray) -> np.ndarray:
        return 2.0 * log_diagonal(cholesky(principal_submatrices(cov, index), "covariance of a part"))

    whole = whole_system(cov)
    tdmi = 0.5 * (whole["ld_past"] + whole["ld_present"] - whole["ld_joint"] - 2 * bias(n) + bias(2 * n))
    terms, cross = {}, {}
    for name, part in (("a", part0), ("b", part1)):
        k = part.shape[1]
        joint = block_logdiag(np.concatenate([part, part + n], axis=1))
        terms[name, "past"] = joint[..., :k].sum(-1) - bias(k)
        terms[name, "joint"] = joint.sum(-1) - bias(2 * k)
    for (i, p_i), (j, p_j) in ((("a", part0), ("b", part1)), (("b", part1), ("a", part0))):
        block = block_logdiag(np.concatenate([p_j + n, p_i], axis=1))      # [M^j_present, M^i_past]
        terms[j, "present"] = block[..., :p_j.shape[1]].sum(-1) - bias(p_j.shape[1])
        cross[i, j] = block.sum(-1) - bias(n)

    def mi(i, j):
        joint = terms[i, "joint"] if i == j else cross[i, j]
        return 0.5 * (terms[i, "past"] + terms[j, "present"] - joint)

    wms = tdmi[:, None] - mi("a", "a") - mi("b", "b")
    mmi = np.minimum(np.minimum(mi("a", "a"), mi("b", "b")), np.minimum(mi("a", "b"), mi("b", "a")))
    return wms * NATS_TO_BITS, (wms + mmi) * NATS_TO_BITS


def measures_at(cov, masks: np.ndarray) -> dict[str, np.ndarray]:
    """Every measure at one bipartition per replicate; cov (R, 2n, 2n), masks (R, n) bool.

    Returns a dict of (R,) float arrays in bits: tdmi, phi_wms, phi_r,
    stochastic_interaction, mmi (the redundancy min_{i,j} I(M^i_{t-tau}; M^j_t)) and
    k_norm (K(B)), each evaluated for the bipartition ``masks[r]`` of replicate r.
    """
    n = cov.shape[-1] // 2
    whole = whole_system(cov)
    a = np.asarray(masks, dtype=bool)
    b = ~a
    none = np.zeros_like(a)

    def ld(past, present):
        m = np.concatenate([past, present], axis=-1)
        return to_numpy(masked_logdets(cov, m, "covariance of a part"))

    ld_p = {"a": ld(a, none), "b": ld(b, none)}
    ld_q = {"a": ld(none, a), "b": ld(none, b)}
    ld_j = {"a": ld(a, a), "b": ld(b, b)}
    cross = {("a", "b"): ld(a, b), ("b", "a"): ld(b, a)}
    bits = 0.5 * NATS_TO_BITS

    def mi(i, j):
        joint = ld_j[i] if i == j else cross[(i, j)]
        return bits * (ld_p[i] + ld_q[j] - joint)

    self_mi = mi("a", "a") + mi("b", "b")
    mmi = np.minimum.reduce([mi(i, j) for i in "ab" for j in "ab"])
    tdmi = whole["tdmi"]
    phi_wms = tdmi - self_mi
    # H(M_t | M_{t-tau}) = H(M_{t-tau}, M_t) - H(M_{t-tau}); the (2 pi e) terms cancel
    # because the parts' dimensions add up to the whole's.
    cond_parts = (ld_j["a"] - ld_p["a"]) + (ld_j["b"] - ld_p["b"])
    cond_whole = whole["ld_joint"] - whole["ld_past"]
    k_norm = np.minimum(entropy_from_logdet(a.sum(-1), ld_q["a"]), entropy_from_logdet(b.sum(-1), ld_q["b"]))
    return {
        "tdmi": tdmi,
        "phi_wms": phi_wms,
        "phi_r": phi_wms + mmi,
        "stochastic_interaction": bits * (cond_parts - cond_whole),
        "mmi": mmi,
        "k_norm": k_norm,
    }


def entropy_positive_for_all_parts(cov) -> np.ndarray:
    """(R,) bool: True where H(M_t) > 0 is guaranteed for every part M.

    Sufficient condition used by the Queyranne search: by the chain rule and because
    conditioning never increases entropy, H(M_t) >= sum_{i in M} H(X^i_t | X^{-i}_t),
    and H(X^i_t | X^{-i}_t) = 1/2 log(2 pi e / [S_t^-1]_ii).
    """
    n = cov.shape[-1] // 2
    present = to_numpy(cov[..., n:, n:])
    cond_var = 1.0 / np.diagonal(np.linalg.inv(present), axis1=-2, axis2=-1)
    return np.all(entropy_from_logdet(1, np.log(cond_var)) > 0, axis=-1)
