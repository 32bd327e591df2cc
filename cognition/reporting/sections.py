"""The run report's content: its sections, built from report.json's numbers, the records and provenance.

Every number carries its unit (bits, MiB, s). :data:`SECTIONS` lists the section
titles in order; the tests check that each one is present in report.md and report.html.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from cognition.analysis import fmt, wording
from cognition.reporting.document import Figure, Section, Table
from cognition.reporting.iit4_report import iit4_blocks
from cognition.reporting.plots import module_order
from cognition.reporting.rundata import MODE_NAMES
from cognition.reporting.workspace_report import competition_blocks, control_blocks

SECTIONS = ("Summary", "Integrated information (Phi)", "Minimum-information bipartition", "IIT 4.0 by intervention",
            "Causal control: both directions of the loop", "Workspace competition", "Hybrid cognition", "Memory and time",
            "Retries and fallbacks", "Criteria", "Provenance")
MEASURES = ("tdmi", "phi_wms", "phi_r", "stochastic_interaction")
CAPTIONS = {"phi": "Per-cycle Phi with its bootstrap band, the null model's band and the mean per-cycle Phi with its "
                   "CI",
            "mib": "Side of the MIB of each unit, per cycle and for the whole run",
            "workspace": "Mean evidence per module and the share of agents each module won",
            "ignition": "Access of one module as its bid is swept up and down (hysteresis), and dwell times",
            "controls": ("Each direction of the loop through the workspace: the agents against the twins that cut "
                         "it (the loop test; Phi at the broadcast cut and at each MIB, descriptive)"),
            "hybrid": "Interference term, choice probability and belief of the hybrid module",
            "memory": "Memory, seconds and agents per launch per cycle"}


def title(report: dict, provenance: dict) -> str:
    verdict = "PASSED" if report["passed"] else "FAILED"
    mode = provenance.get("quantum_mode")
    return (f"Phi report: {verdict} ({MODE_NAMES.get(mode, mode)} mode, seed {provenance.get('seed')}, "
            f"{report['cycles_completed']} cycles)")


def cycle_seconds(records: list[dict]) -> np.ndarray:
    """Seconds per cycle, from metrics ``timing.cycle_s`` (shape (cycles,))."""
    return np.array([(r.get("timing") or {}).get("cycle_s", np.nan) for r in records], dtype=float)


def run_sections(report: dict, records: list[dict], provenance: dict, config: dict,
                 figures: dict[str, Path | None]) -> list[Section]:
    """All sections of the run report; ``figures`` maps a plot's name to its PNG (None: not drawn)."""
    def fig(name):
        return [Figure(figures[name], CAPTIONS[name])] if figures.get(name) else []

    return [
        _summary(report, records, provenance, config),
        Section(SECTIONS[1], _phi_blocks(report, records) + fig("phi")),
        Section(SECTIONS[2], _mib_blocks(report, records) + fig("mib")),
        Section(SECTIONS[3], iit4_blocks(report)),
        Section(SECTIONS[4], control_blocks(report) + fig("controls")),
        Section(SECTIONS[5], competition_blocks(report, records, config["modules"]["enabled"]) + fig("workspace")
                + fig("ignition")),
        Section(SECTIONS[6], _hybrid_blocks(records) + fig("hybrid")),
        Section(SECTIONS[7], _resource_blocks(report, records) + fig("memory")),
        Section(SECTIONS[8], _retry_blocks(report, provenance)),
        Section(SECTIONS[9], [Table(["criterion", "value", "required", "result"],
                                    [[c["name"], criterion_value(c), str(c["required"]),
                                      "pass" if c["passed"] else "FAIL"] for c in report["criteria"]])]),
        Section(SECTIONS[10], _provenance_blocks(provenance, config)),
    ]


def criterion_value(c: dict) -> str:
    """The measured value, in bits where the requirement is in bits (e.g. mean Phi)."""
    bits = isinstance(c["value"], float) and "bits" in str(c["required"])
    return fmt.bits(c["value"]) if bits else fmt.number(c["value"])


