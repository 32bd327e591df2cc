"""Run the package's commands in a fresh interpreter, as a user would (shared by the CLI tests)."""
import os
import subprocess
import sys
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
