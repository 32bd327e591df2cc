"""MIB search: exhaustive enumeration, Queyranne's algorithm, local search, K <= 0.

References: brute-force minimum cuts of weighted graphs (a symmetric submodular
function, for which Queyranne 1998 is exact) and from-scratch evaluation of every
bipartition with phi.measures_at.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from cognition import phi
from cognition.phi.bipartition_state import BipartitionState
from cognition.phi.queyranne import GaussianPhiOracle, SetFunctionOracle, queyranne
from cognition.phi.search import phi_at_mib


def random_var1(n: int, seed: int, radius: float = 0.85) -> np.ndarray:
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n)) * (rng.random((n, n)) < 0.6)
    A += np.diag(rng.normal(size=n))
    return A * radius / np.max(np.abs(np.linalg.eigvals(A)))


def every_bipartition(cov: np.ndarray) -> dict[str, np.ndarray]:
    n = cov.shape[0] // 2
    masks = phi.all_bipartition_masks(n)
    out = phi.measures_at(np.broadcast_to(cov, (len(masks),) + cov.shape), masks)
    out["masks"] = masks
    return out


def test_enumeration_lists_each_bipartition_once():
    for n in (2, 3, 6, 9):
        masks = phi.all_bipartition_masks(n)
        assert len(masks) == phi.n_bipartitions(n) == 2 ** (n - 1) - 1
        assert masks[:, 0].all() and not masks.all(axis=1).any()
        assert len({m.tobytes() for m in masks}) == len(masks)


@pytest.mark.parametrize("seed", range(5))
def test_queyranne_finds_the_exact_minimum_cut_of_a_graph(seed):
    rng = np.random.default_rng(seed)
    n = 7
    w = np.triu(rng.random((n, n)) * (rng.random((n, n)) < 0.6), 1)
    w = w + w.T

    def cut(masks):  # symmetric submodular: total weight across the cut
        return np.einsum("pi,ij,pj->p", masks.astype(float), w, (~masks).astype(float))

    brute = min(cut(np.array([m]))[0] for k in range(1, n) for c in itertools.combinations(range(n), k)
                for m in [np.isin(np.arange(n), c)])
    found = queyranne(n, SetFunctionOracle(cut, n))
    assert found["cut_rows"].min() == pytest.approx(brute)


def test_gaussian_oracle_scores_equal_from_scratch_values():
    n = 6
    cov = phi.lagged_joint_covariance(random_var1(n, 1), np.eye(n))
    oracle = GaussianPhiOracle(cov, normalise=True)
    w = np.zeros(n, dtype=bool)
    for group in (np.array([2]), np.array([0, 5])):
        oracle.add(group)
        w[group] = True
        rest = [np.array([i]) for i in np.flatnonzero(~w)][:-1]
        rest.append(np.flatnonzero(~w)[-2:])         # a two-node group too
        rows = oracle.scores(rest)
        for row, g in zip(rows, rest):
            mask = w.copy()
            mask[g] = True
            ref = phi.measures_at(cov[None], mask[None])
            assert row[1] == pytest.approx(ref["phi_wms"][0], rel=1e-9, abs=1e-12)
            assert row[2] == pytest.approx(ref["k_norm"][0], rel=1e-9)
            assert row[0] == pytest.approx(ref["phi_wms"][0] / ref["k_norm"][0], rel=1e-9, abs=1e-12)


def test_local_search_moves_keep_scores_exact():
    n = 7
    cov = phi.lagged_joint_covariance(random_var1(n, 2), np.eye(n))
    starts = np.array([[True, False, True, False, False, True, False], [True] * 3 + [False] * 4])
    state = BipartitionState(cov, starts, np.array([True, False]))
    for node in (3, 0, 6, 3):
        state.move(np.array([[node], [node]]), ~state.masks[:, node])
        flips = state.flip_scores(np.arange(2))
        for r in range(2):
            for i in range(n):
                mask = state.masks[r].copy()
                mask[i] = ~mask[i]
                if not mask.any() or mask.all():
                    assert flips[r, i, 0] == np.inf
                    continue
                ref = phi.measures_at(cov[None], mask[None])
                assert flips[r, i, 1] == pytest.approx(ref["phi_wms"][0], rel=1e-8, abs=1e-11)


def test_queyranne_agrees_with_exhaustive_search():
    # measured agreement is reported in docs/phi.md; here: never below the global optimum,
    # and the same MIB on nearly every seeded system
    same = 0
    for seed in range(24):
        n = 8 + seed % 5
        cov = phi.lagged_joint_covariance(random_var1(n, 100 + seed), np.eye(n))[None]
        ex = phi_at_mib(cov, "exhaustive")
        qu = phi_at_mib(cov, "queyranne")
        assert qu["phi_wms"][0] / qu["k_norm"][0] >= ex["phi_wms"][0] / ex["k_norm"][0] - 1e-12
        same += bool((ex["masks"] == qu["masks"]).all())
    assert same >= 21


def test_auto_search_switches_to_queyranne_above_16_nodes():
    for n, method in ((16, "exhaustive"), (17, "queyranne")):
        assert phi.analytical_var1(random_var1(n, 3), np.eye(n)).method["search"] == method


def test_negative_entropies_fall_back_to_unnormalised_criterion():
    # tiny noise: every part's differential entropy is negative, so K(B) <= 0 and Phi / K
    # is no longer a sensible criterion; the MIB minimises Phi_WMS itself (docs/phi.md)
    n = 5
    A = random_var1(n, 4)
    noise = 1e-4 * np.eye(n)
    cov = phi.lagged_joint_covariance(A, noise)
    every = every_bipartition(cov)
    assert (every["k_norm"] <= 0).all()
    best = every["masks"][np.argmin(every["phi_wms"])]
    for search in ("exhaustive", "queyranne"):
        r = phi.analytical_var1(A, noise, search=search)
        assert "unnormalised" in r.method["mib_criterion"]
        assert r.mib == phi.mask_to_mib(best)
    # rescaling the data rescales every entropy but no Phi value (Phi is scale-free)
    big = phi.analytical_var1(A, np.eye(n))
    assert "Phi_WMS / K" in big.method["mib_criterion"]
    assert big.tdmi == pytest.approx(phi.analytical_var1(A, noise).tdmi, rel=1e-9)


def test_mib_minimises_the_normalised_criterion_among_all_bipartitions():
    n = 7
    cov = phi.lagged_joint_covariance(random_var1(n, 5), np.eye(n))
    every = every_bipartition(cov)
    best = every["masks"][np.argmin(every["phi_wms"] / every["k_norm"])]
    r = phi_at_mib(cov[None], "exhaustive")
    assert (r["masks"][0] == best).all()
