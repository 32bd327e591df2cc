"""IIT 4.0 of the running architecture by intervention (issue 46): each agent's TPM from perturbing its own loop.

IIT defines cause-effect power by what a system's state does under intervention, not by observation (Oizumi,
Albantakis & Tononi 2014; Albantakis et al. 2023). For each agent of a run:

1. **Record** (:func:`cognition.architecture.perturb.record`): the agent's own loop runs ``burn + cycles``
   cycles; every owner's state (each module's state tree, the workspace's broadcast and state) and every unit
   are kept for the last ``cycles``.
2. **Macro elements**: each selected unit is an element, binary: 1 when the unit is above its median over the
   agent's recorded cycles (for a unit with few distinct values, where "above the median" would be constant,
   at or above it). The median split gives each element both states about equally often, so every macro
   state can be reached from recorded micro states; its rule and its limits are in docs/iit4.md (Hoel et al.
   2016 and Marshall, Albantakis & Tononi 2018 on macro elements).
3. **Maximum-entropy perturbation**: every macro state s of the n elements is set ``draws`` times. Each owner's
   micro state is drawn, independently of the other owners', uniformly from the agent's recorded cycles in
   which that owner's selected units hold their values in s (an owner's units are read-outs of one micro state
   and are set together; owners of no selected unit are drawn from all recorded cycles).
4. **One update**: the real loop advances every such row one whole cycle with fresh noise
   (:class:`cognition.architecture.perturb.Intervention`), and the next macro states are counted with the
   same thresholds: the state-by-state TPM, and the state-by-node TPM (each element's marginal, PyPhi's
   convention) with the KL divergence between the two (what the product of marginals assumes).

:func:`iit4_by_intervention` then gives per agent phi_s (exact IIT 4.0, :func:`cognition.phi.iit4`) in the
agent's modal recorded macro state, its MIP, an interval from the TPM's sampling error (each marginal
resampled Binomial(draws, p); the basic bootstrap interval) and a test of phi_s > 0 against a null with the same
draws: the estimated TPM cut along its own MIP, directions included (the cut connections noised, every other one
kept), a reducible system (exact phi_s 0) as close to the estimate as one can be; phi_s of null TPMs drawn
Binomial(draws, p0) shows what sampling error alone gives a reducible system. Every phi_s here is tie-aware
(:func:`tie_tolerances`): partitions and states within their sampling error of a tie are treated as tied, since
exact phi_s jumps at ties that a sampled TPM never holds exactly.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cognition.analysis.statistics import t_interval
from cognition.architecture.perturb import ROWS_PER_LAUNCH, Intervention, record

MAX_ELEMENTS = 7  # 2^7 macro states per agent; phi_s of 7 nodes is about a second (docs/iit4.md)
#: the defaults of the analysis, the API and the command: 256 draws, from which the interval covers the known rings
#: at >= 90 % (docs/iit4.md); 19 nulls, so that p reaches 0.05
DEFAULTS = {"cycles": 300, "burn": 50, "draws": 256, "bootstrap": 50, "null": 19}


def macro_thresholds(units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(thresholds, strict) of shape (agents, n): each unit's median over the agent's cycles (``units``: (agents,
    cycles, n)), and whether the element is 1 above it (True) or at or above it (False, where "above" would
    never happen: a unit whose values at or above the median are all equal to it)."""
    med = np.median(units, axis=1)
    strict = (units > med[:, None, :]).any(axis=1)
    return med, strict


def binarize(units: np.ndarray, thresholds: np.ndarray, strict: np.ndarray) -> np.ndarray:
    """Macro states (..., n) int8 of ``units`` (..., n) against per-unit ``thresholds`` and ``strict`` (n,)."""
    return np.where(strict, units > thresholds, units >= thresholds).astype(np.int8)


def state_bits(n: int) -> np.ndarray:
    """(2^n, n) the bits of every state, little-endian (row s: bit i is (s >> i) & 1; PyPhi's order)."""
    return ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(np.int8)


