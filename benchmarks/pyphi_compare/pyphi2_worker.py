"""Run PyPhi 2.0 (IIT 4.0) on the cases sent as JSON on stdin; print JSON results on stdout.

This file runs inside PyPhi 2.0's own virtualenv (Python 3.13, see setup_venv_pyphi2.sh),
never in the package's environment. It is started by make_iit4_reference.py.

Input: a JSON list of cases (or {"cases": [...]}), each

    {"name": str, "tpm": [[...]] (state-by-node, 2**n rows, little-endian: row index
     sum_i s_i 2**i, entry [row][j] = P(node j ON at t+1 | row at t)),
     "cm": [[...]] or null (cm[i][j] = 1 for an edge i -> j), "state": [0/1, ...],
     "nodes": [...] or null (the candidate system; null = all nodes),
     "formalism": "IIT_4_0_2023" | "IIT_4_0_2026",
     "what": "sia" | "ces" | "complex" | "export",
     "example": optional name of a pyphi.examples substrate function, used instead of
     tpm/cm ("export" returns that substrate's state-by-node tpm and cm),
     "full_ties": true (sia: when PyPhi short-circuits at a phi = 0 partition, rerun it
     without the short-circuit, untimed, to count the tied minima; false skips that)}

Output: {"pyphi": {...versions...}, "config": {formalism: {...}, "precision": ...},
"results": [{"name", "formalism", "what", "cpu_s", ...}, ...]}; see README.md for each
field. CPU seconds are time.process_time() of the PyPhi call alone, PyPhi's parallelism
off (config.parallel = False).
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("PYPHI_WELCOME_OFF", "yes")

import numpy as np  # noqa: E402
import pyphi  # noqa: E402
import pyphi.formalism.iit4 as iit4  # noqa: E402
from pyphi.conf import config  # noqa: E402
from pyphi.conf import presets  # noqa: E402
from pyphi.direction import Direction  # noqa: E402
from pyphi.partition import system_partitions  # noqa: E402
from pyphi.relations import AnalyticalRelations  # noqa: E402
from pyphi.substrate import Substrate  # noqa: E402
from pyphi.system import System  # noqa: E402

COMMON = dict(validate_system_states=False, progress_bars=False, parallel=False)

# ---------------------------------------------------------------- recording hooks
# pyphi.formalism.iit4.sia maps the module-level evaluate_partition over all system
# partitions through the module-level map_reduce (short-circuiting at the first
# phi = 0). Both are looked up at call time, so wrapping them records every
# evaluated partition without changing what PyPhi computes.
_RECORD: list | None = None
_NO_SHORTCIRCUIT = False
_orig_evaluate_partition = iit4.evaluate_partition
_orig_map_reduce = iit4.map_reduce


def _evaluate_partition(partition, system, system_state, **kwargs):
    res = _orig_evaluate_partition(partition, system, system_state, **kwargs)
    if _RECORD is not None:
        # floats now: the 2026 cap later mutates the chosen SIA object in place
        _RECORD.append((_state_key(system_state), partition, float(res.phi), float(res.normalized_phi)))
    return res


def _map_reduce(fn, items, *more, **kwargs):
    if _NO_SHORTCIRCUIT:
        kwargs.pop("shortcircuit_func", None)
    return _orig_map_reduce(fn, items, *more, **kwargs)


iit4.evaluate_partition = _evaluate_partition
iit4.map_reduce = _map_reduce


def _state_key(system_state):
    c, e = system_state.cause, system_state.effect
    return (tuple(c.state) if c is not None else None, tuple(e.state) if e is not None else None)


# ---------------------------------------------------------------- helpers
def _f(x):
    return None if x is None else float(x)


def _edges(partition, nodes):
    """Severed directed edges (i, j), network indices, from the partition's cut matrix."""
    if partition is None or not hasattr(partition, "_cut_matrix"):
        return None
    cm = np.asarray(partition._cut_matrix)
    idx = tuple(partition.node_indices)
    return sorted([int(idx[i]), int(idx[j])] for i, j in np.argwhere(cm))


def _partition_json(partition):
    if partition is None:
        return None
    kind = type(partition).__name__
    out = {"kind": kind}
    if kind == "NullCut":
        return out
    out["cut_edges"] = _edges(partition, None)
    out["n_cut"] = int(np.sum(partition._cut_matrix)) if hasattr(partition, "_cut_matrix") else None
    if hasattr(partition, "parts"):
        out["parts"] = [[int(i) for i in p] for p in partition.parts]
    if hasattr(partition, "normalization_factor"):
        out["normalization"] = float(partition.normalization_factor())
    return out


