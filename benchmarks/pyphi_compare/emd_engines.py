"""Should POT's `ot.emd2` replace the hand-written EMDs of `cognition.phi.iit3`?

    OPENBLAS_NUM_THREADS=1 python benchmarks/pyphi_compare/emd_engines.py --json out.json
    python benchmarks/pyphi_compare/emd_engines.py --skip-reference --repeats 5   # timings only

A script, never imported by the package; it needs POT (`pip install pot`), which is not
a dependency. It registers, in this process only, a third EMD engine "pot" beside the
package's "pyphi" (default: pyemd's C++ FastEMD arithmetic, what PyPhi 1.2's published
values come from) and "exact" (exact LP: Lipschitz vertices, hypercube network simplex,
HiGHS), by adding it to `cognition.phi.iit3.system.EMD_ENGINES`. The "pot" engine has the
interface of `emd.ExactEMD` and goes through the package's exact-engine code path (it
reports `name = "exact"`), but every EMD it computes is `ot.emd2` in float64 on the full
joint distributions with the Hamming ground metric, as PyPhi 2.0 does:

- cause small phi (min over partitions of EMD(whole, partitioned repertoire)); partitions
  are pruned with the same marginal lower bounds as ExactEMD (a bound, not an EMD);
- concept distances: cause EMD and effect EMD (the effect side on the product joint,
  where the exact engine uses the closed form sum |P_1(ON) - P_2(ON)|);
- the extended EMD between cause-effect structures (transport under PyPhi's cost matrix).

`--engines ... pyphi_pot` adds a fourth engine: the default engine's FastEMD arithmetic
(quantisation to 1e-6, free excess, extra-mass term) with `ot.emd` as the exact integer
transport of its step 3, in place of network_simplex.py / transport.py (switched on around
that engine's iit3 calls only).

Not an EMD engine matter, so the same for all engines: the effect small phi (PyPhi 1.2's
`effect_emd`, a closed form, never pyemd) and the pruning upper bounds of
`engine.upper_bounds` (the "pot" engine borrows ExactEMD's: exact or spanning-tree costs,
+1e-12).

Parts (all in one process, engines interleaved case by case):
  (a) Phi, cut and small phi of every network of tests/reference/iit3_{sparse,dense}.json
      (PyPhi 1.2.0 sequential mode; --parallel adds its parallel-mode Phi where the modes
      differ), the PyPhi-valued cases of tests/test_phi_iit3.py and
      tests/test_phi_iit3_random.py, and benchmarks/pyphi_compare's cases (sparse5 and the
      6-node ring with --six), against PyPhi's values: max |diff|, count within 2e-6;
  (b) iit3 seconds per engine (median of --repeats on the benchmark cases; per node count);
  (c) raw EMD calls on random pairs over 2^2..2^6 states, and transports of 5-40 bins.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import ot  # noqa: E402

from cognition.benchmarks.iit3 import cases as bench_cases  # noqa: E402
from cognition.phi.iit3 import ces_distance as iit3_ces  # noqa: E402
from cognition.phi.iit3 import fastemd as iit3_fastemd  # noqa: E402
from cognition.phi.iit3 import iit3  # noqa: E402
from cognition.phi.iit3 import system as iit3_system  # noqa: E402
from cognition.phi.iit3.emd import ExactEMD, hamming_emd_diffs, marginal_lower_bounds, transport_emd  # noqa: E402
from cognition.phi.iit3.fastemd import hamming_matrix, pyemd_emd, pyemd_hamming  # noqa: E402

TOL = 2e-6
ENGINES = ["pyphi", "exact", "pot"]  # --engines: also "pyphi_pot"


def pot_emd2(a, b, cost, log: list | None = None) -> float:
    """`ot.emd2` in float64; POT's warnings (iteration limit, ...) go to `log`."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    cost = np.ascontiguousarray(cost, dtype=np.float64)
    value, info = ot.emd2(a, b, cost, log=True, numItermax=10_000_000)
    if info.get("warning") and log is not None:
        log.append(str(info["warning"]))
    return float(value)


