"""Optional ``torch.compile`` of the step's tensor kernels (``runtime.compile``).

The step's tensor work lives in small pure functions, the *kernels*: the GRU
feature map and the RLS readout of the expectation, the stochastic RNN and the
association map of the unconscious, the workspace competition. Every input is
an argument (weights included) and every output a fresh tensor, so a kernel can
be compiled as a whole graph (``fullgraph=True``). What is not a kernel stays
eager: the quantum circuits (their own backends), the decision model (numpy)
and the per-agent random streams (numpy Philox), whose draws enter the kernels
as tensors, so compiled and eager runs consume the same random numbers.

Modes:

* ``off`` (default): eager.
* ``default``: ``torch.compile`` (TorchInductor: fused C++ kernels on the CPU,
  Triton on CUDA). The first cycle pays the compilation (seconds to tens of
  seconds); each new batch shape (an OOM retry halves the batch) compiles again.
* ``reduce-overhead``: the same, and on CUDA the kernels are replayed as CUDA
  graphs, which removes the per-launch CPU overhead that dominates small
  batches. CUDA graphs keep their own memory pool per captured shape, so it is
  off in ``configs/low_memory_4gb.yaml``. On the CPU it behaves as ``default``.

Outputs of a CUDA-graph replay live in that pool and are overwritten by the
next replay; the loop keeps the state before a cycle for an OOM retry, so in
that mode every output is cloned before it leaves the kernel.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from cognition.errors import CompileFailedError

COMPILE_MODES = ("off", "default", "reduce-overhead")


def _clone_outputs(out):
    import torch

    if isinstance(out, torch.Tensor):
        return out.clone()
    if isinstance(out, tuple):
        return tuple(_clone_outputs(o) for o in out)
    return out


@dataclass
class StepCompiler:
    """Wraps kernels with ``torch.compile`` for ``mode`` on ``device`` (identity when off)."""

    mode: str
    device: str
    kernels: list[str] = field(default_factory=list)

    def __post_init__(self):
        if self.mode not in COMPILE_MODES:
            raise ValueError(f"one of {', '.join(COMPILE_MODES)}")

    @property
    def enabled(self) -> bool:
        return self.mode != "off"

    @property
    def cuda_graphs(self) -> bool:
        return self.mode == "reduce-overhead" and self.device.startswith("cuda")

    def __call__(self, fn):
        if not self.enabled:
            return fn
        import torch

        self.kernels.append(fn.__name__)
        compiled = torch.compile(fn, mode=self.mode, dynamic=False, fullgraph=True)
        if not self.cuda_graphs:
            return compiled

        def replay(*args):
            torch.compiler.cudagraph_mark_step_begin()
            return _clone_outputs(compiled(*args))

        replay.__qualname__ = fn.__qualname__
        return replay

    def describe(self) -> dict:
        return {"mode": self.mode, "cuda_graphs": self.cuda_graphs, "kernels": sorted(set(self.kernels))}


def warm_up(loop, compiler: StepCompiler, batch) -> dict:
    """Compile every kernel for the run's shapes by advancing one throw-away cycle.

    The loop is pure in its state and the random streams are counter-based, so this
    changes nothing the run computes. A compilation failure becomes
    :class:`CompileFailedError` before anything of the run is written.
    """
    info = compiler.describe()
    if not compiler.enabled:
        return info
    from torch._dynamo.exc import TorchDynamoException

    from cognition.errors import classify_oom, first_line
    from cognition.runtime.oom import free_memory

    t0 = time.perf_counter()
    try:
        loop.advance(loop.initial_state(), batch)
    except TorchDynamoException as exc:
        raise CompileFailedError(first_line(str(exc)) or type(exc).__name__) from None
    except Exception as exc:  # noqa: BLE001 - only out-of-memory errors are deferred, the rest re-raised
        if classify_oom(exc) is None:
            raise
        free_memory(str(loop.device))
        info["warmup_deferred"] = ("out of memory in the warm-up cycle: kernels compile in cycle 1, "
                                   "where the runner retries an OOM with a smaller batch")
    info["warmup_seconds"] = round(time.perf_counter() - t0, 3)
    return info
