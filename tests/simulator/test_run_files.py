"""The pieces under the runner, each on its own: the run directory's lock and claim states, the
append-only unit history and its ring buffer, the metrics read back one line at a time."""
import json
import os

import numpy as np
import pytest

from cognition.errors import CheckpointError, RunDirBusyError, UsageError
from cognition.simulator.rundir import create_run_dir, state as run_dir_state
from cognition.simulator.runfiles import RunFiles, RunRecords
from cognition.runtime.lock import RunDirLock
from cognition.runtime.unit_history import HistoryError, UnitHistory, UnitWindow, read_history


def test_a_second_lock_names_the_holder_pid(tmp_path):
    with RunDirLock(tmp_path, "--resume"):
        with pytest.raises(RunDirBusyError) as info:
            RunDirLock(tmp_path, "--resume").acquire()  # flock: a second open file conflicts, even in-process
        assert f"in use by process {os.getpid()}" in str(info.value) and "\n" not in str(info.value)
    with RunDirLock(tmp_path):  # released: free again
        pass


@pytest.mark.parametrize("leftovers, state", [
    ([], "restart"),
    ([".lock"], "restart"),
    ([".lock", ".tmp-k2j3.yaml"], "restart"),  # killed inside the atomic write of config.yaml
    ([".claimed", "config.yaml.tmp"], "restart"),  # what older versions left
    ([".lock", "config.yaml"], "resume"),
    ([".lock", "config.yaml", "report.json"], "resume"),  # a report that does not say completed
    ([".lock", "notes.txt"], "foreign"),
])
def test_run_dir_states(tmp_path, leftovers, state):
    for name in leftovers:
        (tmp_path / name).write_text("x")
    assert run_dir_state(tmp_path) == state


def test_a_completed_report_is_finished_and_no_directory_is_fresh(tmp_path):
    """One classification for validate, sweeps and ablations (cognition.simulator.rundir.state)."""
    assert run_dir_state(tmp_path / "none") == "fresh"
    (tmp_path / "config.yaml").write_text("x")
    (tmp_path / "report.json").write_text('{"status": "interrupted"}')
    assert run_dir_state(tmp_path) == "resume"
    (tmp_path / "report.json").write_text('{"status": "completed"}')
    assert run_dir_state(tmp_path) == "finished"
    (tmp_path / "file").write_text("x")
    assert run_dir_state(tmp_path / "file") == "foreign"


def test_claim_reuses_leftovers_and_never_a_claimed_directory(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / ".tmp-half.yaml").write_text("run: {cyc")
    path, lock = create_run_dir(out, "x", {"run": {"cycles": 3}})
    lock.release()
    assert sorted(p.name for p in out.iterdir()) == [".lock", "config.yaml"]
    with pytest.raises(UsageError, match="already holds a run .* --resume"):
        create_run_dir(out, "x", {})


def test_unit_history_appends_commits_and_cuts_back(tmp_path):
    path, rows = tmp_path / "h.npy", np.arange(5 * 3 * 2, dtype=float).reshape(5, 3, 2)
    h = UnitHistory.create(path, 3, 2)
    for r in rows[:3]:
        h.append(r)
    h.commit()
    for r in rows[3:]:
        h.append(r)  # written after the last commit, as if killed before the next checkpoint
    h.close()
    np.testing.assert_array_equal(read_history(path), rows[:3].transpose(1, 0, 2))  # the header says 3
    h, dropped = UnitHistory.reopen(path, 3, 2, cycles=2)  # resume from a checkpoint of cycle 2
    assert dropped == 3 and h.cycles == 2
    np.testing.assert_array_equal(h.tail(5), rows[:2].transpose(1, 0, 2))
    h.close()
    with pytest.raises(HistoryError, match="holds 2 cycles .* needs 4"):
        UnitHistory.reopen(path, 3, 2, cycles=4)


def test_unit_window_is_the_last_cycles_in_order():
    w = UnitWindow(2, 1, 3)
    for t in range(5):
        w.push(np.full((2, 1), float(t)))
    assert w.view()[0, :, 0].tolist() == [2.0, 3.0, 4.0]


def test_files_refuse_offsets_they_do_not_reach(tmp_path):
    files = RunFiles(tmp_path, 1, 1)
    files.create()
    for c in (1, 2):
        files.append({"cycle": c}, np.zeros((1, 1)))
    offsets = files.commit()
    files.close()
    with pytest.raises(CheckpointError, match="does not end with cycle 1"):
        files.check(offsets["metrics_bytes"], 1)
    (tmp_path / "metrics.jsonl").write_text('{"cycle": 1}\n')
    with pytest.raises(CheckpointError, match="truncated or replaced"):
        files.check(offsets["metrics_bytes"], 2)


def test_records_stream_from_the_file(tmp_path):
    path = tmp_path / "metrics.jsonl"
    path.write_text("".join(json.dumps({"cycle": c}) + "\n" for c in range(1, 6)))
    records = RunRecords(path)
    assert len(records) == 5 and records[0] == {"cycle": 1} and records[-1] == {"cycle": 5}
    assert [r["cycle"] for r in records] == [1, 2, 3, 4, 5] and records[1:3] == [{"cycle": 2}, {"cycle": 3}]
