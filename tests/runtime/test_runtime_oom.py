"""The OOM classifier over every failure the issue lists, and the errors it must not retry.

Messages are the ones torch, cuBLAS and Aer print (quoted from their sources/outputs);
where the library can produce the error for real on a CPU machine, the test does so.
"""
from __future__ import annotations

import logging

import pytest
import torch

from cognition.runtime.faults import FaultInjector
from cognition.errors import OOM_KINDS, classify_oom
from cognition.runtime.oom import free_memory, next_batch, oom_advice
from quantum.errors import QuantumMemoryError


def _real_cpu_allocator_failure() -> BaseException:
    try:
        torch.empty(10**15)  # 4e15 bytes: DefaultCPUAllocator refuses
    except BaseException as exc:  # noqa: BLE001 - we want exactly what torch raises
        return exc
    raise AssertionError("torch.empty(10**15) did not fail")


CASES = [
    # (exception, expected kind)
    (torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total "
                            "capacity of 3.81 GiB of which 3.56 MiB is free."), "cuda_oom"),
    (torch.cuda.OutOfMemoryError("CUDA out of memory."), "cuda_oom"),
    (RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 3.81 GiB total capacity)"), "cuda_oom"),
    (torch.AcceleratorError("CUDA error: out of memory\nCUDA kernel errors might be asynchronously "
                            "reported at some other API call"), "accelerator_oom"),
    (RuntimeError("CUDA error: out of memory"), "accelerator_oom"),
    (RuntimeError("CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"), "cublas_alloc"),
    (RuntimeError('NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_() INTERNAL ASSERT FAILED at '
                  '"../c10/cuda/CUDACachingAllocator.cpp":1123, please report a bug to PyTorch.'), "nvml_assert"),
    (_real_cpu_allocator_failure(), "cpu_alloc"),
    (MemoryError(), "cpu_alloc"),
    (QuantumMemoryError(262144.0, 4096.0, source="budget", detail="statevector of 34 qubits"), "aer_memory"),
    (Exception("ERROR: Insufficient memory to run circuit circuit-46 using the statevector simulator. "
               "Required memory: 16M, max memory: 1M"), "aer_memory"),
    # must NOT be retried
    (RuntimeError("CUDA error: device-side assert triggered"), None),
    (torch.AcceleratorError("CUDA error: an illegal memory access was encountered"), None),
    (RuntimeError("mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)"), None),
    (ValueError("out of memory budget: qubit cap must be >= 1"), None),
    (KeyError("out of memory"), None),
    (KeyboardInterrupt(), None),
    (SystemExit(1), None),
]


@pytest.mark.parametrize(("exc", "kind"), CASES, ids=[f"{type(e).__name__}-{k}" for e, k in CASES])
def test_classifier_table(exc, kind):
    assert classify_oom(exc) == kind


def test_every_kind_is_covered_by_the_table():
    assert {k for _, k in CASES if k} == set(OOM_KINDS)


def test_real_aer_insufficient_memory(caplog):
    """Aer itself refuses a 20-qubit statevector under max_memory_mb=1 (needs 2**20*16 B = 16 MiB)."""
    pytest.importorskip("qiskit_aer")
    from qiskit import QuantumCircuit
    from qiskit_aer import AerSimulator

    qc = QuantumCircuit(20)
    qc.h(range(20))
    qc.measure_all()
    with caplog.at_level(logging.CRITICAL):  # Aer logs the failure before we see it
        result = AerSimulator(method="statevector", max_memory_mb=1).run(qc, shots=1).result()
    with pytest.raises(Exception) as info:
        result.get_counts()
    assert classify_oom(info.value) == "aer_memory"


def test_oom_wrapped_in_another_error_is_found():
    try:
        try:
            raise torch.OutOfMemoryError("CUDA out of memory.")
        except RuntimeError as inner:
            raise ValueError("module expectation failed") from inner
    except ValueError as outer:
        assert classify_oom(outer) == "cuda_oom"


def test_next_batch_halves_to_the_floor():
    # 64 -> 32 -> 16 -> ... with floor 5: 64, 32, 16, 8, 5, then nothing left to try
    seq, b = [64], 64
    while (b := next_batch(b, floor=5)) is not None:
        seq.append(b)
    assert seq == [64, 32, 16, 8, 5]
    with pytest.raises(ValueError, match="floor"):
        next_batch(2, floor=4)


def test_advice_and_free_memory():
    for kind in OOM_KINDS:
        assert "\n" not in oom_advice(kind) and len(oom_advice(kind)) > 20
    with pytest.raises(ValueError, match="allowed"):
        oom_advice("disk_full")
    garbage = []
    garbage.append(garbage)  # a reference cycle only gc.collect() frees
    del garbage
    assert free_memory("cpu")["gc_collected"] >= 1


@pytest.mark.gpu
def test_real_cuda_oom_is_classified_and_freed():
    dev = "cuda"
    free, _ = torch.cuda.mem_get_info()
    with pytest.raises(BaseException) as info:
        torch.empty(free * 4, dtype=torch.uint8, device=dev)
    assert classify_oom(info.value) == "cuda_oom"
    x = torch.empty(256 * 2**20, dtype=torch.uint8, device=dev)
    del x
    out = free_memory(dev)
    assert out["reserved_bytes_after"] <= out["reserved_bytes_before"] - 256 * 2**20


def test_quantum_packages_own_memory_error():
    exc = QuantumMemoryError(16384.0, 1.0, source="aer", detail="Required memory: 16384M")
    assert classify_oom(exc) == "aer_memory"


def test_aer_memory_is_classified_by_type_not_by_class_name():
    """Only quantum.errors.QuantumMemoryError (and subclasses) is aer_memory; another class that
    happens to share its name is classified like any other error of its real type."""
    namesake_memory = type("QuantumMemoryError", (MemoryError,), {})
    namesake_plain = type("QuantumMemoryError", (Exception,), {})
    assert classify_oom(namesake_memory("statevector of 34 qubits needs 256 GiB")) == "cpu_alloc"
    assert classify_oom(namesake_plain("statevector of 34 qubits needs 256 GiB")) is None
    subclass = type("DeviceBudgetError", (QuantumMemoryError,), {})
    assert classify_oom(subclass(64.0, 32.0, source="budget")) == "aer_memory"
    # the budget message has no "Insufficient memory" text: only the type can make it aer_memory
    budget = QuantumMemoryError(256.0, 192.0, source="budget", detail="2 copies of 128 MiB")
    assert "Insufficient memory" not in str(budget) and classify_oom(budget) == "aer_memory"
    # the injected fault is that very class, so rehearsals take the real path
    with pytest.raises(QuantumMemoryError) as info:
        FaultInjector("aer@1").maybe_raise(1)
    assert type(info.value) is QuantumMemoryError and info.value.source == "aer"
    assert classify_oom(info.value) == "aer_memory"
