"""Fused one-qubit gates (Qiskit conventions) in torch, batched over parameter sets.

Every one-qubit gate is a phase times an SU(2) matrix, U = e^{i phi} (w I - i (x X + y Y + z Z)) with
(w, x, y, z) a unit quaternion; RX, RY, RZ(theta) are (cos theta/2, sin theta/2 on their axis) with
phi = 0, P(theta) = e^{i theta/2} RZ(theta), and each fixed gate is a constant quaternion and phase (H =
i (X + Z)/sqrt 2, S = e^{i pi/4} RZ(pi/2), ...). A run of gates fuses by quaternion products and a sum of
phases, in real arithmetic: a rotation touches two pairs of components, (w, k) and the other two, as plane
rotations by theta/2. The torch statevector backend turns each run into one 2x2 matrix per parameter set.

Layout: quaternions (4, S, B) for S runs with the same gate names and B parameter sets, matrices
(2, 2, S, B): entry (i, j) of run s for set b; every entry is an elementwise function of its own set's
angles, so a set's numbers do not depend on the sets beside it.
"""
from __future__ import annotations

import functools
import math

import torch

from quantum.circuits import Gate

_S2 = 1.0 / math.sqrt(2.0)
_C8, _S8 = math.cos(math.pi / 8), math.sin(math.pi / 8)
# name -> (w, x, y, z), phase phi
FIXED_1Q = {
    "h": ((0.0, _S2, 0.0, _S2), math.pi / 2),
    "x": ((0.0, 1.0, 0.0, 0.0), math.pi / 2),
    "y": ((0.0, 0.0, 1.0, 0.0), math.pi / 2),
    "z": ((0.0, 0.0, 0.0, 1.0), math.pi / 2),
    "s": ((_S2, 0.0, 0.0, _S2), math.pi / 4),
    "sdg": ((_S2, 0.0, 0.0, -_S2), -math.pi / 4),
    "t": ((_C8, 0.0, 0.0, _S8), math.pi / 8),
    "tdg": ((_C8, 0.0, 0.0, -_S8), -math.pi / 8),
    "sx": ((_S2, _S2, 0.0, 0.0), math.pi / 4),
}
AXIS = {"rx": 1, "ry": 2, "rz": 3, "p": 3}  # quaternion component of the rotation axis
# A rotation about axis k by (c, s) maps q to c q + s sign * q[partner]: w' = c w - s q_k, q_k' = c q_k + s w,
# and for the other two (i, j), in the cyclic order (k, i, j): q_i' = c q_i - s q_j, q_j' = c q_j + s q_i.
_PARTNER = {1: (1, 0, 3, 2), 2: (2, 3, 0, 1), 3: (3, 2, 1, 0)}
_SIGN = {1: (-1.0, 1.0, -1.0, 1.0), 2: (-1.0, 1.0, 1.0, -1.0), 3: (-1.0, -1.0, 1.0, 1.0)}


def gate_angles(gates: list[Gate], params_T: torch.Tensor, factor: float = 1.0) -> torch.Tensor:
    """(S, B) angles of the gates (one per run, same name) for params_T (n_params, B), times ``factor``.

    factor 0.5 gives the half angles a rotation's quaternion takes: x (scale / 2) + offset / 2 is
    (x scale + offset) / 2 to the bit, as halving is exact. Gates reading consecutive parameters read a
    slice of params_T (no gather); a zero offset is not added."""
    rows, scale, offset = _angle_plan(tuple((g.param, g.scale, g.offset) for g in gates), factor,
                                      params_T.dtype, params_T.device)
    if rows is None:
        return offset.expand(len(gates), params_T.shape[1])
    angles = params_T[rows] * scale
    return angles if offset is None else angles.add_(offset)


@functools.lru_cache(maxsize=512)
def _angle_plan(terms: tuple, factor: float, dtype, device) -> tuple:
    """(rows of params_T: a slice or an index tensor, or None for constant angles; the scale, a float or an
    (S, 1) tensor; the offset, an (S, 1) tensor or None when every offset is 0), all times ``factor``."""
    like = dict(dtype=dtype, device=device)
    offsets = [factor * o for _, _, o in terms]
    offset = torch.tensor(offsets, **like)[:, None]
    if terms[0][0] is None:
        return None, None, offset
    params, scales = [p for p, _, _ in terms], [factor * s for _, s, _ in terms]
    first = params[0]
    consecutive = params == list(range(first, first + len(params)))
    rows = slice(first, first + len(params)) if consecutive else torch.tensor(params, device=device)
    scale = scales[0] if len(set(scales)) == 1 else torch.tensor(scales, **like)[:, None]
    return rows, scale, None if not any(offsets) else offset


