"""Host memory limits the planner reads (MemAvailable, cgroup v1/v2, RLIMIT_AS), the refusal before the
claim, and an out-of-memory error on the host during a cycle (issue 33).

References: cgroup v2 ``memory.max``/``memory.current`` ("max": no limit) and v1
``memory.limit_in_bytes``/``memory.usage_in_bytes`` (the page counter's maximum, 9223372036854771712: no
limit) in the kernel's Documentation/admin-guide/cgroup-v2.rst and cgroup-v1/memory.rst;
``/proc/self/cgroup`` lines are ``hierarchy:controllers:path`` ("0::path" for v2), man 7 cgroups.
"""
import json
import os
import resource
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from clitools import ROOT

from cognition.config.settings import load_config
from cognition.errors import ConfigError, UsageError
from cognition.architecture.loop import IntegrationLoop
from cognition.runtime import memlimits
from cognition.runtime.memlimits import HostLimit
from cognition.runtime.planner import RUN_MAPS_BYTES, check_fits, check_host, check_libraries
from cognition.validate import main

GiB, MiB = 2**30, 2**20


def fake_root(tmp_path, cgroup: str, files: dict, vmsize_kb: int = 400_000, meminfo_kb: int = 16_000_000):
    (tmp_path / "proc/self").mkdir(parents=True)
    (tmp_path / "proc/self/cgroup").write_text(cgroup)
    (tmp_path / "proc/self/status").write_text(f"Name:\tpython\nVmPeak:\t 500000 kB\nVmSize:\t {vmsize_kb} kB\n")
    (tmp_path / "proc/meminfo").write_text(f"MemTotal: 32000000 kB\nMemAvailable: {meminfo_kb} kB\n")
    for rel, text in files.items():
        path = tmp_path / "sys/fs/cgroup" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_cgroup_v2_own_and_parent_limits(tmp_path):
    root = fake_root(tmp_path, "0::/job/step\n", {
        "cgroup.controllers": "cpu memory\n", "job/step/memory.max": "max\n", "job/step/memory.current": "1\n",
        "job/memory.max": f"{4 * GiB}\n", "job/memory.current": f"{1 * GiB}\n"})
    limits = memlimits.cgroup_limits(root)
    # the step's own "max" is no limit; its parent's 4 GiB applies, less the 1 GiB charged to it
    assert [(x.source, x.limit_bytes, x.headroom_bytes, x.kind, x.where) for x in limits] == \
        [("cgroup v2 memory.max", 4 * GiB, 3 * GiB, "resident", "/sys/fs/cgroup/job/memory.max")]


def test_cgroup_v2_max_is_no_limit(tmp_path):
    root = fake_root(tmp_path, "0::/\n", {"cgroup.controllers": "memory\n", "memory.max": "max\n"})
    assert memlimits.cgroup_limits(root) == []


def test_cgroup_v1_limit_and_unlimited(tmp_path):
    root = fake_root(tmp_path, "12:pids:/\n4:memory:/slurm/job1\n0::/\n", {
        "memory/slurm/job1/memory.limit_in_bytes": f"{2 * GiB}\n",
        "memory/slurm/job1/memory.usage_in_bytes": f"{512 * MiB}\n",
        "memory/slurm/memory.limit_in_bytes": "9223372036854771712\n",
        "memory/memory.limit_in_bytes": "9223372036854771712\n"})
    (x,) = memlimits.cgroup_limits(root)  # "0::/" but no cgroup2 mount: the v1 memory controller only
    assert (x.source, x.limit_bytes, x.headroom_bytes) == ("cgroup v1 memory.limit_in_bytes", 2 * GiB, 1536 * MiB)


def test_no_cgroup_file_no_rlimit(tmp_path):
    root = tmp_path
    (root / "proc").mkdir()
    (root / "proc/meminfo").write_text("MemAvailable: 1000 kB\n")
    assert memlimits.cgroup_limits(root) == []
    assert memlimits.address_space_limit(root, rlimit=resource.RLIM_INFINITY) is None
    assert [(x.source, x.headroom_bytes) for x in memlimits.host_limits(root, rlimit=resource.RLIM_INFINITY)] == \
        [("MemAvailable", 1000 * 1024)]


