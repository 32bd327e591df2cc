"""Inputs that got past validation (issue 17) are now one line and exit 2, with nothing written.

Before: --cycles 1000000000 died in an ArrayMemoryError traceback leaving a partial run
directory; --agents 1000000000000 likewise; `gamma: .inf` ran and crashed at cycle 1
leaving empty metrics; --inject-fault oom@0 was accepted and never fired.
"""
import pytest
from runtools import fast_args, run


@pytest.mark.parametrize("flags, fragment", [
    (["--cycles", "1000000000"], "run.cycles = 1000000000 is not allowed: expected a value <= 999999999"),
    (["--cycles", "999999999"], "run.cycles = 999999999 is not allowed: expected a run whose final analysis "
                                "(4 agents x 7 units x cycles) fits host memory"),
    (["--agents", "1000000000000"], "run.agents = 1000000000000 is not allowed: expected a run whose state fits "
                                    "host memory"),
    (["--inject-fault", "oom@0"], "'oom@0': cycle 0 never runs: the first cycle is 1"),
    (["--inject-fault", "sigkill@21"], "'sigkill@21': the run ends at cycle 20, so it would never fire"),
    (["--inject-fault", "oom@5,nvml@5"], "'nvml@5': oom@5 already fails cycle 5: one fault per cycle"),
    (["--inject-fault", "enospc@x"], "cycle 'x' must be an integer"),
])
def test_impossible_sizes_and_faults_are_refused_before_anything_is_written(tmp_path, capsys, flags, fragment):
    out = tmp_path / "run"
    args = fast_args(tmp_path)
    args[args.index("--cycles") + 1] = "20"
    rc, _, err = run(args + flags + ["--out", out], capsys)
    assert rc == 2 and len(err) == 1 and fragment in err[0], err
    assert not out.exists()


def test_an_infinite_gamma_is_refused_before_anything_is_written(tmp_path, capsys):
    out = tmp_path / "run"
    rc, _, err = run(fast_args(tmp_path, extra="modules: {hybrid: {gamma: .inf}}\n") + ["--out", out], capsys)
    assert rc == 2 and len(err) == 1 and "modules.hybrid.gamma = inf is not allowed: expected a finite number" in err[0]
    assert not out.exists()


def test_a_run_longer_than_the_disk_holds_is_refused(tmp_path, capsys, monkeypatch):
    from cognition.runtime import planner

    monkeypatch.setattr(planner, "free_disk_bytes", lambda path: 10 * 2**20)  # a 10 MiB disk
    rc, _, err = run(fast_args(tmp_path, cycles=20000) + ["--out", tmp_path / "run"], capsys)
    assert rc == 2 and len(err) == 1 and "fit the disk of" in err[0] and "0.00977 GiB is free" in err[0], err
