"""Fault-injection spec parsing and the real errors each kind raises."""
from __future__ import annotations

import signal
import subprocess
import sys

import pytest
import torch

from cognition.runtime.faults import Fault, FaultInjector, parse_fault_spec
from cognition.errors import FaultSpecError, classify_oom
from quantum.errors import QuantumMemoryError


def test_parse_spec():
    assert parse_fault_spec("oom@7,cpu_alloc@12, oom@5:always,nvml@0:first") == [
        Fault("oom", 7), Fault("cpu_alloc", 12), Fault("oom", 5, always=True), Fault("nvml", 0)]
    assert parse_fault_spec("") == []
    assert str(Fault("aer", 3, True)) == "aer@3:always"


@pytest.mark.parametrize(("spec", "fragment"), [
    ("oom7", "'oom7': expected KIND@CYCLE"),
    ("gpu_fire@3", "'gpu_fire@3': unknown kind 'gpu_fire'; allowed: oom,"),
    ("oom@-1", "'oom@-1': cycle '-1' must be an integer >= 0"),
    ("oom@x", "cycle 'x'"),
    ("oom@3:twice", "'twice' after ':' must be one of first, always"),
    ("OOM@3", "unknown kind 'OOM'"),
])
def test_bad_spec_names_the_token(spec, fragment):
    with pytest.raises(FaultSpecError) as info:
        parse_fault_spec(f"oom@1,{spec}")
    assert fragment in str(info.value) and "\n" not in str(info.value)


# kind -> (exception type it must be, kind the classifier must give)
EXPECTED = {
    "oom": (torch.OutOfMemoryError, "cuda_oom"),
    "accelerator_oom": (torch.AcceleratorError, "accelerator_oom"),
    "cublas": (RuntimeError, "cublas_alloc"),
    "nvml": (RuntimeError, "nvml_assert"),
    "cpu_alloc": (RuntimeError, "cpu_alloc"),
    "aer": (QuantumMemoryError, "aer_memory"),  # the quantum package's class itself, not a stand-in
}


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_each_kind_raises_a_real_classified_error(kind):
    exc_type, oom_kind = EXPECTED[kind]
    injector = FaultInjector(f"{kind}@4")
    injector.maybe_raise(3)
    with pytest.raises(exc_type) as info:
        injector.maybe_raise(4)
    assert classify_oom(info.value) == oom_kind
    assert injector.fired == [(4, 0, f"{kind}@4")]


def test_cpu_alloc_is_a_genuine_allocator_failure():
    with pytest.raises(RuntimeError, match="DefaultCPUAllocator: can't allocate memory: you tried to allocate 4000000000000000 bytes"):
        FaultInjector("cpu_alloc@0").maybe_raise(0)


def test_first_try_only_versus_always():
    once = FaultInjector("oom@2")
    with pytest.raises(torch.OutOfMemoryError):
        once.maybe_raise(2, attempt=0)
    once.maybe_raise(2, attempt=1)  # the retry succeeds
    every = FaultInjector("oom@2:always")
    for attempt in range(4):
        with pytest.raises(torch.OutOfMemoryError):
            every.maybe_raise(2, attempt=attempt)
    assert [a for _, a, _ in every.fired] == [0, 1, 2, 3]
    assert not FaultInjector("") and FaultInjector("oom@1")


@pytest.mark.parametrize(("kind", "signum"), [("sigterm", signal.SIGTERM), ("sigkill", signal.SIGKILL)])
def test_signal_faults_deliver_the_signal(kind, signum):
    code = ("from cognition.runtime.faults import FaultInjector\n"
            f"FaultInjector('{kind}@1').maybe_raise(0)\nprint('cycle 0 ran', flush=True)\n"
            f"FaultInjector('{kind}@1').maybe_raise(1)\nprint('not reached')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signum
    assert proc.stdout == "cycle 0 ran\n"


def test_enospc_is_a_real_full_disk_error_raised_when_results_are_written():
    import errno

    injector = FaultInjector("enospc@3")
    injector.maybe_raise(3)  # the step of cycle 3 runs: a full disk fails a write, not the arithmetic
    with pytest.raises(OSError) as info:
        injector.maybe_raise(3, stage="write")
    assert info.value.errno == errno.ENOSPC and "No space left on device" in str(info.value)
    assert classify_oom(info.value) is None  # not retried with a smaller batch


@pytest.mark.parametrize(("spec", "last", "done", "fragment"), [
    ("oom@0", 50, 0, "cycle 0 never runs: the first cycle is 1"),
    ("oom@51", 50, 0, "the run ends at cycle 50, so it would never fire"),
    ("oom@12", 50, 12, "cycle 12 is already done: the run resumes at cycle 13"),
    ("oom@5,sigterm@5", 50, 0, "oom@5 already fails cycle 5: one fault per cycle"),
])
def test_faults_a_run_never_reaches_are_refused(spec, last, done, fragment):
    from cognition.runtime.faults import check_reachable

    with pytest.raises(FaultSpecError) as info:
        check_reachable(parse_fault_spec(spec), last, done)
    assert fragment in str(info.value)
    check_reachable(parse_fault_spec("oom@1,enospc@50"), 50)  # the first and the last cycle are fine
