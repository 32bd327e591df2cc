"""Is the ensemble integrated? A trial-shuffling test across every bipartition.

"Phi > 0" says that no bipartition splits the system into parts that evolve
independently. Its negation, the null hypothesis, is a union over bipartitions B:

    H0 = union_B H0_B,   H0_B: the two parts of B are independent across agents
                          (beyond what every agent shares: transients, common drive).

Each H0_B has an exact permutation test when the agents are exchangeable replications
(trial shuffling: Perkel, Gerstein & Moore 1967, Biophys. J. 7:419; Vicente et al. 2011,
J. Comput. Neurosci. 30:45): agent a keeps its units on one side of B and takes the other
side's from agent pi(a), pi a uniformly random permutation of the agents; each unit keeps
its whole time course. The statistic is the measure at B itself (Phi_WMS or Phi_R), so
its finite-sample bias is the same for data and surrogates and cancels.

A union null is rejected at level alpha by rejecting every H0_B at level alpha: the
intersection-union test (Berger 1982, Technometrics 24:295; Berger & Hsu 1996, Stat.
Sci. 11:283), whose p-value is max_B p_B, needs no multiplicity correction and is valid
whatever the dependence between the p_B. There is no MIB chosen from the data and then
tested on the same data, the selection step that made the earlier test anti-conservative.
The weakest bipartition (largest p_B) is reported with it.

Cost: with per-agent centred lagged pairs P_a, a surrogate's covariance differs from the
data's only in the cross blocks of B, sum_a P_a[kept]^T P_pi(a)[moved]; the A x A agent
cross products are computed once, so S surrogates at all 2^(n-1) - 1 bipartitions cost
S matrix sums of (2n, 2n) and one batched evaluation of the measures.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from cognition.phi.covariance import shrink
from cognition.phi.ensemble import centred_agent_pairs
from cognition.phi.measures import measures_at
from cognition.phi.partitions import all_bipartition_masks

MEASURES = ("phi_wms", "phi_r")


@dataclasses.dataclass(frozen=True)
class CutTest:
    """p-values of the every-bipartition trial-shuffling test, per measure.

    p_value[k]: max over bipartitions of p_B (the intersection-union p-value);
    weakest[k]: the bipartition attaining it, as a mask (n,) bool; per_cut[k]: every p_B,
    in the order of ``masks``.
    """

    p_value: dict[str, float]
    weakest: dict[str, np.ndarray]
    per_cut: dict[str, np.ndarray]
    masks: np.ndarray
    surrogates: int


def agent_cross_products(Xs: np.ndarray, lag: int) -> tuple[np.ndarray, int]:
    """(A, A, 2n, 2n) sums P_a^T P_b of per-agent centred lagged pairs, and pairs per agent."""
    pairs = centred_agent_pairs(Xs, lag)
    return np.einsum("atp,btq->abpq", pairs, pairs), pairs.shape[1]


def random_permutations(rng: np.random.Generator, agents: int, count: int) -> np.ndarray:
    """(count, agents) uniformly random permutations (the identity included, as the group requires)."""
    return np.argsort(rng.random((count, agents)), axis=1)


def every_cut_test(Xs: np.ndarray, lag: int, surrogates: int, rng: np.random.Generator,
                   shrinkage: float = 0.0, masks: np.ndarray | None = None,
                   chunk_entries: int = 2**23) -> CutTest:
    """The intersection-union trial-shuffling test of "integrated" (see the module docstring).

    Xs: (agents, T, n) units standardised per agent; surrogates: permutations per bipartition
    (the same permutations serve every bipartition); shrinkage: a fixed lambda applied to
    data and surrogates alike; masks: the bipartitions (default: all of them).
    """
    agents, _, n = Xs.shape
    masks = all_bipartition_masks(n) if masks is None else np.asarray(masks, dtype=bool)
    cross, length = agent_cross_products(Xs, lag)
    scale = 1.0 / (agents * (length - 1))
    data = np.einsum("aapq->pq", cross) * scale
    perms = random_permutations(rng, agents, surrogates)
    observed = measures_at(shrink(np.repeat(data[None], len(masks), axis=0), shrinkage), masks)
    exceed = {k: np.zeros(len(masks), dtype=np.int64) for k in MEASURES}
    step = max(1, chunk_entries // (len(masks) * (2 * n) ** 2))
    for start in range(0, surrogates, step):
        covs = shuffled_covariances(data, cross[np.arange(agents)[None, :], perms[start:start + step]]
                                    .sum(axis=1) * scale, masks)
        null = measures_at(shrink(covs.reshape(-1, 2 * n, 2 * n), shrinkage), np.tile(masks, (len(covs), 1)))
        for k in MEASURES:
            exceed[k] += np.count_nonzero(null[k].reshape(len(covs), -1) >= observed[k][None], axis=0)
    out = {"p_value": {}, "weakest": {}, "per_cut": {}}
    for k in MEASURES:
        p_cut = (1.0 + exceed[k]) / (1.0 + surrogates)   # Davison & Hinkley 1997, Sec. 4.2.5
        worst = int(np.argmax(p_cut))
        out["p_value"][k], out["weakest"][k], out["per_cut"][k] = float(p_cut[worst]), masks[worst], p_cut
    return CutTest(masks=masks, surrogates=surrogates, **out)


def shuffled_covariances(data: np.ndarray, mixed: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """(S, B, 2n, 2n): ``data`` with the cross blocks of each bipartition taken from ``mixed``.

    mixed (S, 2n, 2n) = sum_a P_a^T P_pi(a) / dof for each permutation pi: its block (kept rows,
    moved columns) is the surrogate's cross covariance; the within-part blocks are the data's,
    since a permutation of whole agents leaves each part's own pooled moments unchanged.
    """
    kept = np.concatenate([masks, masks], axis=1)                       # (B, 2n): past and present
    upper = kept[:, :, None] & ~kept[:, None, :]                         # kept rows, moved columns
    block = np.where(upper[None], mixed[:, None], 0.0)
    block = block + np.swapaxes(block, -1, -2)
    across = upper | np.swapaxes(upper, 1, 2)
    return np.where(across[None], block, data[None, None])
