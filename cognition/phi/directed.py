"""Directed information of each direction of a loop, and the loop test (agents against the twins that cut it).

A loop between a set of module units m and a set of workspace units b is closed when each side drives
the other. Integrated-information measures at the cut between them cannot show this in a loop closed
within one step: to a whole-minus-sum measure, b_{t-1} -> m_t -> b_t is the workspace predicting itself,
which Phi subtracts (issue 41: a closed linear toy with the architecture's timing fails a Phi-based
criterion in 10 of 10 draws). Each direction is therefore measured by a directed dependence that respects
the order of one cycle (modules read the previous broadcast; the broadcast is built from the same
cycle's proposals), per agent, from the agent's own series:

    workspace -> modules   I(b_{t-1}; m_t | m_{t-1})     (transfer entropy / Granger causality, lag 1)
    modules -> workspace   I(m_t; b_t | b_{t-1})         (the instantaneous term the cycle's order makes causal)

For Gaussian variables each is a conditional mutual information, 1/2 log det ratios of partial covariances
(Schreiber 2000, Phys Rev Lett 85:461; Geweke 1982, JASA 77:304, for the instantaneous term; Barnett,
Barrett & Seth 2009, Phys Rev Lett 103:238701, for the equivalence of transfer entropy and Granger
causality for Gaussian processes), here in bits. Each log det is corrected by its exact Wishart bias
(:func:`cognition.phi.gaussian.wishart_logdet_bias`, the first correction Phi uses), so each value is
unbiased for independent samples; what serial dependence leaves is common to an agent and its twin, whose
series have the same length and dimensions, and cancels in expectation from their difference.

**The loop test** (:func:`loop_test`). For each direction, each agent is paired with its twin that cuts
that direction (same weights and noise, the cut path fed from an independent donor): the difference
agent minus twin is the information the direction carries in the agent beyond what the same anatomy
carries without it. The pairs are the replications: mean difference, t interval with pairs - 1 degrees of
freedom, one-sided p-value. Under the null (the direction adds nothing) agent and twin are exchangeable
given every input the pairs share (a drive common to all agents with per-agent gains and lags, a shared
start-up transient): both receive it through the same weights, and the donor's signal replaces one that
has no effect. So the differences are independent and centred at 0 given the shared input, and the
interval keeps its level; removing the shared course across agents first would couple the pairs (each
agent's residual depends on the others'), which a prototype of the ``bench directions`` toy measured to break
it (docs/calibration.md, "The loop test"). The loop is shown closed only when both intervals lie above 0, an
intersection-union test at the level of each (Berger 1982, Technometrics 24:295).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from cognition.phi.gaussian import NATS_TO_BITS, logdet, wishart_logdet_bias
from cognition.phi.resampling import t_quantile, t_upper_tail

#: the two directions of the loop, and the argument of :func:`loop_test` holding the twins that cut each
DIRECTIONS = ("workspace_to_modules", "modules_to_workspace")
DIRECTION_LABELS = {"workspace_to_modules": "workspace -> modules", "modules_to_workspace": "modules -> workspace"}
TWIN_ARGUMENTS = {"workspace_to_modules": "cut_workspace_to_modules",
                  "modules_to_workspace": "cut_modules_to_workspace"}
MEASURE = "directed information (bits): I(b_{t-1}; m_t | m_{t-1}) and I(m_t; b_t | b_{t-1})"
PAIRS_PER_VARIABLE = 3   # lagged pairs per variable of the largest joint covariance, as per-agent Phi asks
MIN_PAIRS = 3
RANK_TOLERANCE = 1e-9    # smallest eigenvalue of a correlation matrix below which its units are collinear


def _index_list(value, name: str, n: int) -> list[int]:
    try:
        idx = [int(i) for i in value]
    except TypeError:
        raise ValueError(f"{name} must be a list of unit indices, got {value!r}") from None
    if not idx:
        raise ValueError(f"{name} is empty; it must name at least one unit index (0 .. {n - 1})")
    bad = [i for i in idx if not 0 <= i < n]
    if bad:
        raise ValueError(f"{name} names unit index {bad[0]}, outside 0 .. {n - 1} (the arrays have {n} units)")
    if len(set(idx)) != len(idx):
        raise ValueError(f"{name} names a unit twice: {idx}")
    return idx


def check_loop_inputs(arrays: dict, modules, workspace) -> tuple[dict, list[int], list[int]]:
    """Validate :func:`loop_test`'s arguments; return float64 arrays and the two index lists.

    Raises ValueError, one line naming the argument, on a wrong shape, unequal shapes, NaN or inf, too few
    pairs or time steps, bad or overlapping index lists, or a unit that is constant for some pair.
    """
    out = {}
    for name, value in arrays.items():
        try:
            X = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a numeric array (pairs, T, n), got {type(value).__name__}") from None
        if X.ndim != 3:
            raise ValueError(f"{name} must have shape (pairs, T, n), got {X.ndim} dimension(s) {X.shape}")
        out[name] = X
    shapes = {X.shape for X in out.values()}
    if len(shapes) != 1:
        raise ValueError("agents, cut_workspace_to_modules and cut_modules_to_workspace must have the same shape "
                         "(pairs, T, n): got " + ", ".join(f"{k} {X.shape}" for k, X in out.items()))
    pairs, T, n = next(iter(shapes))
    m = _index_list(modules, "modules", n)
    w = _index_list(workspace, "workspace", n)
    if set(m) & set(w):
        raise ValueError(f"modules and workspace share unit {sorted(set(m) & set(w))[0]}; the two sides of the "
                         "loop must be disjoint")
    if pairs < MIN_PAIRS:
        raise ValueError(f"agents has {pairs} pair(s); the loop test needs at least {MIN_PAIRS} agent-twin pairs")
    largest = max(len(w) + 2 * len(m), len(m) + 2 * len(w))
    need = PAIRS_PER_VARIABLE * largest + 1
    if T < need:
        raise ValueError(f"agents has T={T} time steps; the loop test of {len(m)} module and {len(w)} workspace "
                         f"units needs T >= {need} ({PAIRS_PER_VARIABLE} lagged pairs per variable of its "
                         f"{largest}-variable covariance)")
    used = m + w
    for name, X in out.items():
        if not np.all(np.isfinite(X)):
            raise ValueError(f"{name} contains NaN or infinite values")
        sd = X[:, :, used].std(axis=1)
        flat = sd <= 1e-12 * np.maximum(1.0, np.abs(X[:, :, used]).max(axis=1))
        if flat.any():
            pair, unit = np.argwhere(flat)[0]
            raise ValueError(f"{name}: unit {used[unit]} is constant for pair {pair} (zero variance over time); "
                             "its directed information is undefined")
    return out, m, w


def _corrected_logdet(cov: np.ndarray, idx: list[int], dof: int) -> np.ndarray:
    """log det of cov[..., idx, idx] minus its Wishart bias (nats); (A,)."""
    sub = cov[:, np.asarray(idx)[:, None], np.asarray(idx)[None, :]]
    return logdet(sub, "covariance of an agent's units") - wishart_logdet_bias(len(idx), dof)


def _conditional_mi_bits(cov: np.ndarray, x: list[int], y: list[int], z: list[int], dof: int) -> np.ndarray:
    """I(x; y | z) = 1/2 (log det S_xz + log det S_yz - log det S_xyz - log det S_z), bias-corrected, bits."""
    ld = [_corrected_logdet(cov, idx, dof) for idx in (x + z, y + z, x + y + z, z)]
    return 0.5 * (ld[0] + ld[1] - ld[2] - ld[3]) * NATS_TO_BITS


def directed_information(X, modules, workspace) -> dict[str, np.ndarray]:
    """Per agent, each direction's directed information in bits: {direction: (agents,)}.

    X: (agents, T, n), each agent's own series (standardised per agent here; nothing is pooled across
    agents); ``modules``, ``workspace``: disjoint lists of unit indices. workspace_to_modules is
    I(b_{t-1}; m_t | m_{t-1}), modules_to_workspace I(m_t; b_t | b_{t-1}), each from the covariance of the
    agent's lagged pairs (x_{t-1}, x_t), Wishart-corrected (module docstring).
    """
    arrays, m, w = check_loop_inputs({"X": X}, modules, workspace)
    cov, dof = _lagged_covariances(arrays["X"][:, :, m + w])
    return _directed(cov, dof, len(m), independent_units([cov], len(m)))


def _lagged_covariances(X: np.ndarray) -> tuple[np.ndarray, int]:
    """(agents, T, k) -> each agent's covariance (agents, 2k, 2k) of its standardised lagged pairs, and its dof."""
    Z = (X - X.mean(axis=1, keepdims=True)) / X.std(axis=1, keepdims=True)
    pairs = np.concatenate([Z[:, :-1], Z[:, 1:]], axis=-1)
    pairs = pairs - pairs.mean(axis=1, keepdims=True)
    dof = pairs.shape[1] - 1
    cov = np.einsum("atp,atq->apq", pairs, pairs) / dof
    return 0.5 * (cov + np.swapaxes(cov, 1, 2)), dof


