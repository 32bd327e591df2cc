"""The module protocol, checked while a run runs: a module's fault stops the run at the cycle it happens.

Every call the loop makes to a module (``init_weights``, ``init_state``, ``propose``, ``learn``,
``units``) goes through a :class:`ProtocolGuard`, and so does the reading of which per-cycle methods take
``cycle=`` (:meth:`ProtocolGuard.cycle_methods`, when the loop is built). What breaks the protocol becomes a
:class:`cognition.errors.ModuleFault`, one line naming the module, the method, the output and what
was expected (docs/modules.md, "When a module fails"):

* a method that raises (except out of memory, which goes on to the runner's retries, and a failure of
  ``runtime.compile``, which has its own line), or that calls ``sys.exit`` or raises KeyboardInterrupt
  itself (``cognition.errors.MODULE_EXITS``: the run's own signals never surface as these while it runs),
  so that a module cannot end the run with its own exit code;
* an output that is not a tensor, or has the wrong shape, dtype or device: every tensor has the
  launch's rows (the agents and their controls' rows) first; content ``(rows, D)``, salience and
  each extra ``(rows,)``, units ``(rows, len(unit_signals))``, weights ``(rows, *weight_shapes[name])``;
  a state keeps the keys, shapes and dtypes of the state it replaces; floating outputs are in the
  run's dtype (or ``runtime.autocast``'s, from ``propose``) and every output but the weights on the
  run's device;
* NaN or inf in any floating output.

Cost: shape, dtype and device are Python metadata, compared as each output arrives. Finiteness is
one sum per new floating tensor (NaN and inf carry through a sum), and the sums of a whole cycle are
checked together, one host sync at its end, or at once when anything raises in the cycle (so that a
NaN which makes a later module or the workspace raise is reported as what it is, the cause). A sum
that overflows on finite values is checked again element by element, so no healthy run stops. The
checks only read: no number of a run changes.
"""
from __future__ import annotations

import torch

from cognition.errors import MODULE_EXITS, ModuleFault, classify_oom, describe_module_error
from cognition.modules.base import CYCLE_METHODS, Proposal, cycle_signature

MESSAGE_CHARS = 300  # of a module's own error message, quoted in the fault's line
COMPILER_PACKAGES = ("torch._dynamo", "torch._inductor")  # runtime.compile's errors (cognition.runtime.compile)


def runtime_error(exc: BaseException) -> bool:
    """Whether ``exc``, raised inside a module's method, is the runtime's to handle rather than the module's
    fault: an out-of-memory error (the runner retries it) or a failure of runtime.compile (the warm-up
    names it; torch._dynamo is not imported to tell)."""
    compiler = any(c.__module__.startswith(COMPILER_PACKAGES) for c in type(exc).__mro__)
    return compiler or classify_oom(exc) is not None


def dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def shape_text(shape: tuple) -> str:
    """A shape with its leading dimension written as 'rows': (rows,), (rows, 16)."""
    return "(" + ", ".join(["rows", *map(str, shape[1:])]) + ("," if len(shape) == 1 else "") + ")"


