"""Batched statevector simulation in torch: all parameter sets at once, CPU or CUDA.

The state is a (2^n, B) complex tensor (complex128 for double, complex64 for single), the
batch innermost, so every operation is a contiguous vectorised loop over parameter sets. The
circuit runs as `quantum.program` compiles it: the product state its leading one-qubit gates
prepare, then one pass over the state per fused one-qubit step, per run of diagonal gates (one
phase per basis state) and per run of CX/SWAP gates (one gather); diagonal gates at the end are
left out (they change no probability). 1000 parameter sets cost about as many Python steps as
one. Exact: no sampling inside; probabilities are |amplitude|^2.
"""
from __future__ import annotations

import numpy as np

from quantum.backends.base import QuantumBackend, package_version
from quantum.circuits import CircuitTemplate
from quantum.errors import BackendUnavailableError
from quantum.gate_matrices import gate_angles, run_matrices
from quantum.memory import MiB, statevector_bytes
from quantum.program import Program, compile_program, state_steps_and_reorder
from quantum.readout import TABLE_MAX_QUBITS, walsh_hadamard_, z_signs, z_zz_columns

# CPU chunks of this many bytes of state: 2048 six-qubit rows in double precision (beyond, the chunk's state and
# its spare copy spill out of a core's 2 MiB L2 cache; docs/performance.md).
CPU_CHUNK_BYTES = 2 * MiB
# Parameter sets are padded to a multiple of ALIGN and chunks hold a multiple of it (or a single row). The batch is
# the state's innermost axis, and a vectorised CPU loop rounds its scalar remainder (when its length is not a
# multiple of twice the vector width, up to 16 floats with AVX-512) differently: with the padding no row ever
# falls in a remainder, so a row's numbers do not depend on the batch it runs in.
ALIGN = 32


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
        self._programs: dict[CircuitTemplate, Program] = {}

    def versions(self) -> dict:
        return {**super().versions(), "torch": package_version("torch")}

    def _program(self, circuit: CircuitTemplate) -> Program:
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
        keeps a chunk's states in a core's L2 cache (CPU_CHUNK_BYTES); a multiple of ALIGN, or 1 where
        fewer than ALIGN fit. Each row is simulated on its own arithmetic, so the chunking changes no
        number (tests/quantum/test_quantum_conformance.py)."""
        per_row = statevector_bytes(n_qubits, self.precision)
        rows = max(1, self.memory_plan.usable_bytes // (per_row * self.working_copies))
        if self.device == "cpu":
            rows = min(rows, CPU_CHUNK_BYTES // per_row)
        return rows - rows % ALIGN if rows >= ALIGN else 1

    def _probabilities(self, circuit: CircuitTemplate, params: np.ndarray) -> np.ndarray:
        return self._each_chunk(circuit, params, 1 << circuit.n_qubits, lambda p: p)

    def _z_zz(self, circuit: CircuitTemplate, params: np.ndarray, pairs) -> tuple[np.ndarray, np.ndarray]:
        """<Z> and <ZZ> as columns of each chunk's Walsh-Hadamard transform, taken on the batch-last
        probabilities as they come out (the same numbers as from the (B, 2^n) probabilities, no transposes)."""
        n = circuit.n_qubits
        if n > TABLE_MAX_QUBITS:
            return super()._z_zz(circuit, params, pairs)
        columns = self._torch.as_tensor(z_zz_columns(n, pairs), device=self.device)
        both = self._each_chunk(circuit, params, len(columns),
                                lambda p: walsh_hadamard_(p.double(), n).index_select(0, columns))
        return both[:, :n], both[:, n:]

    def _each_chunk(self, circuit: CircuitTemplate, params: np.ndarray, width: int, reduce) -> np.ndarray:
        """(B, width) float64: ``reduce`` of each chunk's probabilities (2^n, rows) -> (width, rows), which
        it may overwrite, written into the rows of its parameter sets."""
        torch = self._torch
        n, batch = circuit.n_qubits, params.shape[0]
        out = np.empty((batch, width))
        out_T = torch.from_numpy(out)
        step = self.rows_per_chunk(n)
        threads = self.intra_op_threads(min(step, batch) << n)
        previous_threads = torch.get_num_threads()
        if previous_threads != threads:
            torch.set_num_threads(threads)
        try:
            with torch.inference_mode():
                padded = -(-batch // ALIGN) * ALIGN
                params_T = torch.zeros((params.shape[1], padded), dtype=torch.float64, device=self.device)
                params_T[:, :batch] = torch.from_numpy(np.ascontiguousarray(params.T)).to(self.device)
                run = _Run(self, self._program(circuit), params_T)
                for start in range(0, batch, step):
                    stop = min(start + step, batch)
                    p = reduce(run.probabilities(slice(start, start + step if step > 1 else stop)))
                    out_T[start:stop].copy_(p[:, :stop - start].T)  # one blocked transposing copy
        finally:
            if previous_threads != threads:
                torch.set_num_threads(previous_threads)
        return out


class _Run:
    """One circuit at every parameter set, chunk by chunk: the chunk's fused matrices, then its state."""

    def __init__(self, backend: TorchStatevectorBackend, program: Program, params_T):
        self.torch, self.dtype, self.program, self.params_T = backend._torch, backend._dtype, program, params_T
        self.steps, reorder = state_steps_and_reorder(program)
        as_index = lambda index: backend._torch.as_tensor(index, device=params_T.device)  # noqa: E731
        self.reorder = None if reorder is None else as_index(reorder)
        self.gathers = {k: as_index(s[1]) for k, s in enumerate(self.steps) if s[0] == "perm"}
        self.runs = [g for g in program.product.values() if g] + [s[2] for s in self.steps if s[0] == "u"]
        self.z = z_signs(program.n_qubits).to(params_T.device)  # (2^n, n): Z_q's eigenvalues

    def _matrices(self, cols: slice) -> tuple[dict, list]:
        """The chunk's fused matrices (2, 2, rows): each qubit's leading run (None if it has none), each step's."""
        matrices = iter(run_matrices(self.runs, self.params_T[:, cols], self.dtype) if self.runs else [])
        leading = {q: next(matrices) if g else None for q, g in self.program.product.items()}
        return leading, [next(matrices) if s[0] == "u" else None for s in self.steps]

    def probabilities(self, cols: slice):
        """|amplitude|^2 (2^n, rows) of the parameter sets in ``cols``."""
        leading, fused = self._matrices(cols)
        psi = self._product_state(leading, cols)
        spare = self.torch.empty_like(psi)
        for k, step in enumerate(self.steps):
            if step[0] == "u":
                psi, spare = self._one_qubit(psi, spare, step[1], fused[k]), psi
            elif step[0] == "diag":
                phase = self._phase(step[1], cols)
                if phase.is_complex():
                    psi.mul_(phase)
                else:  # signs only (CZ): both parts times +-1, exact
                    self.torch.view_as_real(psi).mul_(phase[:, :, None])
            else:
                psi, spare = self.torch.index_select(psi, 0, self.gathers[k], out=spare), psi
        p = psi.real ** 2 + psi.imag ** 2
        return p if self.reorder is None else self.torch.index_select(p, 0, self.reorder)

    def _rows(self, cols: slice) -> int:
        return len(range(*cols.indices(self.params_T.shape[1])))

    def _product_state(self, leading: dict, cols: slice):
        """(2^n, rows): the Kronecker product of each qubit's U|0>, qubit q as bit q of the index (a qubit
        without leading gates stays |0>: the upper half of the new state is zero), built in place: the
        states with bit q set are written from the lower 2^q before those are scaled."""
        torch = self.torch
        psi = torch.empty((1 << self.program.n_qubits, self._rows(cols)), dtype=self.dtype, device=self.params_T.device)
        psi[0] = 1.0
        for q in range(self.program.n_qubits):
            lower, upper, m = psi[:1 << q], psi[1 << q:2 << q], leading[q]
            if m is None:
                upper.zero_()
            elif q == 0:
                lower[0], upper[0] = m[0, 0], m[1, 0]
            else:
                torch.mul(lower, m[1, 0], out=upper)
                lower.mul_(m[0, 0])
        return psi

    def _one_qubit(self, psi, out, q: int, u):
        """out <- U_q psi; u (2, 2, rows)."""
        n = self.program.n_qubits
        v = psi.view(1 << (n - q - 1), 2, 1 << q, psi.shape[1])
        o = out.view(v.shape)
        a, b, new_a, new_b = v[:, 0], v[:, 1], o[:, 0], o[:, 1]
        self.torch.mul(a, u[0, 0], out=new_a).addcmul_(b, u[0, 1])
        self.torch.mul(b, u[1, 1], out=new_b).addcmul_(a, u[1, 0])
        return out

    def _phase(self, gates, cols: slice):
        """(2^n, rows or 1): the diagonal of a run of CZ and RZZ gates. CZ: -1 where both bits are 1;
        RZZ(theta): exp(-i theta/2 z_a z_b), the run's angles summed (one fused multiply-add per gate)
        before one cosine and one sine. z_a z_b is the same on a basis state and on its complement (every
        bit flipped, index 2^n - 1 - k), so the angles are summed, and their cosines and sines taken, on
        the lower half of the states and mirrored: the same numbers for half the work."""
        torch, z = self.torch, self.z
        sign = torch.ones(z.shape[0], dtype=torch.float64, device=z.device)
        half = z.shape[0] // 2
        angle = None
        for g in gates:
            a, b = g.qubits
            if g.name == "cz":
                sign = torch.where((z[:, a] < 0) & (z[:, b] < 0), -sign, sign)
                continue
            theta = gate_angles([g], self.params_T[:, cols])[0]
            half_zz = (-0.5 * z[:half, a] * z[:half, b])[:, None]  # exact: +-1/2
            angle = half_zz * theta if angle is None else angle.addcmul_(half_zz, theta)
        if angle is None:
            return sign[:, None].to(self.dtype.to_real())
        cos, sin = torch.cos(angle), torch.sin(angle)
        cos, sin = torch.cat([cos, cos.flip(0)]), torch.cat([sin, sin.flip(0)])
        if any(g.name == "cz" for g in gates):  # +-1: the products are exact
            cos, sin = cos * sign[:, None], sin * sign[:, None]
        return torch.complex(cos, sin).to(self.dtype)
