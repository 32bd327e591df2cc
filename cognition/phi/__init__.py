"""Practical integrated information for Gaussian time series: pure functions on arrays.

    from cognition import phi
    r = phi.analytical_var1(A, noise_cov, lag=1)   # exact, stationary Gaussian VAR(1)
    r = phi.estimate(X, lag=1)                     # from data: X (T, n) or (agents, T, n)
    r.tdmi, r.phi_wms, r.phi_r, r.stochastic_interaction   # bits, at the MIB
    r.mib                                          # ((0, ...), (...)): part holding node 0 first

Definitions, conventions and citations: docs/phi.md. Importing this package imports
numpy and scipy only; torch is imported when a ``device`` is passed.
"""
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

# IIT 3.0 (exact, discrete, PyPhi 1.2 conventions): cognition/phi/iit3/, docs/iit3.md
from cognition.phi.iit3 import iit3  # noqa: E402  (the function; its package stays importable)

__all__ = [
    "PhiResult",
    "all_bipartition_masks",
    "analytical_var1",
    "conditional_covariance",
    "estimate",
    "estimate_windows",
    "WindowedPhi",
    "gaussian_entropy",
    "iit3",
    "lagged_joint_covariance",
    "logdet",
    "mask_to_mib",
    "masked_logdets",
    "measures_at",
    "mib_to_mask",
    "mutual_information",
    "n_bipartitions",
    "phi_at_mib",
    "principal_logdets",
    "simulate_var1",
    "stationary_covariance",
]
