"""Phi of each agent from its own series, bias-corrected, and its summary across agents.

Agents are independent architectures (each its own weights), so their couplings differ in
size and in sign. A covariance pooled over them describes their mixture, not any of them:
agents that are each strongly integrated, with the signs of their units flipped at random,
pool to a Phi near 0. So the ensemble estimand is defined per agent first and summarised
across agents, which are the replications:

    phi_a = min_B Phi(B; agent a)          (each measure's own minimum over bipartitions B)
    headline = mean_a phi_a                 (a t interval across agents, A - 1 df)

**Why the minimum.** The MIB chosen by the normalised criterion Phi_WMS / K (Barrett & Seth
2011) and Phi_R read off there is not continuous in the data: two bipartitions can nearly
tie on the criterion while their Phi_R differ by more than a bit (issue 30 measured 0.009
in the criterion and 1.3 bits in Phi_R), so the value jumps with noise. The measure's own
minimum over bipartitions, the minimum-information partition of Kitazono, Kanai & Oizumi
(2018, Entropy 20:173) and of Oizumi et al. (2016, PNAS 113:14817), is continuous: where two
bipartitions tie, either gives the same value. It is what ``analytical_var1(..., rule="minimum")``
computes exactly.

**Preparing each agent's units** (:func:`remove_shared_course`). Every unit is standardised per
agent, then regressed, with its own gain, on a template of the course the agents share, and the
residual is standardised again. Subtracting the mean trajectory alone leaves a shared course that each
agent carries with its own gain (a drive with per-agent gain factors: 50 % false positives in issue
30); regression removes it (Cole et al. 2019, NeuroImage 189:1, for "background" connectivity). A
shared input also reaches each agent with its own latency (stimulus-locked responses): a template at
the same step cannot remove a lagged copy (issue 42: 98 % false positives at 32 agents x 200 cycles
with lags of 0-2 cycles). So the template is aligned: each agent's latency (within +-MAX_LATENCY
cycles) is the shift that best matches the other agents' aligned mean, Woody's (1967, Med. Biol. Eng.
5:539) iterative alignment of single trials of variable latency. Every part is cross-fitted, so that
nothing of agent a enters its own template or its own latency: the agents are split in two halves;
the other half is aligned by Woody's iteration and split in two quarters; agent a's template is the
mean of each quarter's aligned mean shifted to the latency chosen against the other quarter's (choosing
and regressing on the same template overfits, as any choice among candidate regressors does: it cost
0.2 bits of Phi on the calibration's near-tied agents; sample splitting as in Chernozhukov et al. 2018,
Econometrics J. 21:C1). What it cannot remove: a shared input that reaches an agent with a latency beyond
MAX_LATENCY, or in a form (filter, sign pattern) no other agent carries.

**Small-sample bias.** A 50-cycle agent gives 49 lagged pairs for a (2n, 2n) covariance, so the
plug-in Phi of one agent is far off. Two corrections, each cited:

1. *Each log det by its Wishart bias* (``measures.every_bipartition(cov, dof)``): the exact
   expectation of the log det of a Gaussian sample covariance (Anderson 2003, Sec. 7.5.3;
   the unbiased Gaussian entropy of Ahmed & Gokhale 1989 and Misra, Singh & Demchuk 2005),
   which makes every mutual information in Phi unbiased for independent samples.
2. *A parametric bootstrap of each agent* (Efron & Tibshirani 1993, ch. 10; for
   autoregressions, Kreiss & Franke 1992, J. Time Ser. Anal. 13:297): a VAR(1) is fitted
   to each agent's own lagged covariance, R ensembles are simulated from the fitted agents
   and put through the same preparation and estimate, and per bipartition the mean
   replicate minus the fitted model's exact value is the remaining bias (serial
   dependence, the regression), subtracted from the agent's value at that bipartition.

**Selection.** The minimum of noisy values lies below the minimum of their means (the
winner's curse), most where bipartitions nearly tie. The point estimate subtracts the
bootstrap's estimate of that shift, mean_r min_B (theta(B) + e_r(B)) - min_B theta(B), with
e_r the centred replicate errors. The bootstrap sees the bipartitions spread as far apart as
the estimates are, so where true values tie within the noise this under-corrects; away from
Phi = 0 the shift is therefore computed with the gaps between bipartitions shrunk by their
noise (:func:`tie_aware`). What is left (biased low on strongly coupled, near-tied systems at
50 cycles) is measured in docs/calibration.md. The interval's upper
end therefore uses the half-median-unbiased estimator of an intersection bound of
Chernozhukov, Lee & Rosen (2013, Econometrica 81:667, Sec. 3-4): min_B (theta(B) + k s(B)),
k the median of the largest standardised replicate error over the bipartitions that could be
the minimum (their adaptive inequality selection), which is conservative where bipartitions
tie and too high where they do not; its lower end uses min_B theta(B) itself, before the
selection correction, which is low on average (E min <= min E) away from Phi = 0. The
interval is [mean of the lower values - t SE, mean of the upper estimates + t SE], t with A - 1
degrees of freedom, agents the replications (coverage measured by
``python -m cognition.bench calibration``).

**The lower end at Phi = 0** (issue 42). Where a bipartition's parts are independent but strongly
coupled inside, theta there is biased up: the parametric bootstrap fits spurious couplings across the
cut and corrects for the bias at that positive value, not at 0 (a bootstrap is not consistent at a
boundary, Andrews 2000, Econometrica 68:399); on dense coupled halves (radius 0.6-0.95, 32 x 50) the
interval lay above the true 0 in 43-50 % of systems. So each agent's value at B is also measured against
its own parts made independent: the plug-in value minus the mean plug-in value of trial-shuffled
surrogates (its part beside other agents' other parts, ``cognition.phi.cut_test.shuffled_means``), whose
expectation is 0 at a null bipartition whatever the parts' autocorrelation. A bipartition enters this
second minimum only where it may hold at 0 for the ensemble (its mean excess within sqrt(ln A) standard
errors of 0; Andrews & Soares 2010, Econometrica 78:119), so clearly positive bipartitions keep the
first; each agent's lower value is the smaller of the two (:func:`boundary_lower`). The surrogates carry
the agent's own variance schedule (each partner's units rescaled, cycle by cycle, to the agent's local
scale: ``shuffled_means``), so that a non-stationarity each agent carries in all its units (an SD jump at
a time of its own) inflates the surrogates' values as it inflates the agent's own (0.8.0's plain
surrogates left the interval above 0 on dense halves with such a jump in every system; docs/calibration.md).
"""
from __future__ import annotations

