"""`python -m cognition.bench` runs and writes what it prints; speed itself is never asserted here
(timings belong to the bench's output, not to unit tests)."""
import json

import pytest

from clitools import command


def bench(tmp_path, suite: str, *args):
    """Run a suite with --json; (CompletedProcess, the suite's results)."""
    out = tmp_path / "bench.json"
    res = command("cognition.bench", suite, *args, "--json", out)
    assert res.returncode == 0, res.stderr
    return res, json.loads(out.read_text())[suite]


@pytest.mark.integration
def test_agents_suite_writes_rows_ratios_and_saturation(tmp_path):
    res, result = bench(tmp_path, "agents", "--agents", "1", "2", "--modes", "disabled", "--cycles", "1",
                        "--repeats", "1", "--device", "cpu", "--compile", "default", "--machine-agents", "8",
                        "--profile", "3")
    rows = result["rows"]
    assert [(r["mode"], r["agents"]) for r in rows] == [("disabled", 1), ("disabled", 2)]
    for r in rows:
        assert r["device"] == "cpu" and r["gpu_utilisation"] is None  # sampled on CUDA devices only
        assert r["speedup_vs_loop"] == r["per_agent_loop_s_per_cycle"] / r["batched_s_per_cycle"]
        assert r["compiled_speedup_vs_eager"] == r["batched_s_per_cycle"] / r["compiled_s_per_cycle"]
    sat = result["saturation"]["disabled"]
    assert sat["saturates_at"] in (1, 2) and sat["peak_agents"] in (1, 2)
    assert "compiled cyc/s" in res.stdout and "90 % of its peak" in res.stdout
    # the roofline beside each row (docs/performance.md), the per-cycle Phi timed alone, the profile
    counts, machine = result["roofline"]["counts"]["disabled/yoked"], result["roofline"]["machine"]
    assert "expectation.gru" in counts["terms"] and machine["peak_gflops"] > 0 and machine["bandwidth_gbs"] > 0
    for r in rows:
        assert r["flop_per_agent_cycle"] == counts["flop_per_agent_cycle"]
        assert r["fraction_of_bound"] == r["agent_cycles_per_s"] / r["bound_agent_cycles_per_s"]
        assert r["bound_agent_cycles_per_s"] == min(r["compute_bound_agent_cycles_per_s"],
                                                    r["memory_bound_agent_cycles_per_s"])
        assert r["phi_s_per_cycle"] > 0 and len(r["profile"]["by_own_time"]) == 3
    assert "of bound" in res.stdout and "Phi ms/cycle" in res.stdout and "by cumulative time" in res.stdout


@pytest.mark.integration
def test_agents_suite_without_the_loop_or_the_roofline(tmp_path):
    res, result = bench(tmp_path, "agents", "--agents", "2", "--modes", "disabled", "--cycles", "1",
                        "--repeats", "1", "--device", "cpu", "--no-loop", "--no-roofline", "--no-phi")
    (row,) = result["rows"]
    assert row["per_agent_loop_s_per_cycle"] is None and row["speedup_vs_loop"] is None
    assert result["roofline"]["machine"] is None and "bound_agent_cycles_per_s" not in row
    assert "phi_s_per_cycle" not in row and row["bytes_per_agent_cycle"] > 0


def test_json_into_a_missing_directory_is_one_line(tmp_path):
    res = command("cognition.bench", "agents", "--json", tmp_path / "missing" / "b.json")
    assert res.returncode == 2
    assert len(res.stderr.strip().splitlines()) == 1 and "does not exist" in res.stderr


@pytest.mark.integration
def test_runtime_suite_measures_plans_rss_and_checkpoints(tmp_path):
    res, result = bench(tmp_path, "runtime", "--planned", "20", "40", "--first", "10", "--long", "40",
                        "--rss-from", "20", "--agents", "2", "--repeats", "1")
    assert [r["planned"] for r in result["planned"]] == [20, 40] and result["planned"][0]["wall_ratio"] == 1.0
    assert all(r["wall_ms"] >= r["step_ms"] > 0 for r in result["planned"])
    long = result["long"]["long"]
    assert len(long["checkpoint_bytes"]) == 3 and long["rss_from_mib"] > 0
    assert "wall ms/cycle" in res.stdout and "checkpoints" in res.stdout


