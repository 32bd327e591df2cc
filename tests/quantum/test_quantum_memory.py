"""Memory planner arithmetic and budget enforcement (issue 4, item 3)."""
from __future__ import annotations

import numpy as np
import pytest

from quantum import CircuitTemplate, Gate, QuantumMemoryError, make_backend, plan, statevector_bytes
from quantum.backends.aer import AerBackend, translate_failure
from quantum.errors import QuantumExecutionError
from quantum.memory import DEFAULT_HEADROOM

GiB, MiB = 2**30, 2**20


def test_statevector_bytes_is_2_to_the_n_amplitudes():
    # a complex128 amplitude is two float64 = 16 bytes, complex64 is 8 (issue 4 "Facts measured here")
    assert statevector_bytes(10, "double") == 1024 * 16
    assert statevector_bytes(30, "single") == 8 * GiB
    with pytest.raises(ValueError, match="precision"):
        statevector_bytes(3, "half")


# Worked by hand with headroom 0.5 (usable = budget / 2):
#   4 GiB -> 2 GiB = 2^31 B: double 2^31 / 16 = 2^27 -> 27; single 2^31 / 8 = 2^28 -> 28
#   8 GiB -> 2^32 B: double 2^28 -> 28; single 2^29 -> 29
#   80 GiB -> 40 GiB = 2.5 x 2^34 B: double 2.5 x 2^30 amplitudes -> 31 (2^32 x 16 = 64 GiB > 40);
#                                    single 2.5 x 2^31 -> 32
@pytest.mark.parametrize("budget,precision,width", [
    (4 * GiB, "double", 27), (4 * GiB, "single", 28), (8 * GiB, "double", 28), (8 * GiB, "single", 29),
    (80 * GiB, "double", 31), (80 * GiB, "single", 32), (256 * MiB, "double", 23)])
def test_planned_widths(budget, precision, width):
    p = plan(budget, precision, headroom=0.5)
    assert p.max_width == width
    bpa = {"double": 16, "single": 8}[precision]
    assert 2**width * bpa <= budget * 0.5 < 2**(width + 1) * bpa
    assert p.fits(width) and not p.fits(width + 1)
    assert p.max_batch_at_width(width) == 1


def test_batch_at_width_for_80_gib():
    # 40 GiB usable / (2^28 x 16 B = 4 GiB) = 10 statevectors of 28 qubits; 40 / 2 GiB = 20 at 27
    p = plan(80 * GiB, "double", headroom=0.5)
    assert p.max_batch_at_width(28) == 10 and p.max_batch_at_width(27) == 20


def test_batch_and_headroom_enter_the_arithmetic():
    # 1 GiB, headroom 0.25 -> 768 MiB usable; 100 double statevectors of 2^n x 16 B: 2^n <= 503316.48 -> n = 18
    p = plan(GiB, "double", headroom=0.25, batch=100)
    assert p.usable_bytes == 768 * MiB and p.max_width == 18
    assert p.max_batch_at_width(18) == (768 * MiB) // (2**18 * 16) == 192
    assert "headroom 0.25" in p.explain()


def test_default_headroom_covers_measured_aer_peak():
    # Aer's peak was measured at 1.51-1.62 statevectors (docs/quantum.md); the headroom must leave at least that
    assert 1.0 / (1.0 - DEFAULT_HEADROOM) >= 1.62


@pytest.mark.parametrize("bad", [dict(budget_bytes=0), dict(budget_bytes=GiB, headroom=1.0),
                                 dict(budget_bytes=GiB, batch=0), dict(budget_bytes=GiB, precision="quad")])
def test_plan_rejects_bad_arguments(bad):
    with pytest.raises(ValueError):
        plan(**bad)


def _uniform(n: int) -> CircuitTemplate:
    return CircuitTemplate(f"hadamards_{n}", n, 0, tuple(Gate("h", (q,)) for q in range(n)))


def test_aer_at_the_planned_width_runs_and_one_more_qubit_is_refused():
    budget = 256 * MiB
    backend = make_backend("aer", max_qubits=30, threads=2, memory_budget_bytes=budget)
    width = plan(budget).max_width
    assert width == 23 and backend.max_memory_mb == 128
    probs = backend.probabilities(_uniform(width), np.zeros((1, 0)))
    np.testing.assert_allclose(probs, 2.0**-width, rtol=1e-12)  # H on every qubit: uniform distribution
    with pytest.raises(QuantumMemoryError) as err:
        backend.probabilities(_uniform(width + 1), np.zeros((1, 0)))
    assert err.value.source == "budget" and err.value.required_mb == 256 and err.value.max_mb == 128


def test_aer_own_insufficient_memory_becomes_a_typed_error(monkeypatch):
    # skip the package's check so Aer itself refuses: result.success is False, not an exception
    backend = make_backend("aer", max_qubits=30, threads=2, memory_budget_bytes=256 * MiB)
    monkeypatch.setattr(AerBackend, "check_memory", lambda self, n: None)
    with pytest.raises(QuantumMemoryError) as err:
        backend.probabilities(_uniform(24), np.zeros((1, 0)))
    assert err.value.source == "aer" and (err.value.required_mb, err.value.max_mb) == (256, 128)
    assert isinstance(err.value, MemoryError)  # the runtime's OOM handling can catch it as a MemoryError


def test_translate_failure_classifies_messages():
    aer = ("ERROR:  [Experiment 0] Insufficient memory to run circuit circuit-52 using the statevector "
           "simulator. Required memory: 256M, max memory: 192M")
    err = translate_failure(aer)
    assert isinstance(err, QuantumMemoryError) and (err.required_mb, err.max_mb) == (256, 192)
    assert isinstance(translate_failure("CUDA error: out of memory"), QuantumMemoryError)
    other = translate_failure("ERROR: invalid instruction")
    assert isinstance(other, QuantumExecutionError) and "invalid instruction" in str(other)


def test_torch_budget_counts_its_working_copies():
    # torch holds 3 statevector-sized buffers per set: at 256 MiB (128 usable) 3 x 2^21 x 16 B = 96 MiB fits,
    # 3 x 2^22 x 16 = 192 MiB does not
    backend = make_backend("torch", max_qubits=30, threads=1, memory_budget_bytes=256 * MiB)
    assert backend.max_width() == 21
    with pytest.raises(QuantumMemoryError, match="budget"):
        backend.probabilities(_uniform(22), np.zeros((1, 0)))


def test_torch_splits_a_batch_that_does_not_fit_at_once():
    # 3 x 2^10 x 16 B = 48 KiB per set. 4 MiB usable -> 85 sets fit, rounded down to a multiple of ALIGN = 32:
    # 64 per chunk, 150 sets in 3 chunks. 1 MiB usable -> 21 fit, fewer than ALIGN: one set per chunk.
    # Either way the same numbers as one big chunk (each set runs on its own arithmetic).
    circuit = CircuitTemplate("ry_chain", 10, 1, tuple(Gate("ry", (q,), param=0, scale=q + 1) for q in range(10)))
    params = np.linspace(-1, 1, 150)[:, None]
    big = make_backend("torch", max_qubits=10, threads=1, memory_budget_bytes=GiB).probabilities(circuit, params)
    for budget, rows in ((8 * MiB, 64), (2 * MiB, 1)):
        backend = make_backend("torch", max_qubits=10, threads=1, memory_budget_bytes=budget)
        assert backend.rows_per_chunk(10) == rows
        np.testing.assert_array_equal(backend.probabilities(circuit, params), big)
