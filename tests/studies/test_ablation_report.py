"""The ablation experiment's statistics (paired t across seeds, Holm within an outcome) and its report files."""
from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from scipy import stats

from cognition.experiment.ablation_report import write_report
from cognition.analysis.statistics import holm, minimum_detectable_effect, paired_t_difference
from cognition.experiment.ablation_stats import condition_summary, contrast_table, paired_difference

# Student's (1908) sleep data, the two drugs on the same 10 patients
SLEEP_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
SLEEP_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
SHARES = ("expectation", "unconscious", "hybrid", "none")


def test_paired_t_matches_scipy_and_r_on_the_sleep_data():
    # independent: scipy.stats.ttest_rel, and R's t.test(extra ~ group, data = sleep, paired = TRUE) as
    # printed in R's documentation: t = -4.0621, df = 9, p-value = 0.002833, 95 % CI -2.4598858 -0.7001142
    r = paired_t_difference(SLEEP_1, SLEEP_2)
    ref = stats.ttest_rel(SLEEP_1, SLEEP_2)
    assert r["p_value"] == pytest.approx(ref.pvalue, rel=1e-10) and r["t"] == pytest.approx(ref.statistic, rel=1e-10)
    assert r["difference"] == pytest.approx(-1.58, abs=1e-12) and r["df"] == 9 and r["n"] == 10
    assert r["ci"] == pytest.approx([-2.4598858, -0.7001142], abs=5e-8)


def test_paired_t_interval_by_hand():
    # by hand: d = 1, 2, 3 -> mean 2, s = 1, se = 1/sqrt(3); t_{0.975, 2} = 4.302653 (t table, NIST/SEMATECH
    # e-Handbook 1.3.6.7.2): half-width 2.484138; t = 2 sqrt(3) = 3.464102
    r = paired_t_difference([2.0, 4.0, 6.0], [1.0, 2.0, 3.0])
    assert r["sd"] == pytest.approx(1.0) and r["standard_error"] == pytest.approx(1 / math.sqrt(3))
    assert r["ci"] == pytest.approx([2 - 2.484138, 2 + 2.484138], abs=1e-6)
    assert r["t"] == pytest.approx(3.464102, abs=1e-6)
    assert r["p_value"] == pytest.approx(2 * stats.t.sf(3.464102, 2), rel=1e-5)


def test_equal_differences_and_too_few_values():
    # by definition: no spread, so the interval is the point and p is 0 (d != 0) or 1 (d == 0)
    r = paired_t_difference([1.5, 2.5, 3.5], [1.0, 2.0, 3.0])
    assert r["ci"] == [0.5, 0.5] and r["p_value"] == 0.0 and "same difference" in r["note"]
    assert paired_t_difference([1.0, 2.0], [1.0, 2.0])["p_value"] == 1.0
    with pytest.raises(ValueError, match="at least 2 finite"):
        paired_t_difference([1.0], [2.0])
    one = paired_difference({3: 1.0}, {3: 0.25})  # the ablation wrapper reports instead of raising
    assert one["difference"] == 0.75 and one["p_value"] is None and one["ci"] is None
    assert "needs at least 2" in one["note"]
    assert paired_difference({}, {})["difference"] is None


def test_holm_by_hand():
    # Holm (1979) by hand: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04, made
    # monotone: 0.02, 0.03, 0.06, 0.06; back in input order:
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def _experiment(rng, n_seeds=10, n_contrasts=6, shift=0.0) -> tuple[dict, list[dict]]:
    """A reference and n_contrasts ablations on shared seeds: value = seed effect + independent noise (SD 0.5)."""
    values = rng.normal(size=(1, n_seeds)) + 0.5 * rng.normal(size=(n_contrasts + 1, n_seeds))
    values[1:] += shift
    names = ["full"] + [f"ablation{i}" for i in range(n_contrasts)]
    results = {c: {s: {"phi_bits": float(values[i, s])} for s in range(n_seeds)} for i, c in enumerate(names)}
    return results, [{"name": f"c{i}", "condition": names[i + 1], "reference": "full"} for i in range(n_contrasts)]


