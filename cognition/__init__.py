"""hybrid-cognition: a hybrid quantum-classical cognitive architecture and its Phi.

Importing this package is cheap: it never imports qiskit, and submodules
(``cognition.phi``, ``cognition.decision``, ...) are loaded on first access.
"""
from __future__ import annotations

import importlib

__version__ = "0.5.0"

_SUBMODULES = ("phi", "decision", "config", "loop", "workspace", "modules", "runtime", "report")


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"cognition.{name}")
    raise AttributeError(f"module 'cognition' has no attribute {name!r}")


__all__ = ["__version__", *_SUBMODULES]