def _summary(report, records, provenance, config) -> Section:
    phi = report["phi"]
    secs = cycle_seconds(records)
    status = f"Status: {report['status']} after {report['cycles_completed']} of {config['run']['cycles']} cycles."
    mode = provenance.get("quantum_mode")
    integrated = phi.get("integrated") or {}
    items = [f"verdict: {'every criterion passed' if report['passed'] else 'a criterion failed'}",
             f"{wording.headline_name(phi)}: {wording.headline_numbers(phi)}"
             + (f"; integrated: {'yes' if integrated['passed'] else 'no'} ({integrated['reason']})"
                if integrated else ""),
             mean_per_cycle_text(phi),
             f"quantum mode: {MODE_NAMES.get(mode, mode)} ({mode}), {config['run']['agents']} agents, "
             f"seed {provenance.get('seed')}",
             f"device: {device_text(provenance['device'])}",
             run_time_text(report, secs)]
    blocks = [status + (f" {report['message']}" if report["message"] else ""), items]
    return Section(SECTIONS[0], blocks)


def mean_per_cycle_numbers(phi: dict) -> str:
    """``0.1868 bits, 95% CI [0.0634, 0.3103] bits``: the descriptive mean per-cycle Phi with its own interval."""
    return (f"{fmt.bits(phi.get('mean_bits'))}, {phi.get('confidence', 0.95):.0%} CI "
            f"{fmt.interval(phi.get('mean_ci_bits'))}")


def mean_per_cycle_text(phi: dict) -> str:
    """The summary's line on the mean per-cycle Phi, labelled as the Phi section and the comparison label it."""
    return f"{wording.per_cycle_mean_name(phi['measure'])} (descriptive, windows pooled over agents): " \
           f"{mean_per_cycle_numbers(phi)}"


def run_time_text(report: dict, secs: np.ndarray) -> str:
    """The run's wall-clock time (``telemetry.run_wall_seconds``: cycles, analysis and report, the figure
    the CLI prints), then the cycles' steps alone; reports of older runs have only the steps."""
    steps = f"{fmt.seconds(float(np.nansum(secs)))} in the steps of {len(secs)} cycles, median " \
            f"{fmt.seconds(_median(secs))} per cycle"
    wall = (report.get("telemetry") or {}).get("run_wall_seconds")
    if wall is None:
        return f"time: {steps}"
    return f"time: {fmt.seconds(wall)} wall clock for the run (cycles, analysis, report); {steps}"


def device_text(dev: dict) -> str:
    """``cpu: why`` from provenance's device entry (its reason usually starts with the device already)."""
    reason = dev.get("reason") or ""
    return reason if reason.startswith(str(dev["device"])) else f"{dev['device']}: {reason}".rstrip(": ")


def _median(x: np.ndarray):
    x = x[np.isfinite(x)]
    return float(np.median(x)) if len(x) else None