@pytest.mark.integration
def test_compare_suite_measures_the_reports_own_test_and_reuses_runs(tmp_path):
    """issue 16 item 3: the calibration of cognition.report's across-run test; the p-values it counts
    are the ones `python -m cognition.report` prints for the same runs (the runs' headline Phi)."""
    runs = tmp_path / "runs"
    args = ("--modes", "disabled", "--group-size", "2", "--comparisons", "1", "--cycles", "45", "--runs", runs)
    res, result = bench(tmp_path, "compare", *args)
    null = result["null"]["disabled"]
    assert (null["runs"], null["across_runs"]["of"], null["within_seed"]["of"]) == (4, 1, 2)
    assert "4 to make" in res.stdout and "disjoint comparisons" in res.stdout and result["power"] is None
    assert "headline Phi over seeds" in res.stdout and "mean_bits" not in null
    dirs = sorted(runs.iterdir(), key=lambda p: int(p.name.rsplit("-s", 1)[1]))
    cli = command("cognition.report", "--group", *dirs[:2], "--group", *dirs[2:], "--out", tmp_path / "cmp")
    assert cli.returncode == 0, cli.stderr
    (test,) = json.loads((tmp_path / "cmp" / "comparison.json").read_text())["tests"]
    assert null["p_values_across_runs"] == [test["p_value"]]
    assert null["across_runs"]["rejected"] == int(test["p_value"] < 0.05)
    cli = command("cognition.report", *dirs[:2], "--out", tmp_path / "pair")  # one run per side
    assert cli.returncode == 0, cli.stderr
    (test,) = json.loads((tmp_path / "pair" / "comparison.json").read_text())["tests"]
    assert null["p_values_within_seed"][0] == test["p_value"]
    # the statistics beside the rates, from the runs' own report.json
    phis = [json.loads((d / "report.json").read_text())["phi"] for d in dirs]
    headlines = [phi["headline_bits"] for phi in phis]
    assert null["mean_headline_bits"] == pytest.approx(sum(headlines) / 4, abs=1e-12)
    ses = sorted(phi["whole_run"]["se"][phi["measure"]] for phi in phis)
    assert null["median_within_seed_se_bits"] == pytest.approx((ses[1] + ses[2]) / 2, abs=1e-12)
    again, _ = bench(tmp_path, "compare", *args)
    assert "4 of 4 reused" in again.stdout


@pytest.mark.integration
def test_compare_suite_stops_on_runs_without_a_headline(tmp_path):
    res = command("cognition.bench", "compare", "--modes", "disabled", "--group-size", "2", "--comparisons", "1",
                  "--cycles", "20")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("error: ") and "no headline Phi to compare" in line and "--cycles" in line


def test_clopper_pearson_interval_at_the_ends():
    from cognition.benchmarks.compare import rate

    # exact interval with no (all) rejections: upper (lower) bound 1 - (alpha/2)^(1/n) (resp. (alpha/2)^(1/n))
    assert rate(0, 40)["ci"] == pytest.approx([0.0, 1 - 0.025 ** (1 / 40)], abs=1e-9)
    assert rate(40, 40)["ci"] == pytest.approx([0.025 ** (1 / 40), 1.0], abs=1e-9)
    assert rate(2, 40)["rate"] == 0.05


