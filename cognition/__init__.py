"""hybrid-cognition: a hybrid quantum-classical cognitive architecture and its Phi.

    import cognition
    cfg = cognition.configure("quantum_lite", run={"agents": 8, "cycles": 50})
    results = cognition.Simulator(cfg, out="runs/a").run()  # or: python -m cognition.validate
    results.explain()

Importing this package is cheap: the public names below are loaded on first use (PEP 562),
so ``import cognition`` imports neither torch, qiskit nor any IIT code.

Layers, lowest first. A module imports only from its own layer or below (tests/test_layers.py
fails the suite on an upward import, also one inside a function); docs/architecture.md maps
each concept to its file.

    1  quantum/                      circuits, backends, the qubit cap (knows nothing of cognition)
    2  errors.py                     what can go wrong: UsageError (exit 2), RunFailure (exit 1)
       runtime/lifeline.py           processes that die with their parent (stdlib only; phi's pools)
       runtime/memlimits.py          the host's memory limits (stdlib and psutil; phi's size checks)
    3  phi/, decision/               pure math on arrays
    4  config/                       the description of a run, checked against the module registry
       modules/                      the cognitive modules, their protocol, registry and plug-ins
       architecture/                 one cycle of the global workspace: loop, workspace, competition,
                                     controls, streams, rng (no files, no hardware)
    5  analysis/                     end-of-run inference on recorded arrays: the Phi summary, the
                                     criteria, statistics, and the one label and format of each number
    6  runtime/                      the machine: device, threads, allocator, memory, OOM, faults, stop
    7  simulator/                    one run's life in its directory: build, session, runner, the
                                     run-directory layout and state, files, checkpoints, progress
    8  reporting/                    report.json/.md/.html, plots, comparisons, reading runs back
    9  api.py                        configure / Simulator / load
    10 sweeps/, experiment/,         many runs; bench suites; the commands a user types
       benchmarks/, validate, report,
       sweep, bench, doctor, cli
"""
from __future__ import annotations

import importlib

__version__ = "0.10.0"

#: module or package -> layer (the table above); tests/test_layers.py reads it
LAYERS = {
    "quantum": 1,
    "cognition.errors": 2, "cognition.runtime.lifeline": 2, "cognition.runtime.memlimits": 2,
    "cognition.phi": 3, "cognition.decision": 3,
    "cognition.config": 4, "cognition.modules": 4, "cognition.architecture": 4,
    "cognition.analysis": 5,
    "cognition.runtime": 6,
    "cognition.simulator": 7,
    "cognition.reporting": 8,
    "cognition.api": 9,
    "cognition": 10,  # the package itself and the commands: validate, report, sweep, bench, doctor, cli
    "cognition.sweeps": 10, "cognition.experiment": 10, "cognition.benchmarks": 10,
}

#: public name -> the module that defines it, imported on first access
_PUBLIC = {
    "configure": "cognition.api", "Simulator": "cognition.api", "load": "cognition.api",
    "RunResults": "cognition.reporting.results",
    "Config": "cognition.config.settings",
    "CognitiveModule": "cognition.modules.base", "Proposal": "cognition.modules.base",
    "register_module": "cognition.modules.plugins",
    "UsageError": "cognition.errors", "ConfigError": "cognition.errors", "RunFailure": "cognition.errors",
}
#: pure subpackages, imported on first access
_SUBPACKAGES = ("phi", "decision")


def __getattr__(name: str):
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    if name in _SUBPACKAGES:
        return importlib.import_module(f"cognition.{name}")
    raise AttributeError(f"module 'cognition' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC, *_SUBPACKAGES])


__all__ = ["__version__", *_PUBLIC, *_SUBPACKAGES]
