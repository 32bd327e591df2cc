"""``PhiResult``: the measures at the MIB, with how they were obtained."""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from cognition.phi.partitions import mask_to_mib


@dataclasses.dataclass(frozen=True)
class PhiResult:
    """Integrated-information measures of one system at its minimum-information bipartition.

    All information quantities are in bits. ``mib`` is ((part holding node 0), (other
    part)). ``ci`` maps "phi_wms"/"phi_r" to (low, high) at ``confidence`` when a
    bootstrap was run, else None; ``p_value`` maps them to the surrogate p-value when a
    null model was run, else None; ``weakest_cut`` (ensembles) maps them to the bipartition
    whose parts are least dependent, the one that sets the p-value; ``per_agent`` (ensembles)
    holds each agent's bias-corrected value (``phi_r``, ``phi_wms``), its half-median-unbiased
    upper value (``*_upper``), its value before the selection correction (``*_lower``), its plug-in minimum (``*_plug_in``) and its own MIB (``mib``).
    ``method`` names the estimand, search, covariance estimator, bias correction, CI method,
    null model and the MIB criterion.
    """

    tdmi: float
    phi_wms: float
    phi_r: float
    stochastic_interaction: float
    mib: tuple[tuple[int, ...], tuple[int, ...]]
    n_nodes: int
    lag: int
    n_samples: int | None
    mmi: float
    k_norm: float
    method: dict[str, str]
    ci: dict[str, tuple[float, float]] | None = None
    p_value: dict[str, float] | None = None
    confidence: float | None = None
    bias_corrected: dict[str, float] | None = None
    se: dict[str, float] | None = None
    mib_stability: float | None = None
    weakest_cut: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] | None = None
    per_agent: dict | None = None

    def headline(self, measure: str = "phi_r") -> float:
        """The value to report: bias-corrected where a correction was made, else the plug-in value."""
        if self.bias_corrected is not None:
            return float(self.bias_corrected[measure])
        return float(getattr(self, measure))

    @property
    def headline_bits(self) -> float:
        """``headline("phi_r")``: the number the command and the run's report print (the fields ``phi_r``,
        ``phi_wms``, ... are the plug-in values at the MIB, before any correction)."""
        return self.headline("phi_r")

    def __repr__(self) -> str:
        """The headline first, with its interval and p-value where they were computed, then the plug-in value
        it corrects, the MIB and the size of the data."""
        line = f"phi_r {self.headline_bits:.4g} bits"
        if self.bias_corrected is not None:
            agents = f", mean of {len(self.per_agent['mib'])} agents' own values" if self.per_agent else ""
            line += f" (bias-corrected{agents})"
        if self.ci is not None:
            low, high = self.ci["phi_r"]
            line += f", {self.confidence:.0%} CI [{low:.4g}, {high:.4g}]"
        if self.p_value is not None:
            line += f", p = {self.p_value['phi_r']:.4g}"
        if self.bias_corrected is not None:
            line += f"; plug-in phi_r {self.phi_r:.4g}"
        mib = " | ".join(",".join(map(str, part)) for part in self.mib)
        return f"PhiResult({line}; MIB {mib}; {self.n_nodes} units, lag {self.lag}, {self.n_samples} samples)"

    def to_dict(self) -> dict:
        """JSON-able dict (tuples become lists, floats stay floats)."""
        out = dataclasses.asdict(self)
        out["mib"] = [list(p) for p in self.mib]
        if self.ci is not None:
            out["ci"] = {k: [float(v[0]), float(v[1])] for k, v in self.ci.items()}
        if self.weakest_cut is not None:
            out["weakest_cut"] = {k: [list(p) for p in v] for k, v in self.weakest_cut.items()}
        if self.per_agent is not None:
            out["per_agent"] = {k: ([[list(p) for p in mib] for mib in v] if k == "mib" else list(v))
                                for k, v in self.per_agent.items()}
        return out


def result_from_row(row: dict, r: int, *, n_nodes: int, lag: int, n_samples: int | None,
                    method: dict[str, str], **extra) -> PhiResult:
    """Build a PhiResult from replicate r of ``search.phi_at_mib``'s output."""
    criterion = ("Phi_WMS / K, K = min_k H(M^k_t)" if bool(row["normalised"][r])
                 else "Phi_WMS (unnormalised: K(B) <= 0 possible for some bipartition)")
    values = {k: float(row[k][r]) for k in ("tdmi", "phi_wms", "phi_r", "stochastic_interaction", "mmi", "k_norm")}
    for k, v in values.items():
        if not math.isfinite(v):
            raise ValueError(f"{k} came out as {v}; the covariance is numerically degenerate")
    return PhiResult(mib=mask_to_mib(np.asarray(row["masks"][r])), n_nodes=n_nodes, lag=lag,
                     n_samples=n_samples, method={**method, "mib_criterion": criterion}, **values, **extra)
