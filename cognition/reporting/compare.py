"""Runs side by side: Phi per run, a significance test between runs, and the cost per cycle.

For each pair of runs, mean per-cycle Phi is compared by the bootstrap over agents of
:mod:`cognition.reporting.stats` (why not Mann-Whitney U on per-cycle values: overlapping
windows make neighbouring cycles dependent). With more than one pair, p-values are also
given Holm-adjusted, so that "some pair differs" keeps its level.
"""
from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np

from cognition.errors import UsageError
from cognition.reporting import fmt
from cognition.reporting.bands import run_bands
from cognition.reporting.rundata import RunData, load_run, load_units
from cognition.reporting.sections import cycle_seconds
from cognition.reporting.stats import bootstrap_difference, holm

METHOD_NOTE = ("Per-cycle Phi comes from overlapping windows, so neighbouring cycles are dependent and a test that "
               "treats them as independent observations (Mann-Whitney U, Welch's t) would overstate significance. "
               "The agents are a run's independent replicates: each run's mean per-cycle Phi (at the cycles its "
               "bands evaluate) is bootstrapped by resampling agents and re-estimating every window; the "
               "difference between two runs is tested with the bootstrap standard error (normal interval). "
               "H0: equal mean per-cycle Phi. Holm-adjusted p-values account for testing every pair.")


def summarise_run(run: RunData, label: str) -> dict:
    """One run's row: Phi per cycle and over the whole run (bits), seconds per cycle, peak memory (bytes)."""
    phi = run.report["phi"]
    m = phi["measure"]
    bands = run.report.get("phi_bands") or {}
    with_phi = [r for r in run.records if r.get("phi")]
    whole = phi.get("whole_run") or {}
    secs = cycle_seconds(run.records)
    tel = run.report.get("telemetry") or {}
    return {"label": label, "path": str(run.path), "mode": run.mode, "seed": run.provenance.get("seed"),
            "cycles": run.report["cycles_completed"], "agents": run.config["run"]["agents"], "measure": m,
            "window_cycles": phi.get("window_cycles"), "passed": run.report["passed"],
            "phi_cycles": [r["cycle"] for r in with_phi], "phi_bits": [float(r["phi"][m]) for r in with_phi],
            "mean_bits": phi.get("mean_bits"), "mean_ci_bits": phi.get("mean_ci_bits"),
            "whole_run_bits": whole.get(m), "whole_run_ci_bits": (whole.get("ci") or {}).get(m),
            "whole_run_p_value": (whole.get("p_value") or {}).get(m),
            "seconds_per_cycle": secs.tolist(),
            "median_seconds_per_cycle": float(np.nanmedian(secs)) if np.isfinite(secs).any() else None,
            "peak_memory_bytes": tel.get("mem_peak_bytes", tel.get("mem_peak_rss_bytes")),
            "peak_memory_kind": "CUDA tensors" if "mem_peak_bytes" in tel else "process RSS",
            "test_cycles": bands.get("cycles"), "test_mean_bits": bands.get("mean_bits"),
            "replicate_means_bits": bands.get("replicate_means_bits"),
            "no_test_reason": None if bands.get("replicate_means_bits") else
            (bands.get("ci_method") or bands.get("note") or "no per-cycle bootstrap in report.json")}


def _labels(runs: list[RunData]) -> list[str]:
    modes = [r.mode for r in runs]
    return [m if modes.count(m) == 1 else f"{m} #{i + 1}" for i, m in enumerate(modes)]


def compare_runs(runs: list[RunData]) -> dict:
    """Rows for each run and a test for each pair; UsageError if the runs use different measures."""
    measures = {r.report["phi"]["measure"] for r in runs}
    if len(measures) > 1:
        raise UsageError(f"the runs use different Phi measures ({', '.join(sorted(measures))}); "
                         "compare runs with the same phi.measure")
    rows = [summarise_run(r, label) for r, label in zip(runs, _labels(runs))]
    tests = []
    for a, b in combinations(rows, 2):
        test = {"a": a["label"], "b": b["label"]}
        missing = [f"{r['label']}: {r['no_test_reason']}" for r in (a, b) if r["no_test_reason"]]
        if missing:
            test["note"] = "no test (" + "; ".join(missing) + ")"
        else:
            test.update(bootstrap_difference(a["test_mean_bits"], a["replicate_means_bits"],
                                             b["test_mean_bits"], b["replicate_means_bits"]))
        tests.append(test)
    done = [t for t in tests if "p_value" in t]
    if len(done) > 1:
        for t, p in zip(done, holm([t["p_value"] for t in done])):
            t["p_value_holm"] = p
    return {"measure": measures.pop(), "runs": rows, "tests": tests}


