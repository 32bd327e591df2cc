"""What Aer is installed and which devices it can use; probed once, then cached.

`qiskit-aer` (CPU) and `qiskit-aer-gpu` (CUDA 12, Linux x86_64) install the same
`qiskit_aer` module, so the distribution name is the only way to tell which build
is present, and having both installed means one silently overwrote the other.
"""
from __future__ import annotations

import functools

from quantum.backends.base import package_version

GPU_INSTALL_HINT = ('install the Aer GPU build, which replaces qiskit-aer: '
                    'pip uninstall -y qiskit-aer && pip install -c constraints.txt -e ".[gpu]" '
                    "(hybrid-cognition[gpu]; CUDA 12, Linux x86_64)")


@functools.cache
def aer_info() -> dict:
    """JSON-able: installed, version, distribution ("qiskit-aer" | "qiskit-aer-gpu" | None),
    both_installed, warning (None or what to fix), available_devices (e.g. ["CPU"] or ["CPU", "GPU"]), gpu (bool),
    gpu_reason (why no GPU, or None). Imports qiskit_aer on the first call only."""
    cpu, gpu = package_version("qiskit-aer"), package_version("qiskit-aer-gpu")
    distribution = "qiskit-aer-gpu" if gpu else ("qiskit-aer" if cpu else None)
    info = {"installed": False, "version": None, "distribution": distribution,
            "both_installed": bool(cpu and gpu),
            "warning": ("both qiskit-aer and qiskit-aer-gpu are installed and share the qiskit_aer module: "
                        "uninstall both, then install one" if cpu and gpu else None),
            "available_devices": [], "gpu": False, "gpu_reason": None}
    try:
        import qiskit_aer
        from qiskit_aer import AerSimulator
    except ImportError as exc:
        info["gpu_reason"] = f"qiskit_aer is not importable ({exc}); pip install hybrid-cognition[aer]"
        return info
    info["installed"] = True
    info["version"] = qiskit_aer.__version__
    info["available_devices"] = list(AerSimulator().available_devices())
    info["gpu"] = "GPU" in info["available_devices"]
    if not info["gpu"]:
        if distribution != "qiskit-aer-gpu":
            info["gpu_reason"] = f"no Aer GPU build installed ({distribution} is the CPU build); {GPU_INSTALL_HINT}"
        else:
            info["gpu_reason"] = ("qiskit-aer-gpu is installed but Aer sees no CUDA device "
                                  "(no NVIDIA GPU visible, or its driver does not support CUDA 12)")
    return info
