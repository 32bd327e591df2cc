"""phi.iit4's tie tolerances for estimated TPMs (``state_tolerance``, ``partition_tolerance``; issue 46).

Reference: phi.iit4 with PyPhi 2.0's exact tie rules (tests/reference/iit4_sia.json holds it equal to PyPhi on
178 cases) on the unperturbed TPM. Oizumi, Albantakis & Tononi 2014's OR / AND / XOR network, flips 0.1, in state
(1, 0, 0): three partitions tie on normalized phi (0.0734 bits per cut: two with 2 severed connections and
phi 0.1468, one with 4 and phi 0.2937), PyPhi's rule takes the largest phi, 0.2937; a perturbation of 1e-6 breaks
the tie and phi_s falls to 0.1468.
"""
from __future__ import annotations

import numpy as np
import pytest

from cognition.phi.iit4 import iit4, iit4_batch, maximal_complex
from cognition.phi.iit4.sia import tie_values
from cognition.phi.iit4.system_partitions import partition_table


def _or_and_xor() -> np.ndarray:
    bits = (np.arange(8)[:, None] >> np.arange(3)) & 1
    return 0.1 + 0.8 * np.array([[b[1] | b[2], b[0] & b[2], b[0] ^ b[1]] for b in bits], dtype=float)


def test_a_partition_tie_makes_phi_s_jump_and_a_tolerance_restores_the_tied_value():
    true = _or_and_xor()
    exact = iit4(true, (1, 0, 0))
    assert exact.phi_s == pytest.approx(0.29368, abs=1e-5)
    values = tie_values(true, (1, 0, 0))
    low = np.sort(values["normalized"])[:4]
    assert low[:3] == pytest.approx([0.073420] * 3, abs=1e-6) and low[3] > 0.098  # the three tied, the next far
    rng = np.random.default_rng(0)
    for _ in range(3):
        nudged = true + rng.normal(0, 1e-6, true.shape)
        assert iit4(nudged, (1, 0, 0)).phi_s == pytest.approx(0.1468, abs=1e-3)  # the jump
        # a tolerance far below the gap to the next partition (0.025 bits per cut) and far above the nudge
        assert iit4(nudged, (1, 0, 0), partition_tolerance=1e-4).phi_s == pytest.approx(exact.phi_s, abs=1e-4)
    # the two exactly tied maximal cause states are both kept, with a tolerance as without
    assert len(exact.cause_ties) == 2
    assert len(iit4(nudged, (1, 0, 0), state_tolerance=1e-4).cause_ties) == 2
    assert len(iit4(nudged, (1, 0, 0)).cause_ties) == 1


def test_zero_tolerances_are_pyphis_exact_rules_in_every_state():
    true = _or_and_xor()
    states = [tuple(int(b) for b in (s >> np.arange(3)) & 1) for s in range(8)]
    plain = iit4_batch(true, states, validate_state=False)
    zero = iit4_batch(true, states, validate_state=False, state_tolerance=0.0, partition_tolerance=0.0)
    assert [r.to_dict() for r in plain] == [r.to_dict() for r in zero]


def test_per_state_and_per_partition_tolerances_act_where_they_are_given():
    nudged = _or_and_xor() + np.random.default_rng(1).normal(0, 1e-6, (8, 3))
    P = len(partition_table(3))
    values = tie_values(nudged, (1, 0, 0))
    tied = np.argsort(values["normalized"])[:3]
    wide = np.zeros(P)
    wide[tied] = 1e-4
    assert iit4(nudged, (1, 0, 0), partition_tolerance=wide).phi_s == pytest.approx(0.2937, abs=1e-4)
    narrow = np.full(P, 1e-4)
    narrow[values["phi"] > 0.2] = 0.0  # the 4-cut partition not tolerated: the jump stays
    assert iit4(nudged, (1, 0, 0), partition_tolerance=narrow).phi_s == pytest.approx(0.1468, abs=1e-3)
    second = int(np.argsort(values["ii_cause"])[-2])
    per_state = np.zeros(8)
    per_state[second] = 1e-4
    assert len(iit4(nudged, (1, 0, 0), state_tolerance=(per_state, 0.0)).cause_ties) == 2


@pytest.mark.parametrize("kwargs, words", [
    ({"partition_tolerance": -1}, "partition_tolerance: got"),
    ({"partition_tolerance": float("nan")}, "partition_tolerance: got"),
    ({"partition_tolerance": [0.1, 0.2]}, "one per directed partition of the 3-unit system"),
    ({"state_tolerance": "x"}, "state_tolerance: got 'x'"),
    ({"state_tolerance": (0.1, [0.1] * 3)}, "8 values, one per state of the 3-unit system"),
    ({"state_tolerance": -0.5}, "a number >= 0 of bits"),
])
def test_bad_tolerances_are_one_line_naming_what_is_allowed(kwargs, words):
    with pytest.raises(ValueError, match="allowed") as info:
        iit4(_or_and_xor(), (1, 0, 0), **kwargs)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_maximal_complex_takes_a_number_not_one_value_per_state():
    true = _or_and_xor()
    assert maximal_complex(true, (1, 0, 0), partition_tolerance=1e-4).maximal.phi_s == pytest.approx(0.2937, abs=1e-4)
    with pytest.raises(ValueError, match="allowed for maximal_complex"):
        maximal_complex(true, (1, 0, 0), state_tolerance=(np.zeros(8), 0.0))


def test_tie_values_refuse_an_oversized_system_in_one_line():
    with pytest.raises(ValueError, match="above tie_values's limit of 8") as info:
        tie_values(np.full((2**9, 9), 0.5), (0,) * 9)
    assert "\n" not in str(info.value)
