"""Is the ensemble integrated? A trial-shuffling test across every bipartition, within agents.

"Phi > 0" says that no bipartition splits the system into parts that evolve
independently. Its negation, the null hypothesis, is a union over bipartitions B:

    H0 = union_B H0_B,   H0_B: in every agent, the two parts of B are independent
                          (beyond the course every agent shares, removed beforehand).

Each H0_B is tested by trial shuffling (Perkel, Gerstein & Moore 1967, Biophys. J. 7:419;
Vicente et al. 2011, J. Comput. Neurosci. 30:45): surrogate agent a keeps its units on one
side of B and takes the other side's from agent pi(a), pi a uniformly random permutation of
the agents; each unit keeps its whole time course. The statistic is computed **within
agents**: agents may differ in their couplings and their signs, and a surrogate agent is a real
agent's part beside another real agent's part, so no pooling across agents can cancel a coupling.

**The statistic: residual cross-correlations, standardised for each agent's own schedule.** Each
unit is prewhitened by its own autoregression of order ``lag`` (least squares, per agent); for a
surrogate or real agent, every residual cross-correlation between a unit on one side of B and a
unit on the other, at time shifts -lag .. lag, is standardised by a heteroscedasticity- and
autocorrelation-consistent standard error, z = sum_t u(t) / sqrt(V), u(t) = e_i(t) e_j(t + l) and V
the Bartlett-kernel variance of sum_t u(t) with :func:`hac_bandwidth` lags (Newey & West 1987,
Econometrica 55:703; White 1980, Econometrica 48:817, is its bandwidth 0), and the statistic at B is the
mean over agents of the sum of z^2 (Haugh 1976, J. Am. Stat. Assoc. 71:378: the univariate residual
cross-correlation test of independence of two series). Why not each agent's plug-in Phi at B (0.7.0 and
before): trial shuffling needs the agents exchangeable, and a non-stationarity an agent carries in all its
units breaks that: an innovation SD that jumps x3 at a time of its own in each agent makes the products of
two units of one agent heavier-tailed than those of two agents (their schedules align), and the mean Phi at
a null cut 93.5 % "significant" (issue 42). z^2 has expectation ~1 whatever the schedule, for real and
surrogate agents alike: 0 % on that family, and more power on the loop's real runs (docs/calibration.md).
Why the autocorrelation-consistent variance (0.10.0): a unit of a densely coupled part, prewhitened by
its own autoregression alone, keeps autocorrelated residuals, and for independent series the variance of
sum_t e_i(t) e_j(t) is T sum_k rho_i(k) rho_j(k) (Bartlett's formula; Brockwell & Davis 1991, Thm. 11.2.2),
so with White's variance z^2 has expectation 1 + 2 sum_k rho_i(k) rho_j(k), larger where the two
residuals' autocorrelations agree, as an agent's own two parts do more often than two agents' parts
(they share the agent's schedule and dynamics). With White's variance the test rejected 9.0 % of dense
coupled halves with a per-agent SD jump at 32 x 50 and 11.0 % of a lagged shared drive at 8 x 50
(docs/calibration.md, 0.9.0); the Bartlett variance estimates the sum over k from the products
themselves.

A union null is rejected at level alpha by rejecting every H0_B at level alpha: the
intersection-union test (Berger 1982, Technometrics 24:295; Berger & Hsu 1996, Stat.
Sci. 11:283), whose p-value is max_B p_B, valid whatever the dependence between the p_B.
The weakest bipartition (largest p_B) is reported with it. The test does not depend on the
measure (Phi_WMS or Phi_R): H0_B is the same for both.

Exactness under heterogeneity is not free: when agents differ in their units' dynamics, a
part paired with its own agent's other part can differ in its null spread from one paired
with another agent's; ``python -m cognition.bench calibration`` measures the false-positive
rate on such families (docs/calibration.md).

Cost: the z^2 of every pair of agents that the permutations use (at most A^2, in blocks of pairs), unit
pair and shift, each a sum over T, computed once; the statistic of every bipartition and permutation is a
masked sum of them.

:func:`pair_statistics` and :func:`shuffled_means` give the plug-in Phi of surrogate agents, which the
interval's lower end uses at the boundary (cognition.phi.agents, "The lower end at Phi = 0").
"""
from __future__ import annotations

