"""The package's layers (cognition/__init__.py's table): a module imports only from its own layer or below.

Every import counts, at the top of a file or inside a function: an upward import hidden in a function is
still a dependency of the lower layer on the higher one. ``python -m`` commands (``__main__`` files) are
commands wherever they live, so they sit in the top layer.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import cognition

ROOT = Path(__file__).resolve().parent.parent


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def layer_of(name: str) -> int:
    """The layer of a module: its own entry, else its package's (the longest prefix in cognition.LAYERS)."""
    if name == "cognition":
        return 0  # the package's __init__: the version and lazy names, importing nothing; every import runs it
    if name.endswith(".__main__"):
        return max(cognition.LAYERS.values())
    parts = name.split(".")
    for i in range(len(parts), 1, -1):
        if ".".join(parts[:i]) in cognition.LAYERS:
            return cognition.LAYERS[".".join(parts[:i])]
    if parts[0] in cognition.LAYERS:
        return cognition.LAYERS[parts[0]]
    raise KeyError(f"{name}: in no layer of cognition.LAYERS (add its file or folder to the table)")


def imported(tree: ast.AST, name: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, module) for every import of the package's own modules in ``tree``, relative ones resolved."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")[: len(name.split(".")) - node.level + (1 if is_package else 0)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for a in node.names:  # "from cognition import report" imports the module cognition.report
                sub = f"{module}.{a.name}"
                out.append((node.lineno, sub if _is_module(sub) else module))
    return [(line, m) for line, m in out if m.split(".")[0] in ("cognition", "quantum")]


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def upward_imports(root: Path = ROOT) -> list[str]:
    bad = []
    for path in sorted([*(root / "cognition").rglob("*.py"), *(root / "quantum").rglob("*.py")]):
        name = module_name(path)
        mine = layer_of(name)
        for line, target in imported(ast.parse(path.read_text()), name, path.name == "__init__.py"):
            theirs = layer_of(target)
            if theirs > mine:
                bad.append(f"{path.relative_to(root)}:{line}: {name} (layer {mine}) imports {target} "
                           f"(layer {theirs})")
    return bad


def test_no_module_imports_from_a_higher_layer():
    assert upward_imports() == []


def test_every_module_has_a_layer():
    for path in [*(ROOT / "cognition").rglob("*.py"), *(ROOT / "quantum").rglob("*.py")]:
        layer_of(module_name(path))  # KeyError names the file


def test_quantum_knows_nothing_of_cognition():
    assert cognition.LAYERS["quantum"] == 1


@pytest.mark.parametrize("planted", ["from cognition.reporting import plots",
                                     "    from cognition.simulator.session import Session  # inside a function"])
def test_a_planted_upward_import_is_caught(tmp_path, planted):
    """The check itself can fail: phi (layer 3) importing reporting or the simulator is reported."""
    tree = tmp_path / "cognition" / "phi"
    tree.mkdir(parents=True)
    body = planted if not planted.startswith(" ") else f"def f():\n{planted}\n"
    (tree / "planted.py").write_text(body)
    name = "cognition.phi.planted"
    found = [(line, t) for line, t in imported(ast.parse(body), name, False) if layer_of(t) > layer_of(name)]
    assert len(found) == 1


def test_importing_the_package_or_phi_loads_no_iit_code_and_no_torch():
    """issue 32: the public names are lazy (PEP 562); exact IIT and torch load when used, not when imported."""
    code = ("import sys, cognition, cognition.phi\n"
            "loaded = sorted(m for m in sys.modules if '.iit' in m or m.split('.')[0] in ('torch', 'qiskit'))\n"
            "print(loaded)\n"
            "cognition.phi.iit3\n"
            "print(any(m.startswith('cognition.phi.iit3') for m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=ROOT, check=True).stdout.split("\n")
    assert out[0] == "[]" and out[1] == "True"


def test_the_public_names_resolve_to_their_definitions():
    from cognition.api import Simulator
    from cognition.errors import RunFailure, UsageError

    assert cognition.Simulator is Simulator and cognition.UsageError is UsageError
    assert cognition.RunFailure is RunFailure and callable(cognition.phi.iit3)
    with pytest.raises(AttributeError, match="no attribute 'loop'"):
        cognition.loop  # noqa: B018 (not public: cognition.architecture.loop)
