"""Practical integrated information for Gaussian time series: pure functions on arrays.

    from cognition import phi
    r = phi.analytical_var1(A, noise_cov, lag=1)   # exact, stationary Gaussian VAR(1)
    r = phi.estimate(X, lag=1)                     # from data: X (T, n) or (agents, T, n)
    r.tdmi, r.phi_wms, r.phi_r, r.stochastic_interaction   # bits, at the MIB
    r.mib                                          # ((0, ...), (...)): part holding node 0 first
    t = phi.loop_test(agents, cut_w2m, cut_m2w, modules=[...], workspace=[...])   # both directions of a loop
    t.passed, t.reason, t.directions["modules_to_workspace"].ci                   # (docs/phi.md)

Exact IIT on small binary systems (PyPhi's conventions), loaded on first use:

    r = phi.iit3(tpm, state, cm=cm)              # IIT 3.0, equal to PyPhi 1.2 (docs/iit3.md)
    r = phi.iit4(tpm, state, cm=cm)              # IIT 4.0 system Phi, equal to PyPhi 2.0 (docs/iit4.md)
    rs = phi.iit4_batch(tpm, states)             # many states (or TPMs) in one call
    s = phi.phi_structure(tpm, state, cm=cm)     # IIT 4.0 distinctions, relations, big Phi
    ss = phi.phi_structures(tpm, states)         # many states in one call
    c = phi.maximal_complex(tpm, state, cm=cm)   # IIT 4.0 exclusion over candidate systems

Definitions, conventions and citations: docs/phi.md. Importing this package imports
numpy and scipy only, and no IIT code until one of those names is used (PEP 562); torch is
imported when a ``device`` is passed.
"""
import importlib
import sys
import types

from cognition.phi.directed import directed_information, loop_test
from cognition.phi.estimate import estimate
from cognition.phi.gaussian import (
    conditional_covariance,
    gaussian_entropy,
    logdet,
    masked_logdets,
    mutual_information,
    principal_logdets,
)
from cognition.phi.measures import measures_at
from cognition.phi.partitions import all_bipartition_masks, mask_to_mib, mib_to_mask, n_bipartitions
from cognition.phi.result import PhiResult
from cognition.phi.search import phi_at_mib
from cognition.phi.simulate import simulate_var1
from cognition.phi.var1 import analytical_var1, lagged_joint_covariance, stationary_covariance
from cognition.phi.windows import WindowedPhi, estimate_windows

#: exact IIT, imported on first use: public name -> the subpackage that defines it
_EXACT = {"iit3": "cognition.phi.iit3",
          **{name: "cognition.phi.iit4" for name in ("iit4", "iit4_batch", "phi_structure", "phi_structures",
                                                      "maximal_complex")}}


def __getattr__(name: str):
    if name in _EXACT:
        value = getattr(importlib.import_module(_EXACT[name]), name)
        setattr(sys.modules[__name__], name, value)
        return value
    raise AttributeError(f"module 'cognition.phi' has no attribute {name!r}")


class _Phi(types.ModuleType):
    """``phi.iit3`` is the function, also once its subpackage ``cognition.phi.iit3`` is loaded: the import
    system binds a loaded subpackage to its name in the parent, which would hide the function."""

    def __setattr__(self, name, value):
        if name in _EXACT and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Phi

__all__ = [
    "PhiResult",
    "all_bipartition_masks",
    "analytical_var1",
    "conditional_covariance",
    "directed_information",
    "estimate",
    "estimate_windows",
    "WindowedPhi",
    "gaussian_entropy",
    "iit3",
    "iit4",
    "iit4_batch",
    "loop_test",
    "lagged_joint_covariance",
    "logdet",
    "maximal_complex",
    "mask_to_mib",
    "masked_logdets",
    "measures_at",
    "mib_to_mask",
    "mutual_information",
    "n_bipartitions",
    "phi_structure",
    "phi_structures",
    "phi_at_mib",
    "principal_logdets",
    "simulate_var1",
    "stationary_covariance",
]
