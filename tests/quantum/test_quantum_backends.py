"""make_backend, the auto rule, GPU requests without a GPU, input checks, describe, import hygiene."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import quantum.select as select
from quantum import (BackendUnavailableError, CircuitTemplate, Gate, aer_info, angle_encoded_reservoir,
                     make_backend)

ROOT = Path(__file__).resolve().parents[2]
NO_AER_GPU = not aer_info()["gpu"]


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


@pytest.mark.skipif(not NO_AER_GPU, reason="an Aer GPU is present")
def test_aer_gpu_request_without_gpu_build_says_why():
    with pytest.raises(BackendUnavailableError, match=r"no Aer GPU build installed.*qiskit-aer-gpu|\[gpu\]"):
        make_backend("aer", device="gpu")


def test_aer_gpu_build_without_cuda_device_says_why(monkeypatch):
    info = {**aer_info(), "distribution": "qiskit-aer-gpu", "gpu": False,
            "gpu_reason": "qiskit-aer-gpu is installed but Aer sees no CUDA device (...)"}
    monkeypatch.setattr("quantum.backends.aer.aer_info", lambda: info)
    with pytest.raises(BackendUnavailableError, match="sees no CUDA device"):
        make_backend("aer", device="gpu")


@pytest.mark.skipif(_cuda(), reason="a CUDA device is present")
def test_torch_gpu_request_without_cuda_says_why():
    with pytest.raises(BackendUnavailableError, match="no CUDA device"):
        make_backend("torch", device="gpu")


@pytest.mark.skipif(_cuda() or not NO_AER_GPU, reason="a GPU is present")
def test_auto_gpu_request_without_any_gpu_is_an_error_not_a_cpu_run():
    with pytest.raises(BackendUnavailableError, match="Aer: .*torch: .*CUDA"):
        make_backend("auto", device="gpu")


@pytest.mark.skipif(_cuda() or not NO_AER_GPU, reason="a GPU is present")
def test_auto_device_falls_back_to_cpu_and_records_why():
    backend = make_backend("auto", device="auto", expected_width=8, expected_batch=1000)
    assert backend.name == "torch-cpu" and "no GPU" in backend.reason


@pytest.mark.parametrize("width,batch,name,clause", [
    (8, 1000, "torch-cpu", "1000 x 2^8 < 2^20"),
    (10, 1000, "torch-cpu", "1000 x 2^10 < 2^20"),
    (18, 1, "torch-cpu", "1 x 2^18 < 2^20"),
    (16, 16, "aer-cpu", "16 x 2^16 >= 2^20"),
    (12, 256, "aer-cpu", "256 x 2^12 >= 2^20"),
    (20, 1, "aer-cpu", "1 x 2^20 >= 2^20")])
def test_auto_cpu_rule_picks_by_width_and_batch(width, batch, name, clause):
    # the encoded rule (docs/quantum.md): torch iff batch x 2^width < 2^20 amplitudes
    backend = make_backend("auto", device="cpu", max_qubits=24, expected_width=width, expected_batch=batch)
    assert backend.name == name and clause in backend.reason


def test_auto_width_defaults_to_the_cap_and_batch_to_one():
    assert make_backend("auto", device="cpu", max_qubits=16).name == "torch-cpu"
    assert make_backend("auto", device="cpu", max_qubits=20).name == "aer-cpu"


def test_auto_prefers_aer_gpu_when_present(monkeypatch):
    # the rule itself, with the probe answering "present" (the real device path is covered by gpu tests)
    monkeypatch.setattr(select, "_aer_gpu", lambda: (True, ""))
    kind, device, reason = select._choose("auto", "auto", width=8, batch=1000)
    assert (kind, device) == ("aer", "gpu") and "Aer GPU build" in reason


@pytest.mark.parametrize("kwargs,field", [(dict(kind="qulacs"), "kind"), (dict(device="tpu"), "device"),
                                          (dict(kind="aer", device="auto"), "device"),
                                          (dict(kind="torch", threads=0), "threads"),
                                          (dict(kind="torch", precision="half"), "precision"),
                                          (dict(kind="torch", max_qubits=0), "max_qubits")])
def test_bad_arguments_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        make_backend(**kwargs)


@pytest.mark.parametrize("kind", ["torch", "aer"])
def test_bad_inputs_are_clear_errors(kind):
    backend = make_backend(kind, threads=1)
    c = angle_encoded_reservoir(3, 2, depth=1, seed=0)
    with pytest.raises(ValueError, match=r"params has shape \(2, 3\).*\(B, 2\)"):
        backend.probabilities(c, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        backend.probabilities(c, np.full((1, 2), np.nan))
    with pytest.raises(ValueError, match=r"uniforms has shape \(1, 10\); expected \(2, shots >= 1\)"):
        backend.sample(c, np.zeros((2, 2)), np.full((1, 10), 0.5))
    with pytest.raises(ValueError, match="shots >= 1"):
        backend.sample(c, np.zeros((1, 2)), np.zeros((1, 0)))
    with pytest.raises(ValueError, match=r"uniforms must lie in \[0, 1\)"):
        backend.sample(c, np.zeros((1, 2)), np.ones((1, 3)))
    with pytest.raises(ValueError, match=r"pairs\[0\]"):
        backend.expectations_zz(c, np.zeros((1, 2)), [(1, 1)])
    with pytest.raises(TypeError, match="CircuitTemplate"):
        backend.probabilities("qc", np.zeros((1, 2)))


def test_aer_transpiles_once_and_runs_once_per_batch(monkeypatch):
    backend = make_backend("aer", threads=1)
    calls = []
    real_run = backend.simulator.run
    monkeypatch.setattr(backend.simulator, "run", lambda *a, **k: calls.append(k) or real_run(*a, **k))
    c = angle_encoded_reservoir(4, 4, depth=2, seed=0)
    params = np.random.default_rng(0).uniform(-1, 1, (50, 4))
    first = backend.probabilities(c, params)
    compiled = backend.compiled(c)
    backend.probabilities(c, params)
    assert len(calls) == 2 and all(len(next(iter(k["parameter_binds"][0].values()))) == 50 for k in calls)
    assert backend.compiled(angle_encoded_reservoir(4, 4, depth=2, seed=0)) is compiled and len(backend._compiled) == 1
    assert first.shape == (50, 16)


@pytest.mark.parametrize("kind", ["torch", "aer"])
def test_describe_is_json(kind):
    d = make_backend(kind, threads=2, max_qubits=16, memory_budget_bytes=2**30).describe()
    json.dumps(d)
    assert d["name"] == f"{kind}-cpu" and d["max_qubits"] == 16 and d["threads"] == 2
    assert d["max_memory_mb"] == 512 and d["precision"] == "double" and d["versions"]["numpy"]


def test_default_budget_is_sized_to_the_cap_not_all_ram():
    # cap 16: one 2^16 x 16 B = 1 MiB statevector; the floor of 256 MiB applies -> Aer max_memory_mb = 128
    assert make_backend("aer", max_qubits=16).max_memory_mb == 128
    # cap 28: 2^28 x 16 B = 4 GiB, headroom 0.5 -> 8 GiB budget, 4096 MiB for Aer
    assert make_backend("aer", max_qubits=28).max_memory_mb == 4096


def test_aer_info_is_json_and_names_the_distribution():
    info = aer_info()
    json.dumps(info)
    assert info["installed"] and info["distribution"] in ("qiskit-aer", "qiskit-aer-gpu")
    assert "CPU" in info["available_devices"] and aer_info() is info  # cached


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_import_quantum_imports_neither_qiskit_nor_torch():
    out = _python("import sys, quantum; print(sorted(m for m in ('qiskit', 'qiskit_aer', 'torch') if m in sys.modules))")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_torch_backend_works_without_qiskit():
    # qiskit blocked from import; RY(t)|0> has P(1) = sin^2(t/2) (analytic)
    code = ("import sys; sys.modules['qiskit'] = None; sys.modules['qiskit_aer'] = None\n"
            "import numpy as np, quantum\n"
            "c = quantum.CircuitTemplate('ry', 1, 1, (quantum.Gate('ry', (0,), param=0),))\n"
            "b = quantum.make_backend('torch', threads=1)\n"
            "print(b.probabilities(c, np.array([[1.2]]))[0, 1], np.sin(0.6) ** 2)\n"
            "print(quantum.make_backend('auto', expected_width=4).name)")
    out = _python(code)
    assert out.returncode == 0, out.stderr
    got, want = out.stdout.split("\n")[0].split()
    assert float(got) == pytest.approx(float(want), abs=1e-15)
    assert out.stdout.split("\n")[1] == "torch-cpu"


def test_auto_without_aer_uses_torch_and_says_so(monkeypatch):
    monkeypatch.setattr(select, "_aer_cpu", lambda: (False, "qiskit_aer is not importable"))
    backend = make_backend("auto", max_qubits=20, expected_width=20)
    assert backend.name == "torch-cpu" and "not importable" in backend.reason


def test_swap_cx_direction_against_basis_states():
    # X on qubit 0 then CX(0 -> 2) then SWAP(1, 2): |001> -> |101> -> |011>, index 0b011 = 3 (little-endian)
    c = CircuitTemplate("basis", 3, 0, (Gate("x", (0,)), Gate("cx", (0, 2)), Gate("swap", (1, 2))))
    for kind in ("torch", "aer"):
        p = make_backend(kind, threads=1).probabilities(c, np.zeros((1, 0)))
        assert p[0, 3] == pytest.approx(1.0, abs=1e-12)


def test_torch_backend_restores_the_callers_thread_count():
    import torch

    before = torch.get_num_threads()
    backend = make_backend("torch", threads=before + 1)
    backend.probabilities(angle_encoded_reservoir(3, 2, depth=1, seed=0), np.zeros((4, 2)))
    assert torch.get_num_threads() == before
    assert backend.intra_op_threads(2**10) == 1 and backend.intra_op_threads(2**22) == before + 1


@pytest.mark.parametrize("kind", ["torch", "aer"])
def test_z_and_zz_from_one_simulation_equal_the_two_separate_readouts(kind):
    # reference: the backend's own expectations_z and expectations_zz, each simulating the circuit
    # (Aer's CPU build is part of the install, ".[aer]", as the other tests here assume)
    backend = make_backend(kind, device="cpu", max_qubits=8, threads=1)
    circuit = angle_encoded_reservoir(4, 3, 2, seed=5)
    params = np.random.default_rng(2).uniform(-1, 1, size=(6, 3))
    pairs = [(0, 1), (1, 2), (2, 3), (3, 0)]
    z, zz = backend.expectations_z_zz(circuit, params, pairs)
    assert np.array_equal(z, backend.expectations_z(circuit, params))
    assert np.array_equal(zz, backend.expectations_zz(circuit, params, pairs))
