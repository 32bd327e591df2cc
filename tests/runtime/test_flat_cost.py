"""Cost and memory flat in run length (issue 17).

Before: the loop copied the whole preallocated unit history every cycle (4.4 ms/cycle with
400 cycles planned, 12.6 ms with 100 000), and every checkpoint carried every metrics row
and the whole history (22-25 MB at 20 000 cycles). Now the history is appended to disk,
the loop sees only the Phi window, and a checkpoint holds the state and file offsets.
The timings themselves are measured by `python -m cognition.bench runtime`, not asserted.
"""
import tracemalloc

from runtools import fast_args, run


def test_checkpoint_size_does_not_depend_on_the_cycle(tmp_path, capsys):
    out = tmp_path / "run"
    extra = "runtime: {checkpoint_every_percent: 5, keep_checkpoints: 30}\n"
    rc, _, err = run(fast_args(tmp_path, cycles=40, extra=extra) + ["--out", out], capsys)
    assert rc in (0, 1), err
    sizes = {p.name: p.stat().st_size for p in sorted((out / "checkpoints").glob("ckpt-*.npz"))}
    assert len(sizes) == 21  # cycles 0, 2, ..., 40
    # only the digits of counters (cycle, file offsets) may differ; the history is not in them
    assert max(sizes.values()) - min(sizes.values()) < 64, sizes


def _peak_bytes(tmp_path, capsys, planned: int) -> int:
    """Peak traced allocation of a run planned for ``planned`` cycles and stopped (SIGTERM) after 15."""
    argv = fast_args(tmp_path, cycles=planned) + ["--out", tmp_path / f"run{planned}", "--inject-fault", "sigterm@15"]
    tracemalloc.start()
    try:
        rc, out, err = run(argv, capsys)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert rc == 1 and "stopped by SIGTERM after cycle 15" in out, err
    return peak


def test_memory_of_the_first_cycles_does_not_depend_on_the_planned_length(tmp_path, capsys):
    short, long = _peak_bytes(tmp_path, capsys, 30), _peak_bytes(tmp_path, capsys, 300_000)
    # 300 000 planned cycles of 4 agents x 8 units would be 77 MB of history if it were preallocated
    assert abs(long - short) < 4 * 2**20, (short, long)