import collections
import dataclasses
import hashlib
import math
import threading

import numpy as np

from cognition.phi.measures import every_bipartition
from cognition.phi.resampling import t_quantile
from cognition.phi.simulate import simulate_agent_blocks
from cognition.phi.var1 import lagged_joint_covariance

MEASURES = ("phi_wms", "phi_r")
MIN_AGENTS = 5               # fewer: no across-agent interval (too few degrees of freedom)
MAX_NODES = 12               # every bipartition of every agent and replicate is evaluated (2047 at 12)
PAIRS_PER_VARIABLE = 3       # each agent needs >= 3 lagged pairs per variable of its (2n, 2n) covariance
BIAS_REPLICATES = 40         # bootstrap ensembles for the bias and selection corrections
REPLICATE_BLOCK_VALUES = 2**21  # simulated values (replicates x A x T x n) held at once: 16 MiB of paths
MAX_RADIUS = 0.99            # a fitted agent is shrunk to this spectral radius if it is not stationary
MAX_LATENCY = 3              # cycles: the per-agent latency of a shared input that the preparation aligns
WOODY_ITERATIONS = 3         # rounds of Woody's alignment of the template's agents
SHIFT_ROW_VALUES = 1024      # shifted(): at this many values an agent, one copy per agent beats gathering agents


def standardise_per_agent(X: np.ndarray) -> np.ndarray:
    """(..., agents, T, n) -> each agent's units centred and scaled to unit variance over time.

    Raises ValueError naming the agent and node when a unit is constant for an agent.
    """
    return _standardised(X, axis=-2)


