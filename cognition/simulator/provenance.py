"""Provenance: what produced a run's numbers (versions, git SHA, seed, device, backends).

Library versions are read from installed distribution metadata, never by
importing the library, so a ``--disable-quantum`` run does not import qiskit.
"""
from __future__ import annotations

import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

import cognition
from cognition.modules.plugin_paths import records

LIBRARIES = ("numpy", "scipy", "torch", "networkx", "qiskit", "qiskit-aer", "qiskit-aer-gpu",
             "matplotlib", "PyYAML")


def library_versions() -> dict:
    out = {}
    for name in LIBRARIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def git_sha() -> str | None:
    root = Path(cognition.__file__).resolve().parent.parent
    try:
        res = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if res.returncode != 0:
        return None
    return res.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def collect(cfg, *, device: dict, components: dict, quantum_backend: dict | None, notes: list[str],
            argv: list[str]) -> dict:
    """components: module name -> describe() dict (variant, backend, ...)."""
    from cognition.modules import variant_of
    from cognition.modules.plugins import has_quantum_variant

    classical = sorted(n for n, d in components.items() if d["variant"] == "classical")
    # not a plug-in that is classical by design, nor one the configuration asked to run classical
    fallback = [n for n in classical if has_quantum_variant(n) and variant_of(cfg, n) == "quantum"]
    return {
        "package": {"name": "hybrid-cognition", "version": cognition.__version__, "git_sha": git_sha()},
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "libraries": library_versions(),
        "seed": cfg.run.seed,
        "quantum_mode": cfg.quantum.mode,
        "device": device,
        "quantum_backend": quantum_backend,
        "components": components,
        "plugins": records(cfg.modules.plugins),  # modules.plugins: file and sha256 of what ran (checked on resume)
        "classical_components": classical,
        "any_classical": bool(classical),
        "classical_fallback": bool(fallback),
        "notes": notes,
        "argv": argv,
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
