"""Success criteria, checked at the end of a run (config section ``criteria``)."""
from __future__ import annotations

import math


def evaluate(cfg, *, status: str, phi_summary: dict, provenance: dict, unrecovered_errors: int) -> list[dict]:
    """One entry per criterion: name, passed, value, required."""
    c = cfg.criteria
    out = [{"name": "run completed", "passed": status == "completed", "value": status,
            "required": "completed"},
           {"name": "unrecovered errors", "passed": unrecovered_errors <= c.max_unrecovered_errors,
            "value": unrecovered_errors, "required": f"<= {c.max_unrecovered_errors}"}]
    mean = phi_summary.get("mean_bits")
    if c.require_phi:
        out.append({"name": "Phi estimated and finite", "passed": mean is not None and math.isfinite(mean),
                    "value": mean, "required": "a finite number of bits"})
    if c.min_mean_phi_bits is not None:
        out.append({"name": "mean Phi", "passed": mean is not None and mean >= c.min_mean_phi_bits,
                    "value": mean, "required": f">= {c.min_mean_phi_bits} bits"})
    if c.require_significant:
        whole = phi_summary.get("whole_run") or {}
        p = (whole.get("p_value") or {}).get(cfg.phi.measure)
        passed = p is not None and p < c.alpha
        out.append({"name": "integrated: every bipartition crossed by coupling (trial-shuffling test)",
                    "passed": passed, "value": p,
                    "required": f"p-value < {c.alpha}" + (" (needs phi.surrogates > 0)"
                                                                      if cfg.phi.surrogates == 0 else "")})
    if not c.allow_classical_fallback:
        cpu_fallback = bool(provenance["device"].get("fell_back")) and not cfg.runtime.allow_cpu_fallback
        classical = bool(provenance.get("classical_fallback"))
        fell_back = classical or cpu_fallback
        what = [w for w, hit in (("classical fallback", classical), ("CPU fallback", cpu_fallback)) if hit]
        out.append({"name": "no unrequested fallback", "passed": not fell_back, "value": ", ".join(what) or "none",
                    "required": "no classical or CPU fallback that was not asked for"})
    return out
