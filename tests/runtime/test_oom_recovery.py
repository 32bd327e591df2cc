"""OOM recovery and signals through the real command line (real exceptions, injected)."""
import json
import signal
import time

import pytest
from clitools import command

ARGS = ["--cycles", "16", "--disable-quantum", "--agents", "8", "--control", "none"]  # rows = agents


def cli(*args):
    return command("cognition.validate", *args)


def test_injected_oom_is_retried_with_half_the_batch(tmp_path):
    res = cli(*ARGS, "--out", str(tmp_path / "r"), "--inject-fault", "oom@5")
    assert res.returncode in (0, 1), res.stderr
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["status"] == "completed" and report["cycles_completed"] == 16
    assert [(r["cycle"], r["kind"], r["batch_before"], r["batch_after"]) for r in report["retries"]] == \
        [(5, "cuda_oom", 8, 4)]
    metrics = [json.loads(x) for x in (tmp_path / "r" / "metrics.jsonl").read_text().splitlines()]
    assert metrics[4]["retries"] and metrics[4]["batch"] == 4 and metrics[3]["batch"] == 8


def test_real_cpu_allocator_failure_is_classified_and_retried(tmp_path):
    res = cli(*ARGS, "--out", str(tmp_path / "r"), "--inject-fault", "cpu_alloc@3")
    assert res.returncode in (0, 1), res.stderr
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["retries"][0]["kind"] == "cpu_alloc" and report["status"] == "completed"


def test_oom_on_every_try_stops_with_checkpoint_and_advice(tmp_path):
    res = cli(*ARGS, "--out", str(tmp_path / "r"), "--inject-fault", "oom@6:always")
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    assert "cycle 6 failed with cuda_oom on all 4 tries" in res.stdout
    assert f"continue with: python -m cognition.validate --resume {tmp_path / 'r'}" in res.stdout
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["status"] == "failed" and len(report["retries"]) == 4
    assert [r["batch_after"] for r in report["retries"]] == [4, 2, 1, 1]
    marker = json.loads((tmp_path / "r" / "checkpoints" / "ckpt-000000005.json").read_text())
    assert marker["cycle"] == 5  # the state before the failing cycle


@pytest.mark.integration
def test_sigterm_writes_checkpoint_and_resume_finishes(tmp_path):
    out = tmp_path / "r"
    proc = command("cognition.validate", "--cycles", "400", "--disable-quantum", "--agents", "2", "--out", out,
                   wait=False)
    metrics = out / "metrics.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline and not (metrics.exists() and len(metrics.read_text().splitlines()) >= 5):
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stderr
    assert "stopped by SIGTERM" in stdout and "Traceback" not in stderr
    done = len(metrics.read_text().splitlines())
    assert (out / "checkpoints" / f"ckpt-{done:09d}.json").exists()
    res = cli("--resume", str(out))
    assert res.returncode in (0, 1), res.stderr
    assert json.loads((out / "report.json").read_text())["cycles_completed"] == 400
