"""make_backend: build a backend by kind and device, or let `auto` choose and say why."""
from __future__ import annotations

from quantum.errors import BackendUnavailableError
from quantum.memory import DEFAULT_HEADROOM

KINDS = ("auto", "aer", "torch")
DEVICES = ("cpu", "gpu", "auto")

# Measured crossover on a shared 2-core CPU (docs/quantum.md; re-measured by `python -m
# cognition.bench quantum`). Aer pays ~0.2-2 ms per experiment, batched torch a few passes over
# the whole batch per gate: torch was 2-50x faster while the batch held fewer than 2^20
# amplitudes (1000 sets at 8 qubits: 12x; 1 set at 18 qubits: 7x) and Aer won from about 2^20
# on (16 sets at 16 qubits: 2x; 256 at 12: 1.2x; 1 at 22 qubits: 5x).
TORCH_CPU_MAX_AMPLITUDES = 2**20


def _torch_cuda() -> tuple[bool, str]:
    import torch

    if torch.cuda.is_available():
        return True, ""
    return False, f"torch {torch.__version__} sees no CUDA device (torch.cuda.is_available() is False)"


def _aer_gpu() -> tuple[bool, str]:
    from quantum.backends.aer_info import aer_info

    info = aer_info()
    return info["gpu"], info["gpu_reason"] or ""


def _aer_cpu() -> tuple[bool, str]:
    from quantum.backends.aer_info import aer_info

    info = aer_info()
    return info["installed"], info["gpu_reason"] or ""


def torch_is_faster_on_cpu(width: int, batch: int) -> tuple[bool, str]:
    """The CPU rule, (torch wins, the clause that decided): torch iff batch x 2^width < 2^20 amplitudes."""
    if batch * 2**width < TORCH_CPU_MAX_AMPLITUDES:
        return True, f"batch x 2^width = {batch} x 2^{width} < 2^20 amplitudes"
    return False, f"batch x 2^width = {batch} x 2^{width} >= 2^20 amplitudes"


def _auto_cpu(width: int, batch: int) -> tuple[str, str]:
    torch_wins, clause = torch_is_faster_on_cpu(width, batch)
    if torch_wins:
        return "torch", f"auto: {clause}: batched torch is faster than Aer on CPU here (measured crossover)"
    available, why = _aer_cpu()
    if not available:
        return "torch", f"auto: {clause} favours Aer, but {why}; using torch"
    return "aer", f"auto: {clause}: Aer is faster on CPU here (measured crossover)"


def _choose(kind: str, device: str, width: int, batch: int) -> tuple[str, str, str]:
    """(kind, device, reason) for a request; BackendUnavailableError when a GPU is asked for and absent."""
    if kind != "auto":
        if device == "auto":
            raise ValueError(f"device='auto' needs kind='auto'; kind={kind!r} needs device 'cpu' or 'gpu'")
        return kind, device, f"{kind} on {device} requested explicitly"
    if device in ("gpu", "auto"):
        aer_gpu, aer_why = _aer_gpu()
        if aer_gpu:
            return "aer", "gpu", f"auto: the Aer GPU build and a CUDA device are present (device={device!r})"
        cuda, cuda_why = _torch_cuda()
        if cuda:
            return "torch", "gpu", f"auto: no Aer GPU ({aer_why}); batched torch statevector on CUDA"
        if device == "gpu":
            raise BackendUnavailableError(f"device='gpu' cannot be met: Aer: {aer_why}; torch: {cuda_why}")
        kind, reason = _auto_cpu(width, batch)
        return kind, "cpu", f"{reason}; no GPU (Aer: {aer_why}; torch: {cuda_why})"
    kind, reason = _auto_cpu(width, batch)
    return kind, "cpu", reason


def make_backend(kind: str = "auto", device: str = "cpu", max_qubits: int = 16, threads: int = 4,
                 precision: str = "double", memory_budget_bytes: int | None = None,
                 expected_width: int | None = None, expected_batch: int | None = None,
                 headroom: float = DEFAULT_HEADROOM):
    """A QuantumBackend.

    kind: "aer", "torch", or "auto" (Aer GPU when present; else the faster CPU path for
    expected_width (default max_qubits) and expected_batch (default 1)).
    device: "cpu" or "gpu"; with kind="auto" also "auto" (a GPU if one can be used, else CPU).
    A GPU that cannot be used is a BackendUnavailableError saying why, never a CPU run.
    max_qubits: the qubit cap; threads: Aer max_parallel_threads and torch intra-op threads;
    memory_budget_bytes: bytes the backend may plan statevectors into (None: sized to the
    cap, see quantum.backends.base.default_budget_bytes); headroom: fraction kept free.
    """
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r} is not allowed; allowed: {', '.join(KINDS)}")
    if device not in DEVICES:
        raise ValueError(f"device={device!r} is not allowed; allowed: {', '.join(DEVICES)}")
    width = int(expected_width if expected_width is not None else max_qubits)
    batch = int(expected_batch if expected_batch is not None else 1)
    chosen, where, reason = _choose(kind, device, width, batch)
    common = dict(max_qubits=max_qubits, threads=threads, precision=precision,
                  memory_budget_bytes=memory_budget_bytes, headroom=headroom, reason=reason)
    if chosen == "aer":
        from quantum.backends.aer import AerBackend

        return AerBackend(device=where, **common)
    from quantum.backends.torch_statevector import TorchStatevectorBackend

    return TorchStatevectorBackend(device="cuda" if where == "gpu" else "cpu", **common)


def available_backends() -> list[tuple[str, str]]:
    """(kind, device) pairs usable on this machine, e.g. [("torch", "cpu"), ("aer", "cpu")]. Probes."""
    out = [("torch", "cpu")]
    if _torch_cuda()[0]:
        out.append(("torch", "gpu"))
    if _aer_cpu()[0]:
        out.append(("aer", "cpu"))
    if _aer_gpu()[0]:
        out.append(("aer", "gpu"))
    return out
