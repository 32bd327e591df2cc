"""Docs stay true to the code: every config key is documented, and the README opens with the two commands."""
import dataclasses
import re
from pathlib import Path

from cognition.config.settings import Config

ROOT = Path(__file__).resolve().parent.parent


def _keys(cls, prefix=""):
    for f in dataclasses.fields(cls):
        if dataclasses.is_dataclass(f.default_factory if f.default_factory is not dataclasses.MISSING else None):
            yield from _keys(f.default_factory, f"{prefix}{f.name}.")
        else:
            yield prefix, f.name


def test_every_config_key_is_in_the_configuration_doc():
    doc = (ROOT / "docs" / "configuration.md").read_text()
    for section in ("run", "quantum", "modules", "workspace", "phi", "criteria", "runtime"):
        assert f"## {section}" in doc
    missing = []
    for prefix, name in _keys(Config):
        parts = prefix.rstrip(".").split(".")
        key = f"`{'.'.join(parts[1:] + [name])}`" if len(parts) > 1 else f"`{name}`"
        if key not in doc:
            missing.append(prefix + name)
    assert not missing, missing


def test_readme_opens_with_the_two_commands_ci_runs():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert lines[0] == "```bash"
    install_run, install_test = lines[1], lines[2]
    assert install_run.endswith("python -m cognition.validate --cycles 50 --quantum-lite")
    assert install_test.endswith("python -m pytest")
    assert install_test in (ROOT / ".ci" / "run").read_text()


PATH_IN_DOCS = re.compile(r"(?<![\w./-])((?:cognition|quantum|tests|benchmarks|configs|experiments|docs)/[\w./{},*-]*\w)")


def _expand(path: str) -> list[str]:
    """``a/{b,c}.py`` -> ``a/b.py``, ``a/c.py`` (the shorthand the docs use for sibling files)."""
    match = re.search(r"\{([^{}]*)\}", path)
    if not match:
        return [path]
    return [p for alt in match.group(1).split(",") for p in _expand(path[:match.start()] + alt + path[match.end():])]


def test_every_path_the_docs_name_exists():
    """docs/*.md and README.md name files and folders of the repository; each one exists (a glob matches)."""
    missing = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for found in PATH_IN_DOCS.findall(doc.read_text()):
            for path in _expand(found.rstrip(".")):
                path = re.sub(r"\b[A-Z][A-Z_]+\b", "*", path)  # a placeholder: configs/NAME.yaml
                if "*" in path:
                    if not list(ROOT.glob(path)):
                        missing.append(f"{doc.name}: {path}")
                elif not (ROOT / path).exists():
                    missing.append(f"{doc.name}: {path}")
    assert not missing, missing