def state_index(bits: np.ndarray) -> np.ndarray:
    """The little-endian index of each row of ``bits`` (..., n)."""
    return (bits.astype(np.int64) << np.arange(bits.shape[-1])).sum(axis=-1)


@dataclass
class PerturbationalTPM:
    """Per agent, the TPM of the selected units estimated by intervention (module docstring).

    tpm:        (agents, 2^n, n) state-by-node: P(element i is 1 at t+1 | macro state s set at t)
    counts:     (agents, 2^n, 2^n) int64 state-by-state counts of next macro states
    visits:     (agents, 2^n) how often each macro state was recorded (the agent's own dynamics)
    kl_bits:    (agents,) mean over states of KL(state-by-state || product of marginals), bits (sampling alone
                gives a product TPM some: :func:`kl_floor`)
    """

    unit_names: list
    owners: list
    tpm: np.ndarray
    counts: np.ndarray
    visits: np.ndarray
    draws: int
    cycles: int
    burn: int
    thresholds: np.ndarray
    kl_bits: np.ndarray
    grain: str = ("elements: the selected units of Phi, each binary above its median over the agent's recorded "
                  "cycles; update: one whole cycle of the loop (propose, compete and broadcast, learn) from each "
                  "owner's recorded state, with fresh noise")
    seed: int = 0

    @property
    def n(self) -> int:
        return len(self.unit_names)

    def modal_state(self) -> np.ndarray:
        """(agents,) the index of each agent's most often recorded macro state."""
        return self.visits.argmax(axis=1)


def _select(names: list, units) -> list[int]:
    if units is None:
        chosen = list(range(len(names)))
    else:
        unknown = [u for u in units if u not in names]
        if unknown:
            raise ValueError(f"units: {unknown[0]!r} is not one of the run's units ({', '.join(names)})")
        chosen = [names.index(u) for u in units]
        if len(set(chosen)) != len(chosen):
            raise ValueError(f"units: {list(units)} names a unit twice")
    if not 2 <= len(chosen) <= MAX_ELEMENTS:
        raise ValueError(f"units: {len(chosen)} elements; allowed 2 to {MAX_ELEMENTS} (2^n macro states, each set "
                         "by intervention; exact IIT 4.0 of n nodes)")
    return chosen


def picks_for(macro: np.ndarray, owners: list, selected: list[int], draws: int, rng: np.random.Generator,
              unit_names: list) -> dict:
    """owner -> (agents, 2^n, draws) recorded cycles: for every agent, macro state and draw, a cycle in which the
    owner's selected units held the state's values (uniform, with replacement; independent across owners).
    ``macro``: (agents, cycles, n_units) recorded macro states. ValueError naming the agent, the owner, its
    units and the values when no recorded cycle has them."""
    A, C = macro.shape[:2]
    n = len(selected)
    bits = state_bits(n)
    picks = {}
    for owner in dict.fromkeys(owners):
        mine = [j for j, u in enumerate(selected) if owners[u] == owner]  # positions among the elements
        out = np.empty((A, 2**n, draws), dtype=np.int64)
        if not mine:
            out[:] = rng.integers(0, C, size=out.shape)
            picks[owner] = out
            continue
        cols = [selected[j] for j in mine]
        for a in range(A):
            keys = state_index(macro[a][:, cols])  # (cycles,) the owner's recorded joint value
            for value in range(2 ** len(mine)):
                where = np.flatnonzero(keys == value)
                states = np.flatnonzero(state_index(bits[:, mine]) == value)
                if len(where) == 0:
                    vals = ", ".join(f"{unit_names[c]}={(value >> k) & 1}" for k, c in enumerate(cols))
                    raise ValueError(f"agent {a}: no recorded cycle has {vals} (owner {owner!r}, {C} cycles "
                                     "recorded): record more cycles, or choose fewer or other units")
                out[a, states] = rng.choice(where, size=(len(states), draws))
        picks[owner] = out
    return picks


