"""Minimum-information-bipartition search and the measures at the MIB, batched.

``phi_at_mib(cov, search)`` is the one entry point shared by ``analytical_var1``,
``estimate`` (and its bootstrap and surrogate replicates) and ``estimate_windows``.
"""
from __future__ import annotations

import numpy as np

from cognition.phi.measures import entropy_positive_for_all_parts, exhaustive_scores, measures_at, whole_system
from cognition.phi.partitions import all_bipartition_masks, select_mib
from cognition.phi.local_search import polish
from cognition.phi.queyranne import GaussianPhiOracle, queyranne

AUTO_EXHAUSTIVE_MAX_NODES = 16  # exhaustive up to here (32 767 bipartitions), Queyranne above
LOCAL_SEARCH_STARTS = 32  # Queyranne candidates polished by local search (see docs/phi.md)


def resolve_search(search: str, n: int) -> str:
    """'auto' -> 'exhaustive' for n <= 16, else 'queyranne'."""
    if search == "auto":
        return "exhaustive" if n <= AUTO_EXHAUSTIVE_MAX_NODES else "queyranne"
    return search


def phi_at_mib(cov, search: str = "auto", device=None) -> dict[str, np.ndarray]:
    """MIB and all measures at it for each joint covariance in ``cov`` (R, 2n, 2n).

    Returns numpy arrays: masks (R, n) (True on the part holding node 0), normalised (R,)
    (whether the MIB criterion was Phi_WMS / K or, where K <= 0 could occur, Phi_WMS), and
    tdmi, phi_wms, phi_r, stochastic_interaction, mmi, k_norm (R,) in bits. ``device``
    (a torch device or string) moves the batched factorisations of the exhaustive search
    to torch; Queyranne runs on numpy.
    """
    cov = np.asarray(cov, dtype=float)
    n = cov.shape[-1] // 2
    search = resolve_search(search, n)
    work = _to_device(cov, device)
    if search == "exhaustive":
        masks_all = all_bipartition_masks(n)
        phi, k_norm = exhaustive_scores(work, whole_system(work))
        normalised = np.all(k_norm > 0, axis=1)
        masks = masks_all[select_mib(phi, k_norm, masks_all, normalised)]
    elif search == "queyranne":
        normalised = entropy_positive_for_all_parts(cov)
        masks = np.stack([queyranne_mib(c, bool(norm)) for c, norm in zip(cov, normalised)])
    else:
        raise ValueError(f"search must be 'auto', 'exhaustive' or 'queyranne', got {search!r}")
    out = measures_at(work, masks)
    out.update(masks=masks, normalised=normalised)
    return out


def queyranne_mib(cov: np.ndarray, normalise: bool, starts: int = LOCAL_SEARCH_STARTS) -> np.ndarray:
    """MIB mask (n,) of one joint covariance (2n, 2n) by Queyranne's algorithm plus local search.

    Queyranne runs on the unnormalised Phi_WMS, for which it is near-exact (Kitazono et
    al. 2018); its candidate cuts and ordering prefixes are ranked by the MIB criterion
    (Phi_WMS / K when ``normalise``), and the best ``starts`` of them are polished by
    single-node moves. The MIB is chosen among all of these with ``select_mib``'s rules.
    """
    n = cov.shape[-1] // 2
    found = queyranne(n, GaussianPhiOracle(cov, normalise=False))
    masks = np.concatenate([found["cut_masks"], found["prefix_masks"]])
    rows = np.concatenate([found["cut_rows"], found["prefix_rows"]])
    masks, first = np.unique(masks, axis=0, return_index=True)
    rows = rows[first]
    crit = rows[:, 1] / rows[:, 2] if normalise else rows[:, 1]
    polished, polished_rows = polish(cov, masks[np.argsort(crit, kind="stable")[:starts]], normalise)
    masks = np.concatenate([masks, polished])
    rows = np.concatenate([rows, polished_rows])
    return masks[select_mib(rows[None, :, 1], rows[None, :, 2], masks, normalise)[0]]


def _to_device(cov: np.ndarray, device):
    if device is None:
        return cov
    import torch

    return torch.as_tensor(cov, dtype=torch.float64, device=torch.device(device))