def _spec_json(spec):
    if spec is None:
        return None
    ties = [list(map(int, t.state)) for t in (spec.ties or ())]
    return {"purview": [int(i) for i in spec.purview] if getattr(spec, "purview", None) is not None else None,
            "state": [int(s) for s in spec.state], "ii": _f(spec.intrinsic_information),
            "tied_states": ties if len(ties) > 1 else []}


def _export(sub):
    """State-by-node little-endian TPM and cm of a PyPhi substrate (e.g. pyphi.examples)."""
    arr = np.asarray(sub.tpm.to_array())  # (2,)*n + (n, 2): P(node j = k | state)
    n = arr.ndim - 2
    rows = []
    for r in range(2 ** n):
        s = tuple((r >> i) & 1 for i in range(n))
        rows.append([float(arr[s][j, 1]) for j in range(n)])
    return rows, np.asarray(sub.cm).astype(int).tolist()


def _substrate(case):
    if case.get("example"):
        from pyphi import examples
        return getattr(examples, case["example"])()
    tpm = np.asarray(case["tpm"], dtype=float)
    cm = None if case.get("cm") is None else np.asarray(case["cm"], dtype=int)
    return Substrate(tpm, cm=cm)


def _system(case):
    n = len(case["state"])  # the substrate's size
    nodes = tuple(case["nodes"]) if case.get("nodes") is not None else tuple(range(n))
    return System(_substrate(case), tuple(case["state"]), node_indices=nodes)


def _config_json():
    iit = config.formalism.iit
    out = {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in vars(iit).items()}
    return {"iit": out, "precision": config.numerics.precision if hasattr(config, "numerics") else None,
            "validate_system_states": config.infrastructure.validate_system_states,
            "parallel": config.infrastructure.parallel}


# ---------------------------------------------------------------- computations
def run_sia(case):
    global _RECORD, _NO_SHORTCIRCUIT
    system = _system(case)
    _RECORD = []
    t0 = time.process_time()
    sia = system.sia()
    cpu = time.process_time() - t0
    records, _RECORD = _RECORD, None
    partitions = list(system_partitions(system.node_indices, node_labels=system.node_labels))
    out = dict(cpu_s=cpu, phi_s=_f(sia.phi), signed_phi_s=_f(sia.signed_phi),
               normalized_phi_s=_f(sia.normalized_phi), n_partitions=len(partitions),
               mip=_partition_json(sia.partition),
               phi_c=_f(sia.cause.phi) if sia.cause is not None else None,
               phi_e=_f(sia.effect.phi) if sia.effect is not None else None,
               reasons=[getattr(r, "name", str(r)) for r in (sia.reasons or [])])
    st = sia.system_state
    out["cause"] = _spec_json(st.cause) if st is not None else None
    out["effect"] = _spec_json(st.effect) if st is not None else None
    idiff = sia.intrinsic_differentiation or {}
    out["intrinsic_differentiation"] = {"cause": _f(idiff.get(Direction.CAUSE)),
                                        "effect": _f(idiff.get(Direction.EFFECT))}
    out["n_state_pairs"] = len({r[0] for r in records})
    if not records:  # null SIA before any partition (not strongly connected, no cause/effect...)
        out["mip_unique"] = None
        return out
    key = _state_key(st) if st is not None else records[0][0]
    mine = [r[1:] for r in records if r[0] == key]
    if len(mine) < len(partitions) and not case.get("full_ties", True):
        out["shortcircuited"] = True  # PyPhi stopped at a phi = 0 partition; ties not counted
        out["n_evaluated"] = len(mine)
        out["mip_unique"] = None
        return out
    if len(mine) < len(partitions):  # short-circuited at phi = 0: evaluate all (untimed)
        _RECORD, _NO_SHORTCIRCUIT = [], True
        try:
            _system(case).sia()
        finally:
            rec2, _RECORD, _NO_SHORTCIRCUIT = _RECORD, None, False
        mine = [r[1:] for r in rec2 if r[0] == key]
        out["shortcircuited"] = True
    norm = np.array([r[2] for r in mine])
    phis = np.array([r[1] for r in mine])
    lo = norm.min()
    tied = np.abs(norm - lo) <= 1e-9
    out["n_evaluated"] = len(mine)
    out["min_normalized_phi"] = float(lo)
    out["n_min_normalized_ties"] = int(tied.sum())
    # PyPhi's cascade: min normalized phi, then max phi, then smallest cut matrix bytes
    best_phi = phis[tied].max()
    tied2 = tied & (np.abs(phis - best_phi) <= 1e-9)
    out["n_min_ties_after_phi"] = int(tied2.sum())
    out["mip_unique"] = bool(tied.sum() == 1)
    if tied.sum() > 1:
        out["tied_mips"] = [dict(cut_edges=_edges(r[0], None), phi=r[1])
                            for r, t in zip(mine, tied) if t][:20]
    return out


