"""A checkpoint whose state belongs to another cycle is refused, not continued (issue 33).

Before: the state of cycle 80 written as cycle 120, with the metrics offset of cycle 120 and a
recomputed sha256, passed every check (marker, checksum, config hash, the files' offsets) and the
resumed run's numbers differed from cycle 121 on. Now the restored state is checked against the
files the cycles wrote: the workspace's unit signals its broadcast gives against unit_history.npy's
row for the cycle, its winners against metrics.jsonl's record.
"""
import numpy as np
from runtools import fast_args, run, science

from cognition.runtime.checkpoint import CheckpointStore, decode_payload

EVERY_TEN = "runtime: {checkpoint_every_percent: 33, keep_checkpoints: 10}\n"  # 30 cycles: 0, 10, 20, 30


def _payload(store: CheckpointStore, cycle: int) -> dict:
    return decode_payload(store._paths(cycle)[0].read_bytes())


def _files(out):
    return {name: (out / name).read_bytes() for name in ("metrics.jsonl", "unit_history.npy", ".lock")}


def test_the_state_of_cycle_10_under_the_name_of_cycle_20_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    rc, _, err = run(fast_args(tmp_path, cycles=30, extra=EVERY_TEN) + ["--out", out], capsys)
    assert rc in (0, 1), err
    finished = science(out)
    store = CheckpointStore(out, keep=10)
    assert store.cycles() == [30, 20, 10, 0]
    genuine = {p: p.read_bytes() for p in store._paths(20)}
    for p in store._paths(30):  # the newest left is cycle 20: a resume continues from it
        p.unlink()

    forged = _payload(store, 10)
    forged["cycle"] = 20
    forged["metrics_bytes"] = _payload(store, 20)["metrics_bytes"]  # the offsets of cycle 20, so they check out
    store.save(forged, cycle=20)  # marker with its size and a recomputed sha256
    before = _files(out)
    rc, _, err = run(["--resume", out], capsys)
    assert rc == 2 and len(err) == 1 and "Traceback" not in err[0], err
    assert "ckpt-000000020" in err[0] and "cycle 20" in err[0] and "unit_history.npy" in err[0], err
    assert "workspace.broadcast_" in err[0], err  # what differs
    assert _files(out) == before  # refused before anything changed, the lock file included

    for p, data in genuine.items():  # the genuine checkpoint of cycle 20 resumes, and ends where the run ended
        p.write_bytes(data)
    rc, _, err = run(["--resume", out], capsys)
    assert rc in (0, 1), err
    assert science(out) == finished


def _twelve_agents_resuming_from_20(tmp_path, capsys):
    """A finished 30-cycle run of 12 agents whose newest checkpoint left is cycle 20: (run dir, its store)."""
    out = tmp_path / "run"
    rc, _, err = run(fast_args(tmp_path, cycles=30, agents=12, extra=EVERY_TEN) + ["--out", out], capsys)
    assert rc in (0, 1), err
    store = CheckpointStore(out, keep=10)
    for p in store._paths(30):
        p.unlink()
    return out, store


def test_winners_of_another_cycle_are_refused_by_the_metrics_record(tmp_path, capsys):
    # the broadcast of cycle 20 kept, the workspace (winners, access, evidence) of cycle 10: the history row
    # agrees, metrics.jsonl's winner shares do not
    out, store = _twelve_agents_resuming_from_20(tmp_path, capsys)
    ten, forged = _payload(store, 10), _payload(store, 20)
    assert (ten["workspace"]["winner"] != forged["workspace"]["winner"]).any()
    forged["workspace"] = ten["workspace"]
    store.save(forged, cycle=20)
    rc, _, err = run(["--resume", out], capsys)
    assert rc == 2 and len(err) == 1, err
    assert "ckpt-000000020" in err[0] and "winner shares" in err[0] and "metrics.jsonl" in err[0], err


def test_winners_swapped_between_agents_are_refused_by_the_recorded_winners(tmp_path, capsys):
    # the same winner shares over the agents, two agents' winners (and their whole workspace rows) swapped: the
    # shares agree, metrics.jsonl's row-by-row winners do not. Reference: the construction
    out, store = _twelve_agents_resuming_from_20(tmp_path, capsys)
    forged = _payload(store, 20)
    winner = np.asarray(forged["workspace"]["winner"])
    a = 0
    b = int(np.flatnonzero(winner[:12] != winner[a])[0])  # another agent of the run with another winner
    for value in forged["workspace"].values():  # tensors, rows first
        value[[a, b]] = value[[b, a]].clone()
    store.save(forged, cycle=20)
    before = _files(out)
    rc, _, err = run(["--resume", out], capsys)
    assert rc == 2 and len(err) == 1, err
    assert "ckpt-000000020" in err[0] and "rows' winners" in err[0] and "metrics.jsonl" in err[0], err
    assert _files(out) == before