class POTEMD:
    """EMD engine with the interface of `emd.ExactEMD`, every EMD by `ot.emd2`."""

    name = "exact"  # the package's code path for engines that take blocks and do the transport
    label = "pot"

    def __init__(self, prune: bool = True):
        self.prune = prune
        self.warnings: list[str] = []
        self.calls = 0
        self._bounds = ExactEMD()

    def emd(self, a, b, cost) -> float:
        self.calls += 1
        return pot_emd2(a, b, cost, self.warnings)

    def mip_distance(self, whole, parts, part_blocks, whole_blocks, purview) -> float:
        """min over rows of `parts` of EMD(whole, row), Hamming metric on the full joint."""
        cost = hamming_matrix(len(whole).bit_length() - 1)
        order = np.arange(len(parts))
        bounds = None
        if self.prune:
            bounds = marginal_lower_bounds(whole[None, :] - parts)
            order = np.argsort(bounds, kind="stable")
        best = np.inf
        for j in order:
            if bounds is not None and bounds[j] >= best:
                break
            best = min(best, self.emd(whole, parts[j], cost))
        return best

    def upper_bounds(self, wholes, parts):
        return self._bounds.upper_bounds(wholes, parts)

    def hamming(self, p, p_blocks, q, q_blocks, purview) -> float:
        return self.emd(p, q, hamming_matrix(len(p).bit_length() - 1))

    def transport(self, first, second, cost) -> float:
        first, second = np.array(first, float), np.array(second, float)
        for a, b in ((first, second), (second, first)):  # as ExactEMD: a negative surplus
            neg = a < 0                                     # belongs to the other side
            b[neg] -= a[neg]
            a[neg] = 0.0
        return self.emd(first, second, cost)


_original_effect_distance = iit3_ces.ConceptSpace._effect_distance


def _effect_distance(self, a, b):
    """For the POT engine: the effect EMD of the expanded product joints by `ot.emd2`."""
    if getattr(self.engine, "label", None) != "pot":
        return _original_effect_distance(self, a, b)
    union = a.effect.purview | b.effect.purview
    x = iit3_ces._product(self._expanded_effect(a.effect, union, a.inputs))
    y = iit3_ces._product(self._expanded_effect(b.effect, union, b.inputs))
    return self.engine.emd(x, y, hamming_matrix(len(x).bit_length() - 1))


# "pyphi_pot": the default engine's arithmetic (FastEMD's quantisation, steps 1, 2, 4) with
# `ot.emd` as the exact integer transport of step 3, in place of network_simplex.py /
# transport.py; switched on around each iit3 call of that engine (module globals of fastemd).
_POT_CORE = [False]
POT_CORE_CALLS = [0]  # integer transports solved by ot.emd (the "pyphi_pot" engine)
_original_integer_emd_hat = iit3_fastemd.integer_emd_hat
_original_integer_hamming = iit3_fastemd._integer_hamming_emd_hat


def pot_integer_emd_hat(ip, iq, icost, flows=None, basis=None) -> float:
    """`fastemd.integer_emd_hat` by `ot.emd`: integer masses and costs (<= 1e6 each, so
    every cost and flow is an integer below 2^53: the network simplex is exact)."""
    if not _POT_CORE[0]:
        return _original_integer_emd_hat(ip, iq, icost, flows, basis)
    POT_CORE_CALLS[0] += 1
    swapped = ip.sum() < iq.sum()
    if swapped:
        ip, iq, icost = iq, ip, icost.T
    src, dst = np.flatnonzero(ip), np.flatnonzero(iq)
    if len(dst) == 0:
        return 0.0
    a, b, cost = ip[src], iq[dst], icost[np.ix_(src, dst)]
    excess = a.sum() - b.sum()  # the heavier side's excess leaves for free
    if excess > 0:
        b, cost = np.r_[b, excess], np.c_[cost, np.zeros(len(a))]
    plan = ot.emd(np.ascontiguousarray(a), np.ascontiguousarray(b), np.ascontiguousarray(cost),
                  numItermax=10_000_000)
    value = float((plan * cost).sum())
    if flows is not None:
        for i, j in zip(*np.nonzero(plan[:, :len(dst)] > 0), strict=True):
            x, y = int(src[i]), int(dst[j])
            flows[(y, x) if swapped else (x, y)] = plan[i, j]
    return value