def independent_units(covs: list[np.ndarray], n_modules: int) -> np.ndarray:
    """(pairs, k) bool: the units each pair keeps, the same for the agent and its twins.

    ``covs``: each series' :func:`_lagged_covariances` (pairs, 2k, 2k) of the loop's k units, modules first.
    A unit that is a linear function of the pair's other units of the same side in any series (say a
    workspace whose broadcast never leaves one direction, so two of its read-outs are proportional) leaves
    the covariance singular. Per side, in the order given, a unit is kept when the lagged pairs of the kept
    units stay of full rank (smallest eigenvalue of their correlation matrix above RANK_TOLERANCE) in every
    series; each side keeps at least its first unit. Pairs that keep the same units are checked together.
    """
    pairs, k = covs[0].shape[0], covs[0].shape[-1] // 2
    keep = np.zeros((pairs, k), dtype=bool)
    for side in (range(n_modules), range(n_modules, k)):
        for pos in side:
            if pos == side.start:
                keep[:, pos] = True
                continue
            trial = keep.copy()
            trial[:, pos] = True
            ok = np.ones(pairs, dtype=bool)
            for pattern in np.unique(trial, axis=0):
                rows = np.flatnonzero(np.all(trial == pattern, axis=1))
                idx = np.flatnonzero(pattern)
                both = np.concatenate([idx, idx + k])
                for cov in covs:
                    ok[rows] &= np.linalg.eigvalsh(cov[rows][:, both[:, None], both[None, :]])[:, 0] > RANK_TOLERANCE
            keep[:, pos] = ok
    return keep


