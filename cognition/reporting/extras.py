"""Optional libraries, imported where they are used and never by a run.

The ``tables`` extra (pandas, xarray, h5netcdf and h5py: labelled tables of a run, ``.nc`` files for
``python -m cognition.phi``) is installed with ``pip install -c constraints.txt -e ".[tables]"``.
"""
from __future__ import annotations

import importlib
from types import ModuleType

from cognition.errors import MissingExtraError

TABLES = "tables"


def import_extra(module: str, extra: str, purpose: str) -> ModuleType:
    """``module`` imported, or a MissingExtraError (one line) naming ``purpose`` and the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(f"{purpose} needs {module.split('.')[0]}, which is not installed ({exc}); install "
                                f"the '{extra}' extra: pip install -c constraints.txt -e \".[{extra}]\"") from None
