"""System level of IIT 3.0: the cause-effect structure and big Phi over system cuts.

Big Phi of a system is the smallest extended-EMD distance between its cause-effect
structure and the structure left by a unidirectional cut A -/-> B (PyPhi 1.2 `sia` with
SYSTEM_CUTS = '3.0_STYLE'). A cut only changes mechanisms that were concepts or that it
splits. A cut system is built as PyPhi's `Subsystem.apply_cut` builds it (node TPMs from
the cut connectivity), and every small phi is cached on exactly what it reads, so each
cut recomputes only the purviews whose connections it severs. `pyphi_mode` picks which
of PyPhi's cut evaluations is reproduced: sequential (the uncut system's undamaged
causes and effects are reused as they are) or parallel (everything recomputed).
"""
from __future__ import annotations

import time

import numpy as np

from .ces_distance import ConceptPoint, ConceptSpace
from .emd import ExactEMD
from .fastemd import PyPhiEMD
from .mechanism import CAUSE, EFFECT, NO_MICE, MechanismAnalyzer
from .partitions import is_strongly_connected, powerset_masks, system_cuts
from .repertoires import Repertoires, bits_of
from .results import PYPHI_SETTINGS, Concept, IIT3Result, SystemCut
from .tpm import PreparedSystem, prepare_system

#: EMD arithmetic: "pyphi" reproduces PyPhi 1.2 with pyemd's C++ backend (its published
#: values); "exact" is the exact real-valued EMD (differs by up to a few 1e-6 per EMD).
EMD_ENGINES = {"pyphi": PyPhiEMD, "exact": ExactEMD}

#: PyPhi 1.2's two cut evaluations (config.PARALLEL_CUT_EVALUATION), which can differ in
#: the last decimals: "sequential" reuses the uncut system's undamaged MICE in cut systems,
#: "parallel" (PyPhi's default configuration) recomputes them (see MechanismAnalyzer.mice).
PYPHI_MODES = ("sequential", "parallel")


def _sort_key(mechanism: int) -> tuple:
    return (bin(mechanism).count("1"), bits_of(mechanism))


class SystemAnalysis:
    """Concepts and cut distances of one prepared system; caches live across cuts."""

    def __init__(self, system: PreparedSystem, emd: str = "pyphi", pyphi_mode: str = "sequential"):
        if emd not in EMD_ENGINES:
            raise ValueError(f"emd: {emd!r} is not one of {sorted(EMD_ENGINES)}")
        if pyphi_mode not in PYPHI_MODES:
            raise ValueError(f"pyphi_mode: {pyphi_mode!r} is not one of {list(PYPHI_MODES)}")
        engine = EMD_ENGINES[emd]()
        self.system = system
        self.k = len(system.nodes)
        self.reps = Repertoires(system)
        self.mechanisms = MechanismAnalyzer(self.reps, engine, reuse_uncut=pyphi_mode == "sequential")
        self.space = ConceptSpace(self.reps, engine)

    def cut_inputs(self, cut: tuple[int, int] | None) -> tuple[int, ...]:
        """Input masks with the edges from_nodes -> to_nodes removed."""
        if cut is None:
            return self.system.inputs
        source, target = cut
        return tuple(m & ~source if target >> j & 1 else m for j, m in enumerate(self.system.inputs))

    def concept(self, mechanism: int, inputs, cut: tuple[int, int] | None = None) -> ConceptPoint:
        """The concept of `mechanism`; phi = min(cause phi, effect phi). The (cheap) effect
        side goes first: when its phi is 0 the mechanism is no concept whatever its cause,
        so the cause side is not searched (its MICE stands in as phi 0, no purview)."""
        effect = self.mechanisms.mice(EFFECT, mechanism, inputs, cut)
        if effect.phi == 0:
            return ConceptPoint(mechanism, 0.0, NO_MICE, effect, inputs)
        cause = self.mechanisms.mice(CAUSE, mechanism, inputs, cut)
        return ConceptPoint(mechanism, min(cause.phi, effect.phi), cause, effect, inputs)

    def ces(self, mechanisms, inputs, cut: tuple[int, int] | None = None) -> list[ConceptPoint]:
        concepts = (self.concept(m, inputs, cut) for m in sorted(mechanisms, key=_sort_key))
        return [c for c in concepts if c.phi > 0]

    def evaluate_cut(self, cut: tuple[int, int], unpartitioned: list[ConceptPoint], cutoff: float = np.inf):
        """(phi, partitioned concepts) for one cut (PyPhi `evaluate_cut`). A cut whose
        Phi provably exceeds `cutoff` may get a lower bound above it instead."""
        source, target = cut
        split = {m for m in powerset_masks((1 << self.k) - 1, True) if m & source and m & target}
        mechanisms = {c.mechanism for c in unpartitioned} | split
        partitioned = self.ces(mechanisms, self.cut_inputs(cut), cut)
        return self.space.ces_distance(unpartitioned, partitioned, cutoff), partitioned

    def to_concept(self, c: ConceptPoint) -> Concept:
        nodes = self.system.nodes
        idx = lambda mask: tuple(nodes[i] for i in bits_of(mask))  # noqa: E731
        effect_joint = np.ones(1)
        for off, on in np.asarray(c.effect.repertoire):  # little-endian: first node fastest
            effect_joint = np.concatenate([effect_joint * off, effect_joint * on])
        return Concept(
            mechanism=idx(c.mechanism),
            phi=c.phi,
            cause_purview=idx(c.cause.purview),
            effect_purview=idx(c.effect.purview),
            cause_phi=c.cause.phi,
            effect_phi=c.effect.phi,
            cause_repertoire=np.array(c.cause.repertoire),
            effect_repertoire=effect_joint,
        )