def _phi_blocks(report: dict, records: list[dict]) -> list:
    phi = report["phi"]
    m = phi["measure"]
    whole = phi.get("whole_run") or {}
    items = [f"measure: {m} in bits, lag {phi['lag']} cycle(s), over {len(phi['unit_names'])} units "
             f"(two per node of the wiring graph)",
             f"per cycle: over a trailing window of {phi['window_cycles']} cycles pooled over agents, "
             f"{phi['n_cycles_with_phi']} cycles with an estimate"]
    undefined = [r for r in records if r.get("phi_note")]
    if undefined:
        items.append(f"{len(undefined)} cycles after the window filled have no estimate (first at cycle "
                     f"{undefined[0]['cycle']}: {undefined[0]['phi_note']})")
    if phi.get("mean_bits") is not None:
        items.append(f"{wording.per_cycle_mean_name(m)} (descriptive: each cycle's window pooled over agents "
                     f"describes their mixture, not an agent): {mean_per_cycle_numbers(phi)} "
                     f"({phi.get('mean_ci_method', '')})")
    elif phi.get("note"):
        items.append(f"{wording.per_cycle_mean_name(m)} (descriptive): n/a ({phi['note']})")
    if whole:
        items += _whole_run_items(phi, whole)
    elif phi.get("whole_run_note"):
        items.append(f"{wording.headline_name(phi)}: n/a ({phi['whole_run_note']})")
    bands = report.get("phi_bands") or {}
    if "cycles" in bands:
        items.append(f"per-cycle bands (descriptive): {bands['ci_method']}; null band: {bands['null_method']}. "
                     "The circular-shift band is not a test for an ensemble whose units share a time course "
                     + ("(docs/phi.md), and nor is this run's whole-run circular-shift p-value above: with too few "
                        "agents for each agent's own Phi the run has no integration test."
                        if wording.headline_pooled(phi) else "(docs/phi.md); the whole-run integration test above is."))
    elif bands.get("note"):
        items.append(f"per-cycle bands: {bands['note']}")
    blocks = [items]
    if whole:
        ci, p, bc = whole.get("ci") or {}, whole.get("p_value") or {}, whole.get("bias_corrected") or {}
        plug_in = "plug-in, pooled over agents" if wording.headline_pooled(phi) else "plug-in, mean over agents"
        rows = [[k, fmt.bits(bc.get(k, whole.get(k))), "bias-corrected, mean over agents" if k in bc else plug_in,
                 fmt.interval(ci.get(k)), fmt.p_value(p.get(k))] for k in MEASURES]
        blocks.append(Table(["whole-run measure", "value", "estimate", "CI",
                             f"{wording.headline_test_name(phi)} p-value"], rows))
        per_agent = whole.get("per_agent")
        if per_agent:
            names = phi["unit_names"]
            rows = [[str(a), fmt.bits(per_agent[m][a]), fmt.bits(per_agent[f"{m}_upper"][a]),
                     fmt.bits(per_agent[f"{m}_plug_in"][a]),
                     " | ".join(", ".join(names[i] for i in part) for part in per_agent["mib"][a])]
                    for a in range(len(per_agent[m]))]
            blocks.append(Table(["agent", f"{m} (point)", f"{m} (upper)", f"{m} (plug-in)", "the agent's MIB"], rows))
    return blocks


def _whole_run_items(phi: dict, whole: dict) -> list[str]:
    m, method = phi["measure"], whole["method"]
    plug_in = ([] if wording.headline_pooled(phi) else  # pooled: the headline is the plug-in value
               [f"mean over agents of each agent's plug-in {m} (not bias-corrected; the agents table's plug-in "
                f"column): {fmt.bits(whole.get(m))}"])
    items = [f"{wording.headline_name(phi)}: {fmt.bits(phi.get('headline_bits'))} from "
             f"{whole.get('n_samples')} lagged samples, CI {fmt.interval(phi.get('headline_ci_bits'))} "
             f"({method.get('ci')})", *plug_in,
             f"covariance: {method.get('covariance')}",
             f"bias correction: {method.get('bias_correction')}",
             f"{wording.headline_test_name(phi)}: {method.get('null_model')}; "
             f"p = {fmt.p_value(phi.get('headline_p_value'))}"]
    if phi.get("integrated"):
        items.append(f"integrated: {'yes' if phi['integrated']['passed'] else 'no'}: {phi['integrated']['reason']}")
    if phi.get("weakest_cut"):
        a, b = phi["weakest_cut"]
        items.append(f"weakest cut (sets the p-value): {{{', '.join(a)}}} | {{{', '.join(b)}}}")
    if phi.get("mib_stability") is not None:
        items.append(f"MIB agreement: the stated MIB is the own MIB of {phi['mib_stability']:.0%} of the agents "
                     "(each agent's value is at its own MIB)")
    calib = phi.get("calibration")
    if calib:
        items.append(calibration_text(calib))
    return items


