"""The loop's units of Phi are state variables, none a copy of the others (issue 14, item 4).

Reference: ordinary least squares. A unit that is a (near-)deterministic linear function of
the others at the same cycle would be predicted with R^2 close to 1.
"""
from __future__ import annotations

import numpy as np
import pytest

from cognition import phi
from cognition.benchmarks.calibration import real_run_units
from looptools import run_loop


def _r2_each_from_others(units: np.ndarray) -> np.ndarray:
    Z = (units - units.mean(axis=1, keepdims=True)) / units.std(axis=1, keepdims=True)
    Z = Z.reshape(-1, Z.shape[-1])
    out = []
    for i in range(Z.shape[1]):
        others = np.c_[np.delete(Z, i, axis=1), np.ones(len(Z))]
        beta, *_ = np.linalg.lstsq(others, Z[:, i], rcond=None)
        out.append(1.0 - np.var(Z[:, i] - others @ beta) / np.var(Z[:, i]))
    return np.array(out)


@pytest.mark.parametrize("mode", ["lite", "disabled"])
@pytest.mark.parametrize("seed", [0, 1])
def test_no_unit_is_predictable_from_the_others(mode, seed):
    units, names = real_run_units(mode, seed, cycles=50)
    assert names == ["expectation.salience", "expectation.content_mean", "unconscious.salience",
                     "unconscious.content_mean", "hybrid.p_act", "workspace.broadcast_mean",
                     "workspace.broadcast_contrast"]
    r2 = _r2_each_from_others(units)
    assert r2.max() < 0.95, dict(zip(names, r2.round(3)))


def test_a_setting_that_leaves_every_unit_unchanged_leaves_phi_unchanged():
    # The yoked twins and their donors run beside the agents and never feed them: the agents' rows are
    # the same bit for bit with and without the control, and so is their Phi.
    from cognition.simulator.build import assemble
    from cognition.config.settings import load_config

    results = []
    for yoked in (True, False):
        cfg = load_config(overrides={"run": {"cycles": 50, "agents": 8}, "quantum": {"mode": "disabled"},
                                     "control": {"yoked": yoked}})
        loop = assemble(cfg).loop
        _, _, units = run_loop(loop, 50)
        units = units[loop.intact]
        results.append((units, phi.estimate(units, bootstrap=1, surrogates=0, seed=0)))
    (u0, r0), (u1, r1) = results
    np.testing.assert_array_equal(u0, u1)
    assert r0.mib == r1.mib and r0.bias_corrected == r1.bias_corrected


@pytest.mark.parametrize("mode", ["disabled", "lite"])
def test_unit_count_from_the_config_matches_the_built_loop(mode):
    # the runtime plans memory and disk from the config before building anything (cognition/simulator/session.py)
    from cognition.simulator.build import assemble
    from cognition.config.settings import load_config
    from cognition.architecture.loop import WORKSPACE_SIGNALS
    from cognition.modules import unit_signal_count

    cfg = load_config(overrides={"quantum": {"mode": mode}})
    assert unit_signal_count(cfg) + len(WORKSPACE_SIGNALS) == assemble(cfg).loop.n_units == 7
