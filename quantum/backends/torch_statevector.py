"""Batched statevector simulation in torch: all parameter sets at once, CPU or CUDA.

The state is a (B, 2^n) complex tensor (complex128 for double, complex64 for
single); each gate is a few tensor operations over the whole batch, so 1000
parameter sets cost about as many Python steps as one. Runs of one-qubit gates on
the same qubit are fused into one 2x2 matrix per parameter set before they touch
the state. Exact: no sampling inside; probabilities are |amplitude|^2.
"""
from __future__ import annotations

import numpy as np

from quantum.backends.base import QuantumBackend, package_version
from quantum.circuits import CircuitTemplate, Gate
from quantum.errors import BackendUnavailableError
from quantum.gate_matrices import fused_matrix
from quantum.memory import MiB, statevector_bytes

# CPU chunks of this many bytes of state: 2048 six-qubit rows in double precision. Measured at 12 288 rows of the
# default circuits on one core (docs/performance.md): 2048-row chunks took 116 / 88 ms against 159 / 151 ms in one
# chunk and 162 / 132 ms in 256-row chunks (the whole state spills out of the 2 MiB L2 cache; small chunks pay the
# Python steps per gate).
CPU_CHUNK_BYTES = 2 * MiB


def compile_program(circuit: CircuitTemplate) -> list[tuple]:
    """Steps ("u", q, [one-qubit gates]) and (name, a, b, gate) for two-qubit gates, in order."""
    program: list[tuple] = []
    pending: dict[int, list[Gate]] = {}

    def flush(q: int) -> None:
        if pending.get(q):
            program.append(("u", q, pending.pop(q)))

    for g in circuit.gates:
        if len(g.qubits) == 1:
            pending.setdefault(g.qubits[0], []).append(g)
        else:
            for q in g.qubits:
                flush(q)
            program.append((g.name, g.qubits[0], g.qubits[1], g))
    for q in sorted(pending):
        flush(q)
    return program


def _pair_view(psi, n: int, a: int, b: int):
    """View (B, H, 2, M, 2, L) of psi (B, 2^n) and the dims holding the bits of a and b."""
    lo, hi = min(a, b), max(a, b)
    v = psi.view(psi.shape[0], 1 << (n - hi - 1), 2, 1 << (hi - lo - 1), 2, 1 << lo)
    return v, (2 if a == hi else 4), (2 if b == hi else 4)