def _directed(cov: np.ndarray, dof: int, n_modules: int, keep: np.ndarray) -> dict[str, np.ndarray]:
    """Per agent, each direction (bits), from its lagged covariance (:func:`_lagged_covariances`) of the loop's
    k units, modules first; ``keep`` (agents, k): the units each agent keeps (:func:`independent_units`).
    Agents that keep the same units are computed together."""
    k = cov.shape[-1] // 2
    out = {d: np.empty(cov.shape[0]) for d in DIRECTIONS}
    for pattern in np.unique(keep, axis=0):
        rows = np.flatnonzero(np.all(keep == pattern, axis=1))
        mods = [i for i in range(n_modules) if pattern[i]]
        ws = [i for i in range(n_modules, k) if pattern[i]]
        c = cov[rows]
        out["workspace_to_modules"][rows] = _conditional_mi_bits(c, ws, [i + k for i in mods], mods, dof)
        out["modules_to_workspace"][rows] = _conditional_mi_bits(c, [i + k for i in mods], [i + k for i in ws], ws,
                                                                 dof)
    return out


@dataclasses.dataclass(frozen=True)
class DirectionTest:
    """One direction of the loop: agents against the twins that cut it (bits; arrays over pairs)."""

    direction: str
    agents_bits: np.ndarray
    twins_bits: np.ndarray
    confidence: float
    twins_identical: bool

    @property
    def pairs(self) -> int:
        return int(len(self.agents_bits))

    @property
    def differences_bits(self) -> np.ndarray:
        return self.agents_bits - self.twins_bits

    @property
    def difference_bits(self) -> float:
        return float(self.differences_bits.mean())

    @property
    def se_bits(self) -> float:
        return float(self.differences_bits.std(ddof=1) / math.sqrt(self.pairs))

    @property
    def ci(self) -> tuple[float, float]:
        """t interval of the mean difference across pairs (pairs - 1 degrees of freedom)."""
        t = t_quantile(0.5 + self.confidence / 2.0, self.pairs - 1)
        d, se = self.difference_bits, self.se_bits
        return (d - t * se, d + t * se)

    @property
    def p_value(self) -> float:
        """One-sided: the probability of a mean difference this large if the direction added nothing."""
        se = self.se_bits
        if se == 0.0:
            return 1.0 if self.difference_bits <= 0.0 else 0.0
        return t_upper_tail(self.difference_bits / se, self.pairs - 1)

    @property
    def shown(self) -> bool:
        return self.ci[0] > 0.0

    def to_dict(self) -> dict:
        return {"intact_bits": float(self.agents_bits.mean()), "twin_bits": float(self.twins_bits.mean()),
                "difference_bits": self.difference_bits, "difference_se_bits": self.se_bits,
                "difference_ci_bits": list(self.ci), "p_value": self.p_value,
                "excludes_zero": bool(self.ci[0] > 0 or self.ci[1] < 0), "twins_identical": self.twins_identical,
                "pairs": self.pairs, "dof": self.pairs - 1}


