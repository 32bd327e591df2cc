"""What --resume may and may not do (issue 17): recover visibly, never silently start over, and
refuse flags that contradict the run.

Before: deleting the checkpoint markers restarted the run from cycle 0 silently (over its
metrics), a checkpoint file left without a marker stayed forever, --resume on a finished run
rewrote the reports with no note, and --resume with --device cuda was silently ignored.
"""
import json

import pytest
from runtools import copy_run, finished_run, run


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    return finished_run(tmp_path_factory.mktemp("finished"))


_copy = copy_run


def test_deleted_markers_never_restart_over_the_metrics(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    for marker in (out / "checkpoints").glob("ckpt-*.json"):
        marker.unlink()
    before = (out / "metrics.jsonl").read_text()
    rc, _, err = run(["--resume", out], capsys)
    assert rc == 2 and len(err) == 1, err
    assert "no completed checkpoint, but the run wrote metrics.jsonl: 20 lines" in err[0]
    assert "refusing to start over them" in err[0]
    assert (out / "metrics.jsonl").read_text() == before


def test_resuming_a_finished_run_says_so_and_notes_it_in_the_report(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    metrics = (out / "metrics.jsonl").read_text()
    rc, _, err = run(["--resume", out], capsys)
    assert rc in (0, 1)
    assert any("the run had already finished (cycle 20 of 20)" in line for line in err), err
    recovery = json.loads((out / "report.json").read_text())["recovery"]
    assert recovery[-1]["detail"].startswith("the run had already finished")
    assert "the run had already finished" in (out / "report.md").read_text()
    assert (out / "metrics.jsonl").read_text() == metrics


def test_a_checkpoint_without_its_marker_is_named_and_discarded(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    (out / "checkpoints" / "ckpt-000000021.npz").write_bytes(b"left by a save killed before its marker")
    rc, _, err = run(["--resume", out], capsys)
    assert rc in (0, 1)
    assert any("discarded checkpoint ckpt-000000021.npz" in line for line in err), err
    assert not (out / "checkpoints" / "ckpt-000000021.npz").exists()


@pytest.mark.parametrize("flags, fragment", [
    (["--device", "cuda"], "runtime.device = 'cuda' (the run has 'auto')"),
    (["--cycles", "30"], "run.cycles = 30 (the run has 20)"),
    (["--quantum-lite"], "quantum.mode = 'lite' (the run has 'disabled')"),
    (["--config", "x.yaml"], "--config cannot be used with it"),
])
def test_flags_that_contradict_the_resumed_run_are_refused(finished, tmp_path, capsys, flags, fragment):
    out = _copy(finished, tmp_path)
    rc, _, err = run(["--resume", out, *flags], capsys)
    assert rc == 2 and len(err) == 1 and fragment in err[0], err


def test_flags_that_agree_with_the_run_are_accepted(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    rc, _, err = run(["--resume", out, "--cycles", "20", "--disable-quantum", "--device", "auto"], capsys)
    assert rc in (0, 1), err


def test_a_fault_the_resumed_part_never_reaches_is_refused(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    rc, _, err = run(["--resume", out, "--inject-fault", "oom@12"], capsys)
    assert rc == 2 and len(err) == 1 and "cycle 12 is already done: the run resumes at cycle 21" in err[0], err


def test_a_checkpoint_from_the_previous_generator_is_refused_not_continued(finished, tmp_path, capsys):
    # a 0.1.0 checkpoint carries no "streams" field: its cycles came from numpy's per-agent Philox4x64,
    # and continuing them with Philox4x32 would splice two generators into one run without a word
    from cognition.runtime.checkpoint import CheckpointStore

    out = _copy(finished, tmp_path)
    store = CheckpointStore(out)
    payload, cycle = store.load_latest()
    del payload["streams"]
    store.save(payload, cycle)
    before = (out / "metrics.jsonl").read_text()
    rc, _, err = run(["--resume", out], capsys)
    assert rc == 2 and len(err) == 1, err
    assert "random streams 'numpy Philox4x64 per agent (hybrid-cognition 0.1.0)'" in err[0]
    assert "cannot continue bit for bit" in err[0]
    assert (out / "metrics.jsonl").read_text() == before