def test_null_calibration_per_contrast_and_family_wise():
    # independent check: simulation with known truth (no difference): each test rejects at the nominal 5 %,
    # and Holm keeps "any contrast rejected" at or below 5 %. 2000 experiments x 6 contrasts: the pooled
    # rate's binomial SE is about 0.003 even with the shared reference, each contrast's 0.005.
    rng = np.random.default_rng(20240611)
    raw, adjusted = np.zeros((2000, 6), bool), np.zeros((2000, 6), bool)
    for k in range(2000):
        rows = contrast_table(*_experiment(rng), ["phi_bits"])
        raw[k] = [r["p_value"] < 0.05 for r in rows]
        adjusted[k] = [r["p_value_holm"] < 0.05 for r in rows]
    assert 0.04 <= raw.mean() <= 0.06
    assert np.all((raw.mean(axis=0) >= 0.03) & (raw.mean(axis=0) <= 0.07))
    assert adjusted.any(axis=1).mean() <= 0.06


def test_power_at_one_sd_of_the_differences_matches_the_noncentral_t():
    # independent: the exact power of the paired t test (noncentral t, df 9, noncentrality sqrt(10)) is 0.803;
    # 1000 simulated experiments: binomial SE 0.013. The MDE formula at n = 10 gives about 1 SD, and the
    # noncentral t says a true effect of that size is detected with 80 % power.
    rng = np.random.default_rng(7)
    sd_diff = 0.5 * math.sqrt(2)
    hits = []
    for _ in range(1000):
        results, _ = _experiment(rng, n_contrasts=1, shift=sd_diff)
        a, b = ({s: v["phi_bits"] for s, v in results[c].items()} for c in ("ablation0", "full"))
        hits.append(paired_difference(a, b)["p_value"] < 0.05)
    tc = stats.t.ppf(0.975, 9)
    exact = stats.nct.sf(tc, 9, math.sqrt(10)) + stats.nct.cdf(-tc, 9, math.sqrt(10))
    assert np.mean(hits) == pytest.approx(exact, abs=0.045) and np.mean(hits) > 0.6
    mde = minimum_detectable_effect(1.0, 10)
    assert mde == pytest.approx(1.0, abs=0.01)
    assert stats.nct.sf(tc, 9, mde * math.sqrt(10)) == pytest.approx(0.8, abs=0.01)


def test_missing_seeds_and_nan_are_dropped_and_reported():
    # by construction: seed 2 has no run in b, seed 3 is NaN in a; the rest is the hand example above
    a = {0: 2.0, 1: 4.0, 3: float("nan"), 4: 6.0, 2: 9.0}
    b = {4: 3.0, 0: 1.0, 1: 2.0, 3: 0.0}
    r = paired_difference(a, b, names=("cond", "ref"))
    assert r["seeds"] == [0, 1, 4] and r["differences"] == [1.0, 2.0, 3.0] and r["n"] == 3
    assert r["dropped"] == [{"seed": 2, "reason": "missing in ref"}, {"seed": 3, "reason": "non-finite in cond (nan)"}]
    assert r["ci"] == pytest.approx([2 - 2.484138, 2 + 2.484138], abs=1e-6)
    s = condition_summary({0: {"phi_bits": 1.0}, 1: {"phi_bits": float("nan")}, 2: {"phi_bits": 3.0}}, "phi_bits")
    assert s["mean"] == 2.0 and s["n"] == 2 and [d["seed"] for d in s["dropped"]] == [1]


def _shuffled(results: dict, rng: random.Random) -> dict:
    conditions = list(results)
    rng.shuffle(conditions)
    out = {}
    for c in conditions:
        seeds = list(results[c])
        rng.shuffle(seeds)
        out[c] = {s: results[c][s] for s in seeds}
    return out


