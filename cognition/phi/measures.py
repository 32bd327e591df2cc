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
)
from cognition.phi.partitions import bipartitions_by_size

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
