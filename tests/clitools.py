"""Run the package's commands in a fresh interpreter, as a user would (shared by the CLI tests)."""
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT))


def command(module: str, *args, cwd=None, timeout: float = 300, wait: bool = True, stream=subprocess.PIPE):
    """``python -m module args``: a CompletedProcess (text), or with wait=False a Popen whose
    stdout/stderr go to ``stream`` (PIPE, or DEVNULL when nobody will read them)."""
    cmd = [sys.executable, "-m", module, *map(str, args)]
    if not wait:
        return subprocess.Popen(cmd, cwd=cwd, env=_env(), stdout=stream, stderr=stream, text=True)
    return subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)


def python_code(code: str, cwd=None, timeout: float = 300):
    """``python -c code`` with the repository importable."""
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=timeout)


# ---- a command run as a hostile user's case: bounded memory and time, its own peak RSS -----------------------
@dataclass
class Outcome:
    rc: int
    stdout: str
    stderr: str
    wall_s: float
    peak_rss_bytes: int
    timed_out: bool


def _limit_memory(limit: int):
    def apply():  # in the child, before exec
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def run_limited(argv, cwd: Path, memory_limit: int, timeout_s: float, env: dict | None = None) -> Outcome:
    """``python ARGV`` in ``cwd`` under RLIMIT_AS ``memory_limit``, killed after ``timeout_s``; its own peak RSS
    from ``os.wait4`` (this child only, not the test process's other children). ``env``: added variables."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **(env or {}))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen([sys.executable, *argv], cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                env=env, preexec_fn=_limit_memory(memory_limit))
        timed_out = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > timeout_s:
                timed_out = True
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.01)
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        out.seek(0)
        err.seek(0)
        return Outcome(proc.returncode, out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                       wall, usage.ru_maxrss * 1024, timed_out)


def tree_of(root: Path) -> set[str]:
    """Every path under ``root``, relative to it."""
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def place_files(root: Path, files: dict) -> None:
    """Write ``files`` (name -> text or bytes) under ``root``, making folders as needed."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
