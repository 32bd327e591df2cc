"""Per-agent estimation, the trial-shuffling null and the bias correction of ``phi.estimate``.

Independent references: systems of independent units have Phi = 0 at every bipartition (so
a test at alpha must reject at most alpha of them, Davison & Hinkley 1997, Sec. 4.2); the
exact Phi of a VAR(1) from ``analytical_var1`` (Barrett & Seth 2011). The full calibration
(200 systems a family) is ``python -m cognition.bench calibration`` and the slow test below.
"""
from __future__ import annotations

import numpy as np
import pytest

from cognition import phi
from cognition.phi.calibration import ExactPhi, calibration_var1, independent_ar1
from cognition.phi.ensemble import standardise_per_agent
from cognition.phi.resampling import random_derangements, trial_shuffle_covariances


def test_derangements_have_no_fixed_point_and_cover_all():
    d = random_derangements(np.random.default_rng(0), 5, 2000)
    assert np.all(d != np.arange(5))
    assert np.all(np.sort(d, axis=1) == np.arange(5))
    assert len({tuple(r) for r in d}) == 44  # the number of derangements of 5 (subfactorial)


def test_trial_shuffle_keeps_each_unit_and_moves_only_the_other_part():
    rng = np.random.default_rng(1)
    Xs = standardise_per_agent(rng.standard_normal((6, 20, 4)))
    mask = np.array([True, True, False, False])
    cov = trial_shuffle_covariances(Xs, mask, 50, 1, rng)
    # within a part nothing moves, so those blocks equal the data's; across parts they change
    pairs = np.concatenate([Xs[:, :-1], Xs[:, 1:]], axis=-1)
    pairs -= pairs.mean(axis=1, keepdims=True)
    data = np.einsum("atp,atq->pq", pairs, pairs) / (6 * (pairs.shape[1] - 1))
    keep = [0, 1, 4, 5]
    np.testing.assert_allclose(cov[:, keep][:, :, keep], np.broadcast_to(data[np.ix_(keep, keep)], (50, 4, 4)),
                               atol=1e-12)
    assert np.abs(cov[:, 0, 2] - data[0, 2]).max() > 1e-3


def _rejections(systems, seed=0) -> tuple[int, list[float]]:
    rejected, values = 0, []
    for i, X in enumerate(systems):
        r = phi.estimate(X, bootstrap=1, surrogates=99, seed=seed + i)
        rejected += r.p_value["phi_r"] < 0.05
        values.append(r.headline())
    return rejected, values


@pytest.mark.parametrize("start_sd", [None, 3.0], ids=["stationary", "shared-transient"])
def test_null_false_positive_rate_on_independent_units(start_sd):
    # 40 systems: an exact 5 % test rejects <= 5 with probability 0.86, <= 6 with 0.94; the
    # circular-shift null rejected about 60 % of the transient family (issue 14).
    rng = np.random.default_rng(11 if start_sd is None else 12)
    rejected, values = _rejections(independent_ar1(rng, 8, 50, 8, start_sd=start_sd) for _ in range(40))
    assert rejected <= 6
    assert abs(np.median(values)) < 0.04  # bias-corrected Phi near 0 (plug-in median ~0.045 here)


def test_circular_shift_null_fails_on_a_shared_transient():
    # Why the ensemble default changed: the single-series null, applied to this family, is invalid.
    rng = np.random.default_rng(13)
    X = [independent_ar1(rng, 8, 50, 8, start_sd=3.0) for _ in range(15)]
    rejected = sum(phi.estimate(x, surrogates=99, seed=i, centre="pooled", shrinkage="ledoit-wolf")
                   .p_value["phi_r"] < 0.05 for i, x in enumerate(X))
    assert rejected >= 5  # measured 57 % of 30 (17 of 30) with this seed family


def test_interval_covers_the_exact_phi_at_the_stated_bipartition():
    A, noise = calibration_var1()
    exact = ExactPhi(A, noise)
    covered = 0
    for d in range(30):
        r = phi.estimate(phi.simulate_var1(A, noise, 200, agents=8, seed=d), bootstrap=1)
        lo, hi = r.ci["phi_r"]
        covered += lo <= exact.at(r.mib) <= hi
        assert r.method["mib_criterion"].startswith("Phi_WMS / K") and r.k_norm > 0
    assert covered >= 24  # nominal 95 %; measured 0.915 over 200 draws (bench calibration)


def test_standardisation_makes_phi_invariant_to_per_agent_offsets_and_scales():
    rng = np.random.default_rng(3)
    X = phi.simulate_var1(*calibration_var1(), 40, agents=6, seed=4)
    moved = X * rng.uniform(0.1, 10.0, (6, 1, 8)) + rng.normal(0, 50, (6, 1, 8))
    a, b = phi.estimate(X, bootstrap=1), phi.estimate(moved, bootstrap=1)
    assert a.mib == b.mib
    assert a.bias_corrected["phi_r"] == pytest.approx(b.bias_corrected["phi_r"], abs=1e-9)


def test_ensemble_path_refuses_ledoit_wolf_and_too_few_agents():
    X = np.random.default_rng(0).standard_normal((8, 30, 3))
    with pytest.raises(ValueError, match="ledoit-wolf"):
        phi.estimate(X, shrinkage="ledoit-wolf", centre="agent")
    with pytest.raises(ValueError, match="at least 5 agents"):
        phi.estimate(X[:3], centre="agent")


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="issue 14 targets not yet met: docs/calibration.md measured 7.0 % and "
                   "11.0 % false positives; remove this marker when the table meets them")
def test_full_calibration_table():
    from cognition.benchmarks.calibration import main

    out = main(["--systems", "200", "--draws", "200"])
    for row in out["null_families"]:
        assert row["false_positive_rate"] <= 0.06, row
    assert abs(out["null_families"][0]["median_phi_r_bits"]) <= 0.02
