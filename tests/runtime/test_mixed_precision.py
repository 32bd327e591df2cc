"""Mixed precision (runtime.autocast) stays within a stated tolerance of float32.

The access dynamics of the workspace are a threshold (a module holds the workspace or it
does not), so a rounding difference can flip one ignition, and from then on that agent's
trajectory departs from the float32 one: autocast is close to float32 pathwise until the
first different winner, and in distribution after it. Tolerances, stated for 40 cycles of
the classical architecture (32 agents):

* pathwise: every unit signal of an agent within 0.05 (bf16, 8-bit mantissa) or 0.005
  (fp16, 11-bit mantissa) of the float32 run at every cycle before the agent's first
  winner that differs from float32's (measured: 0.022 / 0.0021); the agents' own rows
  only, since a yoked twin also departs when its donor does;
* in distribution: the share of agent-cycles each module won (and with no access)
  within 0.03 / 0.01 of float32's (measured: 0.010 / 0.0016).

Measured on this machine: 19 of 32 agents (bf16) and 29 of 32 (fp16) kept float32's
winners for all 40 cycles; the earliest departure was at cycle 9 / 13.
"""
import numpy as np
import pytest

from cognition.simulator.build import assemble
from cognition.config.settings import load_config

CYCLES = 40


def _run(autocast):
    ov = {"run": {"dtype": "float32", "cycles": CYCLES}, "quantum": {"mode": "disabled"},
          "runtime": {"autocast": autocast}}
    loop = assemble(load_config(overrides=ov)).loop
    state, units, winners = loop.initial_state(), [], []
    for _ in range(CYCLES):
        state, per_agent, signals = loop.advance(state)
        units.append(signals[loop.intact])
        winners.append(per_agent["winner"][loop.intact].numpy())
    return np.stack(units, axis=1), np.stack(winners, axis=1)


@pytest.fixture(scope="module")
def reference():
    return _run(None)


@pytest.mark.parametrize("autocast, unit_tol, share_tol", [("bf16", 0.05, 0.03), ("fp16", 0.005, 0.01)])
def test_autocast_within_tolerance_of_float32(reference, autocast, unit_tol, share_tol):
    units, winners = _run(autocast)
    ref_units, ref_winners = reference
    assert not np.array_equal(units, ref_units)  # low precision really ran
    for a in range(len(units)):
        same = np.flatnonzero(winners[a] != ref_winners[a])
        until = same[0] if len(same) else CYCLES
        if until:
            assert np.max(np.abs(units[a, :until] - ref_units[a, :until])) < unit_tol, (a, until)
    for m in np.unique(ref_winners):
        assert abs(np.mean(winners == m) - np.mean(ref_winners == m)) < share_tol, m
