"""The circuit IR, its qiskit translation, and the two generic builders."""
from __future__ import annotations

import numpy as np
import pytest

from quantum import GATES, CircuitTemplate, Gate, angle_encoded_reservoir, entangling_sampler, reservoir_angle_count


def test_gate_validation():
    with pytest.raises(ValueError, match="not a known gate"):
        Gate("cnot", (0, 1))
    with pytest.raises(ValueError, match="2 distinct"):
        Gate("cx", (1, 1))
    with pytest.raises(ValueError, match="takes no angle"):
        Gate("h", (0,), param=0)
    with pytest.raises(ValueError, match="n_qubits=2"):
        CircuitTemplate("c", 2, 0, (Gate("x", (2,)),))
    with pytest.raises(ValueError, match="n_params=1"):
        CircuitTemplate("c", 2, 1, (Gate("rx", (0,), param=1),))


def test_templates_are_hashable_values():
    # backends cache transpiled circuits per template: equal templates must hash equal
    a = angle_encoded_reservoir(4, 3, depth=2, seed=1)
    assert a == angle_encoded_reservoir(4, 3, depth=2, seed=1) and hash(a) == hash(angle_encoded_reservoir(4, 3, 2, 1))
    assert a != angle_encoded_reservoir(4, 3, depth=2, seed=2)


def test_to_qiskit_uses_theta_and_affine_angles():
    circuit = CircuitTemplate("affine", 2, 2, (Gate("ry", (0,), param=1, scale=0.5, offset=0.25),
                                               Gate("rzz", (0, 1), param=0), Gate("rx", (1,), offset=1.5),
                                               Gate("cx", (1, 0))))
    qc = circuit.to_qiskit()
    assert qc.num_qubits == 2 and qc.name == "affine"
    assert sorted(p.name for p in qc.parameters) == ["theta[0]", "theta[1]"]
    bound = qc.assign_parameters({p: [3.0, 2.0][p.index] for p in qc.parameters})
    angles = [float(inst.operation.params[0]) for inst in bound.data if inst.operation.params]
    assert angles == pytest.approx([0.5 * 2.0 + 0.25, 3.0, 1.5])  # scale * theta[p] + offset


def test_every_gate_translates_to_qiskit():
    for name, (arity, rotation) in GATES.items():
        gate = Gate(name, tuple(range(arity)), offset=0.3) if rotation else Gate(name, tuple(range(arity)))
        qc = CircuitTemplate(name, 2, 0, (gate,)).to_qiskit()
        assert qc.data[0].operation.name == name


def test_reservoir_structure():
    c = angle_encoded_reservoir(5, 4, depth=3, seed=0)
    assert (c.n_qubits, c.n_params) == (5, 4)
    assert {g.param for g in c.gates if g.param is not None} == {0, 1, 2, 3}
    # per layer: 4 one-qubit gates per qubit, then a 5-qubit ring of entanglers (CZ, CX, CZ)
    assert len(c.gates) == 3 * (5 * 4 + 5)
    assert [g.name for g in c.gates if len(g.qubits) == 2] == ["cz"] * 5 + ["cx"] * 5 + ["cz"] * 5
    fixed = [g.offset for g in c.gates if g.param is None and g.is_rotation]
    assert all(0 <= a < 2 * np.pi for a in fixed)
    other = angle_encoded_reservoir(5, 4, depth=3, seed=1)
    assert fixed != [g.offset for g in other.gates if g.param is None and g.is_rotation]


def test_reservoir_with_angles_as_parameters():
    # seed None: the same gates, the fixed angles replaced by parameters after the inputs (scale 1), so that
    # binding a seed's angles there gives the seeded template's circuit, gate for gate
    c, seeded = angle_encoded_reservoir(5, 4, depth=3), angle_encoded_reservoir(5, 4, depth=3, seed=0)
    assert (c.n_params, c.name) == (4 + reservoir_angle_count(5, 3), "reservoir_q5_i4_d3_a30")
    assert reservoir_angle_count(5, 3) == 30
    assert [(g.name, g.qubits) for g in c.gates] == [(g.name, g.qubits) for g in seeded.gates]
    angle_gates = [g for g in c.gates if g.param is not None and g.param >= 4]
    assert [g.param for g in angle_gates] == list(range(4, 34)) and all(g.scale == 1.0 for g in angle_gates)
    offsets = [g.offset for g in seeded.gates if g.param is None and g.is_rotation]
    params = np.concatenate([np.linspace(-1, 1, 4), offsets])[None]
    for g, s in zip(c.gates, seeded.gates):
        if g.is_rotation:
            assert g.angles(params)[0] == pytest.approx(s.angles(params[:, :4])[0], abs=1e-15)
    with pytest.raises(ValueError, match="n_inputs=9"):  # the angle parameters do not count as inputs reached
        angle_encoded_reservoir(3, 9, depth=3)


def test_sampler_structure():
    c = entangling_sampler(4, 3, layers=2)
    names = [g.name for g in c.gates]
    assert names[:4] == ["h"] * 4 and names.count("ry") == 8 and names.count("rzz") == 8
    assert all(g.param is not None for g in c.gates if g.is_rotation)


def test_builders_refuse_inputs_that_never_reach_the_circuit():
    with pytest.raises(ValueError, match="n_inputs=9"):
        angle_encoded_reservoir(3, 9, depth=1, seed=0)
    with pytest.raises(ValueError, match="n_inputs=5"):
        entangling_sampler(2, 5, layers=1)
    with pytest.raises(ValueError, match="depth=0"):
        angle_encoded_reservoir(3, 2, depth=0, seed=0)
