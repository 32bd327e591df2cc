"""The run report: report.json (numbers), report.md (for people) and PNG plots."""
from __future__ import annotations

from pathlib import Path

from cognition import plots
from cognition.rundir import write_json


def _fmt(x, digits=4) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def build(*, status: str, message: str, phi_summary: dict, criteria: list[dict], provenance: dict,
          retries: list[dict], records: list[dict], telemetry_summary: dict) -> dict:
    interference = [r["extras"].get("hybrid.interference") for r in records]
    interference = [v for v in interference if v is not None]
    return {
        "status": status,
        "message": message,
        "cycles_completed": len(records),
        "passed": all(c["passed"] for c in criteria),
        "criteria": criteria,
        "phi": phi_summary,
        "hybrid": {"mean_interference": (sum(interference) / len(interference)) if interference else None},
        "retries": retries,
        "components": {n: d["backend"] for n, d in provenance["components"].items()},
        "classical_components": provenance["classical_components"],
        "telemetry": telemetry_summary,
    }


def write(run_dir: Path, report: dict, records: list[dict]) -> list[Path]:
    run_dir = Path(run_dir)
    write_json(run_dir / "report.json", report)
    pngs = [plots.phi_over_cycles(records, report["phi"], run_dir / "phi_over_cycles.png")]
    if records:
        pngs.append(plots.salience_over_cycles(records, run_dir / "salience.png"))
    (run_dir / "report.md").write_text(markdown(report, [p.name for p in pngs]))
    return pngs


def markdown(report: dict, images: list[str]) -> str:
    phi = report["phi"]
    verdict = "PASSED" if report["passed"] else "FAILED"
    lines = [f"# Phi report: {verdict}", "",
             f"Status: {report['status']}, {report['cycles_completed']} cycles. {report['message']}".rstrip(), "",
             "## Integrated information", "",
             f"- measure: {phi['measure']} (bits), lag {phi['lag']}, per-cycle window {phi['window_cycles']} cycles",
             f"- mean over cycles: {_fmt(phi.get('mean_bits'))} bits, "
             f"CI {[_fmt(v) for v in phi['mean_ci_bits']] if phi.get('mean_ci_bits') else 'n/a'}"]
    whole = phi.get("whole_run")
    if whole:
        m = phi["measure"]
        ci = (whole.get("ci") or {}).get(m)
        p = (whole.get("p_value") or {}).get(m)
        lines += [f"- whole run: {_fmt(whole.get(m))} bits, CI {[_fmt(v) for v in ci] if ci else 'n/a'}, "
                  f"surrogate p-value {_fmt(p)}",
                  f"- minimum-information bipartition: {phi['partition_named'][0]} | {phi['partition_named'][1]}"]
    lines += ["", "## Criteria", "", "| criterion | value | required | result |", "|---|---|---|---|"]
    for c in report["criteria"]:
        lines.append(f"| {c['name']} | {_fmt(c['value'])} | {c['required']} | {'pass' if c['passed'] else 'FAIL'} |")
    lines += ["", "## Components", ""]
    lines += [f"- {n}: {b}" for n, b in report["components"].items()]
    if report["classical_components"]:
        lines.append(f"- classical components: {', '.join(report['classical_components'])}")
    lines += ["", "## Retries", ""]
    lines += [f"- cycle {r['cycle']}: {r['kind']}, batch {r['batch_before']} -> {r['batch_after']}"
              for r in report["retries"]] or ["- none"]
    lines += ["", "## Plots", ""] + [f"![{name}]({name})" for name in images]
    return "\n".join(lines) + "\n"
