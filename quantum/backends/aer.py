"""Qiskit Aer statevector backend: the reference, and the path for wide circuits.

Each template is transpiled once (cached per template) with a final
save_probabilities; a batch of parameter sets is ONE `run(..., parameter_binds=...)`
call, bound at run time in C++ (runtime_parameter_bind_enable). Aer does not enforce
a qubit cap and its memory limit defaults to all of RAM, so the cap is checked
before the run (base class) and max_memory_mb is set from the budget's usable
bytes. Failed results become typed errors: "Insufficient memory" ->
QuantumMemoryError, anything else -> QuantumExecutionError.
"""
from __future__ import annotations

import re

import numpy as np

from quantum.backends.aer_info import aer_info
from quantum.backends.base import QuantumBackend, package_version
from quantum.circuits import CircuitTemplate
from quantum.errors import BackendUnavailableError, QuantumExecutionError, QuantumMemoryError
from quantum.memory import MiB

_INSUFFICIENT = re.compile(r"Insufficient memory.*?Required memory:\s*(\d+)M,\s*max memory:\s*(\d+)M", re.S)
_GPU_OOM = re.compile(r"out of memory|cudaErrorMemoryAllocation|cudaMalloc", re.I)


def translate_failure(status: str) -> Exception:
    """The typed error for a failed Aer result's status message."""
    found = _INSUFFICIENT.search(status)
    if found:
        return QuantumMemoryError(float(found.group(1)), float(found.group(2)), source="aer", detail=status.strip())
    if _GPU_OOM.search(status) or "Insufficient memory" in status:
        return QuantumMemoryError(None, None, source="aer", detail=status.strip())
    return QuantumExecutionError(f"Aer simulation failed: {status.strip()}")


class AerBackend(QuantumBackend):
    """AerSimulator(method="statevector") on device "cpu" or "gpu"."""

    kind = "aer"

    def __init__(self, *, device: str = "cpu", max_parallel_experiments: int | None = None, **kwargs):
        if device not in ("cpu", "gpu"):
            raise ValueError(f"device={device!r} is not allowed for the Aer backend; allowed: cpu, gpu")
        info = aer_info()
        if not info["installed"]:
            raise BackendUnavailableError(f"the Aer backend needs qiskit-aer: {info['gpu_reason']}")
        if device == "gpu" and not info["gpu"]:
            raise BackendUnavailableError(f"device='gpu' for the Aer backend: {info['gpu_reason']}")
        super().__init__(device=device, **kwargs)
        from qiskit_aer import AerSimulator

        # many small circuits: one experiment per thread; a wide one parallelises inside
        self.max_parallel_experiments = int(max_parallel_experiments or self.threads)
        self.max_memory_mb = max(1, self.memory_plan.usable_bytes // MiB)
        self.simulator = AerSimulator(
            method="statevector", device=device.upper(), precision=self.precision,
            max_parallel_threads=self.threads, max_parallel_experiments=self.max_parallel_experiments,
            max_memory_mb=self.max_memory_mb, runtime_parameter_bind_enable=True)
        self._compiled: dict[CircuitTemplate, tuple] = {}

    def versions(self) -> dict:
        info = aer_info()
        return {**super().versions(), "qiskit": package_version("qiskit"),
                info["distribution"] or "qiskit-aer": info["version"]}

    def describe(self) -> dict:
        return {**super().describe(), "max_memory_mb": self.max_memory_mb,
                "max_parallel_experiments": self.max_parallel_experiments}

    def compiled(self, circuit: CircuitTemplate) -> tuple:
        """(transpiled circuit with save_probabilities, its parameters in theta order); cached."""
        if circuit not in self._compiled:
            from qiskit import transpile

            qc = circuit.to_qiskit()
            qc.save_probabilities()
            tqc = transpile(qc, self.simulator, optimization_level=0)
            self._compiled[circuit] = (tqc, sorted(tqc.parameters, key=lambda p: p.index))
        return self._compiled[circuit]

    def _probabilities(self, circuit: CircuitTemplate, params: np.ndarray) -> np.ndarray:
        tqc, parameters = self.compiled(circuit)
        batch = params.shape[0]
        if parameters:
            column = {p.index: p for p in parameters}
            binds = [{column[i]: params[:, i].tolist() for i in sorted(column)}]
            job = self.simulator.run(tqc, parameter_binds=binds)
        else:  # nothing to bind (no parameters, or none used): every row is the same state
            job = self.simulator.run(tqc)
        try:
            result = job.result()
        except Exception as exc:  # AerError and friends: keep the message, make the type ours
            raise translate_failure(str(exc)) from exc
        if not result.success:
            statuses = [str(getattr(r, "status", "")) for r in result.results] + [str(result.status)]
            raise translate_failure("\n".join(s for s in statuses if s))
        runs = len(result.results)
        rows = [np.asarray(result.data(i)["probabilities"], dtype=np.float64) for i in range(runs)]
        out = np.stack(rows) if parameters else np.repeat(rows[0][None], batch, axis=0)
        if out.shape != (batch, 1 << circuit.n_qubits):
            raise QuantumExecutionError(f"Aer returned probabilities of shape {out.shape}, "
                                        f"expected ({batch}, {1 << circuit.n_qubits})")
        return out