def _evaluate_chunk(args):
    analysis, cuts, unpartitioned = args
    return [analysis.evaluate_cut(cut, unpartitioned) for cut in cuts]


def _evaluate_cuts(analysis: SystemAnalysis, cuts, unpartitioned, workers: int):
    """Phi of every cut, in cut order; stops at the first cut with Phi = 0 when sequential.

    Sequentially, a cut whose Phi is provably above the smallest so far only gets a lower
    bound above it: it cannot be the minimum, nor tie with the earlier cut.
    """
    if workers <= 1 or len(cuts) < 2:
        # Cuts severing few edges tend to have the smallest Phi: evaluated first, they
        # give a low cutoff early. Results stay in PyPhi's order, so ties go to the
        # first cut there (a bounded cut is strictly above the cutoff, never tied).
        inputs = analysis.system.inputs
        severed = [sum(bin(inputs[j] & source).count("1") for j in range(analysis.k) if target >> j & 1)
                   for source, target in cuts]
        out, best, zero = [None] * len(cuts), np.inf, len(cuts)
        for i in sorted(range(len(cuts)), key=lambda i: (severed[i], i)):
            if i > zero:
                continue  # PyPhi stops at its first cut with Phi 0: later ones do not count
            out[i] = analysis.evaluate_cut(cuts[i], unpartitioned, best)
            best = min(best, out[i][0])
            if out[i][0] == 0:
                zero = min(zero, i)
        return out[:zero + 1]
    import multiprocessing

    from cognition.runtime.lifeline import bound_pool  # plumbing, imported where the pool is made: phi stays pure

    # Each worker gets a copy of the analysis, with the caches the unpartitioned
    # structure filled; cuts are dealt round-robin so the workers' loads are similar.
    # The workers die with this process however it ends (cognition.runtime.lifeline).
    chunks = [cuts[i::workers] for i in range(workers)]
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    with bound_pool(workers, mp_context=ctx) as pool:
        parts = list(pool.map(_evaluate_chunk, [(analysis, ch, unpartitioned) for ch in chunks]))
    results = [None] * len(cuts)
    for w, part in enumerate(parts):
        for j, res in enumerate(part):
            results[w + j * workers] = res
    return results


