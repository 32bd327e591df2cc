"""Turn a validated Config into a ready IntegrationLoop: the runtime's decisions.

Science code never probes hardware; this is where the package does it: which
torch device, which quantum backend (and why), which qubit widths under the
cap. Every decision is returned with its reason, for provenance.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from cognition.errors import ConfigError, DeviceUnavailableError, UsageError


@dataclass
class Assembly:
    loop: object
    device: dict  # device, reason, fell_back
    quantum_backend: dict | None
    components: dict  # module name -> describe()
    notes: list[str] = field(default_factory=list)
    backend: object = None  # the shared quantum backend, or None
    widths: dict | None = None  # circuit module -> qubit width after the cap
    compiler: object = None  # cognition.runtime.compile.StepCompiler


def _device(cfg) -> dict:
    from cognition.runtime.device import resolve_device

    try:
        choice = resolve_device(cfg.runtime.device, allow_cpu_fallback=cfg.runtime.allow_cpu_fallback)
    except DeviceUnavailableError as exc:
        raise UsageError(str(exc)) from None
    except ValueError as exc:
        raise ConfigError("runtime.device", cfg.runtime.device, str(exc)) from None
    return {"device": choice.device, "reason": choice.reason, "fell_back": choice.fell_back,
            "free_bytes": choice.free_bytes, "total_bytes": choice.total_bytes}


def _quantum_device(kind: str, run_device: str) -> tuple[str, str | None]:
    """The circuits' device follows the run's: a CUDA run puts them on the GPU, a CPU run on the
    CPU. Aer without its GPU build on a CUDA run stays on the CPU, with a note saying so."""
    from quantum import aer_info

    if not run_device.startswith("cuda"):
        return "cpu", None
    if kind == "aer" and not aer_info().get("gpu"):
        return "cpu", (f"quantum: circuits run on Aer CPU while torch runs on {run_device}: the Aer GPU "
                       "build (qiskit-aer-gpu, the 'gpu' extra) is not installed")
    return "gpu", None


def _quantum_backend(cfg, run_device: str, widths: dict):
    """The backend every circuit module shares, and a note when it is not on the run's device.

    widths: circuit module -> its width after the cap (:func:`cognition.modules.resolve_widths`)."""
    from quantum import BackendUnavailableError, make_backend

    q = cfg.quantum
    if q.mode == "full":
        kind = "aer" if q.backend == "auto" else q.backend
        threads = os.cpu_count() or 1
    else:
        kind, threads = q.backend, q.lite_threads
    device, note = _quantum_device(kind, run_device)
    budget = cfg.runtime.memory_budget_mb * 2**20 if cfg.runtime.memory_budget_mb else None
    try:
        backend = make_backend(kind=kind, device=device, max_qubits=q.qubit_cap, threads=threads,
                               precision=q.precision, memory_budget_bytes=budget,
                               expected_width=max(widths.values(), default=1), expected_batch=cfg.run.agents)
    except BackendUnavailableError as exc:
        raise UsageError(f"quantum.backend {kind} ({device}): {exc}") from None
    return backend, note


def intervention_loop(cfg):
    """The loop the intervention analysis records and perturbs (docs/iit4.md): ``cfg``'s agents alone, without
    the yoked control's twins, from the same seed, so the agents' weights and noise are the run's; under the
    proposals lesion, whose workspaces compete over their donors' proposals, the agents and their donors
    (:meth:`cognition.architecture.loop.IntegrationLoop.with_donors`)."""
    import dataclasses

    if cfg.control.lesion == "proposals":
        return assemble(cfg).loop.with_donors()
    return assemble(dataclasses.replace(cfg, control=dataclasses.replace(cfg.control, yoked=False))).loop


def assemble(cfg) -> Assembly:
    import torch

    from cognition.architecture.loop import IntegrationLoop
    # here, not at the top: the modules import torch, and Session imports this file before its host memory check
    from cognition.modules import build_modules, resolve_widths
    from cognition.runtime.compile import StepCompiler

    device = _device(cfg)
    dtype = torch.float64 if cfg.run.dtype == "float64" else torch.float32
    backend, widths, notes = None, None, []
    if cfg.quantum.mode != "disabled":
        widths, notes = resolve_widths(cfg)
        backend, note = _quantum_backend(cfg, device["device"], widths)
        notes += [note] if note else []
    modules = build_modules(cfg, dtype=dtype, device=device["device"], backend=backend, widths=widths)
    loop = IntegrationLoop(cfg, modules, device=device["device"], dtype=dtype)
    compiler = StepCompiler(cfg.runtime.compile, device["device"])
    loop.compile_kernels(compiler)
    components = {m.name: m.describe() for m in modules}
    qb = None
    if backend is not None:
        qb = dict(backend.describe(), reason=backend.reason)
    return Assembly(loop, device, qb, components, notes, backend, widths, compiler)
