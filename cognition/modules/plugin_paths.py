"""Modules of one's own named by path in a configuration: ``modules.plugins``.

Each entry is ``[NAME=]TARGET:CLASS``:

* TARGET a Python file, ``path/to/leaky.py`` (any entry whose target ends in ``.py`` or
  holds a ``/``): imported as the module named after the file (``leaky``), without
  packaging it. A relative path is taken relative to the YAML file that names it
  (``--config``, or a sweep file's ``base:``), or to the working directory for overrides
  given in Python; the resolved configuration holds the absolute path;
* or TARGET a dotted module, ``my_pkg.leaky``, importable from ``sys.path`` (installed,
  or on ``PYTHONPATH``).

CLASS is a subclass of :class:`cognition.modules.CognitiveModule` defined there. It is
registered under NAME, else under the class's ``name`` attribute (set by
``@register_module`` in the file), else under the class's name in lower case
(``Leaky`` -> ``leaky``), and can then be listed in ``modules.enabled``. Anything that
cannot be loaded is a :class:`ConfigError` on ``modules.plugins``: one line naming the
entry and what is allowed, before anything is written.

The file a class was loaded from and the SHA-256 of the bytes that were executed are
recorded in the run's provenance (:func:`records`); :func:`check_resume` compares them
with the file as it is when the run is resumed.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from cognition.modules import plugins
from cognition.errors import (MODULE_EXITS, ConfigError, PluginFileChanged, describe_error, describe_module_error,
                              path_kind)

FIELD = "modules.plugins"
FORMS = "'path/to/file.py:Class' or 'package.module:Class', optionally preceded by 'name='"
PROVENANCE_FILES = ("provenance.resume.json", "provenance.json")  # the newest record of a run first
ACCEPT_FLAG = "--accept-plugin-change"

_loaded: dict[str, dict] = {}  # entry -> its provenance record (name, class, file, sha256)
_executed: dict[str, str] = {}  # absolute file path -> sha256 of the bytes this process executed


@dataclass(frozen=True)
class PluginEntry:
    """One ``modules.plugins`` entry, parsed."""

    text: str  # the entry as the configuration holds it
    name: str | None  # the name given before '=', if any
    target: str  # a file path or a dotted module
    attr: str  # the class's name in the target
    is_file: bool


def _refuse(entry, allowed: str) -> ConfigError:
    return ConfigError(FIELD, entry, allowed)


def parse(entry) -> PluginEntry:
    """The parts of one entry; ConfigError (one line) when it has not the form ``[NAME=]TARGET:CLASS``."""
    if not isinstance(entry, str) or ":" not in entry:
        raise _refuse(entry, FORMS)
    head, _, attr = entry.rpartition(":")
    name, sep, target = head.partition("=")
    if not sep or not name.isidentifier():
        name, target = None, head
    is_file = target.endswith(".py") or "/" in target or "\\" in target
    dotted = all(part.isidentifier() for part in target.split("."))
    if not attr.isidentifier() or not target or not (is_file or dotted):
        raise _refuse(entry, FORMS)
    return PluginEntry(entry, name, target, attr, is_file)


def resolve_entries(entries, base_dir: str | Path) -> list:
    """``entries`` with every relative file target made absolute against ``base_dir``; entries that
    do not parse are kept as they are (they are refused, naming themselves, when loaded)."""
    out = []
    for entry in entries:
        try:
            spec = parse(entry)
        except ConfigError:
            out.append(entry)
            continue
        if spec.is_file and not Path(spec.target).is_absolute():
            target = str((Path(base_dir) / spec.target).resolve())
            entry = f"{spec.name}={target}:{spec.attr}" if spec.name else f"{target}:{spec.attr}"
        out.append(entry)
    return out


def resolve_layer(layer: dict, base_dir: str | Path) -> dict:
    """A configuration layer (a mapping from YAML or Python) with its ``modules.plugins`` file paths
    resolved against ``base_dir``; the layer itself is left unchanged, a bad shape left for the schema."""
    modules = layer.get("modules") if isinstance(layer, dict) else None
    if not isinstance(modules, dict) or not isinstance(modules.get("plugins"), (list, tuple)):
        return layer
    return dict(layer, modules=dict(modules, plugins=resolve_entries(modules["plugins"], base_dir)))


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _same_file(a, b) -> bool:
    try:
        return a is not None and Path(a).resolve() == Path(b).resolve()
    except (OSError, ValueError):
        return False


def _check_module_name(entry: str, stem: str, path: Path) -> None:
    """The file is imported as the module ``stem``: refuse a name that another module already holds."""
    if not stem.isidentifier():
        raise _refuse(entry, f"a .py file whose name is a Python identifier (it is imported as the module "
                             f"'{stem}'); rename the file")
    held = sys.modules.get(stem)
    if held is not None:
        if not _same_file(getattr(held, "__file__", None), path):
            origin = getattr(held, "__file__", None) or "built-in code"
            raise _refuse(entry, f"a file whose module name '{stem}' is free (a module '{stem}' is already "
                                 f"imported from {origin}); rename the file")
        return
    try:
        found = importlib.util.find_spec(stem)
    except (ImportError, ValueError):
        found = None
    if found is not None and not _same_file(found.origin, path):
        raise _refuse(entry, f"a file whose module name '{stem}' is free (the module '{stem}' is importable from "
                             f"{found.origin or 'a namespace package'} and would be shadowed); rename the file")


def _import_file(entry: str, path: Path):
    """(module, sha256): the file imported as the module named after it; the bytes hashed are the
    bytes executed. A module this process imported from the same file is used again unless the
    file changed since this function executed it."""
    if path.suffix != ".py" or not path.is_file():
        what = "is not a .py file" if path.is_file() else ("is missing" if not path.exists() and not path.is_symlink()
                                                             else path_kind(path))
        raise _refuse(entry, f"an existing .py file ({path} {what})")
    try:
        source = path.read_bytes()
    except OSError as exc:
        raise _refuse(entry, f"a readable .py file ({exc.strerror or exc})") from None
    digest, stem, key = _digest(source), path.stem, str(path.resolve())
    _check_module_name(entry, stem, path)
    held = sys.modules.get(stem)
    if held is not None and _executed.get(key, digest) == digest:
        return held, digest
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[stem] = module  # dataclasses and pickling look the module up while it runs
    try:
        exec(compile(source, str(path), "exec"), module.__dict__)  # noqa: S102 - the user's own module
    except (Exception, *MODULE_EXITS) as exc:  # noqa: BLE001 - whatever the file does is the user's to fix
        if held is None:
            sys.modules.pop(stem, None)
        else:
            sys.modules[stem] = held
        raise _refuse(entry, f"a file that imports cleanly (it {describe_module_error(exc)})") from None
    _executed[key] = digest
    return module, digest


def _import_module(entry: str, target: str):
    """(module, sha256 of its source file) for a dotted module name."""
    try:
        module = importlib.import_module(target)
    except (Exception, *MODULE_EXITS) as exc:  # noqa: BLE001 - a missing or broken module is the user's to fix
        what = describe_error(exc) if isinstance(exc, Exception) else f"it {describe_module_error(exc)}"
        raise _refuse(entry, f"an importable module ({what})") from None
    file = getattr(module, "__file__", None)
    try:
        return module, _digest(Path(file).read_bytes())
    except (OSError, TypeError):
        raise _refuse(entry, f"a module with a readable source file ({target} has {file or 'none'})") from None


def _class_of(spec: PluginEntry, module) -> type:
    from cognition.modules.base import CognitiveModule

    cls = getattr(module, spec.attr, None)
    if cls is None:
        found = sorted(n for n, v in vars(module).items()
                       if isinstance(v, type) and issubclass(v, CognitiveModule) and v.__module__ == module.__name__)
        raise _refuse(spec.text, f"a class {spec.attr} in {spec.target} (it defines "
                                 f"{', '.join(found) or 'no CognitiveModule subclass'})")
    if not (isinstance(cls, type) and issubclass(cls, CognitiveModule)):
        what = ("a class that does not derive from it" if isinstance(cls, type)
                else f"an object of type {type(cls).__name__}")
        raise _refuse(spec.text, f"a subclass of cognition.modules.CognitiveModule ({spec.attr} is {what})")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(getattr(cls, "__abstractmethods__", ())))
        raise _refuse(spec.text, f"a class that implements the protocol ({spec.attr} does not define {missing})")
    return cls


def load(entries) -> None:
    """Import and register every entry (ConfigError, one line, for the first that cannot serve)."""
    for entry in entries:
        spec = parse(entry)
        if spec.is_file:
            path = Path(spec.target)
            module, digest = _import_file(entry, path)
            file = str(path.resolve())
        else:
            module, digest = _import_module(entry, spec.target)
            file = str(Path(module.__file__).resolve())
        cls = _class_of(spec, module)
        name = spec.name or cls.name or spec.attr.lower()
        try:
            plugins.register_by_path(cls, name)
        except plugins.RegistrationError as exc:
            raise _refuse(entry, f"a class that can be registered: {exc}") from None
        _loaded[entry] = {"entry": entry, "name": name, "class": f"{cls.__module__}.{cls.__qualname__}",
                          "file": file, "sha256": digest}


def records(entries) -> list[dict]:
    """What provenance.json holds of each loaded entry: entry, name, class, file and the sha256 of
    the bytes executed (entries that were not loaded in this process are left out)."""
    return [dict(_loaded[e]) for e in entries if e in _loaded]


def _current_file(record: dict) -> Path | None:
    """The file an entry would load now, without executing it (for a dotted module, as found on sys.path)."""
    try:
        spec = parse(record["entry"])
    except ConfigError:
        return None
    if spec.is_file:
        return Path(spec.target)
    try:
        found = importlib.util.find_spec(spec.target)
    except (ImportError, ValueError):
        return None
    return Path(found.origin) if found is not None and found.origin else None


def _recorded(run_dir: Path) -> tuple[str, list[dict]] | None:
    """(file name, plug-in records) of the run's newest provenance that holds them, or None."""
    for name in PROVENANCE_FILES:
        try:
            data = json.loads((run_dir / name).read_text())
        except (OSError, ValueError):
            continue
        held = data.get("plugins") if isinstance(data, dict) else None
        if isinstance(held, list):
            return name, [r for r in held if isinstance(r, dict) and isinstance(r.get("entry"), str)]
    return None