def pot_integer_hamming(ip, iq, icost, k) -> float:
    if not _POT_CORE[0]:
        return _original_integer_hamming(ip, iq, icost, k)
    return pot_integer_emd_hat(ip, iq, icost)


# The local registry: this process only; the package is not edited.
iit3_system.EMD_ENGINES["pot"] = POTEMD
iit3_system.EMD_ENGINES["pyphi_pot"] = iit3_fastemd.PyPhiEMD
iit3_ces.ConceptSpace._effect_distance = _effect_distance
iit3_fastemd.integer_emd_hat = pot_integer_emd_hat
iit3_fastemd._integer_hamming_emd_hat = pot_integer_hamming


# --------------------------------------------------------------------------- cases
def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _key(mechanism) -> tuple[int, ...]:
    if isinstance(mechanism, str):
        return tuple(int(i) for i in mechanism.split(","))
    return tuple(mechanism)


def reference_cases(parallel: bool, six: bool) -> list[dict]:
    """Every case with PyPhi 1.2.0 values: name, source, inputs, phi, small phis (or None)."""
    out = []
    for kind in ("sparse", "dense"):
        ref = json.loads((ROOT / "tests" / "reference" / f"iit3_{kind}.json").read_text())
        for net in ref["networks"]:
            base = dict(tpm=np.array(net["tpm"]), cm=np.array(net["cm"]), state=tuple(net["state"]), nodes=None)
            out.append(dict(base, name=f"{kind}/{net['name']}", source=f"iit3_{kind}.json", mode="sequential",
                            n=net["n"], phi=net["phi"], cut=net["cut"],
                            small={_key(m): v for m, v in net["small_phis"].items()}))
            if parallel and net["parallel"]["phi"] != net["phi"]:
                out.append(dict(base, name=f"{kind}/{net['name']}:parallel", source=f"iit3_{kind}.json",
                                mode="parallel", n=net["n"], phi=net["parallel"]["phi"],
                                cut=net["parallel"]["cut"], small=None))
    t = _load(ROOT / "tests" / "phi" / "test_phi_iit3.py")
    published = [  # tests/phi/test_phi_iit3.py (PyPhi 1.2.0 test_big_phi.py / test_macro_blackbox.py)
        ("basic", t.BASIC_TPM, t.BASIC_CM, (1, 0, 0), None, 2.3125, ((1, 2), (0,)), t.BASIC_SMALL),
        ("basic_complete", t.BASIC_TPM, None, (1, 0, 0), None, 2.3125, ((1, 2), (0,)), t.BASIC_SMALL),
        ("xor", t.XOR_TPM, t.XOR_CM, (0, 0, 0), None, 1.874999, ((0,), (1, 2)), None),
        ("noised", t.NOISED_TPM, np.ones((3, 3)), (1, 0, 0), None, 1.928592, ((1, 2), (0,)), t.NOISED_SMALL),
        ("big_0123", t.BIG_TPM, None, (1,) * 5, (0, 1, 2, 3), 0.366389, ((1, 3), (0, 2)), t.BIG_0123_SMALL),
        ("micro", t.MICRO_SBS, None, (1, 1, 1, 1), None, 0.974411, None, t.MICRO_SMALL),
        ("rule152", t.RULE152_TPM, t.RULE152_CM, (0,) * 5, None, 6.952286, None, t.RULE152_SMALL),
        ("big", t.BIG_TPM, None, (1,) * 5, None, 10.729491, ((2, 4), (0, 1, 3)), t.BIG_SMALL),
    ]
    for name, tpm, cm, state, nodes, phi, cut, small in published:
        n = len(nodes) if nodes is not None else np.asarray(tpm).shape[0].bit_length() - 1
        out.append(dict(name=f"published/{name}", source="test_phi_iit3.py", mode="sequential", n=n,
                        tpm=np.asarray(tpm), cm=None if cm is None else np.asarray(cm), state=state, nodes=nodes,
                        phi=phi, cut=cut, small=small))
    r = _load(ROOT / "tests" / "phi" / "test_phi_iit3_random.py")
    for name, c in sorted(r.CASES.items()):
        n = len(c["nodes"]) if c["nodes"] is not None else np.asarray(c["tpm"]).shape[1]
        out.append(dict(name=f"random/{name}", source="test_phi_iit3_random.py", mode="sequential", n=n,
                        tpm=np.array(c["tpm"]), cm=np.array(c["cm"]), state=tuple(c["state"]), nodes=c["nodes"],
                        phi=c["phi"], cut=c["cut"], small=dict(c["small_phis"])))
    b = bench_cases()  # benchmarks/pyphi_compare/README.md: PyPhi 1.2.0 values of compare.py runs
    extra = [("sparse5", 0.374123)] + ([("rule152_6", 14.697911)] if six else [])
    for name, phi in extra:
        c = b[name]
        n = len(c["nodes"]) if c["nodes"] is not None else c["tpm"].shape[1]
        out.append(dict(name=f"compare/{name}", source="pyphi_compare/README.md", mode="sequential", n=n,
                        tpm=c["tpm"], cm=c["cm"], state=tuple(c["state"]), nodes=c["nodes"], phi=phi, cut=None,
                        small=None))
    return out