def compare_dirs(paths: list[str | Path]) -> dict:
    """:func:`compare_runs` on run directories (NotARunError, one line, for a path that is not a run).

    A run whose report.json predates the per-cycle bands gets them computed here from its
    checkpoint, in memory: the run directory is not changed.
    """
    runs = [load_run(p) for p in paths]
    for run in runs:
        if "replicate_means_bits" not in (run.report.get("phi_bands") or {}):
            units = load_units(run.path, len(run.records))
            if units is not None:
                run.report["phi_bands"] = run_bands(run.config, run.report["phi"], units, len(run.records))
    return compare_runs(runs)


def table_rows(comparison: dict) -> tuple[list[str], list[list[str]]]:
    m = comparison["measure"]
    header = ["run", "mode", "seed", "cycles", f"mean {m} [CI]", f"whole-run {m}", "p (null)",
              "s/cycle (median)", "peak memory", "criteria"]
    rows = [[r["label"], r["mode"], str(r["seed"]), str(r["cycles"]),
             f"{fmt.bits(r['mean_bits'])} {fmt.interval(r['mean_ci_bits'], unit='')}",
             fmt.bits(r["whole_run_bits"]), fmt.p_value(r["whole_run_p_value"]),
             fmt.seconds(r["median_seconds_per_cycle"]), fmt.mib(r["peak_memory_bytes"]),
             "passed" if r["passed"] else "FAILED"] for r in comparison["runs"]]
    return header, rows


def pair_rows(comparison: dict) -> tuple[list[str], list[list[str]]]:
    header = ["runs", "difference of mean per-cycle Phi [CI]", "p-value", "Holm-adjusted"]
    rows = []
    for t in comparison["tests"]:
        pair = f"{t['a']} - {t['b']}"
        if "p_value" not in t:
            rows.append([pair, "n/a", "n/a", "n/a"])
        else:
            rows.append([pair, f"{fmt.bits(t['difference'])} {fmt.interval(t['ci'], unit='')}",
                         fmt.p_value(t["p_value"]), fmt.p_value(t.get("p_value_holm"))])
    return header, rows


def pair_notes(comparison: dict) -> list[str]:
    """The test's method and any caveat, once each."""
    notes = []
    for t in comparison["tests"]:
        for note in (f"test: {t['method']}" if "method" in t else None, t.get("note")):
            if note and note not in notes:
                notes.append(note)
    return notes


def _text_table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]


def table_text(comparison: dict) -> str:
    """The comparison as plain-text tables for a terminal."""
    lines = [f"Runs ({comparison['measure']} in bits; p (null): surrogate p-value of the whole-run estimate)", ""]
    lines += _text_table(*table_rows(comparison))
    lines += ["", f"Per-cycle {comparison['measure']}, each pair of runs", ""]
    lines += _text_table(*pair_rows(comparison)) + [""] + pair_notes(comparison)
    lines += [""] + [f"{r['label']}: {r['path']}" for r in comparison["runs"]]
    return "\n".join(lines)


def write_files(comparison: dict, out: str | Path) -> list[Path]:
    """comparison.json, comparison.png, comparison.md and comparison.html in ``out`` (created if missing)."""
    from cognition.reporting import document
    from cognition.reporting.compare_plot import comparison_plot
    from cognition.rundir import write_json

    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        png = comparison_plot(comparison, out / "comparison.png")
        write_json(out / "comparison.json", comparison)
        title = f"Run comparison: {', '.join(r['label'] for r in comparison['runs'])}"
        body = [document.Section("Runs", [document.Table(*table_rows(comparison)),
                                          [f"{r['label']}: {r['path']}" for r in comparison["runs"]]]),
                document.Section("Significance", [document.Table(*pair_rows(comparison)),
                                                  pair_notes(comparison), METHOD_NOTE]),
                document.Section("Plots", [document.Figure(png, "Phi per cycle, its distribution per run, "
                                                                "the whole-run estimate and seconds per cycle")])]
        (out / "comparison.md").write_text(document.markdown(title, body))
        (out / "comparison.html").write_text(document.html_page(title, body))
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write the comparison ({exc.strerror or exc})") from None
    return [out / n for n in ("comparison.md", "comparison.html", "comparison.png", "comparison.json")]
