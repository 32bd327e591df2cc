"""A kill at any instant leaves the run directory resumable or reusable (issue 17).

Before, a SIGKILL between `.claimed` and `config.yaml` stranded the directory: neither
`--resume` ("not a hybrid-cognition run directory") nor `--out` ("not empty") worked.
Here the process kills itself at the exact start-up steps (a fresh interpreter with one
function replaced), and then, at random instants, from outside (the slow soak).
"fresh" below means killed before the directory was created: --out simply starts it. Every
time the directory must be either reused by `--out` or continued by `--resume`, and the
result must equal an uninterrupted run.
"""
import random
import signal
import time

import pytest
from clitools import command, python_code
from runtools import fast_args, run, science

from cognition.simulator.rundir import state as run_dir_state

KILL_AT = """
import importlib, os, signal, sys
owner = importlib.import_module({module!r})
for part in {path!r}:
    owner = getattr(owner, part)
setattr(owner, {attr!r}, lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL))
from cognition.validate import main
sys.exit(main({argv!r}))
"""

# where the process dies: (module, attribute path of the function it dies on entering) -> state it leaves
STEPS = {
    "inside the claim, before config.yaml": ("cognition.simulator.rundir", ["write_yaml"], "restart"),
    "right after config.yaml, before anything else": ("cognition.simulator.session", ["Session", "_write_inputs"], "resume"),
    "after provenance, before the cycle-0 checkpoint": ("cognition.simulator.runner", ["Runner", "_checkpoint"], "resume"),
}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    base = tmp_path_factory.mktemp("ref")
    assert main_rc(fast_args(base) + ["--out", base / "run"]) in (0, 1)
    return science(base / "run")


def main_rc(argv):
    from cognition.validate import main

    return main([str(a) for a in argv])


def _killed_at(step, argv, cwd):
    module, path, _ = STEPS[step]
    code = KILL_AT.format(module=module, path=path[:-1], attr=path[-1], argv=[str(a) for a in argv])
    return python_code(code, cwd=cwd)


def continue_run(run_dir, argv, capsys):
    """Whatever the kill left: --resume a claimed directory, --out again into a reusable one."""
    state = run_dir_state(run_dir)
    if state in ("resume", "finished"):
        return state, run(["--resume", run_dir], capsys)
    assert state in ("restart", "fresh"), state
    return state, run(argv + ["--out", run_dir], capsys)


@pytest.mark.parametrize("step", list(STEPS))
def test_a_kill_at_each_startup_step_leaves_it_resumable_or_reusable(reference, tmp_path, capsys, step):
    argv, out = fast_args(tmp_path), tmp_path / "run"
    res = _killed_at(step, argv + ["--out", out], tmp_path)
    assert res.returncode == -signal.SIGKILL, res.stderr
    assert run_dir_state(out) == STEPS[step][-1]
    if STEPS[step][-1] == "restart":
        rc, _, err = run(["--resume", out], capsys)
        assert rc == 2 and len(err) == 1 and f"start a run in it with --out {out}" in err[0]
    _, (rc, _, err) = continue_run(out, argv, capsys)
    assert rc in (0, 1), err
    assert science(out) == reference


def _wait_for(path, timeout=60.0):
    deadline = time.time() + timeout
    while not path.exists() and time.time() < deadline:
        time.sleep(0.001)


@pytest.mark.slow
def test_twenty_sigkills_at_random_instants(reference, tmp_path, capsys):
    """20 runs killed from outside at random instants: 7 in the first second after the start (imports,
    validation), 7 within 40 ms of the run directory appearing (lock, claim, provenance, cycle-0
    checkpoint), 6 in [1, 6] s (cycles, checkpoints, report); each resumed or reused, and compared."""
    rng, argv, tally = random.Random(17), fast_args(tmp_path, cycles=20), {}
    for i in range(20):
        out = tmp_path / f"run{i}"
        proc = command("cognition.validate", *argv, "--out", out, wait=False)
        if i < 7:
            time.sleep(rng.uniform(0.0, 1.0))
        elif i < 14:
            _wait_for(out)
            time.sleep(rng.uniform(0.0, 0.04))
        else:
            time.sleep(rng.uniform(1.0, 6.0))
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        state, (rc, _, err) = continue_run(out, argv, capsys)
        assert rc in (0, 1), (i, state, err)
        assert science(out) == reference, i
        tally[state] = tally.get(state, 0) + 1
    print(f"20 of 20 bit-identical after the kill; state the kill left: {tally}")