def check_resume(run_dir: str | Path, accept_changed: bool = False) -> list[str]:
    """The resume check of modules loaded by path: every ``modules.plugins`` file the run was started
    (or last resumed) with, as its newest provenance record names it, must still exist and hold the
    same bytes (sha256), so that one run's cycles never splice two versions of a module's numbers.

    Called before the run's configuration is loaded (so before the files are imported again). A
    missing file is always refused; a changed file is refused unless ``accept_changed``
    (``--accept-plugin-change``, ``Simulator.resume(..., accept_plugin_change=True)``): for a module
    fixed after it stopped a run (issue 33's module faults), continuing with the fixed module is the
    user's call; the resume then records the new sha256 in provenance.resume.json, and the returned
    notes (one line each) say what changed. Refusals are :class:`PluginFileChanged` (a UsageError,
    exit 2) naming ``modules.plugins``, the entry and what to do. A run without a readable record (one
    killed before its provenance was written, or started before plug-ins by path) is not judged.
    """
    run_dir = Path(run_dir)
    found = _recorded(run_dir)
    if found is None:
        return []
    source, held = found
    notes = []
    for record in held:
        entry, was = record["entry"], str(record.get("sha256"))
        path = _current_file(record)
        head = f"--resume {run_dir}: {FIELD} = {entry!r}"
        if path is None or not path.is_file():
            raise PluginFileChanged(f"{head}: its file {path or record.get('file')} is missing; the run was "
                                    f"started with it (sha256 {was[:12]} in {source}): restore it to continue")
        try:
            now = _digest(path.read_bytes())
        except OSError as exc:
            raise PluginFileChanged(f"{head}: its file {path} is unreadable ({exc.strerror or exc})") from None
        if now == was:
            continue
        change = f"{path} changed since the run last ran (sha256 {was[:12]} in {source}, now {now[:12]})"
        if not accept_changed:
            raise PluginFileChanged(f"{head}: {change}; continuing would splice two versions of the module's "
                                    f"numbers into one run: restore the file, or continue with the changed module "
                                    f"(recorded in provenance.resume.json): python -m cognition.validate --resume "
                                    f"{run_dir} {ACCEPT_FLAG}")
        notes.append(f"{FIELD}: {change}; continuing with the changed module ({ACCEPT_FLAG})")
    return notes