def _standardised(X: np.ndarray, axis: int) -> np.ndarray:
    """X centred and scaled to unit variance along ``axis``, the time axis: -2 for (..., agents, T, n), -1 for the
    time-last layout (..., agents, n, T) the shared-course removal works in; ValueError for a constant unit."""
    T = X.shape[axis]
    mean = X.mean(axis=axis, keepdims=True)
    centred = X - mean
    sd = np.sqrt(np.einsum("...tn,...tn->...n" if axis == -2 else "...nt,...nt->...n", centred, centred)
                 / T)
    sd = np.expand_dims(sd, axis)
    # a unit is constant where sd <= 1e-12 max(1, max_t |x|); max_t |x| <= |mean| + sqrt(T) sd, so |x| is only
    # read where that bound cannot rule it out
    if np.any(sd <= 1e-12 * np.maximum(1.0, np.abs(mean) + math.sqrt(T) * sd)):
        flat = sd <= 1e-12 * np.maximum(1.0, np.abs(X).max(axis=axis, keepdims=True))
        if flat.any():
            index = np.argwhere(np.squeeze(flat, axis))[0]
            agent, node = int(index[-2]), int(index[-1])
            raise ValueError(f"node {node} of X is constant for agent {agent} (zero variance over time); "
                             "Phi is undefined for it")
    centred /= sd
    return centred


def shifted(Z: np.ndarray, lags: np.ndarray, axis: int = -2) -> np.ndarray:
    """(..., A, T, n), lags (..., A) -> Z_a(t + lags_a), the edges held at the nearest sample; ``axis=-1`` for the
    time-last layout (..., A, n, T).

    Each agent's series is copied in two slices in time, the overlap Z(c ..) and the held edge: the same values as
    an index per agent and time step, without one. Short series (fewer than SHIFT_ROW_VALUES values an agent)
    are copied per distinct lag (the latencies are few: -MAX_LATENCY..MAX_LATENCY), long ones per agent."""
    T = Z.shape[axis]
    lags = np.asarray(lags)
    lead = np.broadcast_shapes(Z.shape[:-2], lags.shape)
    Z, lags = np.broadcast_to(Z, lead + Z.shape[-2:]), np.broadcast_to(lags, lead)
    out = np.empty(lead + Z.shape[-2:], dtype=Z.dtype)

    def at(rows, span):  # rows: the lead index (arrays, or Ellipsis for every agent); span: a slice of time
        return (*rows, slice(None), span) if axis == -1 else (*rows, span, slice(None))

    if Z.shape[-1] * Z.shape[-2] >= SHIFT_ROW_VALUES:   # long series: each agent's own two slices, no gather
        groups = [((*index, Ellipsis), int(lags[index])) for index in np.ndindex(*lead)]
    else:                                               # short ones: the agents of each lag gathered at once
        groups = [((Ellipsis,) if np.all(lags == c) else np.nonzero(lags == c), int(c)) for c in np.unique(lags)]
    for rows, c in groups:
        body = slice(max(0, -c), T - max(0, c))
        out[at(rows, body)] = Z[at(rows, slice(body.start + c, body.stop + c))]
        if c > 0:
            out[at(rows, slice(T - c, T))] = Z[at(rows, slice(T - 1, T))]
        elif c < 0:
            out[at(rows, slice(0, -c))] = Z[at(rows, slice(0, 1))]
    return out


