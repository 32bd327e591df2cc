"""The research notebooks in experiments/: committed without outputs, and each runs top to bottom.

Execution (markers `notebooks` and `integration`: `python -m pytest --integration -m notebooks`) uses
nbclient with the `python3` kernel, the repository on PYTHONPATH and the kernel's working directory
in experiments/, where Jupyter starts a notebook opened from the checkout: the notebooks write only
into temporary directories of their own, and the test checks that no file of the checkout was
created, changed or removed. The notebooks that run the architecture print, in their own output,
whether the run met its criteria and, if not, why at that size (cognition.reporting.explain).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments"
NOTEBOOKS = sorted(EXPERIMENTS.glob("*.ipynb"))
EXPECTED = ["01_quickstart", "02_phi_tour", "03_quantum_cognition", "04_memory_and_speed", "05_own_module"]
TIMEOUT_S = 600  # per cell; each notebook takes 10-30 s on 2 cores


def stored_outputs(nb) -> list[str]:
    """Every code cell that carries outputs or an execution count (i.e. was saved after running)."""
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if cell.get("outputs"):
            found.append(f"cell {i}: {len(cell['outputs'])} outputs")
        if cell.get("execution_count") is not None:
            found.append(f"cell {i}: execution_count {cell['execution_count']}")
    return found


def test_the_notebooks_are_there():
    assert [p.stem for p in NOTEBOOKS] == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert stored_outputs(nb) == [], f"{path.name}: clear the outputs before committing"


def test_a_notebook_saved_with_outputs_is_caught():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# x"), nbformat.v4.new_code_cell("1 + 1")])
    assert stored_outputs(nb) == []
    nb.cells[1].execution_count = 1
    nb.cells[1].outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=1)]
    assert stored_outputs(nb) == ["cell 1: 1 outputs", "cell 1: execution_count 1"]


# Notebooks that run the architecture: each must print its criteria and, when one failed, why.
RUNS_THE_ARCHITECTURE = {"01_quickstart", "05_own_module"}
SKIPPED_IN_SNAPSHOT = {".git", "__pycache__", ".pytest_cache"}


def checkout_snapshot(root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """Every file of the checkout (tracked, untracked and ignored alike), with its size and mtime,
    less git's own directory and the caches Python and pytest keep."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIPPED_IN_SNAPSHOT]
        for name in filenames:
            path = Path(dirpath) / name
            try:
                st = path.lstat()
            except FileNotFoundError:
                continue
            found[str(path.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return found


def snapshot_changes(before: dict, after: dict) -> list[str]:
    """What happened to the checkout between two snapshots, one line per file."""
    return ([f"created {p}" for p in sorted(after.keys() - before.keys())]
            + [f"removed {p}" for p in sorted(before.keys() - after.keys())]
            + [f"changed {p}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]])


def test_the_snapshot_sees_files_created_changed_and_removed(tmp_path):
    (tmp_path / "kept.txt").write_text("a")
    (tmp_path / "edited.txt").write_text("a")
    (tmp_path / "gone.txt").write_text("a")
    (tmp_path / "__pycache__").mkdir()
    before = checkout_snapshot(tmp_path)
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "oscillator.py").write_text("x = 1\n")  # what notebook 05 used to write
    (tmp_path / "edited.txt").write_text("bb")
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"")
    assert snapshot_changes(before, checkout_snapshot(tmp_path)) == [
        "created experiments/oscillator.py", "removed gone.txt", "changed edited.txt"]


def text_output(nb) -> str:
    """Everything the notebook's code cells printed or displayed as text."""
    parts = []
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        for o in c.outputs:
            if o.output_type == "stream":
                parts.append(o.text)
            elif o.output_type in ("execute_result", "display_data"):
                parts.append(o.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


@pytest.mark.integration
@pytest.mark.notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path, monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    before = checkout_snapshot()
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=TIMEOUT_S, kernel_name="python3",
                   resources={"metadata": {"path": str(EXPERIMENTS)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    assert sum(1 for c in nb.cells if c.cell_type == "code" and c.outputs) >= 3  # it showed something
    assert snapshot_changes(before, checkout_snapshot()) == []  # nothing written into the checkout
    if path.stem in RUNS_THE_ARCHITECTURE:  # it says whether its runs passed and, if not, why
        out = text_output(nb)
        verdicts = re.findall(r"^(every criterion passed|a criterion failed) \(python -m cognition\.validate exits "
                              r"([01])\)$", out, flags=re.M)
        assert verdicts, out[-2000:]
        failed = [v for v in verdicts if v[0] == "a criterion failed"]
        assert all(code == ("1" if v == "a criterion failed" else "0") for v, code in verdicts)
        assert out.count("why, at this size (") >= len(failed), out[-2000:]
        assert "[FAIL]" in out or not failed
