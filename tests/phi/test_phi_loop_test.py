"""cognition.phi.loop_test and directed_information (issue 41): each direction of a loop, agents against twins.

References:
* the exact directed information of a stationary Gaussian VAR(1) with the loop's timing, from its exact
  lagged covariance (scipy's discrete Lyapunov solver) and the textbook conditional mutual information
  I(X; Y | Z) = 1/2 log(det S_xz det S_yz / (det S_xyz det S_z)) (Cover & Thomas 2006, ch. 8), written out
  here with numpy's slogdet, apart from the package's code;
* Anderson (2003), Sec. 7.5.3: E[log det] of a Wishart matrix, which makes the estimate of a conditional
  mutual information of independent Gaussian samples unbiased (the plug-in is biased up by about
  d / (2 L) nats for d = |x| |y| coefficients and L samples);
* the construction: twins identical to their agents give a difference of exactly 0.
"""
import numpy as np
import pytest
import scipy.linalg

from cognition import phi
from cognition.phi.directed import DIRECTIONS

NM, NW = 3, 2
MODULES, WORKSPACE = list(range(NM)), list(range(NM, NM + NW))


def _loop_system(rng):
    """x = (m, b): m_t = B b_{t-1} + e_m, b_t = 0.3 b_{t-1} + C m_t + e_b, as a VAR(1) x_t = A x_{t-1} + L e_t."""
    B = rng.uniform(0.3, 0.6, (NM, NW)) * rng.choice([-1, 1], (NM, NW))
    C = rng.uniform(0.2, 0.4, (NW, NM)) * rng.choice([-1, 1], (NW, NM))
    A = np.zeros((NM + NW, NM + NW))
    A[:NM, NM:] = B
    A[NM:, NM:] = 0.3 * np.eye(NW) + C @ B
    L = np.eye(NM + NW)
    L[NM:, :NM] = C
    return A, L


def _cmi_bits(cov, x, y, z):
    def ld(idx):
        return np.linalg.slogdet(cov[np.ix_(idx, idx)])[1] if idx else 0.0
    return 0.5 * (ld(x + z) + ld(y + z) - ld(x + y + z) - ld(z)) / np.log(2)


def _exact(A, L):
    n = A.shape[0]
    S = scipy.linalg.solve_discrete_lyapunov(A, L @ L.T)
    joint = np.block([[S, S @ A.T], [A @ S, S]])  # (x_{t-1}, x_t)
    now = [i + n for i in range(n)]
    m_now, b_now = now[:NM], now[NM:]
    return {"workspace_to_modules": _cmi_bits(joint, WORKSPACE, m_now, MODULES),
            "modules_to_workspace": _cmi_bits(joint, m_now, b_now, WORKSPACE)}


def _simulate(A, L, agents, T, rng):
    n = A.shape[0]
    X = np.zeros((agents, T + 100, n))
    for t in range(1, T + 100):
        X[:, t] = X[:, t - 1] @ A.T + rng.standard_normal((agents, n)) @ L.T
    return X[:, 100:]


def test_each_direction_equals_the_exact_value_of_a_gaussian_loop():
    rng = np.random.default_rng(0)
    A, L = _loop_system(rng)
    exact = _exact(A, L)
    assert exact["workspace_to_modules"] > 0.2 and exact["modules_to_workspace"] > 0.05
    got = phi.directed_information(_simulate(A, L, 4, 20_000, rng), MODULES, WORKSPACE)
    for d in DIRECTIONS:
        assert got[d].mean() == pytest.approx(exact[d], abs=0.01), d


def test_a_direction_that_is_absent_is_zero_and_the_estimate_is_unbiased_at_50_steps():
    # B = 0: the modules do not read the broadcast, so I(b_{t-1}; m_t | m_{t-1}) = 0 exactly; the Wishart
    # correction makes the short-run estimate unbiased where the plug-in is biased up by about d / (2 L) nats
    rng = np.random.default_rng(1)
    A, L = _loop_system(rng)
    A[:NM, NM:] = 0.0
    A[NM:, NM:] = 0.3 * np.eye(NW)
    assert _exact(A, L)["workspace_to_modules"] == pytest.approx(0.0, abs=1e-12)
    got = phi.directed_information(_simulate(A, L, 4000, 50, rng), MODULES, WORKSPACE)["workspace_to_modules"]
    se = got.std() / np.sqrt(len(got))
    plug_in_bias = NM * NW / (2 * 48) / np.log(2)  # bits, d = 6 coefficients, 49 pairs
    assert abs(got.mean()) < 4 * se and abs(got.mean()) < 0.1 * plug_in_bias


def _population(rng, agents=32, T=60, memory=True):
    from cognition.benchmarks.directions import toy_population

    return toy_population("loop" if memory else "memoryless loop", "random", agents, T, rng, world_gain=0.5)


