"""Run PyPhi 1.2.0 on the cases sent as JSON on stdin; print JSON results on stdout.

This file runs inside PyPhi's own virtualenv (Python 3.11, numpy<1.24, scipy<1.11),
never in the package's environment. It is started by compare.py.

PyPhi 1.2.0 needs two shims on a current Python and pyemd:
- `collections.Iterable` and friends moved to `collections.abc` in Python 3.10;
- pyemd >= 1.1 defaults to its POT backend; PyPhi's published values come from the
  original C++ backend (FastEMD), selected here with backend='cpp'.
"""
from __future__ import annotations

import collections
import collections.abc
import json
import os
import sys
import time

for _name in ("Iterable", "Mapping", "MutableMapping", "Sequence", "Callable", "Hashable",
              "Set", "MutableSet", "Sized", "Container", "Iterator", "Generator"):
    setattr(collections, _name, getattr(collections.abc, _name))
os.environ.setdefault("PYPHI_WELCOME_OFF", "yes")

import numpy as np  # noqa: E402
import pyemd  # noqa: E402

_pyemd_emd = pyemd.emd


def _emd_cpp(first, second, distance, **kwargs):
    kwargs.setdefault("backend", "cpp")
    return _pyemd_emd(first, second, distance, **kwargs)


pyemd.emd = _emd_cpp

import pyphi  # noqa: E402
import pyphi.compute.distance  # noqa: E402
import pyphi.distance  # noqa: E402

pyphi.distance.emd = _emd_cpp
pyphi.compute.distance.emd = _emd_cpp
pyphi.config.PROGRESS_BARS = False


def run(case: dict, parallel: bool, repeats: int) -> dict:
    pyphi.config.PARALLEL_CUT_EVALUATION = parallel
    seconds, sia = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        network = pyphi.Network(np.array(case["tpm"]), cm=None if case["cm"] is None else np.array(case["cm"]))
        subsystem = pyphi.Subsystem(network, tuple(case["state"]), case["nodes"])
        sia = pyphi.compute.sia(subsystem)
        seconds.append(time.perf_counter() - start)
    cut = getattr(sia.cut, "from_nodes", None), getattr(sia.cut, "to_nodes", None)
    return {
        "phi": float(sia.phi),
        "cut": [list(cut[0]), list(cut[1])] if cut[0] is not None else None,
        "small_phis": {",".join(map(str, c.mechanism)): float(c.phi) for c in sia.ces},
        "seconds": seconds,
    }


def main() -> None:
    request = json.load(sys.stdin)
    if request.get("cores"):  # processes of PyPhi's parallel mode (default: all cores)
        pyphi.config.NUMBER_OF_CORES = int(request["cores"])
    out = {"pyphi_version": pyphi.__version__, "numpy": np.__version__, "results": {}}
    for case in request["cases"]:
        out["results"][case["name"]] = {
            mode: run(case, mode == "parallel", request["repeats"]) for mode in request["modes"]
        }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