def test_rlimit_as_counts_what_is_mapped(tmp_path):
    root = fake_root(tmp_path, "0::/\n", {}, vmsize_kb=400_000)
    x = memlimits.address_space_limit(root, rlimit=3_000_000 * 1024)  # ulimit -v 3000000 (KiB)
    assert (x.source, x.kind, x.limit_bytes, x.headroom_bytes) == \
        ("RLIMIT_AS", "virtual", 3_000_000 * 1024, 2_600_000 * 1024)


def cfg(agents=32, cycles=50, mode="lite"):
    return load_config(overrides={"run": {"agents": agents, "cycles": cycles}, "quantum": {"mode": mode}})


def test_the_tightest_limit_is_named_with_the_users_agents():
    big = HostLimit("MemAvailable", 64 * GiB, 64 * GiB, "resident")
    cgroup = HostLimit("cgroup v2 memory.max", 8 * GiB, 6 * GiB, "resident", "/sys/fs/cgroup/job/memory.max")
    rlimit = HostLimit("RLIMIT_AS", 3 * GiB, int(2.6 * GiB), "virtual", "ulimit -v")
    plan = check_host(cfg(), 9, limits=[big, cgroup, rlimit])  # 32 agents fit every limit
    assert plan["limit"]["source"] == "RLIMIT_AS" and len(plan["limits"]) == 3
    with pytest.raises(ConfigError) as info:
        check_host(cfg(agents=20000, cycles=10, mode="disabled"), 9, limits=[big, cgroup, rlimit])
    text = str(info.value)
    # the user's 20000 agents, not the 80000 rows with donors and twins; the limit, its value, the need
    assert text.startswith("run.agents = 20000 is not allowed") and "80000 rows" in text
    assert "RLIMIT_AS (ulimit -v) of 3 GiB, 2.6 GiB left" in text and "it needs about" in text
    assert "lower run.agents" in text and "ulimit -v" in text and "\n" not in text
    # without RLIMIT_AS the cgroup is the tightest, and named as what to raise
    with pytest.raises(ConfigError, match=r"cgroup v2 memory.max \(/sys/fs/cgroup/job/memory.max\) of 8 GiB.*"
                                          r"raise the job's memory limit"):
        check_host(cfg(agents=60000, cycles=10, mode="disabled"), 9, limits=[big, cgroup])


def test_a_limit_too_small_for_the_libraries_is_refused_before_torch():
    small = HostLimit("RLIMIT_AS", 700 * MiB, 360 * MiB, "virtual", "ulimit -v")
    with pytest.raises(UsageError, match="RLIMIT_AS .* cannot hold what a run in full mode maps .*--quantum-lite"):
        check_libraries(cfg(mode="full"), [small])
    check_libraries(cfg(mode="full"), [HostLimit("RLIMIT_AS", 4 * GiB, RUN_MAPS_BYTES["full"] + 1, "virtual")])


def test_memory_budget_error_names_the_users_agents():
    with pytest.raises(ConfigError) as info:  # quantum widths 16: 32 agents are 128 rows with the yoked control
        check_fits(load_config(overrides={"run": {"agents": 32}, "quantum": {"mode": "lite"},
                                          "modules": {"expectation": {"qubits": 16}, "unconscious": {"qubits": 16}}}),
                   64 * MiB, working_copies=3)
    assert str(info.value).startswith("run.agents = 32 is not allowed") and "128 rows" in str(info.value)


