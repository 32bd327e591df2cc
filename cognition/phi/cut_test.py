"""Is the ensemble integrated? A trial-shuffling test across every bipartition, within agents.

"Phi > 0" says that no bipartition splits the system into parts that evolve
independently. Its negation, the null hypothesis, is a union over bipartitions B:

    H0 = union_B H0_B,   H0_B: in every agent, the two parts of B are independent
                          (beyond the course every agent shares, removed beforehand).

Each H0_B is tested by trial shuffling (Perkel, Gerstein & Moore 1967, Biophys. J. 7:419;
Vicente et al. 2011, J. Comput. Neurosci. 30:45): surrogate agent a keeps its units on one
side of B and takes the other side's from agent pi(a), pi a uniformly random permutation of
the agents; each unit keeps its whole time course. The statistic is computed **within
agents**, the same estimand as the headline: the mean over agents of each agent's own plug-in
Phi at B (Phi_WMS or Phi_R, from the agent's own lagged covariance). Agents may differ in
their couplings and their signs: a surrogate agent is a real agent's part beside another
real agent's part, so no pooling across agents can cancel a coupling. The small-sample bias
of the per-agent plug-in value is the same for data and surrogates at a given B (same
sizes), so it needs no correction here.

A union null is rejected at level alpha by rejecting every H0_B at level alpha: the
intersection-union test (Berger 1982, Technometrics 24:295; Berger & Hsu 1996, Stat.
Sci. 11:283), whose p-value is max_B p_B, valid whatever the dependence between the p_B.
The weakest bipartition (largest p_B) is reported with it.

Exactness under heterogeneity is not free: when agents differ in their units' dynamics, a
part paired with its own agent's other part can differ in its null spread from one paired
with another agent's; ``python -m cognition.bench calibration`` measures the false-positive
rate on such families (docs/calibration.md).

Cost: a surrogate agent (a, b) at B needs only a's and b's own lagged pairs, so the statistic
of every pair of agents the permutations use is computed once per bipartition (at most A^2
pairs, independent of the number of permutations), and each permutation's statistic is a
mean of table entries.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from cognition.phi.agents import agent_pairs
from cognition.phi.measures import bipartition_values
from cognition.phi.partitions import all_bipartition_masks

MEASURES = ("phi_wms", "phi_r")


@dataclasses.dataclass(frozen=True)
class CutTest:
    """p-values of the every-bipartition trial-shuffling test, per measure.

    p_value[k]: max over bipartitions of p_B (the intersection-union p-value);
    weakest[k]: the bipartition attaining it, as a mask (n,) bool; per_cut[k]: every p_B,
    in the order of ``masks``; observed[k]: the statistic (mean per-agent plug-in Phi, bits) per
    bipartition.
    """

    p_value: dict[str, float]
    weakest: dict[str, np.ndarray]
    per_cut: dict[str, np.ndarray]
    observed: dict[str, np.ndarray]
    masks: np.ndarray
    surrogates: int


def random_permutations(rng: np.random.Generator, agents: int, count: int) -> np.ndarray:
    """(count, agents) uniformly random permutations (the identity included, as the group requires)."""
    return np.argsort(rng.random((count, agents)), axis=1)


def pair_statistics(pairs: np.ndarray, masks: np.ndarray, left: np.ndarray, right: np.ndarray,
                    chunk: int = 4096) -> dict[str, np.ndarray]:
    """{measure: (B, K)} plug-in Phi at each bipartition of each surrogate agent (left[k], right[k]).

    pairs (A, L, 2n): per-agent centred lagged pairs. Surrogate agent k has the part ``mask`` of agent
    left[k] (past and present) and the rest of agent right[k]: its within-part blocks are each agent's
    own covariance, its cross blocks left's pairs against right's, summed over time as in the
    covariance of the shuffled series.
    """
    n = pairs.shape[-1] // 2
    dof = pairs.shape[1] - 1
    own = np.matmul(np.swapaxes(pairs, 1, 2), pairs) / dof                 # (A, 2n, 2n)
    out = {k: np.empty((len(masks), len(left))) for k in MEASURES}
    for start in range(0, len(left), chunk):
        sl = slice(start, start + chunk)
        a, b = left[sl], right[sl]
        cross = np.matmul(np.swapaxes(pairs[a], 1, 2), pairs[b]) / dof     # (K, 2n, 2n): left rows, right cols
        for i, mask in enumerate(masks):
            kept = np.concatenate([mask, mask])
            in_a = kept[:, None] & kept[None, :]
            in_b = ~kept[:, None] & ~kept[None, :]
            upper = kept[:, None] & ~kept[None, :]
            cov = np.where(in_a, own[a], np.where(in_b, own[b], np.where(upper, cross, np.swapaxes(cross, 1, 2))))
            wms, r = bipartition_values(cov, np.flatnonzero(mask)[None], np.flatnonzero(~mask)[None])
            out["phi_wms"][i, sl], out["phi_r"][i, sl] = wms[:, 0], r[:, 0]
    return out


def every_cut_test(Z: np.ndarray, lag: int, surrogates: int, rng: np.random.Generator,
                   masks: np.ndarray | None = None) -> CutTest:
    """The intersection-union trial-shuffling test of "integrated" (see the module docstring).

    Z: (agents, T, n) units as the per-agent estimate sees them (``cognition.phi.agents.prepared``);
    surrogates: permutations per bipartition (the same permutations serve every bipartition);
    masks: the bipartitions (default: all of them).
    """
    agents, _, n = Z.shape
    masks = all_bipartition_masks(n) if masks is None else np.asarray(masks, dtype=bool)
    pairs = agent_pairs(Z, lag)
    perms = random_permutations(rng, agents, surrogates)
    own = np.arange(agents)
    # every (a, pi(a)) any permutation uses, and the identity, each computed once
    codes = np.unique(np.concatenate([own * agents + own, (own[None, :] * agents + perms).ravel()]))
    left, right = np.divmod(codes, agents)
    table = pair_statistics(pairs, masks, left, right)
    where = np.searchsorted(codes, own[None, :] * agents + perms)            # (S, A)
    identity = np.searchsorted(codes, own * agents + own)
    out = {"p_value": {}, "weakest": {}, "per_cut": {}, "observed": {}}
    for k in MEASURES:
        observed = table[k][:, identity].mean(axis=1)                          # (B,)
        null = table[k][:, where].mean(axis=2)                                 # (B, S)
        exceed = np.count_nonzero(null >= observed[:, None] - 1e-12 * np.abs(observed[:, None]), axis=1)
        p_cut = (1.0 + exceed) / (1.0 + surrogates)                            # Davison & Hinkley 1997, 4.2.5
        worst = int(np.argmax(p_cut))
        out["p_value"][k], out["weakest"][k], out["per_cut"][k] = float(p_cut[worst]), masks[worst], p_cut
        out["observed"][k] = observed
    return CutTest(masks=masks, surrogates=surrogates, **out)
