"""A tiny backend-neutral circuit IR: `Gate` and `CircuitTemplate`.

A template is a fixed gate list over `n_qubits` qubits with `n_params` free
parameters; every backend runs it for a batch of parameter sets (B, n_params).
A rotation's angle (radians) is affine in one parameter:

    angle = scale * params[param] + offset        (param=None: fixed angle = offset)

Gate conventions are Qiskit's (e.g. RZ(t) = diag(exp(-i t/2), exp(i t/2)),
RZZ(t) = exp(-i t/2 Z(x)Z)), and so is the bit order: qubit q is bit q of a basis
index (little-endian). Nothing here imports qiskit; `to_qiskit` does, when called.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# name -> (number of qubits, takes an angle)
GATES: dict[str, tuple[int, bool]] = {
    "h": (1, False), "x": (1, False), "y": (1, False), "z": (1, False),
    "s": (1, False), "sdg": (1, False), "t": (1, False), "tdg": (1, False), "sx": (1, False),
    "rx": (1, True), "ry": (1, True), "rz": (1, True), "p": (1, True),
    "cx": (2, False), "cz": (2, False), "swap": (2, False), "rzz": (2, True),
}


@dataclass(frozen=True)
class Gate:
    """One gate: `name` from GATES, acting on `qubits` (control first for cx).

    Rotation gates take angle = scale * params[param] + offset (radians); with
    param=None the angle is the constant `offset`. Fixed gates take no angle.
    """

    name: str
    qubits: tuple[int, ...]
    param: int | None = None
    scale: float = 1.0
    offset: float = 0.0

    def __post_init__(self):
        if self.name not in GATES:
            raise ValueError(f"Gate.name={self.name!r} is not a known gate; allowed: {', '.join(GATES)}")
        object.__setattr__(self, "qubits", tuple(int(q) for q in self.qubits))
        arity, rotation = GATES[self.name]
        if len(self.qubits) != arity or len(set(self.qubits)) != arity or min(self.qubits) < 0:
            raise ValueError(f"Gate {self.name!r}: qubits={self.qubits} must be {arity} distinct non-negative indices")
        if not rotation and (self.param is not None or self.offset != 0.0 or self.scale != 1.0):
            raise ValueError(f"Gate {self.name!r} takes no angle: param, scale and offset must stay at their defaults")
        if self.param is not None and int(self.param) < 0:
            raise ValueError(f"Gate {self.name!r}: param={self.param} must be a non-negative parameter index")

    @property
    def is_rotation(self) -> bool:
        return GATES[self.name][1]

    def angles(self, params):
        """Angles (B,) in radians for params (B, n_params) float64; only for rotation gates."""
        if self.param is None:
            return np.full(params.shape[0], float(self.offset))
        return self.scale * params[:, self.param] + self.offset


@dataclass(frozen=True)
class CircuitTemplate:
    """A named parametrised circuit: `gates` over `n_qubits` qubits and `n_params` parameters."""

    name: str
    n_qubits: int
    n_params: int
    gates: tuple[Gate, ...]

    def __post_init__(self):
        object.__setattr__(self, "gates", tuple(self.gates))
        if int(self.n_qubits) < 1:
            raise ValueError(f"CircuitTemplate {self.name!r}: n_qubits={self.n_qubits} must be >= 1")
        if int(self.n_params) < 0:
            raise ValueError(f"CircuitTemplate {self.name!r}: n_params={self.n_params} must be >= 0")
        for i, g in enumerate(self.gates):
            if not isinstance(g, Gate):
                raise TypeError(f"CircuitTemplate {self.name!r}: gates[{i}] is {type(g).__name__}, not Gate")
            if max(g.qubits) >= self.n_qubits:
                raise ValueError(f"CircuitTemplate {self.name!r}: gates[{i}] acts on qubits {g.qubits}, "
                                 f"but the circuit has n_qubits={self.n_qubits}")
            if g.param is not None and g.param >= self.n_params:
                raise ValueError(f"CircuitTemplate {self.name!r}: gates[{i}] uses param {g.param}, "
                                 f"but the circuit has n_params={self.n_params}")

    @property
    def width(self) -> int:
        """Number of qubits (the quantity the qubit cap limits)."""
        return self.n_qubits

    def to_qiskit(self):
        """The template as a `qiskit.QuantumCircuit` over ParameterVector("theta", n_params).

        Angles are affine ParameterExpressions `scale*theta[p] + offset`. Imports qiskit.
        """
        from qiskit import QuantumCircuit
        from qiskit.circuit import ParameterVector

        theta = ParameterVector("theta", self.n_params)
        qc = QuantumCircuit(self.n_qubits, name=self.name)
        for g in self.gates:
            method = getattr(qc, g.name)
            if not g.is_rotation:
                method(*g.qubits)
            elif g.param is None:
                method(float(g.offset), *g.qubits)
            else:
                angle = theta[g.param]
                if g.scale != 1.0:
                    angle = float(g.scale) * angle
                if g.offset != 0.0:
                    angle = angle + float(g.offset)
                method(angle, *g.qubits)
        return qc
