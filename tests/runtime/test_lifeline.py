"""Workers that cannot outlive their parent (cognition/runtime/lifeline.py; issue 33).

Each test starts its processes in a new session (``start_new_session``), so "the tree" is every
process whose session id is the root's pid, read from /proc: that also finds processes re-parented
to init after the root died, and ones started after a snapshot. A process counts as gone when its
/proc entry is gone or it is a zombie (dead, waiting for a reaper). Every process started here runs
under a virtual-memory limit and a time limit, and whatever is left is SIGKILLed in a ``finally``.
"""
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MEMORY_LIMIT = 6 << 30  # bytes of address space for each process started here (torch maps a lot)
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _start(args: list[str], **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, *args], env=env, start_new_session=True, preexec_fn=_limited,
                            stdin=subprocess.DEVNULL, **kw)


def _stat(pid: str) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()  # after "pid (comm) ": state, ppid, pgrp, session, ...


def session(sid: int) -> list[int]:
    """Live (not zombie) processes of session ``sid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(entry)
            if fields and fields[0] != "Z" and int(fields[3]) == sid:
                found.append(int(entry))
    return found


def _kill_session(sid: int) -> None:
    for pid in session(sid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _seconds_until_gone(sid: int, limit: float = 5.0) -> tuple[float, list[int]]:
    t0 = time.monotonic()
    while True:
        left = session(sid)
        if not left or time.monotonic() - t0 > limit:
            return time.monotonic() - t0, left
        time.sleep(0.02)


def _wait_for(condition, what: str, timeout: float, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, f"{what}: the parent exited first (rc {proc.returncode})"
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
        time.sleep(0.05)


CHILD = """
import sys, time
from cognition.runtime.lifeline import bind_to_parent
print(bind_to_parent({parent}, use_prctl={use_prctl}), flush=True)
time.sleep(120)
"""
PARENT = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", {child!r}.format(parent=os.getpid())], stdin=subprocess.DEVNULL)
print(child.pid, flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("use_prctl, mechanism", [(True, "prctl"), (False, "watch")])
def test_a_bound_child_dies_within_5_s_of_its_parent_being_sigkilled(use_prctl, mechanism):
    if mechanism == "prctl" and not sys.platform.startswith("linux"):
        pytest.skip("prctl(PR_SET_PDEATHSIG) exists only on Linux; the polling fallback (mechanism watch) is tested here")
    child_code = CHILD.replace("{use_prctl}", str(use_prctl))
    parent = _start(["-c", PARENT.format(child=child_code)], stdout=subprocess.PIPE, text=True)
    try:
        child_pid = int(parent.stdout.readline())
        assert parent.stdout.readline().strip() == mechanism  # the child has bound itself
        assert len(session(parent.pid)) == 2
        parent.kill()
        parent.wait(timeout=5)
        seconds, left = _seconds_until_gone(parent.pid)
        assert left == [], f"{left} still alive {seconds:.1f} s after the parent was SIGKILLed"
        assert _stat(str(child_pid)) is None or _stat(str(child_pid))[0] == "Z"
    finally:
        _kill_session(parent.pid)
        parent.kill()
        parent.wait(timeout=5)
        parent.stdout.close()


def test_a_child_whose_parent_died_before_it_bound_itself_exits_at_once():
    # the race prctl alone leaves open: a "parent" pid that is not our parent reads as already dead
    res = subprocess.run([sys.executable, "-c", "from cognition.runtime.lifeline import bind_to_parent; "
                          "bind_to_parent(-1); print('alive')"],
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=60,
                         preexec_fn=_limited)
    assert res.returncode == 128 + signal.SIGKILL and "alive" not in res.stdout


WORKER_STATE = {}


def _remember(value):
    WORKER_STATE["value"] = value


def _worker_view(_):
    return WORKER_STATE.get("value"), os.getppid()


def test_pool_workers_run_their_tasks_after_both_initializers():
    from cognition.runtime.lifeline import bound_pool

    with bound_pool(2, initializer=_remember, initargs=("set",)) as pool:
        got = set(pool.map(_worker_view, range(4)))
    assert got == {("set", os.getpid())} and "value" not in WORKER_STATE


SWEEP = """name: orphans
base:
  run: {cycles: 20000, agents: 4}
  quantum: {mode: disabled}
  phi: {window: 6, bootstrap: 20, surrogates: 20}
grid:
  workspace.temperature: [0.25, 0.5]
seeds: [0]
"""


def _sigkill_once_running(args: list[str], running, what: str, least: int) -> None:
    """Start ``python ARGS`` in its own session, wait until ``running()`` (and ``least`` processes in the
    tree), SIGKILL the root and assert that the tree is gone within 5 s; anything left is killed."""
    proc = _start(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(lambda: running() and len(session(proc.pid)) >= least, what, 180, proc)
        counted = len(session(proc.pid))
        proc.kill()
        proc.wait(timeout=5)
        seconds, left = _seconds_until_gone(proc.pid)
        print(f"{what}: {counted} processes, tree gone {seconds:.2f} s after SIGKILL")
        assert left == [], f"{len(left)} of {counted} processes still alive {seconds:.1f} s after SIGKILL"
    finally:
        _kill_session(proc.pid)
        proc.kill()
        proc.wait(timeout=5)


@pytest.mark.integration
def test_a_sigkilled_sweep_leaves_no_process_behind(tmp_path):
    (tmp_path / "s.yaml").write_text(SWEEP)
    root = tmp_path / "out"
    # both points' runs are in their cycles (a metrics row written): the sweep and two runs
    _sigkill_once_running(["-m", "cognition.sweep", str(tmp_path / "s.yaml"), "--out", str(root), "--workers", "2"],
                          lambda: len(list(root.glob("*/metrics.jsonl"))) == 2, "sweep", 3)


@pytest.mark.integration
def test_a_sigkilled_ablation_experiment_leaves_no_process_behind(tmp_path):
    out = tmp_path / "exp"
    # two pool workers each in a run's cycles, beside them multiprocessing's resource tracker
    _sigkill_once_running(["-m", "cognition.experiment", "ablations", "--seeds", "2", "--cycles", "20000",
                           "--agents", "4", "--workers", "2", "--conditions", "hybrid.no_interference",
                           "--out", str(out)],
                          lambda: len(list((out / "runs").glob("*/seed-*/metrics.jsonl"))) >= 2, "ablations", 4)