def run_case(case: dict, engine: str):
    _POT_CORE[0] = engine == "pyphi_pot"
    try:
        start = time.perf_counter()
        result = iit3(case["tpm"], case["state"], cm=case["cm"], nodes=case["nodes"], emd=engine,
                      pyphi_mode=case["mode"])
        return result, time.perf_counter() - start
    finally:
        _POT_CORE[0] = False


def compare(case: dict, result) -> dict:
    d_phi = abs(result.phi - case["phi"])
    row = dict(d_phi=d_phi, phi=result.phi)
    if case["small"] is not None:
        got = result.small_phis
        same = set(got) == set(case["small"])
        diffs = [abs(got.get(m, 0.0) - v) for m, v in case["small"].items()]
        diffs += [abs(v) for m, v in got.items() if m not in case["small"]]
        row.update(d_small=max(diffs, default=0.0), same_mechanisms=same,
                   worst_mechanism=str(max(case["small"], key=lambda m: abs(got.get(m, 0.0) - case["small"][m]))))
    else:
        row.update(d_small=None, same_mechanisms=None)
    if case["cut"] is not None:
        ref_cut = tuple(tuple(x) for x in case["cut"])
        row["same_cut"] = (result.cut.from_nodes, result.cut.to_nodes) == ref_cut
    row["within"] = d_phi <= TOL and (row["d_small"] is None or (row["d_small"] <= TOL and row["same_mechanisms"]))
    return row