def best_latencies(Z: np.ndarray, template: np.ndarray, max_latency: int,
                   own: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """(..., A) the latency c in [-max_latency, max_latency] at which each agent's units Z_a(t) best match
    template(t - c), both in the time-last layout: Z (..., A, n, T), template (..., A or 1, n, T); the largest
    sum over units of the squared correlation. ``own``: Z's sums of squares and sums over time, when known.

    The shifted template m(t) = template(clip(t - c)) is never built: its products with Z are a sum over the
    overlapping samples (:func:`_lagged_products`, every latency in one pass over Z) plus the held edge's, and
    its centring enters through its sum, sum Z (m - mean m) = sum Z m - mean(m) sum Z and sum (m - mean m)^2 =
    sum m^2 - (sum m)^2 / T (equal to centring the shifted copy to rounding). The template's scale does not
    move the result (a squared correlation)."""
    T = Z.shape[-1]
    power_z, z_sum = (np.vecdot(Z, Z), Z.sum(axis=-1)) if own is None else own
    t_sum, t_sq = template.sum(axis=-1), np.vecdot(template, template)
    first, last = template[..., 0], template[..., T - 1]
    bodies = _lagged_products(Z, template, max_latency)
    scores = []
    for c in range(-max_latency, max_latency + 1):
        k = abs(c)
        body = bodies[..., c + max_latency]
        if c >= 0:   # m = [first] * c + template[0 : T - c]
            cut = template[..., T - c:]
            edge, edge_z = first, Z[..., :c].sum(axis=-1)
        else:        # m = template[k : T] + [last] * k
            cut = template[..., :k]
            edge, edge_z = last, Z[..., T - k:].sum(axis=-1)
        m_sum = t_sum - cut.sum(axis=-1) + k * edge
        m_sq = t_sq - np.vecdot(cut, cut) + k * edge * edge
        cross = body + edge * edge_z - m_sum / T * z_sum
        power = m_sq - m_sum * m_sum / T
        scores.append((cross ** 2 / np.maximum(power_z * power, 1e-300)).sum(axis=-1))
    return np.argmax(np.stack(scores, axis=-1), axis=-1) - max_latency


def _lagged_products(Z: np.ndarray, template: np.ndarray, max_latency: int) -> np.ndarray:
    """(..., 2 max_latency + 1): sum_t Z(t + c) template(t) over the t where both exist, c = -max_latency ..
    max_latency, time on the last axis. The times every c shares in one pass over a sliding window of Z (an
    einsum over a view), the few at either edge apart."""
    T, L = Z.shape[-1], max_latency
    if T < 4 * L + 2:   # too short for a shared middle: one product per latency
        return np.stack([np.vecdot(Z[..., max(0, c):T + min(0, c)], template[..., max(0, -c):T - max(0, c)])
                         for c in range(-L, L + 1)], axis=-1)
    window = np.lib.stride_tricks.sliding_window_view(Z, 2 * L + 1, axis=-1)     # [..., s, j] = Z(s + j)
    out = np.einsum("...t,...tj->...j", template[..., L:T - L], window)           # t in [L, T - L), c = j - L
    for c in range(-L, L + 1):
        head = slice(max(0, -c), L)                                              # t in [max(0, -c), L)
        tail = slice(T - L, T - max(0, c))                                       # t in [T - L, T - max(0, c))
        out[..., c + L] += (np.vecdot(Z[..., head.start + c:head.stop + c], template[..., head])
                            + np.vecdot(Z[..., tail.start + c:tail.stop + c], template[..., tail]))
    return out


def aligned_latencies(Z: np.ndarray, max_latency: int, iterations: int = WOODY_ITERATIONS) -> np.ndarray:
    """(..., G) Woody's (1967) alignment of a group of agents Z (..., G, T, n): each agent's latency against
    the mean of the others as aligned so far, ``iterations`` times, centred on the group's median latency."""
    return _aligned(np.ascontiguousarray(np.swapaxes(Z, -1, -2)), max_latency, iterations)


def _aligned(Z: np.ndarray, max_latency: int, iterations: int = WOODY_ITERATIONS) -> np.ndarray:
    """:func:`aligned_latencies` of Z in the time-last layout (..., G, n, T)."""
    lags = np.zeros(Z.shape[:-2], dtype=int)
    if Z.shape[-3] < 2:
        return lags
    own = np.vecdot(Z, Z), Z.sum(axis=-1)
    for _ in range(iterations):
        aligned = shifted(Z, lags, axis=-1)
        # the others' sum, in place (their mean's scale does not move a squared correlation)
        others = np.subtract(aligned.sum(axis=-3, keepdims=True), aligned, out=aligned)
        lags = best_latencies(Z, others, max_latency, own)
        lags = lags - np.round(np.median(lags, axis=-1, keepdims=True)).astype(int)
    return lags


def remove_shared_course(X: np.ndarray, max_latency: int = MAX_LATENCY) -> np.ndarray:
    """(..., agents, T, n) -> each unit's residual after regression on the shared course at its agent's latency.

    Each unit, standardised per agent (z), is regressed with its own gain (least squares, both centred) on
    a template of the course the agents share, shifted to the agent's latency, and the residual is
    standardised again (module docstring). Cross-fitted: for the agents of one half (even, odd indices),
    the other half is aligned by Woody's iteration and split in two quarters (its even and odd positions);
    the template is the mean of each quarter's aligned mean at the agent's latency as chosen against the
    other quarter's, so no template is shifted by its own noise and none holds anything of the agent.
    max_latency=0 regresses on the same step only. Needs >= 2 agents (with 2 or 3, one template serves
    both roles). Computed with time on the last axis (every sum over time a contiguous pass); the result is
    a (..., agents, T, n) view of that layout.
    """
    Z = _standardised(np.ascontiguousarray(np.swapaxes(X, -1, -2)), axis=-1)          # (..., A, n, T)
    A, T = Z.shape[-3], Z.shape[-1]
    if A < 2:
        raise ValueError(f"the shared course is removed across agents; X has {A} agent(s), at least 2 needed")
    out = np.empty_like(Z)
    even, odd = slice(0, None, 2), slice(1, None, 2)
    for own, other in ((even, odd), (odd, even)):
        group = Z[..., other, :, :]
        aligned = shifted(group, _aligned(group, max_latency), axis=-1)
        first = aligned[..., 0::2, :, :].mean(axis=-3, keepdims=True)
        second = aligned[..., 1::2, :, :].mean(axis=-3, keepdims=True) if group.shape[-3] > 1 else first
        z = Z[..., own, :, :]
        sums = np.vecdot(z, z), z.sum(axis=-1)
        # each quarter's mean at the latency the other quarter chose: neither is chosen by its own noise (the
        # course's scale does not move the regression's residual, so the two are summed, not averaged)
        course = shifted(np.broadcast_to(second, z.shape), -best_latencies(z, first, max_latency, sums), axis=-1)
        course += shifted(np.broadcast_to(first, z.shape), -best_latencies(z, second, max_latency, sums), axis=-1)
        # least squares on the centred course: its centring enters through its sum (a constant left in the
        # residual goes with the standardisation below)
        total = course.sum(axis=-1)
        power = np.vecdot(course, course) - total * total / T
        gain = (np.vecdot(z, course) - total * sums[1] / T) / np.where(power > 0, power, 1.0)
        course *= gain[..., None]
        np.subtract(z, course, out=out[..., own, :, :])
    return np.swapaxes(_standardised(out, axis=-1), -1, -2)


def agent_pairs(Z: np.ndarray, lag: int) -> np.ndarray:
    """(..., A, T, n) -> (..., A, T - lag, 2n) lagged pairs (X_{t-lag}, X_t) centred on each agent's own mean."""
    pairs = np.concatenate([Z[..., :-lag, :], Z[..., lag:, :]], axis=-1)
    return pairs - pairs.mean(axis=-2, keepdims=True)


def agent_covariances(Z: np.ndarray, lag: int) -> np.ndarray:
    """(..., A, T, n) -> (..., A, 2n, 2n) each agent's covariance of its own lagged pairs (divided by L - 1).

    Its blocks are matrix products of the past and present windows (views of Z), less L times the outer product
    of their means: the centred pairs' covariance without the pairs (equal to it to rounding for units whose
    mean is small beside their spread, as standardised units are: every caller's)."""
    past, present = Z[..., :-lag, :], Z[..., lag:, :]
    L = past.shape[-2]
    means = [window.mean(axis=-2) for window in (past, present)]
    blocks = [[np.matmul(np.swapaxes(a, -1, -2), b) - L * ma[..., :, None] * mb[..., None, :]
               for b, mb in zip((past, present), means)] for a, ma in zip((past, present), means)]
    cov = np.concatenate([np.concatenate(row, axis=-1) for row in blocks], axis=-2) / (L - 1)
    return 0.5 * (cov + np.swapaxes(cov, -1, -2))


def fit_var1(cov: np.ndarray, lag: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares VAR fit X_t = B X_{t-lag} + eps of each covariance (A, 2n, 2n).

    B = C_10 C_00^-1 and noise C_11 - B C_00 B^T (eigenvalues floored at 1e-6 of the largest). A B
    with spectral radius >= MAX_RADIUS is scaled down to it, so every fitted agent is stationary.
    (Correcting B's small-sample bias first, by Pope 1990 as Kilian 1998 does, was tried: it raised the
    fitted agents' spurious couplings with their autocorrelation and left more bias in Phi at a null
    bipartition, +0.2 instead of +0.12 bits at 32 agents x 50 cycles.)
    """
    n = cov.shape[-1] // 2
    c00, c10, c11 = cov[:, :n, :n], cov[:, n:, :n], cov[:, n:, n:]
    B = np.swapaxes(np.linalg.solve(c00, np.swapaxes(c10, 1, 2)), 1, 2)
    radius = np.abs(np.linalg.eigvals(B)).max(axis=-1)
    B = B * np.minimum(1.0, MAX_RADIUS / np.maximum(radius, 1e-300))[:, None, None]
    noise = c11 - B @ c00 @ np.swapaxes(B, 1, 2)
    vals, vecs = np.linalg.eigh(0.5 * (noise + np.swapaxes(noise, 1, 2)))
    vals = np.maximum(vals, 1e-6 * vals.max(axis=-1, keepdims=True))
    return B, (vecs * vals[:, None, :]) @ np.swapaxes(vecs, 1, 2)


def check_agent_series(agents: int, T: int, n: int, lag: int) -> None:
    """ValueError, saying why, when per-agent Phi cannot be estimated with calibrated accuracy."""
    if agents < 2:
        raise ValueError(f"per-agent Phi needs at least 2 agents (the shared course is removed across them), "
                         f"got {agents}")
    if n > MAX_NODES:
        raise ValueError(f"per-agent Phi evaluates every bipartition of each agent; n={n} nodes is above its "
                         f"limit of {MAX_NODES}; use centre='pooled'")
    need = PAIRS_PER_VARIABLE * 2 * n + lag
    if T < need:
        raise ValueError(f"each agent has T={T} time steps; per-agent Phi of {n} units needs T >= {need} "
                         f"({PAIRS_PER_VARIABLE} lagged pairs per variable of its {2 * n}-variable covariance) "
                         "for an estimate whose bias correction was calibrated; run more cycles "
                         "(docs/calibration.md)")


@dataclasses.dataclass(frozen=True)
class AgentPhi:
    """Per-agent Phi of one measure, every array over the A agents (bits).

    plug_in: min_B of the plug-in values; estimate: the bias-corrected point estimate of phi_a;
    lower: min_B of the bias-corrected values, before the selection correction (low on average:
    E min <= min E); upper: the half-median-unbiased (conservative) estimate; masks (A, n): each
    agent's minimising bipartition (after the bias correction), True on the part holding node 0.
    """

    measure: str
    plug_in: np.ndarray
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    masks: np.ndarray

    def summary(self, confidence: float) -> dict:
        """Mean over agents, its standard error and the interval (see the module docstring)."""
        A = len(self.estimate)
        t = t_quantile(0.5 + confidence / 2.0, A - 1)

        def mean_se(x):
            return float(x.mean()), float(x.std(ddof=1) / math.sqrt(A))

        (mean, se), (lo, lo_se), (hi, hi_se) = (mean_se(x) for x in (self.estimate, self.lower, self.upper))
        return {"estimate": mean, "se": se, "dof": A - 1,
                "ci": (min(mean - t * se, lo - t * lo_se), max(mean + t * se, hi + t * hi_se))}


def prepared(X: np.ndarray, remove_shared: bool) -> np.ndarray:
    """The units as the per-agent estimate sees them (shared course removed if asked, standardised)."""
    return remove_shared_course(X) if remove_shared else standardise_per_agent(X)


@dataclasses.dataclass(frozen=True)
class CorrectedTables:
    """Every bipartition of every agent: values (A, P) per measure, bias-corrected (``corrected``) and
    plug-in (``plain``); ``errors`` (R, A, P) the centred bootstrap replicate errors; masks (P, n);
    ``units`` (A, T, n) the units as prepared (``prepared``) and ``covariances`` (A, 2n, 2n) their lagged
    covariances, which the test and the read-outs at each agent's MIB use."""

    corrected: dict[str, np.ndarray]
    plain: dict[str, np.ndarray]
    errors: dict[str, np.ndarray]
    masks: np.ndarray
    pairs: int
    units: np.ndarray
    covariances: np.ndarray


# the last tables computed, with the generator's state after them: a run's analysis asks for the same agents'
# tables twice in a row (the headline's estimate, then the paired control's first side: same data, same seed),
# computed once; one entry, so that at most one ensemble's prepared units (a copy of its data) stay held
_MEMO: collections.OrderedDict = collections.OrderedDict()
_MEMO_SIZE = 1
_MEMO_LOCK = threading.Lock()


def _memo_key(X: np.ndarray, lag: int, rng: np.random.Generator, remove_shared: bool, replicates: int) -> tuple:
    """What corrected_tables' result depends on: X's bytes, the options, the generator's state and the tunables."""
    data = np.ascontiguousarray(X, dtype=np.float64)
    return (hashlib.blake2b(data, digest_size=20).digest(), data.shape, int(lag), bool(remove_shared),
            int(replicates), type(rng.bit_generator).__name__, repr(rng.bit_generator.state),
            REPLICATE_BLOCK_VALUES, MAX_LATENCY, WOODY_ITERATIONS, MAX_RADIUS)


def clear_tables_memo() -> None:
    """Forget the remembered tables (corrected_tables computes afresh)."""
    with _MEMO_LOCK:
        _MEMO.clear()


def corrected_tables(X: np.ndarray, lag: int, rng: np.random.Generator, remove_shared: bool = True,
                     replicates: int = BIAS_REPLICATES) -> CorrectedTables:
    """Phi_WMS and Phi_R of every bipartition of every agent of X (A, T, n), bias-corrected per bipartition.

    Steps 1 and 2 of the module docstring: Wishart-corrected log dets, then the parametric bootstrap's
    remaining bias (mean replicate minus the fitted agent's exact value) subtracted per bipartition.
    The last result is remembered by what it depends on (X's bytes, the options, ``rng``'s state; it holds a
    copy of X's prepared units until the next call computes, or ``clear_tables_memo``): the same call again
    returns the same tables (read-only arrays) and leaves ``rng`` where the computation would have left it, so
    the result and every later draw are those of computing afresh.
    """
    key = _memo_key(X, lag, rng, remove_shared, replicates)
    with _MEMO_LOCK:
        hit = _MEMO.get(key)
        if hit is not None:
            _MEMO.move_to_end(key)
    if hit is not None:
        rng.bit_generator.state = hit[1]
        return hit[0]
    tables = _corrected_tables(X, lag, rng, remove_shared, replicates)
    for array in (*tables.corrected.values(), *tables.plain.values(), *tables.errors.values(), tables.masks,
                  tables.units, tables.covariances):
        array.flags.writeable = False
    with _MEMO_LOCK:
        _MEMO[key] = (tables, rng.bit_generator.state)
        while len(_MEMO) > _MEMO_SIZE:
            _MEMO.popitem(last=False)
    return tables


def _corrected_tables(X: np.ndarray, lag: int, rng: np.random.Generator, remove_shared: bool,
                      replicates: int) -> CorrectedTables:
    """:func:`corrected_tables` computed."""
    A, T, n = X.shape
    check_agent_series(A, T, n, lag)
    units = np.ascontiguousarray(prepared(X, remove_shared))
    cov = agent_covariances(units, lag)
    dof = T - lag - 1
    data = every_bipartition(cov, dof)
    B, noise = fit_var1(cov, lag)
    model = every_bipartition(np.stack([lagged_joint_covariance(b, c, lag) for b, c in zip(B, noise)]))
    # the replicates' covariances, a block of replicates at a time: the paths of all of them at once are
    # R x A x T x n doubles, several times over while prepared (2 GB at 8 agents x 20 000 cycles)
    block = max(1, REPLICATE_BLOCK_VALUES // (A * T * n))
    covs = [agent_covariances(prepared(sims, remove_shared), lag)
            for sims in simulate_agent_blocks(B, noise, T, rng, replicates, block)]
    reps = every_bipartition(np.concatenate(covs).reshape(-1, 2 * n, 2 * n), dof)
    plain = every_bipartition(cov)
    corrected, errors = {}, {}
    for k in MEASURES:
        r = reps[k].reshape(replicates, A, -1)
        corrected[k] = data[k] - (r.mean(axis=0) - model[k])
        errors[k] = r - r.mean(axis=0)
    return CorrectedTables(corrected, {k: plain[k] for k in MEASURES}, errors, data["masks"], T - lag, units, cov)


def agent_minimum(tables: CorrectedTables, measure: str, shuffled: np.ndarray | None = None) -> AgentPhi:
    """Each agent's minimum over bipartitions of ``measure``: point estimate, lower and upper values, its MIB.

    shuffled (A, P): each agent's mean plug-in value at each bipartition with its parts independent
    (``cognition.phi.cut_test.shuffled_means``); given, the lower values take the boundary step of the
    module docstring (:func:`boundary_lower`).
    """
    theta, errors = tables.corrected[measure], tables.errors[measure]
    lower = theta.min(axis=1)
    if shuffled is not None:
        lower = np.minimum(lower, boundary_lower(tables.plain[measure] - shuffled))
    return AgentPhi(measure=measure, plug_in=tables.plain[measure].min(axis=1),
                    estimate=theta.min(axis=1) - selection_shift(tie_aware(theta, errors), errors),
                    lower=lower,
                    upper=intersection_bound(theta, errors, tables.pairs),
                    masks=tables.masks[theta.argmin(axis=1)])


def boundary_lower(excess: np.ndarray) -> np.ndarray:
    """(A,) each agent's minimum of ``excess`` (A, P), its plug-in value minus the shuffled surrogates' mean
    at each bipartition, over the bipartitions that may hold at 0 for the ensemble: those whose mean excess
    over agents is at most sqrt(ln A) standard errors above 0 (generalised moment selection, Andrews &
    Soares 2010, Econometrica 78:119, with their kappa = sqrt(ln n)); +inf where none may."""
    A = excess.shape[0]
    se = excess.std(axis=0, ddof=1) / math.sqrt(A)
    may_hold = excess.mean(axis=0) <= math.sqrt(math.log(A)) * se
    return np.where(may_hold[None, :], excess, np.inf).min(axis=1)


TIE_SHRINK = 2.0      # squared gaps lose this many variances of their noise (tie_aware)
BOUNDARY_SDS = 2.0    # ... for agents whose minimum lies this many replicate SDs above 0


def tie_aware(theta: np.ndarray, errors: np.ndarray) -> np.ndarray:
    """(A, P) the values the selection shift is computed at: theta, with near-ties restored away from 0.

    The bootstrap's own shift treats the bipartitions as spread as far apart as their estimates,
    which are spread further by the noise: where true values tie it under-corrects. For an agent whose
    minimum lies at least BOUNDARY_SDS replicate SDs above 0, each bipartition's gap to the minimum is
    shrunk by its noise, g' = sqrt(max(0, g^2 - TIE_SHRINK var(e_B - e_min))) (a moment correction of
    the squared gap, E g_hat^2 = g^2 + var, doubled for the gap to a minimum that was itself selected
    low). Nearer 0 the bootstrap's errors are too large (its fitted agents' spurious couplings; a
    bootstrap is not consistent at a boundary, Andrews 2000), so theta is kept there. The two
    constants were chosen on development draws (docs/calibration.md) and measured on fresh ones.
    """
    A = theta.shape[0]
    low = theta.argmin(axis=1)
    best = theta[np.arange(A), low]
    spread = errors.std(axis=0, ddof=1)[np.arange(A), low]
    gap = theta - best[:, None]
    noise = ((errors - errors[:, np.arange(A), low][:, :, None]) ** 2).mean(axis=0)
    shrunk = best[:, None] + np.sqrt(np.maximum(0.0, gap**2 - TIE_SHRINK * noise))
    return np.where((best > BOUNDARY_SDS * spread)[:, None], shrunk, theta)


def selection_shift(theta: np.ndarray, errors: np.ndarray) -> np.ndarray:
    """(A,) the bootstrap's E[min_B (theta + e)] - min_B theta (<= 0); theta (A, P), errors (R, A, P) centred."""
    return (theta[None] + errors).min(axis=-1).mean(axis=0) - theta.min(axis=-1)


def intersection_bound(theta: np.ndarray, errors: np.ndarray, samples: int, level: float = 0.5) -> np.ndarray:
    """(A,) the half-median-unbiased estimate of min_B theta(B) (Chernozhukov, Lee & Rosen 2013, Sec. 3-4).

    theta (A, P) bias-corrected values, errors (R, A, P) centred replicate errors, samples: the series
    length n in CLR's gamma_n = 1 - 0.1 / log n. s(B) is the replicate SD; the bipartitions that could be
    the minimum are those with theta(B) <= min_B' (theta(B') + k_g s(B')) + 2 k_g s(B), k_g the gamma_n
    quantile of max_B (-e(B) / s(B)) over every B (adaptive inequality selection); k is then the ``level``
    quantile of that maximum over the selected bipartitions, and the estimate min_B (theta + k s).
    """
    s = errors.std(axis=0, ddof=1)
    s = np.where(s > 0, s, np.finfo(float).tiny)
    worst = -errors / s                                            # (R, A, P)
    gamma = 1.0 - 0.1 / math.log(max(samples, 3))
    k_all = np.quantile(worst.max(axis=-1), gamma, axis=0)         # (A,)
    bound = (theta + k_all[:, None] * s).min(axis=-1)
    selected = theta <= bound[:, None] + 2.0 * k_all[:, None] * s
    k = np.quantile(np.where(selected[None], worst, -np.inf).max(axis=-1), level, axis=0)
    return (theta + k[:, None] * s).min(axis=-1)
