"""Success criteria, checked at the end of a run (config section ``criteria``).

Each default criterion tests a hypothesis and can fail for it (docs/architecture.md,
"Criteria"): "integrated" fails when some bipartition's parts are independent (the
trial-shuffling test of cognition/phi/cut_test.py); "the broadcast integrates" fails
when the agents' Phi is not above their yoked twins' (cognition/controls.py). A floor on
absolute Phi (``min_mean_phi_bits``) is available but not a default: the same data give
0.47-1.54 bits under different window and shrinkage settings, so a fixed number tests
nothing by itself.
"""
from __future__ import annotations

import math


def evaluate(cfg, *, status: str, phi_summary: dict, provenance: dict, unrecovered_errors: int,
             controls: dict | None = None) -> list[dict]:
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
    if c.require_broadcast_effect:
        out.append(_broadcast_effect(controls))
    if not c.allow_classical_fallback:
        cpu_fallback = bool(provenance["device"].get("fell_back")) and not cfg.runtime.allow_cpu_fallback
        classical = bool(provenance.get("classical_fallback"))
        fell_back = classical or cpu_fallback
        what = [w for w, hit in (("classical fallback", classical), ("CPU fallback", cpu_fallback)) if hit]
        out.append({"name": "no unrequested fallback", "passed": not fell_back, "value": ", ".join(what) or "none",
                    "required": "no classical or CPU fallback that was not asked for"})
    return out


def _broadcast_effect(controls: dict | None) -> dict:
    """Phi(agents) - Phi(yoked twins) > 0 with its CI above 0."""
    yoked = (controls or {}).get("yoked")
    name = "the broadcast integrates: Phi(agents) - Phi(yoked twins) across the broadcast cut > 0"
    if not yoked:
        why = (controls or {}).get("note") or "no yoked control in this run"
        return {"name": name, "passed": False, "value": why, "required": "CI of the difference above 0"}
    lo, hi = yoked["difference_ci_bits"]
    return {"name": name, "passed": lo > 0, "value": f"{yoked['difference_bits']:.4f} bits (CI {lo:.4f} .. {hi:.4f})",
            "required": "CI of the difference above 0"}