def _left_multiply_fixed(f: tuple[float, ...], q: torch.Tensor) -> torch.Tensor:
    """f q for a constant quaternion f: w = fw w - fv.v, v = fw v + w fv + fv x v."""
    fw, fx, fy, fz = f
    w, x, y, z = q
    return torch.stack([fw * w - fx * x - fy * y - fz * z,
                        fw * x + fx * w + fy * z - fz * y,
                        fw * y + fy * w + fz * x - fx * z,
                        fw * z + fz * w + fx * y - fy * x])


def _rotate(q: torch.Tensor, k: int, c: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """(c, s e_k) q: the rotation about axis k (c = cos theta/2, s = sin theta/2, each (S, B)); component i is
    q_i c + (sign_i q_partner(i)) s, one multiply and one multiply-add per component into a new tensor."""
    out = torch.empty_like(q)
    for i, (partner, sign) in enumerate(zip(_PARTNER[k], _SIGN[k])):
        torch.mul(q[i], c, out=out[i]).addcmul_(q[partner], s, value=sign)
    return out


def fused_quaternions(runs: list[tuple[Gate, ...]], params_T: torch.Tensor) -> tuple[torch.Tensor, object]:
    """(4, S, B) quaternion of U_k ... U_1 (U_1 applied first) for S runs with the same gate names, and
    the runs' phase phi: a float, or an (S, B) tensor when a run holds P gates."""
    S, B = len(runs), params_T.shape[1]
    like = dict(dtype=params_T.dtype, device=params_T.device)
    q, phase = None, 0.0  # q None: the identity (1, 0, 0, 0), not yet materialised
    for position in range(len(runs[0])):
        gates = [run[position] for run in runs]
        name = gates[0].name
        if name in FIXED_1Q:
            f, phi = FIXED_1Q[name]
            phase += phi
            q = torch.tensor(f, **like)[:, None, None].expand(4, S, B) if q is None else _left_multiply_fixed(f, q)
            continue
        if name not in AXIS:
            raise ValueError(f"{name!r} is not a one-qubit gate")
        half = gate_angles(gates, params_T, 0.5)
        c, s = torch.cos(half), torch.sin(half)
        if q is None:  # the rotation's own quaternion: (c, s on its axis)
            q = torch.zeros((4, S, B), **like)
            q[0], q[AXIS[name]] = c, s
        else:
            q = _rotate(q, AXIS[name], c, s)
        if name == "p":
            phase = phase + half
    return q, phase


def _matrices(q: torch.Tensor, phase, dtype) -> torch.Tensor:
    """(2, 2, S, B): e^{i phi} [[w - i z, -y - i x], [y - i x, w + i z]]."""
    w, x, y, z = q
    m = torch.stack([torch.stack([torch.complex(w, -z), torch.complex(-y, -x)]),
                     torch.stack([torch.complex(y, -x), torch.complex(w, z)])])
    if isinstance(phase, torch.Tensor):
        m = m * torch.polar(torch.ones_like(phase), phase)
    elif phase != 0.0:
        m = m * complex(math.cos(phase), math.sin(phase))
    return m.to(dtype)


def run_matrices(runs: list[tuple[Gate, ...]], params_T: torch.Tensor, dtype) -> list[torch.Tensor]:
    """Each run's fused matrix, (2, 2, B), in order; runs with the same gate names computed together."""
    groups: dict[tuple[tuple[str, bool], ...], list[int]] = {}
    for i, run in enumerate(runs):
        groups.setdefault(tuple((g.name, g.param is None) for g in run), []).append(i)
    out: list[torch.Tensor | None] = [None] * len(runs)
    for members in groups.values():
        m = _matrices(*fused_quaternions([runs[i] for i in members], params_T), dtype)
        for k, i in enumerate(members):
            out[i] = m[:, :, k]
    return out
