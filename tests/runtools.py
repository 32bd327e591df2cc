"""Runs of the main job for the runtime tests: in this process (fast) or in a fresh one, and what to compare."""
import json
from pathlib import Path

from cognition.simulator.progress import is_progress_line
from cognition.validate import main

FAST_PHI = "phi: {bootstrap: 20, surrogates: 20}\n"  # the report's resampling is not what these tests check


def fast_args(tmp_path: Path, cycles: int = 20, agents: int = 4, extra: str = "") -> list[str]:
    """Flags of a small classical run (seconds), its config file written into ``tmp_path``."""
    config = tmp_path / "fast.yaml"
    config.write_text(FAST_PHI + extra)
    return ["--disable-quantum", "--cycles", str(cycles), "--agents", str(agents), "--seed", "5",
            "--config", str(config)]


def run(argv, capsys) -> tuple[int, str, list[str]]:
    """``python -m cognition.validate argv`` in this process: (exit code, stdout, non-blank stderr lines
    other than the plain progress lines)."""
    capsys.readouterr()
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, [ln for ln in err.splitlines() if ln.strip() and not is_progress_line(ln)]


def science(run_dir: Path):
    """report.json and metrics.jsonl without what may differ between an interrupted and an uninterrupted
    run: timings and telemetry, and the report's record of the resume itself (``recovery``)."""
    report = json.loads((run_dir / "report.json").read_text())
    report.pop("telemetry"), report.pop("recovery")
    metrics = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    for m in metrics:
        m.pop("timing"), m.pop("telemetry")
    return report, metrics, (run_dir / "unit_history.npy").read_bytes()


def finished_run(base: Path) -> Path:
    """A finished fast run (``fast_args``) in ``base/run``, for tests that copy it and edit what they resume."""
    assert main([str(a) for a in fast_args(base) + ["--out", base / "run"]]) in (0, 1)
    return base / "run"


def copy_run(run_dir: Path, tmp_path: Path) -> Path:
    """A copy of ``run_dir`` at ``tmp_path/copy``."""
    import shutil

    return Path(shutil.copytree(run_dir, tmp_path / "copy"))
