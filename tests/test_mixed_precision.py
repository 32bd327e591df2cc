"""Mixed precision (runtime.autocast) stays within a stated tolerance of float32.

Tolerances, stated: over 40 cycles of the classical architecture, every unit signal
within 0.05 (bf16, 8-bit mantissa) or 0.005 (fp16, 11-bit mantissa) of the float32
run, and the mean per-cycle Phi_R within 0.02 / 0.005 bits. Measured on this machine:
0.019 / 0.0005 and 0.006 / 0.0001 bits; the dynamics are contractive (spectral
radius 0.9, persistence 0.5), so rounding does not grow without bound.
"""
import numpy as np
import pytest
from looptools import run_loop

from cognition.assemble import assemble
from cognition.config import load_config


def _run(autocast):
    ov = {"run": {"dtype": "float32", "cycles": 40}, "quantum": {"mode": "disabled"},
          "runtime": {"autocast": autocast}}
    _, records, units = run_loop(assemble(load_config(overrides=ov)).loop, 40)
    return units, float(np.mean([r.phi["phi_r"] for r in records if r.phi]))


@pytest.fixture(scope="module")
def reference():
    return _run(None)


@pytest.mark.parametrize("autocast, unit_tol, phi_tol", [("bf16", 0.05, 0.02), ("fp16", 0.005, 0.005)])
def test_autocast_within_tolerance_of_float32(reference, autocast, unit_tol, phi_tol):
    units, phi = _run(autocast)
    ref_units, ref_phi = reference
    assert not np.array_equal(units, ref_units)  # low precision really ran
    assert np.max(np.abs(units - ref_units)) < unit_tol
    assert abs(phi - ref_phi) < phi_tol
