"""The circuits' device follows the run's torch device (cognition/simulator/build.py, docs/quantum.md).

The Aer build is stood in by patching ``quantum.aer_info`` (what the code reads to know whether
the GPU build is installed); the decision itself is the code under test.
"""
import pytest

import quantum
from cognition.simulator.build import _quantum_device


@pytest.mark.parametrize("run_device, kind, aer_gpu, want", [
    ("cpu", "aer", True, "cpu"),       # CPU run: circuits on the CPU even with the Aer GPU build
    ("cpu", "auto", True, "cpu"),
    ("cpu", "torch", False, "cpu"),
    ("cuda:1", "aer", True, "gpu"),    # CUDA run: circuits on the GPU
    ("cuda", "auto", False, "gpu"),    # auto: Aer GPU if present, else torch on CUDA (quantum.select)
    ("cuda:0", "torch", False, "gpu"),
    ("cuda:0", "aer", False, "cpu"),   # Aer asked for, no GPU build: Aer CPU, with a note
])
def test_device_follows_the_run(monkeypatch, run_device, kind, aer_gpu, want):
    monkeypatch.setattr(quantum, "aer_info", lambda: {"gpu": aer_gpu})
    device, note = _quantum_device(kind, run_device)
    assert device == want
    assert (note is not None) == (run_device.startswith("cuda") and want == "cpu")
    if note:
        assert "qiskit-aer-gpu" in note and run_device in note
