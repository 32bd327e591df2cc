"""Memory telemetry: formulas on hand-made allocator stats, real RSS on the CPU, real stats on a GPU."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch

from cognition.runtime.telemetry import (
    MemoryTelemetry,
    cuda_sample,
    host_memory_bytes,
    peak_rss_bytes,
    process_rss_bytes,
    summarise,
)

GiB, MiB = 2**30, 2**20


def test_cuda_formulas():
    stats = {"allocated_bytes.all.current": 3 * GiB, "reserved_bytes.all.current": 4 * GiB,
             "allocated_bytes.all.peak": 7 * GiB // 2, "inactive_split_bytes.all.current": GiB // 2,
             "num_alloc_retries": 2}
    # fragmentation = 1 - 3/4 = 0.25; inactive-split share = 0.5/4 = 0.125
    assert cuda_sample(stats) == {"mem_allocated_bytes": 3 * GiB, "mem_reserved_bytes": 4 * GiB,
                                  "mem_peak_bytes": 7 * GiB // 2, "mem_fragmentation": 0.25,
                                  "mem_inactive_split_share": 0.125, "mem_alloc_retries": 2}
    assert cuda_sample({})["mem_fragmentation"] == 0.0  # nothing reserved yet


def test_cuda_sample_resets_peak_per_cycle(monkeypatch):
    calls = []
    monkeypatch.setattr(torch.cuda, "memory_stats", lambda d: calls.append(("stats", d)) or
                        {"allocated_bytes.all.current": MiB, "reserved_bytes.all.current": 2 * MiB})
    monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", lambda d: calls.append(("reset", d)))
    assert MemoryTelemetry("cuda:1").sample()["mem_fragmentation"] == 0.5
    assert calls == [("stats", "cuda:1"), ("reset", "cuda:1")]
    MemoryTelemetry("cuda:1", per_cycle_peak=False).sample()
    assert calls[-1] == ("stats", "cuda:1")


def test_cpu_rss_two_sources_agree_and_track_an_allocation():
    statm_pages = int(Path("/proc/self/statm").read_text().split()[1])
    statm = statm_pages * os.sysconf("SC_PAGE_SIZE")  # the kernel's count, read directly
    assert abs(process_rss_bytes() - statm) < 32 * MiB
    before = MemoryTelemetry("cpu").sample()
    block = np.ones(256 * MiB // 8)  # 256 MiB, every page touched
    after = MemoryTelemetry("cpu").sample()
    assert after["mem_rss_bytes"] - before["mem_rss_bytes"] > 240 * MiB
    assert after["mem_peak_rss_bytes"] >= after["mem_rss_bytes"] - 32 * MiB
    assert peak_rss_bytes() >= 256 * MiB
    del block


def test_host_memory():
    free, total = host_memory_bytes()
    assert 0 < free <= total


def test_summarise_by_hand():
    samples = [
        {"mem_peak_bytes": 10, "mem_reserved_bytes": 40, "mem_fragmentation": 0.5,
         "mem_inactive_split_share": 0.1, "mem_alloc_retries": 0},
        {"mem_peak_bytes": 30, "mem_reserved_bytes": 20, "mem_fragmentation": 0.1,
         "mem_inactive_split_share": 0.3, "mem_alloc_retries": 2},
    ]
    s = summarise(samples)
    assert s["mem_samples"] == 2 and s["mem_peak_bytes"] == 30 and s["mem_peak_reserved_bytes"] == 40
    assert s["mem_fragmentation_mean"] == pytest.approx(0.3) and s["mem_fragmentation_max"] == 0.5
    assert s["mem_inactive_split_share_max"] == 0.3 and s["mem_alloc_retries"] == 2
    cpu = summarise([{"mem_rss_bytes": 5, "mem_peak_rss_bytes": 9}, {"mem_rss_bytes": 7, "mem_peak_rss_bytes": 8}])
    assert cpu == {"mem_samples": 2, "mem_peak_rss_bytes": 9}
    assert summarise([]) == {"mem_samples": 0}


@pytest.mark.gpu
def test_real_cuda_telemetry():
    dev = "cuda"
    tel = MemoryTelemetry(dev)
    tel.sample()
    x = torch.empty(64 * MiB, dtype=torch.uint8, device=dev)
    s = tel.sample()
    assert s["mem_allocated_bytes"] >= 64 * MiB and s["mem_reserved_bytes"] >= s["mem_allocated_bytes"]
    assert s["mem_peak_bytes"] >= 64 * MiB
    assert s["mem_fragmentation"] == pytest.approx(1 - s["mem_allocated_bytes"] / s["mem_reserved_bytes"])
    del x
