"""cognition.runtime.host_memory: glibc's thresholds raised once per process, or a line saying why not.

Reference: glibc's mallopt returns 1 on success (man 3 mallopt); the effect on page faults is measured
in docs/performance.md, not here (timings are not unit tests).
"""
import sys

import pytest

from cognition.runtime import host_memory


def test_it_says_what_it_did_and_does_it_once(monkeypatch):
    line = host_memory.retain_freed_memory()
    if sys.platform.startswith("linux") and "glibc" in line:
        assert line == "glibc mallopt: mmap threshold 32 MiB, trim threshold 512 MiB"
    else:
        assert line.startswith("left to the system allocator")
    monkeypatch.setattr(host_memory, "_set_thresholds", lambda: pytest.fail("set twice"))
    assert host_memory.retain_freed_memory() == line


def test_without_glibc_nothing_is_set(monkeypatch):
    monkeypatch.setattr(host_memory.sys, "platform", "darwin")
    assert host_memory._set_thresholds() == "left to the system allocator (darwin: not glibc)"


def test_a_run_records_it(tmp_path):
    import json

    from cognition.validate import main

    out = tmp_path / "run"
    assert main(["--cycles", "2", "--agents", "2", "--disable-quantum", "--out", str(out), "--quick"]) in (0, 1)
    assert json.loads((out / "provenance.json").read_text())["host_allocator"] == host_memory.retain_freed_memory()