@pytest.mark.integration
def test_calibration_suite_measures_every_family_and_its_output_feeds_reports(tmp_path, capsys):
    # issue 30 item 6: the record a report quotes is the bench's own --json output; a tiny run (2 systems
    # per null family, 2 draws per exact family) exercises every family at every size
    import json as _json

    from cognition.benchmarks.calibration import NULL_FAMILIES, NULL_SIZES, SIZES, TARGET_FAMILIES
    from cognition.analysis.calibration_record import applicable_calibration
    from cognition.bench import main as bench

    out = tmp_path / "cal.json"
    assert bench(["calibration", "--systems", "2", "--draws", "2", "--runs", "1", "--surrogates", "19",
                  "--json", str(out)]) == 0
    table = _json.loads(out.read_text())["calibration"]
    assert len(table["null_families"]) == len(NULL_FAMILIES) * len(NULL_SIZES)
    assert len(table["accuracy"]) == len(TARGET_FAMILIES) * len(SIZES)
    for row in table["accuracy"]:
        assert 0.0 <= row["coverage"] <= 1.0 and row["draws"] == 2 and row["mean_exact_phi_r_bits"] > 0
    calib = applicable_calibration(32, 50, out)
    assert calib["exact_size"] and len(calib["null_families"]) == len(NULL_FAMILIES)


def test_calibration_suite_refuses_a_bad_count_in_one_line(capsys):
    from cognition.bench import main as bench

    with pytest.raises(SystemExit) as exc:
        bench(["calibration", "--systems", "0"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and err == ["error: --systems 0: allowed 1 .. 100000"]


@pytest.mark.parametrize("flag, value, says", [("--null-sizes", "32by50", "not AxT"),
                                                ("--null-sizes", "4x50", "5 <= A <= 128"),
                                                ("--families", "12", "family indices 0-11")])
def test_calibration_suite_refuses_bad_sizes_and_families_in_one_line(capsys, flag, value, says):
    from cognition.bench import main as bench

    assert bench(["calibration", flag, value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0] and flag in err[0]


def test_lag_suite_writes_its_rows_and_refuses_bad_flags_in_one_line(tmp_path):
    # a tiny run: every coupling x system x lag row, the rule rows, rates with their exact intervals
    res, out = bench(tmp_path, "lag", "--draws", "2", "--couplings", "0", "1.5", "--trials", "6", "--cycles", "80",
                     "--units", "3", "--surrogates", "9")
    rows = out["rows"]
    assert [(r["coupling"], r["system"], r["lag"]) for r in rows] == [
        (k, s, lag) for k in (0.0, 1.5) for s in ("coupled", "shuffled") for lag in ("auto", "1")]
    for r in rows:
        assert r["draws"] == 2 and r["verdict"]["of"] == 2 and 0.0 <= r["verdict"]["ci"][0] <= r["verdict"]["ci"][1]
        assert (r["lag_used"]["min"] == 1) == (r["lag"] == "1")
    assert [r["system"] for r in out["rule"]] == ["AR(1) rho 0.5", "AR(1) rho 0.8", "AR(1) rho 0.95",
                                                   "Kuramoto K 1.5"]
    assert "K 1.5, shuffled, lag auto" in res.stdout
    for flag, value, says in (("--couplings", "-1", "--couplings -1.0: allowed 0 to 100"),
                              ("--lags", "0", "0 is not allowed: expected an integer >= 1, or 'auto'"),
                              ("--units", "9", "--units 9: at most --trials (6)")):
        bad = command("cognition.bench", "lag", "--trials", "6", flag, value)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and says in bad.stderr, bad.stderr


def test_analysis_suite_reads_each_runs_phases_and_counts_its_floor(tmp_path):
    # one small main job: the phases its own progress lines print, its report's peak RSS, and the floor's
    # arithmetic (reference: the formula written out here for 5 agents x 30 cycles, 7 units, lag 1)
    res, out = bench(tmp_path, "analysis", "--cycles", "30", "--agents-at", "5", "--agents")
    (row,) = out["rows"]
    assert (row["agents"], row["cycles"]) == (5, 30)
    assert row["cycles_s"] > 0 and row["analysis_s"] > 0 and row["report_s"] >= 0 and row["peak_rss_bytes"] > 2**20
    rows, replicates = 4 * 5, 40
    assert row["floor_flops"]["covariances"] == 2 * (1 + replicates) * rows * 30 * 14 ** 2
    assert row["floor_flops"]["test_pairs"] == 2 * 2 * 3 * 25 * 30 * 49
    assert "5 agents x 30 cycles: cycles" in res.stdout
    bad = command("cognition.bench", "analysis", "--cycles", "1000000", "--agents-at", "100")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "above the limit" in bad.stderr, bad.stderr
