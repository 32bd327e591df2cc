"""Plug-in module files outside the package, imported the way a test needs them (shared by the module tests)."""
import importlib.util
from pathlib import Path

PLUGIN_MODULES = Path(__file__).resolve().parent / "plugin_modules"


def import_file(path: Path, name: str):
    """The Python file ``path`` imported as the module ``name``, without touching sys.path or sys.modules
    (a class in it that registers itself with @register_module is registered by this)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
