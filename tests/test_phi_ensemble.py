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
from cognition.phi.cut_test import agent_cross_products, every_cut_test, random_permutations, shuffled_covariances
from cognition.phi.partitions import all_bipartition_masks


def test_surrogate_covariances_equal_those_of_the_shuffled_data():
    # Reference: build each surrogate ensemble explicitly (agent a keeps the kept side, takes the
    # other side from agent pi(a)), centre its lagged pairs per agent and pool them.
    rng = np.random.default_rng(1)
    Xs = standardise_per_agent(rng.standard_normal((6, 20, 4)))
    masks = all_bipartition_masks(4)
    cross, length = agent_cross_products(Xs, 1)
    data = np.einsum("aapq->pq", cross) / (6 * (length - 1))
    perms = random_permutations(rng, 6, 5)
    mixed = cross[np.arange(6)[None, :], perms].sum(axis=1) / (6 * (length - 1))
    covs = shuffled_covariances(data, mixed, masks)
    for s, pi in enumerate(perms):
        for b, mask in enumerate(masks):
            sur = Xs.copy()
            sur[..., ~mask] = Xs[pi][..., ~mask]
            pairs = np.concatenate([sur[:, :-1], sur[:, 1:]], axis=-1)
            pairs -= pairs.mean(axis=1, keepdims=True)
            expected = np.einsum("atp,atq->pq", pairs, pairs) / (6 * (length - 1))
            np.testing.assert_allclose(covs[s, b], expected, atol=1e-12)


def test_every_cut_test_is_an_intersection_union_test():
    # p = max over bipartitions of the per-cut permutation p-values (Berger 1982); one cut whose
    # parts are independent is enough to keep H0: here node 3 is independent of nodes 0-2.
    ring = np.array([[0.5, 0.4, 0.0], [0.0, 0.5, 0.4], [0.4, 0.0, 0.5]])  # every cut crossed by an edge
    coupled = phi.simulate_var1(ring, np.eye(3), 60, agents=8, seed=2)
    lone = independent_ar1(np.random.default_rng(3), 8, 60, 1)
    X = standardise_per_agent(np.concatenate([coupled, lone], axis=-1))
    test = every_cut_test(X, 1, 99, np.random.default_rng(4))
    for k in ("phi_wms", "phi_r"):
        assert test.p_value[k] == test.per_cut[k].max()
        assert test.p_value[k] > 0.05
    assert phi.partitions.mask_to_mib(test.weakest["phi_r"]) in (((0, 1, 2), (3,)), ((3,), (0, 1, 2)))
    # with the lone node left out, every cut of the coupled system is crossed by its coupling
    assert every_cut_test(X[..., :3], 1, 99, np.random.default_rng(4)).p_value["phi_r"] <= 0.02


def _rejections(systems, seed=0) -> tuple[int, list[float]]:
    rejected, values = 0, []
    for i, X in enumerate(systems):
        r = phi.estimate(X, bootstrap=1, surrogates=99, seed=seed + i)
        rejected += r.p_value["phi_r"] < 0.05
        values.append(r.headline())
    return rejected, values


@pytest.mark.integration
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


def test_interval_covers_the_exact_phi_at_the_true_mib():
    # Reference: the exact Phi_R of the standardised VAR(1) at its MIB (analytical_var1).
    A, noise = calibration_var1()
    exact = ExactPhi(A, noise)
    covered, found = 0, 0
    for d in range(30):
        r = phi.estimate(phi.simulate_var1(A, noise, 200, agents=8, seed=5000 + d), bootstrap=1)
        lo, hi = r.ci["phi_r"]
        covered += lo <= exact.result.phi_r <= hi
        found += r.mib == exact.result.mib
        assert r.method["mib_criterion"].startswith("Phi_WMS / K") and r.k_norm > 0
        assert r.mib_candidates >= 1 and lo <= r.bias_corrected["phi_r"] <= hi
    # nominal 95 %; bench calibration measures it over 200 draws. The stated-MIB interval alone
    # covered 79 % here, as the search finds the true MIB in only ~80 % of draws.
    assert covered >= 27, (covered, found)


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
def test_full_calibration_table():
    # The issue 14 targets, on fresh seeds (--seed 1; SELECT_ALPHA was chosen on seed-0 draws).
    from cognition.benchmarks.calibration import main

    out = main(["--systems", "200", "--draws", "200", "--seed", "1"])
    for row in out["null_families"]:
        assert row["false_positive_rate"] <= 0.06, row
    for row in out["null_families"][:2]:
        assert abs(row["median_phi_r_bits"]) <= 0.02, row
    for row in out["coverage"]:
        assert row["coverage_true_mib"] >= 0.92, row