def test_a_closed_loop_passes_and_identical_twins_give_exactly_zero():
    g = _population(np.random.default_rng(3))
    m, w = list(range(5)), [5, 6]
    t = phi.loop_test(g["intact"], g["yoked"], g["yoked_proposals"], m, w)
    assert t.passed and "both directions shown" in t.reason
    for d in DIRECTIONS:
        r = t.directions[d]
        assert r.ci[0] > 0 and 0 <= r.p_value < 0.025 and r.pairs == 32
    # a lesion's twins are the agents: exactly 0, not shown; the verdict names the missing direction
    lesioned = phi.loop_test(g["intact"], g["intact"], g["yoked_proposals"], m, w)
    r = lesioned.directions["workspace_to_modules"]
    assert r.twins_identical and r.difference_bits == 0.0 and r.ci == (0.0, 0.0) and r.p_value == 1.0
    assert not lesioned.passed and "drive of the modules is not shown" in lesioned.reason
    # the same arrays give the same result (no random numbers are drawn)
    again = phi.loop_test(g["intact"], g["yoked"], g["yoked_proposals"], m, w)
    assert again.to_dict() == t.to_dict()


def test_other_units_are_ignored_and_the_order_of_the_lists_does_not_matter():
    g = _population(np.random.default_rng(4))
    noise = np.random.default_rng(9).standard_normal(g["intact"].shape[:2] + (1,))
    extra = {k: np.concatenate([noise, v], axis=2) for k, v in g.items()}  # an unrelated unit at index 0
    a = phi.loop_test(g["intact"], g["yoked"], g["yoked_proposals"], [0, 1, 2, 3, 4], [5, 6])
    b = phi.loop_test(extra["intact"], extra["yoked"], extra["yoked_proposals"], [1, 2, 3, 4, 5], [6, 7])
    for d in DIRECTIONS:
        assert b.directions[d].difference_bits == pytest.approx(a.directions[d].difference_bits, abs=1e-12)


GOOD = np.random.default_rng(0).standard_normal((4, 60, 4))


@pytest.mark.parametrize("kwargs, words", [
    ({"agents": GOOD[0]}, "agents must have shape (pairs, T, n), got 2 dimension(s)"),
    ({"cut_workspace_to_modules": GOOD[:3]}, "must have the same shape"),
    ({"agents": np.where(np.arange(4) == 1, np.nan, GOOD)}, "agents contains NaN or infinite values"),
    ({"agents": "abc"}, "agents must be a numeric array"),
    ({"modules": []}, "modules is empty"),
    ({"modules": [0, 9]}, "modules names unit index 9, outside 0 .. 3"),
    ({"workspace": [1, 2]}, "modules and workspace share unit 1"),
    ({"workspace": [2, 2]}, "workspace names a unit twice"),
    ({"modules": 3}, "modules must be a list of unit indices"),
    ({"agents": GOOD[:2], "cut_workspace_to_modules": GOOD[:2], "cut_modules_to_workspace": GOOD[:2]},
     "at least 3 agent-twin pairs"),
    ({"agents": GOOD[:, :15], "cut_workspace_to_modules": GOOD[:, :15], "cut_modules_to_workspace": GOOD[:, :15]},
     "needs T >= 19"),
    ({"cut_modules_to_workspace": np.where(np.arange(4) == 3, 1.0, GOOD)}, "cut_modules_to_workspace: unit 3 is "
                                                                           "constant for pair 0"),
    ({"confidence": 1.5}, "confidence must be a number in [0.5, 1)"),
])
def test_bad_input_is_one_line_naming_the_argument(kwargs, words):
    args = {"agents": GOOD, "cut_workspace_to_modules": GOOD + 0.1 * GOOD[::-1],
            "cut_modules_to_workspace": GOOD[::-1], "modules": [0, 1], "workspace": [2, 3], **kwargs}
    with pytest.raises(ValueError) as exc:
        phi.loop_test(**args)
    message = str(exc.value)
    assert words in message and "\n" not in message


def test_a_unit_collinear_with_its_side_is_left_out_of_that_pair_only():
    # reference: the construction. In pair 2 the second workspace unit is 3 x the first in the agent's series
    # (a broadcast that never leaves one direction), which makes its covariance singular; that pair keeps the
    # first workspace unit only, on all three series, and the other pairs are computed as before
    g = _population(np.random.default_rng(6))
    m, w = list(range(5)), [5, 6]
    before = phi.loop_test(g["intact"], g["yoked"], g["yoked_proposals"], m, w)
    agents = g["intact"].copy()
    agents[2, :, 6] = 3.0 * agents[2, :, 5]
    t = phi.loop_test(agents, g["yoked"], g["yoked_proposals"], m, w)
    assert t.collinear == {"6": 1} and before.collinear == {}
    for d in DIRECTIONS:
        a, b = t.directions[d], before.directions[d]
        assert np.isfinite(a.agents_bits).all()
        keep = np.arange(32) != 2
        np.testing.assert_allclose(a.agents_bits[keep], b.agents_bits[keep], rtol=0, atol=1e-12)
        np.testing.assert_allclose(a.twins_bits[keep], b.twins_bits[keep], rtol=0, atol=1e-12)
