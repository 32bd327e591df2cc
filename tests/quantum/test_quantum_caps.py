"""The qubit cap is enforced by the package before anything runs (issue 4, item 2)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from quantum import (QUANTUM_LITE_MAX_QUBITS, QUANTUM_LITE_THREADS, QubitCapError, angle_encoded_reservoir,
                     make_backend, resolve_width)
from quantum.backends.aer import AerBackend
from quantum.backends.torch_statevector import TorchStatevectorBackend


def test_quantum_lite_defaults():
    # the issue fixes --quantum-lite at cap 16 qubits and 4 Aer threads
    assert (QUANTUM_LITE_MAX_QUBITS, QUANTUM_LITE_THREADS) == (16, 4)


@pytest.mark.parametrize("kind", ["aer", "torch", "auto"])
def test_17_qubits_under_quantum_lite_fail_before_any_simulation(kind, monkeypatch):
    ran = []
    for cls in (AerBackend, TorchStatevectorBackend):
        monkeypatch.setattr(cls, "_probabilities", lambda self, c, p: ran.append(c.name))
    backend = make_backend(kind, device="cpu", max_qubits=QUANTUM_LITE_MAX_QUBITS, threads=QUANTUM_LITE_THREADS)
    circuit = angle_encoded_reservoir(17, 4, depth=1, seed=0)
    params = np.zeros((2, 4))
    for call in (lambda: backend.probabilities(circuit, params), lambda: backend.expectations_z(circuit, params),
                 lambda: backend.expectations_zz(circuit, params, [(0, 1)]),
                 lambda: backend.sample(circuit, params, np.full((2, 10), 0.5))):
        with pytest.raises(QubitCapError) as err:
            call()
        assert (err.value.circuit, err.value.width, err.value.max_qubits) == (circuit.name, 17, 16)
        assert "17 qubits" in str(err.value) and "max_qubits=16" in str(err.value) and circuit.name in str(err.value)
    assert ran == []  # nothing was simulated
    assert getattr(backend, "_compiled", {}) == {}  # not even transpiled (Aer)


def test_at_the_cap_it_runs():
    backend = make_backend("torch", max_qubits=3, threads=1)
    circuit = angle_encoded_reservoir(3, 2, depth=1, seed=0)
    assert backend.probabilities(circuit, np.zeros((1, 2))).shape == (1, 8)


def test_resolve_width_error_policy_names_width_and_cap():
    with pytest.raises(QubitCapError, match="17 qubits.*max_qubits=16"):
        resolve_width(17, QUANTUM_LITE_MAX_QUBITS, policy="error")


def test_resolve_width_reduce_policy_lowers_and_says_so():
    width, note = resolve_width(17, QUANTUM_LITE_MAX_QUBITS, policy="reduce")
    assert width == 16
    assert "17" in note and "16" in note and "reduce" in note
    circuit = angle_encoded_reservoir(width, 4, depth=1, seed=0)  # the reduced circuit runs under the cap
    assert make_backend("torch", max_qubits=16, threads=1).expectations_z(circuit, np.zeros((1, 4))).shape == (1, 16)


def test_resolve_width_within_the_cap_is_unchanged():
    assert resolve_width(16, 16, policy="reduce") == (16, None)
    assert resolve_width(5, 16) == (5, None)


@pytest.mark.parametrize("bad", [dict(requested=0, max_qubits=4), dict(requested=3, max_qubits=0),
                                 dict(requested=3, max_qubits=4, policy="shrink")])
def test_resolve_width_rejects_bad_arguments(bad):
    with pytest.raises(ValueError):
        resolve_width(**bad)


def test_the_cli_refuses_a_module_wider_than_the_cap_in_one_line_before_the_claim(tmp_path):
    # the widths the modules' classes declare are capped when the run is built: still before its directory
    config, out = tmp_path / "wide.yaml", tmp_path / "r"
    config.write_text("quantum: {mode: lite, lite_max_qubits: 4}\nmodules: {expectation: {qubits: 6}}\n")
    root = Path(__file__).resolve().parents[2]
    res = subprocess.run([sys.executable, "-m", "cognition.validate", "--config", str(config), "--cycles", "2",
                          "--agents", "2", "--out", str(out)], capture_output=True, text=True, timeout=240,
                         env=dict(os.environ, PYTHONPATH=str(root)))
    assert res.returncode == 2, res.stderr[-2000:]
    assert res.stderr.strip().splitlines() == [
        "error: modules.expectation.qubits = 6 is not allowed: expected at most the qubit cap 4 "
        "(or quantum.on_cap_exceeded: reduce)"]
    assert not out.exists()
