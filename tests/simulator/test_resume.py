"""Kill a run (SIGKILL) and resume it: the result equals an uninterrupted run of the same seed.

Fields that are timings or telemetry (metrics `timing`, `telemetry`; report `telemetry`)
and the report's record of the resume itself (`recovery`) are the only ones allowed to differ
(runtools.science); unit_history.npy is compared byte for byte.
"""
import json
import signal
import subprocess
import time

import pytest
from clitools import command
from runtools import science

ARGS = ["--cycles", "20", "--quantum-lite", "--seed", "11", "--agents", "4"]


def cli(*args, wait=True):
    return command("cognition.validate", *args, wait=wait, stream=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "run"
    res = cli(*ARGS, "--out", str(out))
    assert res.returncode in (0, 1), res.stderr
    return science(out)


@pytest.mark.parametrize("kill_at", [3, 12])  # cycles fixed once from random.Random(2026).sample(range(2, 20), 2)
def test_sigkill_then_resume_equals_uninterrupted(reference, tmp_path, kill_at):
    out = tmp_path / "run"
    res = cli(*ARGS, "--out", str(out), "--inject-fault", f"sigkill@{kill_at}")
    assert res.returncode == -signal.SIGKILL
    assert len((out / "metrics.jsonl").read_text().splitlines()) == kill_at - 1
    res = cli("--resume", str(out))
    assert res.returncode in (0, 1), res.stderr
    assert science(out) == reference


def test_external_sigkill_mid_run_then_resume(reference, tmp_path):
    out = tmp_path / "run"
    proc = cli(*ARGS, "--out", str(out), wait=False)
    metrics = out / "metrics.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if metrics.exists() and len(metrics.read_text().splitlines()) >= 9:
            break
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    res = cli("--resume", str(out))
    assert res.returncode in (0, 1), res.stderr
    assert science(out) == reference


def test_corrupt_newest_checkpoint_falls_back_to_previous(reference, tmp_path):
    out = tmp_path / "run"
    assert cli(*ARGS, "--out", str(out), "--inject-fault", "sigkill@16").returncode == -signal.SIGKILL
    ckpts = sorted((out / "checkpoints").glob("ckpt-*.npz"))
    assert [p.stem for p in ckpts] == ["ckpt-000000010", "ckpt-000000012", "ckpt-000000014"]
    data = bytearray(ckpts[-1].read_bytes())
    data[len(data) // 2] ^= 0xFF  # flip one byte in the newest
    ckpts[-1].write_bytes(bytes(data))
    res = cli("--resume", str(out))
    assert res.returncode in (0, 1), res.stderr
    assert science(out) == reference
    # the recovery is visible: named on stderr and in the report's "Retries and fallbacks"
    assert "note: " in res.stderr and "skipped checkpoint ckpt-000000014: checksum mismatch" in res.stderr
    assert "discarded checkpoint ckpt-000000014.npz" in res.stderr
    recovery = [e["detail"] for e in json.loads((out / "report.json").read_text())["recovery"]]
    assert any("skipped checkpoint ckpt-000000014" in d for d in recovery)
    assert "skipped checkpoint ckpt-000000014" in (out / "report.md").read_text()


def test_no_good_checkpoint_is_one_line_exit_2(tmp_path):
    out = tmp_path / "run"
    assert cli(*ARGS, "--out", str(out), "--inject-fault", "sigkill@9").returncode == -signal.SIGKILL
    for p in (out / "checkpoints").glob("ckpt-*.npz"):
        p.write_bytes(p.read_bytes()[:100])  # truncate every checkpoint
    res = cli("--resume", str(out))
    assert res.returncode == 2
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "no usable checkpoint" in lines[0] and "Traceback" not in res.stderr


def test_resume_of_a_foreign_directory_is_one_line_exit_2(tmp_path):
    (tmp_path / "notarun").mkdir()
    res = cli("--resume", str(tmp_path / "notarun"))
    assert res.returncode == 2 and "not a hybrid-cognition run directory" in res.stderr


def test_a_run_of_another_release_is_not_resumed(tmp_path):
    # 0.5.0 added a row per agent (the proposal-yoked twin): a run started by 0.4 cannot continue bit for bit,
    # so --resume names both releases in one line; a patch release resumes, and a run without provenance is
    # not judged (killed before writing it)
    import json

    import cognition
    from cognition.errors import UsageError
    from cognition.simulator.rundir import check_release

    major_minor = ".".join(cognition.__version__.split(".")[:2])
    check_release(tmp_path)
    (tmp_path / "provenance.json").write_text(json.dumps({"package": {"version": f"{major_minor}.99"}}))
    check_release(tmp_path)
    (tmp_path / "provenance.json").write_text(json.dumps({"package": {"version": "0.4.0"}}))
    with pytest.raises(UsageError, match=r"started by hybrid-cognition 0.4.0, this is .*the release that started it"):
        check_release(tmp_path)