def iit3(tpm, state, cm=None, nodes=None, *, emd: str = "pyphi", pyphi_mode: str = "sequential",
         workers: int = 1) -> IIT3Result:
    """Exact IIT 3.0 big Phi of a binary, conditionally independent system, as PyPhi 1.2.

    Args:
        tpm: state-by-node TPM, shape (2^N, N), rows little-endian (node 0 varies
            fastest), entry [r, j] = P(node j ON at t+1 | state r at t); also accepted:
            the multidimensional form [2]*N + [N] or a conditionally independent
            state-by-state TPM (2^N, 2^N).
        state: the current network state, N zeros and ones; must be reachable.
        cm: connectivity matrix (N, N), cm[i][j] = 1 for an edge i -> j; default all ones.
        nodes: network indices of the candidate system; default all nodes. Nodes outside
            it are fixed at their current state (background conditions).
        emd: "pyphi" (default) reproduces PyPhi 1.2's EMD arithmetic, pyemd's C++ backend
            (masses and costs rounded to 1e-6 before an exact integer transport), hence
            its published values; "exact" uses the exact EMD, which can differ from
            PyPhi by a few 1e-6 per EMD and, through ties, in the chosen purviews.
        pyphi_mode: which of PyPhi 1.2's cut evaluations to reproduce: "sequential"
            (PARALLEL_CUT_EVALUATION = False: cut systems reuse the uncut system's MICE
            that the cut does not damage) or "parallel" (PyPhi's default: everything
            recomputed). They differ only where a recomputed MICE's arrays differ from
            the reused ones in the last bits (Phi by 2e-6 in the cases measured).
        workers: processes for cut evaluation (1 = sequential); the result is the same.

    Returns:
        IIT3Result with big Phi, the MIP cut and the concepts (mechanism, small phi,
        cause/effect purviews and repertoires). PyPhi's settings, reproduced: MEASURE
        'EMD' (Hamming ground metric), PARTITION_TYPE 'BI', SYSTEM_CUTS '3.0_STYLE',
        PRECISION 6, single micro nodes have Phi 0.

    Raises:
        ValueError: non-binary or malformed TPM, conditionally dependent state-by-state
            TPM, wrong shapes, non-binary or unreachable state, bad node indices.
    """
    start = time.perf_counter()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers: expected an integer >= 1, got {workers!r}")
    system = prepare_system(tpm, state, cm, nodes)
    analysis = SystemAnalysis(system, emd, pyphi_mode)
    full_state = tuple(int(s) for s in state)

    def finish(phi, cut, ces, partitioned) -> IIT3Result:
        return IIT3Result(
            phi=float(phi),
            cut=cut,
            concepts=tuple(analysis.to_concept(c) for c in ces),
            partitioned_concepts=tuple(analysis.to_concept(c) for c in partitioned),
            nodes=system.nodes,
            state=full_state,
            seconds=time.perf_counter() - start,
            settings=dict(PYPHI_SETTINGS, emd=emd, PARALLEL_CUT_EVALUATION=pyphi_mode == "parallel"),
        )

    k = analysis.k
    if k <= 1 or not is_strongly_connected(system.inputs):
        return finish(0.0, None, [], [])
    unpartitioned = analysis.ces(powerset_masks((1 << k) - 1, True), system.inputs)
    if not unpartitioned:
        return finish(0.0, None, [], [])
    cuts = system_cuts(k)
    results = _evaluate_cuts(analysis, list(cuts), unpartitioned, workers)
    best = min(range(len(results)), key=lambda i: (results[i][0], i))
    phi, partitioned = results[best]
    source, target = cuts[best]
    cut = SystemCut(
        tuple(system.nodes[i] for i in bits_of(source)), tuple(system.nodes[i] for i in bits_of(target))
    )
    return finish(phi, cut, unpartitioned, partitioned)
