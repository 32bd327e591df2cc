#!/usr/bin/env bash
# Create PyPhi 1.2.0's own virtualenv for compare.py (never the package's environment).
# PyPhi 1.2.0 (2019) needs numpy < 1.24 and scipy < 1.11; pyemd is built or fetched by pip.
set -euo pipefail
VENV="${1:-/tmp/pyphi-venv}"
PY="${PYTHON:-python3.11}"
"$PY" -m venv "$VENV"
"$VENV/bin/pip" install --upgrade pip
"$VENV/bin/pip" install "pyphi==1.2.0" "numpy<1.24" "scipy<1.11"
VENV="$(cd "$VENV" && pwd)"
cd "$(mktemp -d)"  # the import check below writes pyphi.log into the working directory
"$VENV/bin/python" - <<'PY'
import collections, collections.abc
for n in ("Iterable", "Mapping", "MutableMapping", "Sequence", "Callable", "Hashable", "Set"):
    setattr(collections, n, getattr(collections.abc, n))
import os; os.environ["PYPHI_WELCOME_OFF"] = "yes"
import pyemd, pyphi
print("pyphi", pyphi.__version__, "pyemd", getattr(pyemd, "__version__", "?"), "ok")
PY