@dataclasses.dataclass(frozen=True)
class LoopTest:
    """The loop test's result: ``passed``, ``reason`` and ``directions[d]`` for d in DIRECTIONS; ``collinear``:
    {unit index (str): pairs that left it out}, units that were a linear function of their side's other units
    in some pair (:func:`independent_units`), empty when every pair kept every unit."""

    directions: dict
    confidence: float
    collinear: dict = dataclasses.field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(self.directions[d].shown for d in DIRECTIONS)

    @property
    def reason(self) -> str:
        shown = {d: self.directions[d].shown for d in DIRECTIONS}
        if all(shown.values()):
            return ("both directions shown: the broadcast carries information into the modules beyond their own "
                    "past, and the proposals into the broadcast beyond its own past, more in the agents than in "
                    "the twins that cut each direction")
        if shown["workspace_to_modules"]:
            return ("the workspace is shown to drive the modules, but the modules' drive of the workspace is not "
                    "shown (the proposals carry no more information into the broadcast than in the twins whose "
                    "workspace competes over a donor's proposals)")
        if shown["modules_to_workspace"]:
            return ("the modules are shown to drive the workspace, but the workspace's drive of the modules is not "
                    "shown (the broadcast carries no more information into the modules than in the twins that "
                    "read a donor's broadcast)")
        return "neither direction is shown"

    def to_dict(self) -> dict:
        return {"passed": self.passed, "reason": self.reason, "confidence": self.confidence, "measure": MEASURE,
                "directions": {d: self.directions[d].to_dict() for d in DIRECTIONS}, "collinear": dict(self.collinear)}


def loop_test(agents, cut_workspace_to_modules, cut_modules_to_workspace, modules, workspace, *,
              confidence: float = 0.95) -> LoopTest:
    """Is the loop between ``modules`` and ``workspace`` closed? Each direction, agents against the twins that cut it.

    agents, cut_workspace_to_modules, cut_modules_to_workspace: (pairs, T, n) series of the same n units,
    row k of each the same agent (its twins share its weights and noise; in each, one direction of the
    loop is fed from an independent donor). modules, workspace: disjoint lists of unit indices (other
    units are ignored). Returns a :class:`LoopTest`: ``.passed`` (both directions' intervals above 0),
    ``.reason``, and ``.directions[d]`` (d in DIRECTIONS) with ``.difference_bits``, ``.ci``, ``.p_value``.
    A unit that is a linear function of its side's other units in a pair is left out of that pair, on all
    three of its series alike (``.collinear`` counts them).
    The test draws no random numbers: the same arrays give the same result. Bad input raises one
    ValueError line naming the argument. Definitions and calibration: docs/phi.md, docs/calibration.md.
    """
    if not isinstance(confidence, (int, float)) or not 0.5 <= float(confidence) < 1.0:
        raise ValueError(f"confidence must be a number in [0.5, 1), got {confidence!r}")
    arrays, m, w = check_loop_inputs({"agents": agents, "cut_workspace_to_modules": cut_workspace_to_modules,
                                      "cut_modules_to_workspace": cut_modules_to_workspace}, modules, workspace)
    covs = {name: _lagged_covariances(X[:, :, m + w]) for name, X in arrays.items()}  # the loop's units, modules first
    keep = independent_units([c for c, _ in covs.values()], len(m))  # the same units for an agent and its twins
    mine = _directed(*covs["agents"], len(m), keep)
    out = {}
    for d in DIRECTIONS:
        twins = TWIN_ARGUMENTS[d]
        identical = bool(np.array_equal(arrays[twins], arrays["agents"]))
        theirs = mine if identical else _directed(*covs[twins], len(m), keep)
        out[d] = DirectionTest(d, mine[d], theirs[d], float(confidence), identical)
    units = m + w
    dropped = {str(units[i]): int((~keep[:, i]).sum()) for i in range(keep.shape[1]) if not keep[:, i].all()}
    return LoopTest(out, float(confidence), dropped)