def part_a(cases: list[dict]) -> dict:
    rows = []
    print(f"(a) {len(cases)} cases against PyPhi 1.2.0, engines {', '.join(ENGINES)} (|diff| in 1e-6)")
    print(f"{'case':<30} {'n':>2} {'Phi PyPhi':>10} " + " ".join(f"{e + ' dPhi':>10} {e + ' dphi':>10}"
                                                             for e in ENGINES) + "  pot-exact")
    for case in cases:
        row = dict(name=case["name"], source=case["source"], n=case["n"], mode=case["mode"], ref_phi=case["phi"])
        results = {}
        for engine in ENGINES:
            result, seconds = run_case(case, engine)
            results[engine] = result
            row[engine] = dict(compare(case, result), seconds=seconds)
        # Purviews against the default engine's (PyPhi's, where its values match): a
        # different purview at a 6-decimal tie changes the concept's repertoires.
        def purviews(res):
            return {c.mechanism: (c.cause_purview, c.effect_purview) for c in res.concepts}
        ref_purviews = purviews(results[ENGINES[0]])
        for engine in ENGINES:
            mine = purviews(results[engine])
            row[engine]["purviews_differ"] = sorted(str(m) for m in set(mine) | set(ref_purviews)
                                                    if mine.get(m) != ref_purviews.get(m))
            row[engine]["cut"] = str(results[engine].cut)
        # Engine against engine, same mechanisms: is POT's LP the exact LP?
        pairs = [(x, y) for x, y in (("pot", "exact"), ("pyphi_pot", "pyphi")) if x in results and y in results]
        for x, y in pairs:
            pe, ex = results[x], results[y]
            row[f"{x}_vs_{y}_phi"] = abs(pe.phi - ex.phi)
            common = set(pe.small_phis) & set(ex.small_phis)
            row[f"{x}_vs_{y}_small"] = max((abs(pe.small_phis[m] - ex.small_phis[m]) for m in common), default=0.0)
            row[f"{x}_vs_{y}_same_mechanisms"] = set(pe.small_phis) == set(ex.small_phis)
        rows.append(row)

        def cell(e):
            r = row[e]
            small = "-" if r["d_small"] is None else f"{r['d_small'] * 1e6:.2f}"
            flag = "" if r["within"] else "*"
            return f"{r['d_phi'] * 1e6:>9.2f}{flag or ' '} {small:>10}"
        print(f"{case['name']:<30} {case['n']:>2} {case['phi']:>10.6f} " + " ".join(cell(e) for e in ENGINES)
              + "".join(f"  {max(row[f'{x}_vs_{y}_phi'], row[f'{x}_vs_{y}_small']):.1e}" for x, y in pairs),
              flush=True)
    summary = {}
    for engine in ENGINES:
        within = [r for r in rows if r[engine]["within"]]
        worst_phi = max(rows, key=lambda r: r[engine]["d_phi"])
        smalls = [r for r in rows if r[engine]["d_small"] is not None]
        worst_small = max(smalls, key=lambda r: r[engine]["d_small"])
        summary[engine] = dict(
            within=len(within), outside=len(rows) - len(within),
            outside_cases=[r["name"] for r in rows if not r[engine]["within"]],
            max_d_phi=worst_phi[engine]["d_phi"], max_d_phi_case=worst_phi["name"],
            max_d_small=worst_small[engine]["d_small"], max_d_small_case=worst_small["name"],
            max_d_small_mechanism=worst_small[engine].get("worst_mechanism"),
            cut_mismatches=[r["name"] for r in rows if r[engine].get("same_cut") is False],
            mechanism_set_mismatches=[r["name"] for r in rows if r[engine]["same_mechanisms"] is False],
            purview_mismatches={r["name"]: r[engine]["purviews_differ"] for r in rows if r[engine]["purviews_differ"]},
            outside_by_source={s: sum(1 for r in rows if r["source"] == s and not r[engine]["within"])
                               for s in sorted({r["source"] for r in rows})},
        )
    for x, y in (("pot", "exact"), ("pyphi_pot", "pyphi")):
        if x in ENGINES and y in ENGINES:
            summary[f"{x}_vs_{y}"] = dict(
                max_phi=max(r[f"{x}_vs_{y}_phi"] for r in rows), max_small=max(r[f"{x}_vs_{y}_small"] for r in rows),
                mechanism_set_mismatches=[r["name"] for r in rows if not r[f"{x}_vs_{y}_same_mechanisms"]])
    by_n = {}
    for r in rows:
        for engine in ENGINES:
            by_n.setdefault(r["n"], {}).setdefault(engine, []).append(r[engine]["seconds"])
    summary["seconds_by_n"] = {n: {e: dict(median=statistics.median(v), total=sum(v), cases=len(v))
                                   for e, v in d.items()} for n, d in sorted(by_n.items())}
    print()
    for engine in ENGINES:
        s = summary[engine]
        print(f"{engine:>6}: within 2e-6 {s['within']}/{len(rows)}; max |dPhi| {s['max_d_phi']:.2e} "
              f"({s['max_d_phi_case']}); max |dphi| {s['max_d_small']:.2e} ({s['max_d_small_case']} "
              f"{s['max_d_small_mechanism']}); cut mismatches {len(s['cut_mismatches'])}; "
              f"cases with purviews unlike the default engine's {len(s['purview_mismatches'])}; "
              f"outside by source {s['outside_by_source']}")
    for key in ("pot_vs_exact", "pyphi_pot_vs_pyphi"):
        if key in summary:
            pv = summary[key]
            print(f"{key}: max |dPhi| {pv['max_phi']:.2e}, max |dphi| {pv['max_small']:.2e}, "
                  f"mechanism-set mismatches {pv['mechanism_set_mismatches']}")
    print("seconds per case in this pass (one run each), median / total by node count:")
    for n, d in summary["seconds_by_n"].items():
        print(f"  n={n} ({d['pyphi']['cases']} cases): " + ", ".join(
            f"{e} {d[e]['median']:.3f}/{d[e]['total']:.2f}" for e in ENGINES)
              + "".join(f"; {e}/{ENGINES[0]} total x{d[e]['total'] / d[ENGINES[0]]['total']:.2f}"
                        for e in ENGINES[1:]))
    return dict(rows=rows, summary=summary)