def tpm_by_intervention(loop, *, cycles: int = DEFAULTS["cycles"], burn: int = DEFAULTS["burn"],
                        draws: int = DEFAULTS["draws"], seed: int = 0, units=None,
                        rows_per_launch: int = ROWS_PER_LAUNCH) -> PerturbationalTPM:
    """Each agent's TPM of ``units`` (names; default all of ``loop.unit_names``) by intervention on ``loop``
    (the agents' own loop, without twins): module docstring. Reproducible with ``seed`` (the picks; the noise of
    every row is the run seed's, keyed by the row)."""
    for name, value, low in (("cycles", cycles, 8), ("burn", burn, 0), ("draws", draws, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name}: got {value!r}; allowed an integer >= {low}")
    selected = _select(list(loop.unit_names), units)
    rec = record(loop, int(cycles), int(burn))
    units = rec.units[:rec.agents]  # the agents' rows (their donors' follow under the proposals lesion)
    thr, strict = macro_thresholds(units)
    macro = np.stack([binarize(units[a], thr[a], strict[a]) for a in range(rec.agents)])
    constant = [(a, rec.unit_names[u]) for a in range(rec.agents) for u in selected if macro[a, :, u].min() ==
                macro[a, :, u].max()]
    if constant:
        a, u = constant[0]
        raise ValueError(f"agent {a}: unit {u!r} is constant over the {rec.cycles} recorded cycles, so it has no "
                         "macro states to set: leave it out (units=) or record more cycles")
    rng = np.random.default_rng(seed)
    n, A = len(selected), rec.agents
    picks = picks_for(macro, rec.owners, selected, int(draws), rng, rec.unit_names)
    agents = np.repeat(np.arange(A), 2**n * draws)
    # under the proposals lesion each row's donor is a background: its whole state at a recorded cycle, uniform
    donor_cycles = rng.integers(0, rec.cycles, size=len(agents)) if rec.lesioned else None
    nxt = Intervention(loop, rec, rows_per_launch).advance(agents, {o: p.reshape(-1) for o, p in picks.items()},
                                                           donor_cycles=donor_cycles)
    nxt_bits = np.stack([binarize(nxt[agents == a][:, selected], thr[a, selected], strict[a, selected])
                         for a in range(A)]).reshape(A, 2**n, draws, n)
    tpm = nxt_bits.mean(axis=2)
    index = state_index(nxt_bits)  # (A, S, K)
    counts = np.zeros((A, 2**n, 2**n), dtype=np.int64)
    np.add.at(counts, (np.arange(A)[:, None, None], np.arange(2**n)[None, :, None], index), 1)
    visits = np.zeros((A, 2**n), dtype=np.int64)
    np.add.at(visits, (np.repeat(np.arange(A), rec.cycles), state_index(macro[:, :, selected]).reshape(-1)), 1)
    return PerturbationalTPM([rec.unit_names[u] for u in selected], [rec.owners[u] for u in selected], tpm, counts,
                             visits, int(draws), int(cycles), int(burn), thr[:, selected], product_kl(counts, tpm),
                             seed=int(seed))


def product_kl(counts: np.ndarray, tpm: np.ndarray) -> np.ndarray:
    """(agents,) mean over current states of KL(P(next | s) || prod_i P(next_i | s)) in bits, from state-by-state
    ``counts`` (agents, S, S) and state-by-node ``tpm`` (agents, S, n)."""
    n = tpm.shape[-1]
    p = counts / counts.sum(axis=2, keepdims=True)
    bits = state_bits(n)  # (S_next, n)
    q = np.prod(np.where(bits[None, None], tpm[:, :, None, :], 1 - tpm[:, :, None, :]), axis=-1)  # (A, S, S_next)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log2(p / q), 0.0)
    return terms.sum(axis=2).mean(axis=1)


def independent_null(tpm: np.ndarray) -> np.ndarray:
    """The null TPM (S, n) in which element i's next state depends only on its own current state (every element
    a part of its own: :func:`cut_null`); the null of an estimate without a MIP."""
    return cut_null(tpm, [(i,) for i in range(tpm.shape[1])])


def cut_null(tpm: np.ndarray, parts, directions=None) -> np.ndarray:
    """The null TPM (S, n) cut along a system partition (the MIP's ``parts``, network indices, with IIT 4.0's
    ``directions``: "cause" cuts the part's inputs from the rest, "effect" its outputs to the rest,
    "bidirectional" both; None: every part "cause", each part cut off from the others' inputs): each element's
    marginal is averaged, uniformly (as IIT's cut noises them), over the current states of the elements whose
    connections to it are cut. Reducible along the partition (exact phi_s 0), it keeps every connection the
    partition leaves, feedforward ones included."""
    S, n = tpm.shape
    bits = state_bits(n)
    noised = [set() for _ in range(n)]  # element -> the elements whose connections into it are cut
    for part, direction in zip(parts, directions or ["cause"] * len(parts)):
        inside, outside = set(part), set(range(n)) - set(part)
        if direction in ("cause", "bidirectional"):
            for i in inside:
                noised[i] |= outside
        if direction in ("effect", "bidirectional"):
            for i in outside:
                noised[i] |= inside
    null = np.empty_like(tpm)
    for i in range(n):
        kept = [j for j in range(n) if j not in noised[i]]
        key = state_index(bits[:, kept]) if kept else np.zeros(S, dtype=np.int64)
        size = 2 ** len(kept)
        null[:, i] = (np.bincount(key, weights=tpm[:, i], minlength=size) / np.bincount(key, minlength=size))[key]
    return null


def _defined(call):
    """``call()``, or None where it finds the state unreachable (no state leads to it: a TPM sampled with few draws
    can hold probabilities of exactly 0 and 1), where phi_s and big Phi are undefined."""
    try:
        return call()
    except ValueError as exc:
        if "unreachable" in str(exc):
            return None
        raise


def _phi(tpm: np.ndarray, state: np.ndarray, tolerances: dict | None = None):
    """phi.iit4 of ``tpm`` in ``state`` (with ``tolerances``: :func:`tie_tolerances`), or None where the state is
    unreachable under it."""
    from cognition.phi.iit4 import iit4

    return _defined(lambda: iit4(tpm, tuple(int(b) for b in state), validate_state=False, **(tolerances or {})))


#: resampled TPMs per agent from which :func:`tie_tolerances` measures the estimate's sampling error (a stream of
#: their own: the tolerances, so phi_s, do not depend on how many bootstrap TPMs the interval asks for)
TOLERANCE_RESAMPLES = 20
TOLERANCE_STREAM = 46


def tie_tolerances(tpm: np.ndarray, state: np.ndarray, draws: int, rng: np.random.Generator,
                   resamples: int = TOLERANCE_RESAMPLES) -> dict:
    """The tolerances within which ``phi.iit4`` treats an estimated TPM's cause and effect states, and its
    partitions, as tied (its ``state_tolerance`` and ``partition_tolerance``, one value per state and per
    partition).

    Exact phi_s is not continuous where two partitions tie on normalized phi (the larger phi wins) or two states
    on intrinsic information: a sampled TPM is never tied, so the plain estimate converges to the wrong side of
    the jump (the OR / AND / XOR network: exact 0.2937 bits, the plain estimate 0.147 at any number of draws;
    docs/iit4.md). A state or partition within kappa standard errors of its gap to the extreme is treated as
    tied, kappa = sqrt(ln draws) (generalised moment selection, Andrews & Soares 2010, Econometrica 78:119, with
    their kappa_n = sqrt(ln n)): true ties are kept with probability -> 1, and true gaps, fixed while the standard
    errors shrink like 1/sqrt(draws), are dropped, so the estimate is consistent for the tied value. Each gap's
    standard error (every state's ii minus the maximal state's; every partition's normalized phi minus the
    MIP's, at the estimate's maximal states) is its SD over ``resamples`` TPMs resampled from the counts (each
    marginal Binomial(draws, p) / draws). Empty (PyPhi's rule) where the MIP's normalized phi is itself within
    kappa standard errors of 0 (at phi_s = 0 every tied partition and pair has phi 0, so widening the ties there
    only lets noise in: the maximum over near-zero partitions with many severed connections; on independent
    self-loops it raised the test's false positives from 0 to 6 of 50), or where fewer than two resampled TPMs
    give finite values."""
    from cognition.phi.iit4.sia import tie_values

    keys = ("ii_cause", "ii_effect", "normalized")
    point = _defined(lambda: tie_values(tpm, state))
    if point is None or not all(np.isfinite(point[k]).all() for k in keys):  # unreachable: phi_s undefined anyway
        return {}
    zc, ze = point["cause_state"], point["effect_state"]
    best = int(np.argmin(point["normalized"]))
    reps = [_defined(lambda t=t: tie_values(t, state, cause_state=zc, effect_state=ze))
            for t in (rng.binomial(draws, tpm) / draws for _ in range(resamples))]
    reps = [r for r in reps if r is not None and all(np.isfinite(r[k]).all() for k in keys)]
    if len(reps) < 2:
        return {}
    kappa = math.sqrt(math.log(max(draws, 2)))
    if point["normalized"][best] <= kappa * np.std([r["normalized"][best] for r in reps], ddof=1):
        return {}  # the MIP within its noise of 0: a tie at 0 has phi 0 in every tied partition and pair

    def tolerance(key, at):
        values = np.stack([r[key] for r in reps])
        return kappa * (values - values[:, [at]]).std(axis=0, ddof=1)

    return {"state_tolerance": (tolerance("ii_cause", zc), tolerance("ii_effect", ze)),
            "partition_tolerance": tolerance("normalized", best)}


def kl_floor(tpm: np.ndarray, draws: int, rng: np.random.Generator, replicates: int = 20) -> float:
    """The mean :func:`product_kl` that sampling alone gives a TPM that is exactly the product of its marginals
    ``tpm`` (S, n) at ``draws`` per state: ``replicates`` state-by-state count tables drawn from it."""
    S, n = tpm.shape
    out = []
    for _ in range(replicates):
        nxt = (rng.random((S, draws, n)) < tpm[:, None, :]).astype(np.int8)
        counts = np.zeros((1, S, S), dtype=np.int64)
        np.add.at(counts, (0, np.arange(S)[:, None], state_index(nxt)), 1)
        out.append(product_kl(counts, nxt.mean(axis=1)[None])[0])
    return float(np.mean(out))


def _interval(values, confidence: float, estimate: float):
    """The basic bootstrap interval [2 est - q_hi, 2 est - q_lo] (Davison & Hinkley 1997, eq. 5.6), clipped at 0:
    phi_s is a minimum over partitions, biased low when several nearly tie, and the resampled values are
    biased low again around the estimate; reversing the quantiles corrects the bias's direction where the
    percentile interval doubles it (measured on the copy rings, docs/iit4.md)."""
    if not len(values):
        return None
    alpha = 1 - confidence
    lo, hi = np.quantile(values, [alpha / 2, 1 - alpha / 2])
    return [max(0.0, float(2 * estimate - hi)), max(0.0, float(2 * estimate - lo))]


def iit4_by_intervention(ptpm: PerturbationalTPM, *, bootstrap: int = DEFAULTS["bootstrap"],
                         null: int = DEFAULTS["null"], seed: int = 0,
                         confidence: float = 0.95, agents=None, complexes: bool = True) -> list[dict]:
    """Per agent (all, or the indices ``agents``), exact IIT 4.0 of the estimated state-by-node TPM in the
    agent's modal recorded macro state (module docstring): ``phi_s`` of all the elements, its ``mip`` (unit
    names), ``phi_s_ci`` (basic bootstrap interval over ``bootstrap`` TPMs resampled from the counts, each
    marginal Binomial(draws, p) / draws: :func:`_interval`), ``p_value`` against ``null`` TPMs drawn the same way from
    the estimate cut along its MIP (:func:`cut_null`: reducible, exact phi_s 0, every connection the MIP leaves
    kept) ((1 + #{null >= observed}) / (1 + null)); with ``complexes``, the maximal complex
    (``complex``: unit names, ``complex_phi_s``, ``complexes``: all of them) and its ``big_phi`` when it has at
    most 6 elements (``phi_structure``'s limit), each with an interval over the same resampled TPMs with the
    complex's units held fixed (``complex_phi_s_ci``, ``big_phi_ci``); ``kl_bits`` and ``kl_floor_bits`` (what
    sampling alone gives). Where the agent's state is unreachable under its sampled TPM (few draws), phi_s and
    the rest are None, with a ``note``."""
    from cognition.phi.iit4 import iit4, maximal_complex, phi_structure
    from cognition.phi.iit4.limits import MAX_STRUCTURE_NODES

    rng = np.random.default_rng(seed)
    tie_rng = np.random.default_rng((seed, TOLERANCE_STREAM))
    K, bits, names = ptpm.draws, state_bits(ptpm.n), ptpm.unit_names
    out = []
    for a in (range(ptpm.tpm.shape[0]) if agents is None else agents):
        tpm, state = ptpm.tpm[a], bits[ptpm.modal_state()[a]]
        ties = tie_tolerances(tpm, state, K, tie_rng)
        r = _phi(tpm, state, ties)
        if r is None:
            out.append({"agent": int(a), "state": {n: int(b) for n, b in zip(names, state)}, "phi_s": None,
                        "phi_s_ci": None, "p_value": None, "mip": None, "kl_bits": float(ptpm.kl_bits[a]),
                        "note": f"the state is unreachable under the sampled TPM ({K} draws): phi_s is undefined"})
            continue
        # resampled TPMs under which the state is unreachable (phi_s undefined) are left out of the distributions
        drawn = [(t, _phi(t, state, ties)) for t in (rng.binomial(K, tpm) / K for _ in range(bootstrap))]
        resampled, boots = [t for t, v in drawn if v is not None], [v.phi_s for _, v in drawn if v is not None]
        p0 = cut_null(tpm, r.partition.parts, r.partition.directions) if r.partition is not None else \
            independent_null(tpm)
        nulls = [v.phi_s for v in (_phi(rng.binomial(K, p0) / K, state, ties) for _ in range(null)) if v is not None]
        entry = {"agent": int(a), "state": {n: int(b) for n, b in zip(names, state)}, "phi_s": float(r.phi_s),
                 "phi_s_ci": _interval(boots, confidence, r.phi_s),
                 "p_value": (1 + sum(v >= r.phi_s for v in nulls)) / (1 + len(nulls)) if nulls else None,
                 "mip": r.partition.labelled(names) if r.partition is not None else None,
                 "tied": _tied(r),
                 "kl_bits": float(ptpm.kl_bits[a]),
                 "kl_floor_bits": kl_floor(tpm, K, rng)}
        if complexes:
            cx = maximal_complex(tpm, tuple(int(b) for b in state), validate_state=False)
            m = cx.maximal
            entry["complex"] = [names[i] for i in m.nodes] if m is not None else []
            entry["complex_phi_s"] = float(m.phi_s) if m is not None else 0.0
            entry["complexes"] = [[names[i] for i in c.nodes] for c in cx.complexes]
            entry["complex_phi_s_ci"] = entry["big_phi"] = entry["big_phi_ci"] = None
            st = tuple(int(b) for b in state)
            if m is not None and len(m.nodes) == ptpm.n:  # the whole system: its phi_s, tie-aware, is the one above
                entry["complex_phi_s"], entry["complex_phi_s_ci"] = entry["phi_s"], entry["phi_s_ci"]
            elif m is not None:  # the complex's units held fixed across the resampled TPMs
                sub = [_defined(lambda t=t: iit4(t, st, nodes=m.nodes, validate_state=False)) for t in resampled]
                entry["complex_phi_s_ci"] = _interval([v.phi_s for v in sub if v is not None], confidence, m.phi_s)
            if m is not None and len(m.nodes) <= MAX_STRUCTURE_NODES:
                big = [_defined(lambda t=t: phi_structure(t, st, nodes=m.nodes, validate_state=False))
                       for t in [tpm, *resampled]]
                if big[0] is not None:
                    entry["big_phi"] = float(big[0].big_phi)
                    entry["big_phi_ci"] = _interval([v.big_phi for v in big[1:] if v is not None], confidence,
                                                    big[0].big_phi)
        out.append(entry)
    return out


def _tied(result) -> dict:
    """How many cause and effect states the estimate treated as tied at the maximum (:func:`tie_tolerances`)."""
    return {"cause_states": len(result.cause_ties), "effect_states": len(result.effect_ties)}


def summarize(per_agent: list[dict], confidence: float = 0.95, alpha: float = 0.05) -> dict:
    """Across agents (independent replications) whose phi_s is defined (``undefined``: how many are not):
    phi_s's mean with its t interval (clipped at 0, where phi_s lies), quantiles, how many agents' tests reject at ``alpha``, and how often each set
    of units is the maximal complex."""
    values = np.array([e["phi_s"] for e in per_agent if e["phi_s"] is not None], dtype=float)
    n = len(values)
    mean, ci = None, None
    if n:
        mean, low, high = t_interval(values, confidence)
        ci = [max(0.0, low), high] if low is not None else None  # phi_s >= 0, so is its mean
    tested = [e["p_value"] for e in per_agent if e.get("p_value") is not None]
    kinds = {}
    for e in per_agent:
        if "complex" in e:
            key = "+".join(e["complex"]) or "(none)"
            kinds[key] = kinds.get(key, 0) + 1
    return {"agents": n, "undefined": len(per_agent) - n, "phi_s_mean": mean, "phi_s_mean_ci": ci,
            "phi_s_quantiles": {q: float(np.quantile(values, q)) for q in (0.0, 0.25, 0.5, 0.75, 1.0)} if n else None,
            "rejected": sum(p <= alpha for p in tested), "tested": len(tested), "alpha": alpha,
            "maximal_complexes": dict(sorted(kinds.items(), key=lambda kv: -kv[1]))}


def analyze(loop, *, mode: str, lesion, cycles: int | None = None, burn: int | None = None,
            draws: int | None = None, seed: int = 0, units=None, bootstrap: int | None = None,
            null: int | None = None, complexes: bool = True) -> dict:
    """The whole analysis of ``loop`` (the agents alone: :func:`cognition.simulator.build.intervention_loop`) as the
    command, the API and the report give it: ``units``, ``owners``, ``grain``, the counts, ``agents`` (per agent,
    :func:`iit4_by_intervention`) and ``summary`` (:func:`summarize`). ``mode`` and ``lesion`` are recorded. A
    count left None takes its :data:`DEFAULTS`."""
    given = {"cycles": cycles, "burn": burn, "draws": draws, "bootstrap": bootstrap, "null": null}
    cycles, burn, draws, bootstrap, null = (DEFAULTS[k] if v is None else v for k, v in given.items())
    ptpm = tpm_by_intervention(loop, cycles=cycles, burn=burn, draws=draws, seed=seed, units=units)
    agents = iit4_by_intervention(ptpm, bootstrap=bootstrap, null=null, seed=seed, complexes=complexes)
    return {"units": ptpm.unit_names, "owners": ptpm.owners, "grain": ptpm.grain, "mode": mode, "lesion": lesion,
            "cycles": cycles, "burn": burn, "draws": draws, "seed": seed, "bootstrap": bootstrap, "null": null,
            "agents": agents, "summary": summarize(agents)}
