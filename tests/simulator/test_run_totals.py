"""The report's totals tell the truth: the process's peak memory as the operating system accounts it,
and one wall-clock figure for the run, the same in the CLI's summary and in the report.

The reference for the peak is measured outside the run: the parent waits for the CLI's process with
``os.wait4`` and reads the child's maximum resident set size from the kernel (what
``/usr/bin/time -v`` prints as "Maximum resident set size").
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from runtools import FAST_PHI

ROOT = Path(__file__).resolve().parents[2]


def test_peak_rss_and_run_time_agree_with_the_os_and_the_cli(tmp_path):
    config = tmp_path / "fast.yaml"
    config.write_text(FAST_PHI)
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "cognition.validate", "--disable-quantum", "--cycles", "30", "--agents", "4",
           "--config", str(config), "--out", str(out)]
    proc = subprocess.Popen(cmd, env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    with proc.stdout:
        stdout = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode in (0, 1), stdout
    os_peak = usage.ru_maxrss * 1024  # Linux: KiB
    report = json.loads((out / "report.json").read_text())
    tel = report["telemetry"]
    assert abs(tel["mem_peak_rss_bytes"] - os_peak) <= 0.05 * os_peak, (tel["mem_peak_rss_bytes"], os_peak)
    # the per-cycle peak is never below the RSS sampled with it
    for line in (out / "metrics.jsonl").read_text().splitlines():
        sample = json.loads(line)["telemetry"]
        assert sample["mem_peak_rss_bytes"] >= sample["mem_rss_bytes"]
    cli = re.search(r"30 cycles in (\S+ s) \(wall clock", stdout).group(1)
    md = re.search(r"time: (\S+ s) wall clock for the run", (out / "report.md").read_text()).group(1)
    assert cli == md
    assert float(cli.split()[0]) == float(f"{tel['run_wall_seconds']:.3g}" if tel["run_wall_seconds"] < 10
                                          else f"{tel['run_wall_seconds']:.1f}")
    # the steps alone are a part of it: the figure is not the sum of cycle times
    steps = sum(json.loads(ln)["timing"]["cycle_s"] for ln in (out / "metrics.jsonl").read_text().splitlines())
    assert tel["run_wall_seconds"] > steps