def part_b(names: list[str], repeats: int) -> dict:
    all_cases = bench_cases()
    rows = []
    print(f"\n(b) iit3 seconds, median of {repeats} runs per engine, engines interleaved")
    ratios = [(x, y) for x, y in (("pot", "pyphi"), ("pot", "exact"), ("exact", "pyphi"), ("pyphi_pot", "pyphi"))
              if x in ENGINES and y in ENGINES]
    print(f"{'case':<10} {'n':>2} " + " ".join(f"{e:>9}" for e in ENGINES)
          + "".join(f" {x + '/' + y:>15}" for x, y in ratios))
    for name in names:
        c = dict(all_cases[name], mode="sequential")
        n = len(c["nodes"]) if c["nodes"] is not None else c["tpm"].shape[1]
        times = {e: [] for e in ENGINES}
        phis = {}
        for _ in range(repeats):
            for engine in ENGINES:
                result, seconds = run_case(c, engine)
                times[engine].append(seconds)
                phis[engine] = result.phi
        med = {e: statistics.median(v) for e, v in times.items()}
        rows.append(dict(case=name, n=n, median_s=med, all_s=times, phi=phis))
        print(f"{name:<10} {n:>2} " + " ".join(f"{med[e]:>9.3f}" for e in ENGINES)
              + "".join(f" {med[x] / med[y]:>15.2f}" for x, y in ratios), flush=True)
    return dict(rows=rows, repeats=repeats)


def _timeit(fn, pairs, repeats: int) -> float:
    per = []
    for _ in range(repeats):
        start = time.perf_counter()
        for args in pairs:
            fn(*args)
        per.append((time.perf_counter() - start) / len(pairs))
    return statistics.median(per)