class ProtocolGuard:
    """The checks of one cycle (``cycle``; None: the build, before cycle 1) of a loop whose tensors are
    ``dtype`` on ``device``; ``low``: runtime.autocast's dtype, allowed for what ``propose`` returns."""

    def __init__(self, dtype, device, cycle: int | None = None, low=None):
        self.dtype, self.device, self.cycle, self.low = dtype, torch.device(device), cycle, low
        self.sums: list[torch.Tensor] = []  # one per floating tensor recorded, awaiting the finiteness check
        self.pending: list[tuple] = []  # (tensor, what tensor() was told) of each sum

    # -- faults -------------------------------------------------------------
    def fault(self, module: str, method: str, problem: str, output: str | None = None, expected: str | None = None):
        return ModuleFault(module, method, problem, output=output, expected=expected, cycle=self.cycle)

    def call(self, module: str, method: str, fn, *args, **kwargs):
        """``fn(*args, **kwargs)``; what it raises becomes a ModuleFault, unless it is the runtime's own (out of
        memory, compilation), or unless a non-finite output earlier in the cycle explains it."""
        try:
            return fn(*args, **kwargs)
        except (Exception, *MODULE_EXITS) as exc:  # noqa: BLE001 - the module's error (or exit), named as the module's
            if isinstance(exc, Exception) and runtime_error(exc):
                raise
            self.settle()
            text = describe_module_error(exc)
            if len(text) > MESSAGE_CHARS:
                text = text[:MESSAGE_CHARS - 3] + "..."
            raise self.fault(module, method, text) from exc

    def settle(self) -> None:
        """The finiteness of every tensor recorded so far, with one host sync: a ModuleFault for the first
        (in the order the cycle made them) that holds NaN or inf."""
        if not self.sums:
            return
        sums = torch.stack(self.sums)
        if bool(torch.isfinite(sums).all()):
            self.sums.clear(), self.pending.clear()
            return
        bad = (~torch.isfinite(sums)).nonzero().flatten().tolist()
        for i in bad:
            value, (module, method, output, shape, dtypes, _, any_device) = self.pending[i]
            nan, inf = int(torch.isnan(value).sum()), int(torch.isinf(value).sum())
            if nan or inf:  # else a sum that overflowed on finite values
                what = " and ".join(w for w, n in (("NaN", nan), ("inf", inf)) if n)
                raise self.fault(module, method, f"contains {what} in {nan + inf} of {value.numel()} values",
                                 output, self.expectation(shape, dtypes, any_device))
        self.sums.clear(), self.pending.clear()

    # -- one tensor -----------------------------------------------------------
    def tensor(self, module: str, method: str, output: str, value, shape: tuple | None, dtypes: tuple,
               *, rows: int | None = None, any_device: bool = False) -> None:
        """Check ``value`` against ``shape`` (None: only its first dimension, ``rows``), ``dtypes`` (the first
        named in the message) and the run's device; record its sum when floating. The fast path compares
        metadata only; the words of a fault are made when there is one."""
        what = (module, method, output, shape, dtypes, rows, any_device)
        if not isinstance(value, torch.Tensor) or value.dtype not in dtypes or \
                (value.shape != shape if shape is not None else value.dim() == 0 or value.shape[0] != rows) or \
                not (any_device or self.on_device(value)):
            raise self.mismatch(value, *what)
        if value.is_floating_point():
            self.sums.append(value.sum())
            self.pending.append((value, what))

    def mismatch(self, value, module, method, output, shape, dtypes, rows, any_device) -> ModuleFault:
        """The fault of a ``value`` that :meth:`tensor` refused."""
        expected = self.expectation(shape, dtypes, any_device)
        if not isinstance(value, torch.Tensor):
            problem = f"is a {type(value).__name__}, not a tensor"
        elif shape is not None and value.shape != shape:
            problem = f"has shape {tuple(value.shape)}, not {tuple(shape)}"
        elif shape is None and (value.dim() == 0 or value.shape[0] != rows):
            problem = f"has shape {tuple(value.shape)}, not {rows} rows first"
        elif value.dtype not in dtypes:
            problem = f"has dtype {dtype_name(value.dtype)}"
        else:
            problem = f"is on {value.device}"
        return self.fault(module, method, problem, output, expected)

    def expectation(self, shape, dtypes: tuple, any_device: bool) -> str:
        """What a tensor should be, in words: 'finite values of shape (rows,), float32 on cpu'."""
        dims = shape_text(tuple(shape)) if shape is not None else "(rows, ...)"
        where = "" if any_device else f" on {self.device}"
        return f"{'finite ' if dtypes[0].is_floating_point else ''}values of shape {dims}, " + \
            " or ".join(map(dtype_name, dtypes)) + where

    def on_device(self, value: torch.Tensor) -> bool:
        d = value.device
        return d.type == self.device.type and (self.device.index is None or d.index == self.device.index)

    def floats(self, low: bool) -> tuple:
        return (self.dtype, self.low) if low and self.low is not None else (self.dtype,)

    def mapping(self, module: str, method: str, output: str, value) -> dict:
        if not isinstance(value, dict):
            raise self.fault(module, method, f"is a {type(value).__name__}, not a dict of tensors", output,
                             "a dict: name -> tensor")
        return value

    # -- the protocol's signatures ---------------------------------------------
    def cycle_methods(self, module) -> frozenset[str]:
        """Which of ``module``'s per-cycle methods (``CYCLE_METHODS``) name a parameter ``cycle``, and so are
        passed ``cycle=``. A method that names it but cannot be called with its arguments and ``cycle=`` (a
        positional-only ``cycle``, one that takes a positional argument's place) is a fault, before cycle 1."""
        takes = set()
        for method, args in CYCLE_METHODS.items():
            signature = cycle_signature(getattr(module, method))
            if signature is None:
                continue
            try:
                signature.bind(*args, cycle=1)
            except TypeError as exc:
                raise self.fault(module.name, method, f"names cycle in {signature} but cannot be called as "
                                 f"{method}({', '.join(args)}, cycle=...): {exc}", None,
                                 f"a keyword-only parameter: def {method}(self, {', '.join(args)}, *, cycle)"
                                 ) from None
            takes.add(method)
        return frozenset(takes)

    # -- the protocol's outputs -----------------------------------------------
    def weights(self, module, value, rows: int) -> None:
        """``init_weights``: name -> (rows, *shape) floating tensors; ``weight_shapes`` gives the shapes.
        Their dtype and device are the module's own (the quantum reservoir keeps its angles in float64
        on the CPU): only floating is required."""
        for name, w in self.mapping(module.name, "init_weights", "weights", value).items():
            shape = (rows, *module.shapes[name]) if name in module.shapes else None
            dtypes = (w.dtype,) if isinstance(w, torch.Tensor) and w.is_floating_point() else (self.dtype,)
            self.tensor(module.name, "init_weights", f"weights.{name}", w, shape, dtypes, rows=rows,
                        any_device=True)

    def initial_state(self, name: str, value, rows: int) -> None:
        """``init_state``: name -> (rows, ...) tensors, floating ones in the run's dtype."""
        for key, t in self.mapping(name, "init_state", "state", value).items():
            dtypes = (self.dtype,) if not isinstance(t, torch.Tensor) or t.is_floating_point() else (t.dtype,)
            self.tensor(name, "init_state", f"state.{key}", t, None, dtypes, rows=rows)

    def state(self, name: str, method: str, value, before: dict, low: bool = False) -> None:
        """A new state: the keys of ``before``, each with its shape and dtype (floating: the run's, or
        autocast's from ``propose``). A tensor handed back unchanged is not checked again."""
        value = self.mapping(name, method, "state", value)
        if value.keys() != before.keys():
            raise self.fault(name, method, f"has the keys {sorted(value)}", "state",
                             f"the keys of the state it was handed, {sorted(before)}")
        for key, t in value.items():
            old = before[key]
            if t is old:
                continue
            dtypes = self.floats(low) if old.is_floating_point() else (old.dtype,)
            self.tensor(name, method, f"state.{key}", t, old.shape, dtypes)

    def proposal(self, name: str, value, state: dict, rows: int, width: int) -> None:
        """What ``propose`` returns: (Proposal(content (rows, D), salience (rows,), extras name -> (rows,)),
        new state)."""
        if not (isinstance(value, tuple) and len(value) == 2):
            raise self.fault(name, "propose", f"returned a {type(value).__name__}", None,
                             "a tuple (Proposal, new state)")
        proposal, new_state = value
        if not isinstance(proposal, Proposal):
            raise self.fault(name, "propose", f"is a {type(proposal).__name__}", "proposal",
                             "a cognition.modules.Proposal")
        floats = self.floats(low=True)
        self.tensor(name, "propose", "content", proposal.content, torch.Size((rows, width)), floats)
        self.tensor(name, "propose", "salience", proposal.salience, torch.Size((rows,)), floats)
        for key, t in self.mapping(name, "propose", "extras", proposal.extras).items():
            self.tensor(name, "propose", f"extras.{key}", t, torch.Size((rows,)), floats)
        self.state(name, "propose", new_state, state, low=True)

    def units(self, name: str, value, rows: int, n: int) -> None:
        self.tensor(name, "units", "units", value, torch.Size((rows, n)), (self.dtype,))