class TorchStatevectorBackend(QuantumBackend):
    """Exact batched statevector backend on a torch device ("cpu" or "cuda")."""

    kind = "torch"
    # the state, one state's worth of gate temporaries, and the probability output
    working_copies = 3

    def __init__(self, *, device: str = "cpu", **kwargs):
        import torch

        if device not in ("cpu", "cuda"):
            raise ValueError(f"device={device!r} is not allowed for the torch backend; allowed: cpu, cuda")
        if device == "cuda" and not torch.cuda.is_available():
            raise BackendUnavailableError(
                f"device='gpu' for the torch backend: torch {torch.__version__} sees no CUDA device "
                f"(torch.cuda.is_available() is False; "
                + (f"torch built with CUDA {torch.version.cuda})" if torch.version.cuda else "a CPU-only torch build)"))
        super().__init__(device=device, **kwargs)
        self._torch = torch
        self._dtype = torch.complex128 if self.precision == "double" else torch.complex64
        self._programs: dict[CircuitTemplate, list[tuple]] = {}

    def versions(self) -> dict:
        return {**super().versions(), "torch": package_version("torch")}

    def _program(self, circuit: CircuitTemplate) -> list[tuple]:
        if circuit not in self._programs:
            self._programs[circuit] = compile_program(circuit)
        return self._programs[circuit]

    def intra_op_threads(self, amplitudes: int) -> int:
        """CPU threads for gate ops on a chunk of `amplitudes` amplitudes: 1 below 2^22, else `threads`.

        Each gate is a handful of short tensor ops; splitting every one across threads
        costs a barrier per op. Measured on a loaded 2-core CPU (docs/quantum.md): 2 threads
        were never faster than 1 up to 2^22 amplitudes and up to 40x slower (1000 sets at
        8 qubits: 0.05 s on 1 thread, 0.25-2.3 s on 2).
        """
        return 1 if self.device != "cpu" or amplitudes < 2**22 else self.threads

    def rows_per_chunk(self, n_qubits: int) -> int:
        """Parameter sets simulated together (>= 1): what fits the usable budget and, on the CPU, what
        keeps a chunk's states in a core's L2 cache (CPU_CHUNK_BYTES). Each row is simulated on its
        own arithmetic, so the chunking changes no number (tests/test_quantum_conformance.py)."""
        per_row = statevector_bytes(n_qubits, self.precision)
        rows = max(1, self.memory_plan.usable_bytes // (per_row * self.working_copies))
        return rows if self.device != "cpu" else max(1, min(rows, CPU_CHUNK_BYTES // per_row))

    def _probabilities(self, circuit: CircuitTemplate, params: np.ndarray) -> np.ndarray:
        torch = self._torch
        out = np.empty((params.shape[0], 1 << circuit.n_qubits))
        step = self.rows_per_chunk(circuit.n_qubits)
        threads = self.intra_op_threads(min(step, params.shape[0]) << circuit.n_qubits)
        previous_threads = torch.get_num_threads()
        if previous_threads != threads:
            torch.set_num_threads(threads)
        try:
            with torch.inference_mode():
                for start in range(0, params.shape[0], step):
                    chunk = params[start:start + step]
                    psi = self._run(circuit, chunk)
                    out[start:start + chunk.shape[0]] = (psi.real ** 2 + psi.imag ** 2).double().cpu().numpy()
        finally:
            if previous_threads != threads:
                torch.set_num_threads(previous_threads)
        return out

    def _matrix(self, gates: list[Gate], params: np.ndarray):
        m = fused_matrix(gates, params)
        return self._torch.from_numpy(m).to(device=self.device, dtype=self._dtype)

    def _run(self, circuit: CircuitTemplate, params: np.ndarray):
        """Final states (B, 2^n) for params (B, n_params)."""
        torch = self._torch
        n, batch = circuit.n_qubits, params.shape[0]
        psi = torch.zeros((batch, 1 << n), dtype=self._dtype, device=self.device)
        psi[:, 0] = 1.0
        for step in self._program(circuit):
            if step[0] == "u":
                self._apply_1q(psi, n, step[1], self._matrix(step[2], params))
            elif step[0] == "swap":
                v, da, db = _pair_view(psi, n, step[1], step[2])
                psi = v.transpose(da, db).reshape(batch, 1 << n)
            else:
                self._apply_2q(psi, n, step, params)
        return psi

    @staticmethod
    def _apply_1q(psi, n: int, q: int, u) -> None:
        import torch

        """psi <- U_q psi in place; u (B or 1, 2, 2)."""
        v = psi.view(psi.shape[0], 1 << (n - q - 1), 2, 1 << q)
        a, b = v[:, :, 0, :], v[:, :, 1, :]
        u = u[:, :, :, None, None]  # (B, 2, 2, 1, 1) broadcasts over (B, H, L)
        new_a = torch.addcmul(u[:, 0, 0] * a, u[:, 0, 1], b)
        new_b = torch.addcmul(u[:, 1, 1] * b, u[:, 1, 0], a)
        a.copy_(new_a)
        b.copy_(new_b)

    def _apply_2q(self, psi, n: int, step: tuple, params: np.ndarray) -> None:
        name, qa, qb, gate = step
        v, da, db = _pair_view(psi, n, qa, qb)

        def block(bit_a: int, bit_b: int):
            index = [slice(None)] * 6
            index[da], index[db] = bit_a, bit_b
            return v[tuple(index)]

        if name == "cx":  # control qa, target qb: swap target 0/1 where control is 1
            one_zero, one_one = block(1, 0), block(1, 1)
            tmp = one_zero.clone()
            one_zero.copy_(one_one)
            one_one.copy_(tmp)
        elif name == "cz":
            block(1, 1).mul_(-1)
        elif name == "rzz":  # exp(-i theta/2 Z(x)Z): phase e^{-i theta/2} on equal bits, e^{+i theta/2} else
            theta = gate.angles(params)
            same = self._torch.from_numpy(np.exp(-0.5j * theta)).to(device=self.device, dtype=self._dtype)
            same = same[:, None, None, None]
            for bits in ((0, 0), (1, 1)):
                block(*bits).mul_(same)
            for bits in ((0, 1), (1, 0)):
                block(*bits).mul_(same.conj())
        else:  # pragma: no cover - GATES and this dispatch are kept in step by the tests
            raise ValueError(f"torch backend has no two-qubit gate {name!r}")