import dataclasses

import numpy as np

from cognition.phi.agents import agent_pairs
from cognition.phi.measures import bipartition_values
from cognition.phi.partitions import all_bipartition_masks

MEASURES = ("phi_wms", "phi_r")
SHUFFLE_PARTNERS = 8   # partners on each side per agent in shuffled_means
SCHEDULE_WINDOW = 5    # cycles: the centred window of an agent's local scale (shuffled_means)
PAIR_BLOCK_BYTES = 2**25  # working memory of one block of agent-pair products (32 MiB), whatever T and A


@dataclasses.dataclass(frozen=True)
class CutTest:
    """p-value of the every-bipartition trial-shuffling test (the same for every measure).

    p_value: max over bipartitions of p_B (the intersection-union p-value); weakest: the bipartition
    attaining it, as a mask (n,) bool; per_cut: every p_B, in the order of ``masks``; observed: the
    statistic (mean over agents of the summed squared standardised residual cross-correlations) per
    bipartition.
    """

    p_value: float
    weakest: np.ndarray
    per_cut: np.ndarray
    observed: np.ndarray
    masks: np.ndarray
    surrogates: int


def random_permutations(rng: np.random.Generator, agents: int, count: int) -> np.ndarray:
    """(count, agents) uniformly random permutations (the identity included, as the group requires)."""
    return np.argsort(rng.random((count, agents)), axis=1)


