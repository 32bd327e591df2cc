"""Exact IIT 3.0 big Phi for small binary systems, reproducing PyPhi 1.2.

    from cognition.phi.iit3 import iit3
    result = iit3(tpm, state, cm=cm)   # result.phi, result.cut, result.concepts

See `system.iit3` for conventions and docs/iit3.md for the definitions.
"""
from __future__ import annotations

from .results import Concept, IIT3Result, SystemCut
from .system import iit3

__all__ = ["iit3", "IIT3Result", "Concept", "SystemCut"]
