"""Input conventions and errors of `iit3` (PyPhi 1.2's TPM, state and cm conventions)."""
from __future__ import annotations

import numpy as np
import pytest

from cognition.phi.iit3 import iit3
from cognition.phi.iit3.tpm import as_state_by_node

# pyphi/examples.py basic_network, as in test_phi_iit3.py.
BASIC_TPM = np.array([[0, 0, 0], [0, 0, 1], [1, 0, 1], [1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 1, 1], [1, 1, 0]])
BASIC_CM = np.array([[0, 0, 1], [1, 0, 1], [1, 1, 0]])


def _state_by_state(sbn: np.ndarray) -> np.ndarray:
    """Joint next-state distribution of conditionally independent nodes (little-endian)."""
    n = sbn.shape[1]
    bits = (np.arange(1 << n)[:, None] >> np.arange(n)) & 1
    return np.prod(np.where(bits[None, :, :] == 1, sbn[:, None, :], 1 - sbn[:, None, :]), axis=2)


def test_little_endian_rows_node_zero_varies_fastest():
    # Row 1 is the previous state (A, B, C) = (1, 0, 0): A (OR) and B (COPY) give (0, 0, 1).
    assert as_state_by_node(BASIC_TPM)[1].tolist() == [0, 0, 1]
    assert as_state_by_node(BASIC_TPM)[4].tolist() == [1, 1, 0]  # previous state (0, 0, 1)


def test_multidimensional_and_state_by_state_forms_agree():
    reference = iit3(BASIC_TPM, (1, 0, 0), cm=BASIC_CM).phi
    multidim = BASIC_TPM.reshape((2, 2, 2, 3), order="F")  # tpm[(a, b, c)] = next state
    assert multidim[1, 0, 0].tolist() == [0, 0, 1]
    assert iit3(multidim, (1, 0, 0), cm=BASIC_CM).phi == reference
    assert iit3(_state_by_state(BASIC_TPM.astype(float)), (1, 0, 0), cm=BASIC_CM).phi == reference


def test_conditionally_dependent_tpm_is_rejected():
    # pyphi/examples.py cond_depend_tpm: equal states persist, unequal ones flip together.
    dependent = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.5, 0.5, 0.0],
                          [0.0, 0.5, 0.5, 0.0], [0.0, 0.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match="conditionally independent"):
        iit3(dependent, (0, 0))


def test_non_binary_tpm_is_rejected():
    three_state = np.full((9, 2), 0.5)  # two ternary nodes: 3^2 rows
    with pytest.raises(ValueError, match="binary"):
        iit3(three_state, (0, 0))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        iit3(BASIC_TPM * 2, (1, 0, 0))
    with pytest.raises(ValueError, match="rows that are probability distributions"):
        iit3(np.full((4, 4), 0.5), (0, 0))


def test_wrong_shapes_are_rejected():
    with pytest.raises(ValueError, match="cm"):
        iit3(BASIC_TPM, (1, 0, 0), cm=np.ones((2, 2)))
    with pytest.raises(ValueError, match="cm"):
        iit3(BASIC_TPM, (1, 0, 0), cm=np.full((3, 3), 2))
    with pytest.raises(ValueError, match="state"):
        iit3(BASIC_TPM, (1, 0))
    with pytest.raises(ValueError, match="state"):
        iit3(BASIC_TPM, (1, 0, 2))
    with pytest.raises(ValueError, match="tpm"):
        iit3(np.zeros((2, 2, 3)), (0, 0))
    with pytest.raises(ValueError, match="tpm"):
        iit3(np.zeros(8), (0, 0, 0))
    with pytest.raises(ValueError, match="nodes"):
        iit3(BASIC_TPM, (1, 0, 0), nodes=(0, 3))
    with pytest.raises(ValueError, match="workers"):
        iit3(BASIC_TPM, (1, 0, 0), workers=0)


def test_unreachable_state_is_rejected():
    # The basic network is deterministic and no row of its TPM is (0, 1, 0), so that
    # state has probability 0 after every previous state.
    assert not any(row.tolist() == [0, 1, 0] for row in BASIC_TPM)
    with pytest.raises(ValueError, match="unreachable"):
        iit3(BASIC_TPM, (0, 1, 0), cm=BASIC_CM)


def test_background_nodes_are_fixed_at_their_state():
    # PyPhi's `noised` network (test/example_networks.py) with node 0 outside the system:
    # conditioning its TPM on node 0's state by hand gives a 2-node network of equal Phi.
    noised = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.8], [0.7, 0.0, 1.0], [1.0, 0.0, 0.0],
                       [0.2, 0.8, 0.0], [1.0, 1.0, 1.0], [1.0, 1.0, 0.3], [0.1, 1.0, 0.0]])
    for state in [(1, 0, 0), (0, 1, 1)]:
        rows = [r for r in range(8) if r & 1 == state[0]]
        by_hand = iit3(noised[rows][:, 1:], state[1:], cm=np.ones((2, 2)))
        subsystem = iit3(noised, state, cm=np.ones((3, 3)), nodes=(1, 2))
        assert subsystem.phi == by_hand.phi > 0
        assert subsystem.nodes == (1, 2)
        # Network indices in the result: the hand-made network's node 0 is node 1 here.
        assert {c.mechanism for c in subsystem.concepts} == {
            tuple(i + 1 for i in c.mechanism) for c in by_hand.concepts}