def calibration_text(calib: dict) -> str:
    """One line quoting the measured calibration that applies to a run's size (the nearest size measured)."""
    if "accuracy" not in calib:  # a record of an older version
        return f"calibration ({calib.get('command')}): recorded by an older version; run it again"
    fp = ", ".join(f"{r['family']} {r['false_positive_rate']:.1%} (verdict {r['verdict_rate']:.1%})"
                   for r in calib["null_families"])
    acc = ", ".join(f"{r['family']}: median error {r['median_error_bits']:+.3f} bits, coverage {r['coverage']:.0%}"
                    for r in calib["accuracy"])
    size = "this run's size" if calib["exact_size"] else "the nearest size measured"
    return (f"calibration ({calib['command']}; {size}): false positives of the test (and of the verdict, which "
            f"also needs the interval above 0) at alpha {calib['alpha']} "
            f"({calib['null_size'][0]} agents x {calib['null_size'][1]} cycles): {fp}; headline against the exact "
            f"mean per-agent Phi_R ({calib['size'][0]} x {calib['size'][1]}): {acc}")


def _mib_blocks(report: dict, records: list[dict]) -> list:
    phi = report["phi"]
    if not phi.get("partition_named"):
        return ["No whole-run estimate, so no minimum-information bipartition."]
    a, b = phi["partition_named"]
    per_cycle = [tuple(map(tuple, r["phi"]["mib"])) for r in records if r.get("phi") and r["phi"].get("mib")]
    whole = tuple(map(tuple, phi["partition"]))
    items = [f"whole run: {{{', '.join(a)}}} | {{{', '.join(b)}}}",
             f"criterion: {(phi.get('whole_run') or {}).get('method', {}).get('mib_criterion', 'n/a')}"]
    if per_cycle:
        top, count = Counter(per_cycle).most_common(1)[0]
        names = phi["unit_names"]
        items += [f"per cycle: the whole-run MIB is the MIB of {sum(p == whole for p in per_cycle)} of "
                  f"{len(per_cycle)} cycles",
                  f"most frequent per-cycle MIB ({count} cycles): {{{', '.join(names[i] for i in top[0])}}} | "
                  f"{{{', '.join(names[i] for i in top[1])}}}"]
    return [items]


def _hybrid_blocks(records: list[dict]) -> list:
    vals = np.array([r["extras"]["hybrid.interference"] for r in records
                     if r["extras"].get("hybrid.interference") is not None])
    if not len(vals):
        return ["The hybrid module is not enabled in this run."]
    items = [f"interference term, mean over agents and cycles: {fmt.number(float(vals.mean()))} "
             f"(range {fmt.number(float(vals.min()))} .. {fmt.number(float(vals.max()))}; a probability: "
             "P(act | unknown) minus the law of total probability's mixture; exactly 0 for the Markov twin)"]
    entropy = [r["extras"]["unconscious.sample_entropy_bits"] for r in records
               if r["extras"].get("unconscious.sample_entropy_bits") is not None]
    if entropy:
        items.append(f"unconscious sampler: mean entropy of the sampled bitstrings {fmt.bits(float(np.mean(entropy)))}")
    return [items]


def _resource_blocks(report: dict, records: list[dict]) -> list:
    tel = report.get("telemetry") or {}
    secs = cycle_seconds(records)
    items = []
    for key, label in (("mem_peak_rss_bytes", "peak resident memory (RSS) of the process"),
                       ("mem_peak_bytes", "peak CUDA memory in tensors"),
                       ("mem_peak_reserved_bytes", "peak CUDA memory reserved by the caching allocator")):
        if key in tel:
            items.append(f"{label}: {fmt.mib(tel[key])}")
    if "mem_fragmentation_mean" in tel:
        items.append("CUDA fragmentation (1 - allocated / reserved): "
                     f"mean {fmt.percent(tel['mem_fragmentation_mean'])}, "
                     f"max {fmt.percent(tel['mem_fragmentation_max'])}")
    if "mem_alloc_retries" in tel:
        items.append(f"allocator retries (cudaMalloc failures that flushed the cache): {tel['mem_alloc_retries']}")
    if len(secs):
        items += [f"{run_time_text(report, secs)}; first cycle {fmt.seconds(float(secs[0]))} (includes warm-up)"]
    return [items or ["no telemetry recorded"]]