def _limited(limit_bytes: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return apply


def _cli_limited(args, limit_bytes, timeout=240):
    return subprocess.run([sys.executable, "-m", "cognition.validate", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, preexec_fn=_limited(limit_bytes),
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))


@pytest.mark.parametrize("args,field", [(["--agents", "20000"], "run.agents = 20000"),
                                        (["--agents", "60000"], "run.agents = 60000"),
                                        (["--agents", "32"], "host memory")])  # full mode maps ~2 GiB: too much
def test_ulimit_v_refuses_before_the_claim(tmp_path, args, field):
    out = tmp_path / "r"
    limit = (700 if args[-1] == "32" else 3000) * 1000 * 1024  # ulimit -v 700000 / 3000000 (KiB)
    res = _cli_limited([*args, "--cycles", "10", "--out", out], limit)
    assert res.returncode == 2, res.stderr[-2000:]
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {field}") and "RLIMIT_AS" in lines[0], res.stderr
    assert "ulimit -v" in lines[0] and not out.exists()


def test_a_run_that_fits_the_ulimit_runs_and_records_the_limit(tmp_path):
    out = tmp_path / "r"
    res = _cli_limited(["--agents", "2", "--cycles", "3", "--disable-quantum", "--quick", "--out", out],
                       1500 * 1000 * 1024)
    assert res.returncode in (0, 1) and "Traceback" not in res.stderr, res.stderr[-2000:]
    plan = json.loads((out / "provenance.json").read_text())["host_plan"]
    assert plan["limit"]["source"] == "RLIMIT_AS" and plan["limit"]["limit_bytes"] == 1500 * 1000 * 1024
    assert plan["need_bytes"]["virtual"] < plan["limit"]["headroom_bytes"]


ARGS = ["--cycles", "12", "--disable-quantum", "--agents", "3"]


def _science(run: Path):
    metrics = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    for m in metrics:
        m.pop("timing"), m.pop("telemetry")
    return metrics, np.load(run / "unit_history.npy")


def test_host_oom_in_a_cycle_stops_with_one_line_and_resumes_bit_identically(tmp_path, monkeypatch, capsys):
    """cycle 5 runs out of host memory on every try, and the checkpoint written after the last try runs out
    too, inside numpy's savez: zipfile's unwinding turned that MemoryError into "ValueError: I/O operation on
    closed file." (issue 33's 20 000 agents under ulimit -v 3 GB)."""
    assert main([*ARGS, "--out", str(tmp_path / "whole")]) in (0, 1)
    capsys.readouterr()
    real_step, real_write, armed = IntegrationLoop.step, zipfile.ZipFile.open, []

    def step(self, state, window, batch=None):
        if state.cycle + 1 == 5:
            armed.append(True)
            np.empty((2**62,), dtype=np.uint8)  # numpy's own MemoryError: "Unable to allocate 4 EiB ..."
        return real_step(self, state, window, batch)

    def open_entry(self, name, mode="r", **kw):
        fh = real_write(self, name, mode, **kw)
        if mode == "w" and armed:
            def write(data):
                raise MemoryError()
            fh.write = write
        return fh

    monkeypatch.setattr(IntegrationLoop, "step", step)
    monkeypatch.setattr(zipfile.ZipFile, "open", open_entry)
    run = tmp_path / "r"
    assert main([*ARGS, "--out", str(run)]) == 1
    err = capsys.readouterr().err
    line = [x for x in err.splitlines() if x.startswith("error:")]
    assert len(line) == 1 and "Traceback" not in err and "closed file" not in err, err
    assert line[0].startswith("error: run stopped in cycle 5: out of host memory (MemoryError")
    assert "tightest limit: MemAvailable" in line[0] or "tightest limit: " in line[0]
    assert f"continue with: python -m cognition.validate --resume {run}" in line[0]
    marker = max((run / "checkpoints").glob("ckpt-*.json"))
    assert json.loads(marker.read_text())["cycle"] <= 4  # a checkpoint from before the failing cycle
    monkeypatch.undo()
    assert main(["--resume", str(run)]) in (0, 1)
    (m1, h1), (m2, h2) = _science(tmp_path / "whole"), _science(run)
    assert np.array_equal(h1, h2) and [m["cycle"] for m in m2] == list(range(1, 13))
    strip = lambda ms: [{k: v for k, v in m.items() if k not in ("retries", "batch")} for m in ms]  # noqa: E731
    assert strip(m1) == strip(m2)


def test_host_oom_on_every_try_names_memory(tmp_path, capsys):
    """The injected CPU allocator failure (torch.empty of 4 PB) on every try: the advice names host memory
    and the tightest limit; the resume finishes the run with the same unit history."""
    assert main([*ARGS, "--out", str(tmp_path / "whole")]) in (0, 1)
    run = tmp_path / "r"
    assert main([*ARGS, "--out", str(run), "--inject-fault", "cpu_alloc@6:always"]) == 1
    out = capsys.readouterr().out
    assert "cycle 6 failed with cpu_alloc, out of host memory (RuntimeError: " in out
    assert "DefaultCPUAllocator" in out and "tightest limit: " in out
    assert main(["--resume", str(run)]) in (0, 1)
    assert np.array_equal(_science(tmp_path / "whole")[1], _science(run)[1])
