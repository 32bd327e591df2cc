"""IIT 4.0 by intervention in words: the rows and the summary line that ``python -m cognition.experiment iit4``
prints and the run report's section shows (``analysis.iit4: true``), one formatting for both."""
from __future__ import annotations

from cognition.reporting.document import Table

HEADER = ["agent", "phi_s (bits)", "interval", "p", "MIP", "maximal complex (phi_s, big Phi)"]


def agent_cells(e: dict) -> list[str]:
    """One agent's entry of :func:`cognition.analysis.perturbational.iit4_by_intervention` as :data:`HEADER`'s
    cells."""
    if e["phi_s"] is None:
        return [str(e["agent"]), "undefined", e["note"], "", "", ""]
    ci = "" if e["phi_s_ci"] is None else f"[{e['phi_s_ci'][0]:.4f}, {e['phi_s_ci'][1]:.4f}]"
    p = "" if e["p_value"] is None else f"{e['p_value']:.3f}"
    cx = ""
    if "complex" in e:
        big = "" if e["big_phi"] is None else f", {e['big_phi']:.4f}"
        cx = f"{'+'.join(e['complex']) or '(none)'} ({e['complex_phi_s']:.4f}{big})"
    return [str(e["agent"]), f"{e['phi_s']:.4f}", ci, p, e["mip"] or "", cx]


def summary_line(doc: dict) -> str:
    """phi_s across agents (mean with its interval), how many agents' tests reject, the maximal complexes."""
    s = doc["summary"]
    ci = "" if s["phi_s_mean_ci"] is None else f" [{s['phi_s_mean_ci'][0]:.4f}, {s['phi_s_mean_ci'][1]:.4f}]"
    undefined = f" ({s['undefined']} more undefined: raise the draws)" if s["undefined"] else ""
    mean = "-" if s["phi_s_mean"] is None else f"{s['phi_s_mean']:.4f}"
    line = (f"phi_s across {s['agents']} agents{undefined}: mean {mean}{ci} bits; phi_s > 0 at alpha {s['alpha']}: "
            f"{s['rejected']} of {s['tested']} agents")
    if s["maximal_complexes"]:
        line += "; maximal complexes: " + ", ".join(f"{k} x{v}" for k, v in s["maximal_complexes"].items())
    return line


def iit4_blocks(report: dict) -> list:
    """The report section's blocks: what was computed and how (the grain), the summary and one row per agent; or
    how to ask for it."""
    doc = report.get("iit4")
    if doc is None:
        return ["Not computed for this run: set `analysis.iit4: true` (about 35 s for 32 agents here), or run "
                "`python -m cognition.experiment iit4` on its configuration (docs/iit4.md)."]
    return [f"Each agent's TPM of {len(doc['units'])} units ({', '.join(doc['units'])}) by intervention on its own "
            f"loop ({doc['mode']} mode, lesion {doc['lesion'] or 'none'}): {doc['cycles']} recorded cycles after a "
            f"burn-in of {doc['burn']}, {doc['draws']} interventions per macro state, then exact IIT 4.0 in the "
            f"agent's most visited macro state; interval from {doc['bootstrap']} resampled TPMs, test against "
            f"{doc['null']} TPMs cut along the MIP (docs/iit4.md). Grain: {doc['grain']}.",
            summary_line(doc) + (f"; {doc['seconds']:.1f} s" if doc.get("seconds") is not None else "") + ".",
            Table(HEADER, [agent_cells(e) for e in doc["agents"]])]