def agent_pair_products(X: np.ndarray, Y: np.ndarray, left: np.ndarray, right: np.ndarray,
                        budget: int = PAIR_BLOCK_BYTES) -> np.ndarray:
    """(K, p, q): for each pair k the sum over time of X[left[k]]^T Y[right[k]], X (A, L, p), Y (A, L, q).

    Memory is bounded by ``budget`` bytes of working arrays beside one time-major copy of Y, whatever L and
    K. Where the pairs are dense (K >= A^2 / 4: the test's permutations of a few dozen agents), every
    agent's series against every agent's, a block of left agents at a time, as one matrix product
    ((b p) x L) @ (L x (A q)), and the pairs gathered from it (where X is Y and the (A q)^2 products fit the
    budget, one symmetric product of the copy with itself: BLAS syrk, half the flops); else the pairs
    themselves, in blocks of pairs. (All sum over time in another order than a product per pair: equal to
    ~1e-15 relative.)"""
    A, L, p = X.shape
    q = Y.shape[-1]
    left, right = np.asarray(left), np.asarray(right)
    out = np.empty((len(left), p, q))
    if 4 * len(left) >= A * A:
        Yt = np.ascontiguousarray(np.moveaxis(Y, 1, 0)).reshape(L, A * q)           # (L, A q)
        if X is Y and 8 * (A * q) ** 2 <= budget:  # one symmetric product (BLAS syrk: half the flops of two)
            return (Yt.T @ Yt).reshape(A, q, A, q)[left, :, right, :]
        block = max(1, budget // (8 * p * (A * q + L)))
        order = np.argsort(left, kind="stable")
        for a0 in range(0, A, block):
            a1 = min(A, a0 + block)
            lo, hi = np.searchsorted(left[order], [a0, a1])
            if lo == hi:
                continue
            ks = order[lo:hi]
            Xt = np.moveaxis(X[a0:a1], 1, 0).reshape(L, (a1 - a0) * p)              # (L, b p)
            gram = (Xt.T @ Yt).reshape(a1 - a0, p, A, q)
            out[ks] = gram[left[ks] - a0, :, right[ks], :]
        return out
    chunk = max(1, budget // (8 * L * (p + q)))
    for start in range(0, len(left), chunk):
        sl = slice(start, start + chunk)
        out[sl] = np.matmul(np.swapaxes(X[left[sl]], 1, 2), Y[right[sl]])
    return out


def pair_statistics(pairs: np.ndarray, masks: np.ndarray, left: np.ndarray, right: np.ndarray,
                    chunk: int = 4096) -> dict[str, np.ndarray]:
    """{measure: (B, K)} plug-in Phi at each bipartition of each surrogate agent (left[k], right[k]).

    pairs (A, L, 2n): per-agent centred lagged pairs. Surrogate agent k has the part ``mask`` of agent
    left[k] (past and present) and the rest of agent right[k]: its within-part blocks are each agent's
    own covariance, its cross blocks left's pairs against right's, summed over time as in the
    covariance of the shuffled series (:func:`agent_pair_products`, memory bounded whatever L); the
    bipartitions are evaluated ``chunk`` surrogate agents at a time.
    """
    n = pairs.shape[-1] // 2
    dof = pairs.shape[1] - 1
    own = np.matmul(np.swapaxes(pairs, 1, 2), pairs) / dof                 # (A, 2n, 2n)
    products = agent_pair_products(pairs, pairs, left, right) / dof       # (K, 2n, 2n): left rows, right cols
    out = {k: np.empty((len(masks), len(left))) for k in MEASURES}
    for start in range(0, len(left), chunk):
        sl = slice(start, start + chunk)
        a, b = left[sl], right[sl]
        cross = products[sl]
        for i, mask in enumerate(masks):
            kept = np.concatenate([mask, mask])
            in_a = kept[:, None] & kept[None, :]
            in_b = ~kept[:, None] & ~kept[None, :]
            upper = kept[:, None] & ~kept[None, :]
            cov = np.where(in_a, own[a], np.where(in_b, own[b], np.where(upper, cross, np.swapaxes(cross, 1, 2))))
            wms, r = bipartition_values(cov, np.flatnonzero(mask)[None], np.flatnonzero(~mask)[None])
            out["phi_wms"][i, sl], out["phi_r"][i, sl] = wms[:, 0], r[:, 0]
    return out


def prewhitened(Z: np.ndarray, order: int) -> np.ndarray:
    """(A, T, n) -> (A, T - order, n) residuals of each unit's own autoregression of ``order`` (with an
    intercept, least squares, per agent and unit)."""
    T = Z.shape[1]
    past = np.stack([Z[:, order - k:T - k, :] for k in range(1, order + 1)], axis=-1)     # (A, T', n, order)
    design = np.moveaxis(np.concatenate([past, np.ones(past.shape[:-1] + (1,))], axis=-1), 2, 1)
    present = np.moveaxis(Z[:, order:, :], 2, 1)[..., None]                                 # (A, n, T', 1)
    design_t = np.swapaxes(design, -1, -2)
    coef = np.linalg.solve(design_t @ design, design_t @ present)
    return np.moveaxis((present - design @ coef)[..., 0], 1, 2)


def hac_bandwidth(T: int) -> int:
    """Lags of the Bartlett-kernel variance of a product series of length ``T``: floor(4 (T / 100)^(2/9)), the
    starting bandwidth of Newey & West (1994, Rev. Econ. Stud. 61:631); 3 at 50 cycles, 13 at 28 000."""
    return int(4.0 * (T / 100.0) ** (2.0 / 9.0))


def pair_cross_correlations(E: np.ndarray, left: np.ndarray, right: np.ndarray, shifts: int,
                            bandwidth: int = 0) -> np.ndarray:
    """(K, n, n): for the agent pairs (left[k], right[k]) and units i, j, the sum over l in -shifts .. shifts
    of z^2, z = sum_t u(t) / sqrt(V), u(t) = left's residual i at t times right's residual j at t + l, and V
    the Bartlett-kernel (Newey & West 1987) variance of that sum with ``bandwidth`` lags,
    sum_t u(t)^2 + 2 sum_{k=1..bandwidth} (1 - k / (bandwidth + 1)) sum_t u(t) u(t + k), uncentred (u has mean
    0 under independence); ``bandwidth`` 0 is White's (1980) heteroscedasticity-consistent variance. The
    module docstring says why. E (A, T, n) residuals; every sum over time is :func:`agent_pair_products` of
    per-agent series (u(t) u(t + k) = [e_i(t) e_i(t + k)] [e_j(t + l) e_j(t + l + k)]), memory bounded whatever T
    and the number of pairs."""
    T, n = E.shape[1:]
    K = len(left)
    both_left, both_right = np.concatenate([left, right]), np.concatenate([right, left])

    def sums(x: np.ndarray, y: np.ndarray, l: int) -> np.ndarray:
        # shift l and -l from one call: the sum for the pair (a, b) at -l is that of (b, a) at l, transposed; where
        # the pairs are dense the products of every agent pair are computed once whatever the pairs asked for
        if l == 0:  # x and y are the same series
            return agent_pair_products(x, x, left, right)[None]
        paired = agent_pair_products(x, y, both_left, both_right)
        return np.stack([paired[:K], np.swapaxes(paired[K:], 1, 2)])

    # each residual's lagged products with itself, P_k(t) = E(t) E(t + k), k = 0 .. bandwidth (k = 0: its square),
    # one k at a time (one more series in memory), each serving every shift: at shift l the left agent's are
    # P_k[:, :T - l - k], the right agent's P_k[:, l:]
    num = [sums(E[:, :T - l], E[:, l:], l) for l in range(shifts + 1)]
    den = [np.zeros_like(v) for v in num]
    for k in range(min(bandwidth, T - shifts - 1) + 1):
        P = E * E if k == 0 else E[:, :-k] * E[:, k:]
        weight = 1.0 if k == 0 else 2.0 * (1.0 - k / (bandwidth + 1.0))
        for l in range(shifts + 1):
            den[l] += weight * sums(P[:, :T - l - k], P[:, l:], l)
    return sum((v**2 / np.maximum(d, np.finfo(float).tiny)).sum(axis=0) for v, d in zip(num, den))


def every_cut_test(Z: np.ndarray, lag: int, surrogates: int, rng: np.random.Generator,
                   masks: np.ndarray | None = None) -> CutTest:
    """The intersection-union trial-shuffling test of "integrated" (see the module docstring).

    Z: (agents, T, n) units as the per-agent estimate sees them (``cognition.phi.agents.prepared``);
    surrogates: permutations per bipartition (the same permutations serve every bipartition);
    masks: the bipartitions (default: all of them).
    """
    agents, _, n = Z.shape
    masks = all_bipartition_masks(n) if masks is None else np.asarray(masks, dtype=bool)
    perms = random_permutations(rng, agents, surrogates)
    own = np.arange(agents)
    # every (a, pi(a)) any permutation uses, and the identity, each computed once (at most A^2 pairs)
    codes = np.unique(np.concatenate([own * agents + own, (own[None, :] * agents + perms).ravel()]))
    left, right = np.divmod(codes, agents)
    E = prewhitened(Z, lag)
    z2 = pair_cross_correlations(E, left, right, lag, hac_bandwidth(E.shape[1]))   # (K, n, n)
    crossing = (masks[:, :, None] & ~masks[:, None, :]).reshape(len(masks), n * n).astype(float)
    table = z2.reshape(len(codes), n * n) @ crossing.T                            # (K, B)
    observed = table[np.searchsorted(codes, own * agents + own)].mean(axis=0)    # (B,)
    null = table[np.searchsorted(codes, own[None, :] * agents + perms)].mean(axis=1)   # (S, B)
    exceed = np.count_nonzero(null >= observed[None, :] - 1e-12 * np.abs(observed[None, :]), axis=0)
    p_cut = (1.0 + exceed) / (1.0 + surrogates)                                  # Davison & Hinkley 1997, 4.2.5
    worst = int(np.argmax(p_cut))
    return CutTest(p_value=float(p_cut[worst]), weakest=masks[worst], per_cut=p_cut, observed=observed,
                   masks=masks, surrogates=surrogates)


def local_scale(Z: np.ndarray, window: int = SCHEDULE_WINDOW) -> np.ndarray:
    """(A, T) each agent's local scale: the RMS of all its units (``Z`` (A, T, n)) over the cycles of a centred
    window of ``window`` cycles (fewer at the ends), floored at a tiny positive value."""
    power = (Z**2).mean(axis=2)
    kernel = np.ones(min(window, Z.shape[1] - 1 + Z.shape[1] % 2))  # odd and within T, so centred
    total = np.stack([np.convolve(row, kernel, mode="same") for row in power])
    count = np.convolve(np.ones(Z.shape[1]), kernel, mode="same")
    return np.sqrt(np.maximum(total / count, np.finfo(float).tiny))


def shuffled_means(Z: np.ndarray, lag: int, masks: np.ndarray, partners: int = SHUFFLE_PARTNERS,
                   window: int = SCHEDULE_WINDOW, budget: int = PAIR_BLOCK_BYTES) -> dict[str, np.ndarray]:
    """{measure: (A, P)} the mean plug-in Phi at each bipartition of the surrogate agents made of agent a's
    part and a partner's other part (a's part beside partner a + k's rest, and partner a - k's part beside a's
    rest, k = 1 .. partners, modulo A; at most A - 1): what the agent's plug-in value at that bipartition would
    be, on average, were its two parts independent, with their own dynamics (Marschinski & Kantz 2002, Eur.
    Phys. J. B 30:275, subtract the shuffled surrogates' mean from a transfer entropy in the same way).

    **With the agent's own schedule.** A plug-in value at a null cut is biased up by the chance
    cross-covariances of the parts, whose size depends on how the parts' variances move together in time:
    an agent whose units all change scale at once (a jump of the innovation SD at a time of its own; a
    transient) has both parts loud at the same cycles, a partner's part is loud at other cycles, so a plain
    surrogate understates the agent's bias (issue 42: dense halves with a per-agent SD jump, the interval above
    the true 0 in 100 % of systems). So each partner's units are given agent a's schedule before they are
    paired: multiplied, cycle by cycle, by a's local scale over the partner's (:func:`local_scale`, the RMS of
    all of an agent's units in a centred window of ``window`` cycles). Surrogates are built ``budget`` bytes at
    a time, whatever T."""
    A, T, n = Z.shape
    K = min(partners, A - 1)
    scale = local_scale(Z, window)
    host = np.repeat(np.arange(A), K)
    step = np.tile(np.arange(1, K + 1), A)
    hosts = np.concatenate([host, host])
    partner = np.concatenate([(host + step) % A, (host - step) % A])
    gives_part = np.arange(2 * len(host)) < len(host)      # the first half: a's part, the partner's rest
    block = max(1, budget // (8 * T * n * 6))             # the block's series and lagged pairs, both members
    sums = {k: np.zeros((A, len(masks))) for k in MEASURES}
    for start in range(0, len(hosts), block):
        sl = slice(start, start + block)
        h, q, first = hosts[sl], partner[sl], gives_part[sl]
        m = len(h)
        given = Z[q] * (scale[h] / scale[q])[:, :, None]    # the partner's units on the host's schedule
        pairs = agent_pairs(np.concatenate([Z[h], given]), lag)
        own, theirs = np.arange(m), m + np.arange(m)
        table = pair_statistics(pairs, masks, np.where(first, own, theirs), np.where(first, theirs, own))
        for k in MEASURES:
            np.add.at(sums[k], h, table[k].T)
    return {k: v / (2 * K) for k, v in sums.items()}
