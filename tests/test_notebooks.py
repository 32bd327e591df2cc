"""The research notebooks in experiments/: committed without outputs, and each runs top to bottom.

Execution (marker `notebooks`, part of the default run) uses nbclient with the `python3`
kernel, the kernel's working directory in the test's tmp dir and the repository on
PYTHONPATH; the notebooks write only into temporary directories of their own.
"""
from __future__ import annotations

import os
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


def _listing(path: Path) -> set[str]:
    return {str(p.relative_to(path)) for p in path.rglob("*")} if path.exists() else set()


@pytest.mark.integration
@pytest.mark.notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path, tmp_path, monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    before = (_listing(EXPERIMENTS), _listing(ROOT / "runs"))
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=TIMEOUT_S, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    assert sum(1 for c in nb.cells if c.cell_type == "code" and c.outputs) >= 3  # it showed something
    assert (_listing(EXPERIMENTS), _listing(ROOT / "runs")) == before  # nothing written into the repository