def test_order_of_seeds_conditions_and_contrasts_does_not_change_a_number():
    # invariance: the same data in another order gives identical (==) rows
    results, contrasts = _experiment(np.random.default_rng(3))
    before = {r["name"]: r for r in contrast_table(results, contrasts, ["phi_bits"])}
    shuffled = list(reversed(contrasts))
    after = {r["name"]: r for r in contrast_table(_shuffled(results, random.Random(5)), shuffled, ["phi_bits"])}
    assert before == after


def _synthetic(rng, seeds=range(6)) -> tuple[dict, list[dict], list[dict]]:
    conditions = [{"name": n, "label": f"{n} label", "isolates": f"what {n} removes", "overrides": {"x": i}}
                  for i, n in enumerate(["full", "no_hybrid", "no_noise"])]
    contrasts = [{"name": f"drop {n}", "condition": n, "reference": "full", "isolates": f"effect of {n}"}
                 for n in ("no_hybrid", "no_noise")]
    results = {c["name"]: {s: {"phi_bits": 0.05 + 0.01 * i + 0.01 * rng.normal(), "p_act": 0.5 + 0.1 * rng.normal(),
                               "winner_shares": dict(zip(SHARES, rng.dirichlet([1, 1, 1, 1]).tolist())),
                               "switching_rate": 0.3 + 0.05 * rng.normal(), "noise_var": 0.002, "seconds": 1.0}
                           for s in seeds} for i, c in enumerate(conditions)}
    return results, conditions, contrasts


def test_write_report_writes_five_files_that_hold_the_numbers(tmp_path):
    # independent: the Holm values are recomputed from report.json's own p-values; the file list is exact
    results, conditions, contrasts = _synthetic(np.random.default_rng(11))
    results["no_noise"][2]["phi_bits"] = float("nan")
    paths = write_report(tmp_path, results, conditions, contrasts, {"seeds": list(range(6)), "cycles": 20,
                                                                    "agents": 4, "config": None, "git_sha": "abc"})
    names = {"report.json", "report.md", "report.html", "phi_effects.png", "behaviour_effects.png"}
    assert set(paths) == names and {p.name for p in tmp_path.iterdir()} == names
    data = json.loads((tmp_path / "report.json").read_text())
    phi = [r for r in data["contrasts"] if r["outcome"] == "phi_bits"]
    assert [r["p_value_holm"] for r in phi] == pytest.approx(holm([r["p_value"] for r in phi]))
    assert phi[1]["dropped"] == [{"seed": 2, "reason": "non-finite in no_noise (nan)"}]
    md = (tmp_path / "report.md").read_text()
    assert "## Effect on Phi" in md and "| drop no_hybrid | effect of no_hybrid |" in md
    assert f"| {phi[1]['n']} |" in md and "## How to read this" in md


def test_an_outcome_absent_everywhere_is_left_out_with_a_note(tmp_path):
    # by construction: no run has p_act (None or no key), and Phi is NaN in every run
    results, conditions, contrasts = _synthetic(np.random.default_rng(12), seeds=range(3))
    for by_seed in results.values():
        for s, summary in by_seed.items():
            summary["phi_bits"] = float("nan")
            summary.pop("p_act") if s % 2 else summary.update(p_act=None)
    paths = write_report(tmp_path, results, conditions, contrasts, {"seeds": [0, 1, 2]})
    assert "phi_effects.png" not in paths and (tmp_path / "behaviour_effects.png").exists()
    data = json.loads((tmp_path / "report.json").read_text())
    assert {r["outcome"] for r in data["contrasts"]} == {"switching_rate", "noise_var"} | {
        f"winner_share.{s}" for s in SHARES}
    assert any("p_act" in note for note in data["left_out"]) and any("phi_bits" in n for n in data["left_out"])
    md = (tmp_path / "report.md").read_text()
    assert "## Left out" in md and "P(act) (p_act)" in md and "## Effect on Phi" not in md