def _distinction_json(d):
    def side(m):
        spec = m.specified_state if hasattr(m, "specified_state") else None
        state = getattr(spec, "state", None) if spec is not None else None
        return [int(i) for i in m.purview], ([int(s) for s in state] if state is not None else None), _f(m.phi)
    cp, cs, cphi = side(d.cause)
    ep, es, ephi = side(d.effect)
    return dict(mechanism=[int(i) for i in d.mechanism], cause_purview=cp, cause_state=cs,
                effect_purview=ep, effect_state=es, phi=_f(d.phi), phi_c=cphi, phi_e=ephi)


def run_ces(case):
    system = _system(case)
    t0 = time.process_time()
    sia = system.sia()
    t1 = time.process_time()
    if sia.system_state is not None:
        distinctions = system.distinctions().resolve_congruence(sia.system_state)
    else:  # null SIA without a system state (e.g. not strongly connected): PyPhi's ces()
        # resolves congruence against the system's maximal-intrinsic-information states
        distinctions = system.ces().distinctions
    t2 = time.process_time()
    rel = AnalyticalRelations(distinctions)
    sum_r = float(rel.sum_phi())
    n_r = int(rel.num_relations())
    t3 = time.process_time()
    ds = sorted((_distinction_json(d) for d in distinctions), key=lambda d: (len(d["mechanism"]), d["mechanism"]))
    sum_d = float(sum(d["phi"] for d in ds))
    return dict(cpu_s=t3 - t0, cpu_sia_s=t1 - t0, cpu_distinctions_s=t2 - t1, cpu_relations_s=t3 - t2,
                phi_s=_f(sia.phi), mip=_partition_json(sia.partition),
                system_cause_state=[int(s) for s in sia.system_state.cause.state] if sia.system_state else None,
                system_effect_state=[int(s) for s in sia.system_state.effect.state] if sia.system_state else None,
                reasons=[getattr(r, "name", str(r)) for r in (sia.reasons or [])],
                n_distinctions=len(ds), sum_phi_d=sum_d, sum_phi_r=sum_r, n_relations=n_r,
                big_phi=sum_d + sum_r, distinctions=ds)


def run_complex(case):
    from pyphi.substrate import irreducible_sias
    sub = _substrate(case)
    state = tuple(case["state"])
    t0 = time.process_time()
    cx = sub.complexes(state)
    cpu = time.process_time() - t0
    out = dict(cpu_s=cpu)
    out["complexes"] = [dict(nodes=[int(i) for i in c.sia.node_indices], phi_s=_f(c.sia.phi)) for c in cx]
    out["maximal"] = out["complexes"][0] if cx else None
    # every candidate system with phi_s > 0 (PyPhi's irreducible_sias), untimed
    cands = irreducible_sias(sub, state)
    out["irreducible"] = sorted(([[int(i) for i in s.node_indices], _f(s.phi)] for s in cands),
                                key=lambda x: (len(x[0]), x[0]))
    return out


def run_export(case):
    tpm, cm = _export(_substrate(case))
    return dict(cpu_s=0.0, tpm=tpm, cm=cm)


RUNNERS = dict(sia=run_sia, ces=run_ces, complex=run_complex, export=run_export)


def pyphi_info():
    import importlib.metadata as md
    commit = os.environ.get("PYPHI_COMMIT")
    f = Path(sys.prefix) / "pyphi_commit.txt"
    if not commit and f.exists():
        commit = f.read_text().strip()
    return {"version": md.version("pyphi"), "commit": commit, "python": platform.python_version(),
            "numpy": np.__version__, "scipy": md.version("scipy")}


def main() -> None:
    request = json.load(sys.stdin)
    cases = request["cases"] if isinstance(request, dict) else request
    out = {"pyphi": pyphi_info(), "config": {}, "results": []}
    for case in cases:
        formalism = case.get("formalism", "IIT_4_0_2023")
        with config.override(**presets.by_name[formalism], **COMMON):
            out["config"][formalism] = _config_json()
            try:
                res = RUNNERS[case.get("what", "sia")](case)
            except Exception as exc:  # reported, not stored, by make_iit4_reference.py
                import traceback
                res = dict(error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc()[-3000:], cpu_s=0.0)
        res.update(name=case.get("name"), formalism=formalism, what=case.get("what", "sia"))
        out["results"].append(res)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
