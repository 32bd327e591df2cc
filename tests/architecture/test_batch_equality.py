"""Agents as a batch equal agents one at a time (runtime.batch = 1), per agent.

Stated tolerance: 1e-12 absolute on every unit signal and module state in float64
over 10 cycles. Batched and single-row kernels may round differently in the last
bits; the dynamics are contractive, so that difference does not grow. The counter-based
streams (cognition.architecture.streams) give each agent the same random draws either way.
"""
import numpy as np
import pytest
import torch
from looptools import run_loop

from cognition.simulator.build import assemble
from cognition.config.settings import load_config

TOL = 1e-12


def _trajectory(mode, batch):
    cfg = load_config(overrides={"run": {"agents": 5, "cycles": 10}, "quantum": {"mode": mode, "backend": "torch"}
                                 if mode != "disabled" else {"mode": mode}})
    state, _, units = run_loop(assemble(cfg).loop, 10, batch)
    return state, units


@pytest.mark.parametrize("mode", ["disabled", "lite"])
def test_batch_equals_one_at_a_time(mode):
    (batched, batched_units), (single, single_units) = _trajectory(mode, None), _trajectory(mode, 1)
    np.testing.assert_allclose(batched_units, single_units, rtol=0, atol=TOL)
    for name, st in batched.modules.items():
        for key, value in st.items():
            assert torch.allclose(value, single.modules[name][key], rtol=0, atol=TOL), (name, key)
    assert not np.allclose(batched_units[0], batched_units[1])  # agents really differ


def test_uneven_chunks_equal_too():
    (_, a), (_, b) = _trajectory("lite", None), _trajectory("lite", 2)  # chunks of 2, 2, 1
    np.testing.assert_allclose(a, b, rtol=0, atol=TOL)