def part_c(n_pairs: int, repeats: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    out = dict(hamming=[], transport=[])
    print(f"\n(c) raw EMD calls, microseconds per call (median of {repeats} passes over {n_pairs} pairs)")
    print(f"{'states':>6} {'fastemd':>9} {'exact':>9} {'ot.emd2':>9} {'pot/fast':>8} {'pot/exact':>9} "
          f"{'max|pot-exact|':>14} {'max|pot-fast|':>13} {'max|fast-exact|':>15}")
    for k in range(2, 7):
        cost = hamming_matrix(k)
        pairs = []
        for i in range(n_pairs):
            alpha = 1.0 if i % 2 == 0 else 0.3  # dense and spiky repertoires
            pairs.append((rng.dirichlet(np.full(1 << k, alpha)), rng.dirichlet(np.full(1 << k, alpha))))
        fast = np.array([pyemd_hamming(p, q) for p, q in pairs])
        exact = np.array([float(hamming_emd_diffs((p - q)[None, :])[0]) for p, q in pairs])
        pot = np.array([pot_emd2(p, q, cost) for p, q in pairs])
        t_fast = _timeit(pyemd_hamming, pairs, repeats)
        t_exact = _timeit(lambda p, q: hamming_emd_diffs((p - q)[None, :]), pairs, repeats)
        t_pot = _timeit(lambda p, q: ot.emd2(p, q, cost), pairs, repeats)
        row = dict(states=1 << k, us_fastemd=t_fast * 1e6, us_exact=t_exact * 1e6, us_pot=t_pot * 1e6,
                   max_pot_exact=float(np.abs(pot - exact).max()), max_pot_fast=float(np.abs(pot - fast).max()),
                   max_fast_exact=float(np.abs(fast - exact).max()))
        out["hamming"].append(row)
        print(f"{1 << k:>6} {row['us_fastemd']:>9.1f} {row['us_exact']:>9.1f} {row['us_pot']:>9.1f} "
              f"{t_pot / t_fast:>8.2f} {t_pot / t_exact:>9.2f} {row['max_pot_exact']:>14.2e} "
              f"{row['max_pot_fast']:>13.2e} {row['max_fast_exact']:>15.2e}", flush=True)
    print(f"\n{'bins':>6} {'fastemd':>9} {'HiGHS':>9} {'ot.emd2':>9} {'pot/fast':>8} {'pot/HiGHS':>9} "
          f"{'max|pot-HiGHS|':>14} {'max|pot-fast|':>13}   (extended-EMD-like transports)")
    for bins in (5, 10, 20, 40):
        problems = []
        for _ in range(max(n_pairs // 4, 10)):
            m = bins // 2
            first = np.r_[rng.uniform(0, 0.5, bins - m - 1), np.zeros(m + 1)]
            second = np.r_[np.zeros(bins - m - 1), rng.uniform(0, 0.5, m), 0.0]
            second[-1] = first.sum() - second.sum()
            if second[-1] < 0:
                first[-1] -= second[-1]
                second[-1] = 0.0
            pts = rng.uniform(0, 2, (bins, 3))
            cost = np.abs(pts[:, None, :] - pts[None, :, :]).sum(-1)
            problems.append((first, second, cost))
        fast = np.array([pyemd_emd(*p) for p in problems])
        highs = np.array([transport_emd(*p) for p in problems])
        pot = np.array([pot_emd2(*p) for p in problems])
        t_fast = _timeit(pyemd_emd, problems, repeats)
        t_highs = _timeit(transport_emd, problems, repeats)
        t_pot = _timeit(ot.emd2, problems, repeats)
        row = dict(bins=bins, us_fastemd=t_fast * 1e6, us_highs=t_highs * 1e6, us_pot=t_pot * 1e6,
                   max_pot_highs=float(np.abs(pot - highs).max()), max_pot_fast=float(np.abs(pot - fast).max()))
        out["transport"].append(row)
        print(f"{bins:>6} {row['us_fastemd']:>9.1f} {row['us_highs']:>9.1f} {row['us_pot']:>9.1f} "
              f"{t_pot / t_fast:>8.2f} {t_pot / t_highs:>9.2f} {row['max_pot_highs']:>14.2e} "
              f"{row['max_pot_fast']:>13.2e}", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="emd_engines.py", description=__doc__.splitlines()[0])
    p.add_argument("--skip-reference", action="store_true", help="skip part (a)")
    p.add_argument("--only", nargs="+", help="part (a): only cases whose name contains one of these")
    p.add_argument("--parallel", action="store_true", help="part (a): also PyPhi's parallel-mode Phi")
    p.add_argument("--six", action="store_true", help="part (a): also the 6-node ring (PyPhi 14.697911)")
    p.add_argument("--timing-cases", nargs="*", default=["basic", "xor", "big_0123", "rule152", "big", "sparse5"])
    p.add_argument("--repeats", type=int, default=3, help="part (b): runs per engine and case (median)")
    p.add_argument("--pairs", type=int, default=200, help="part (c): random pairs per size")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--engines", nargs="+", default=list(ENGINES), choices=["pyphi", "exact", "pot", "pyphi_pot"],
                   help="engines of parts (a) and (b), the first is the baseline of ratios and purviews")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = p.parse_args(argv)
    ENGINES[:] = args.engines
    warm = bench_cases()["basic"]  # warm the per-process caches (Lipschitz vertices, ...)
    for engine in ENGINES:
        iit3(warm["tpm"], warm["state"], cm=warm["cm"], emd=engine)
    for k in range(2, 7):
        hamming_emd_diffs(np.zeros((1, 1 << k)))
    out = dict(command=" ".join(sys.argv), python=platform.python_version(), numpy=np.__version__,
               pot=ot.__version__, tolerance=TOL)
    if not args.skip_reference:
        cases = reference_cases(args.parallel, args.six)
        if args.only:
            cases = [c for c in cases if any(s in c["name"] for s in args.only)]
        out["a"] = part_a(cases)
    if args.timing_cases:
        out["b"] = part_b(args.timing_cases, args.repeats)
    if args.pairs:
        out["c"] = part_c(args.pairs, args.repeats, args.seed)
    out["pyphi_pot_integer_transports"] = POT_CORE_CALLS[0]
    print(f"\ninteger transports solved by ot.emd in the pyphi_pot engine: {POT_CORE_CALLS[0]}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