def _retry_blocks(report: dict, provenance: dict) -> list:
    blocks: list = []
    if report["retries"]:
        blocks.append(Table(["cycle", "attempt", "kind", "agents per launch", "error"],
                            [[str(r["cycle"]), str(r.get("attempt", "")), r["kind"],
                              f"{r['batch_before']} -> {r['batch_after']}", r.get("error", "")]
                             for r in report["retries"]]))
    else:
        blocks.append("No cycle was retried.")
    recovery = report.get("recovery") or []
    blocks.append([f"cycle {e['cycle']}: {e['detail']}" for e in recovery] if recovery else
                  "Not resumed; no checkpoint was skipped or discarded; agents per launch never grew back.")
    dev = provenance["device"]
    items = [f"device fallback: {'yes' if dev.get('fell_back') else 'no'} ({device_text(dev)})",
             f"classical fallback of a quantum component: {'yes' if provenance.get('classical_fallback') else 'no'}",
             "classical components: " + (", ".join(report["classical_components"]) or "none")]
    items += [f"note: {n}" for n in provenance.get("notes") or []]
    blocks.append(items)
    return blocks


def _runtime_rows(provenance: dict) -> list[list[str]]:
    """The step's compilation and the GPU memory cap, when either was asked for."""
    rows = []
    comp = provenance.get("compile") or {}
    if comp.get("mode", "off") != "off":
        graphs = "with CUDA graphs" if comp.get("cuda_graphs") else "no CUDA graphs"
        rows.append(["compiled step", f"torch.compile mode {comp['mode']}, {graphs}; "
                                      f"{len(comp.get('kernels', []))} kernels compiled in "
                                      f"{comp.get('warmup_seconds')} s before cycle 1"])
    cap = provenance.get("gpu_memory_fraction")
    if cap:
        rows.append(["GPU memory cap", f"{cap['fraction']:g} of the device"
                     + (f" ({cap['cap_bytes'] / 2**30:.2f} GiB)" if cap.get("applied") else ": not applied (CPU run)")])
    return rows


def _provenance_blocks(provenance: dict, config: dict) -> list:
    pkg = provenance.get("package") or {}
    qb = provenance.get("quantum_backend") or {}
    rows = [["package", f"{pkg.get('name')} {pkg.get('version')}"], ["git SHA", str(pkg.get("git_sha"))],
            ["started at", str(provenance.get("started_at"))], ["python", str(provenance.get("python"))],
            ["platform", str(provenance.get("platform"))], ["seed", str(provenance.get("seed"))],
            ["quantum mode", str(provenance.get("quantum_mode"))],
            ["quantum backend", f"{qb['name']}, {qb.get('threads')} threads, cap {qb.get('max_qubits')} qubits: "
                                f"{qb.get('reason', '')}" if qb else "none (classical run)"],
            ["command", " ".join(provenance.get("argv") or [])]]
    for name, comp in (provenance.get("components") or {}).items():
        detail = ", ".join(f"{k} {comp[k]}" for k in ("circuit", "qubits", "shots", "hidden", "model") if k in comp)
        rows.append([f"module {name}",
                     f"{comp.get('variant')} on {comp.get('backend')}" + (f" ({detail})" if detail else "")])
    libs = provenance.get("libraries") or {}
    rows.append(["libraries", ", ".join(f"{k} {v}" for k, v in libs.items() if v)])
    alloc = provenance.get("allocator") or {}
    if alloc:
        rows.append(["allocator", f"torch reads {alloc.get('reads')}; in effect: {alloc.get('effective')}"])
    if provenance.get("host_allocator"):
        rows.append(["host allocator", provenance["host_allocator"]])
    rows += _runtime_rows(provenance)
    phi_cfg = config.get("phi", {})
    rows.append(["Phi settings", ", ".join(f"{k} {v}" for k, v in phi_cfg.items())])
    return [Table(["what", "value"], rows), "The full configuration is config.yaml and the full provenance "
                                           "provenance.json in this run directory."]
