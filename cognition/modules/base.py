"""The module protocol every cognitive module implements, quantum or classical.

A module is a pure step function over an explicit, per-agent state: every
tensor in a state or proposal has the agents on its leading dimension, so the
loop can slice a batch of agents into smaller launches (for OOM recovery, or to
compare a batch against one agent at a time) and stitch the results back.

So do its fixed random weights (its anatomy): every agent draws its own
(:meth:`CognitiveModule.init_weights`, from :meth:`AgentStreams.weights`), a pure
function of (seed, agent, module, weight), so agents are independent replications
and the seed fixes the whole population. The loop holds them, beside the state and
never in a checkpoint, and hands each launch its own agents' slice.
"""
from __future__ import annotations

import inspect
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np
import torch

from cognition.architecture.streams import AgentStreams
from quantum.rowwise import rowwise_matmul  # noqa: F401 (re-exported: the modules' batch-invariant product)

State = dict[str, torch.Tensor]

# The methods the loop calls every cycle, with the arguments it passes them by position. A method that
# names a parameter ``cycle`` also gets ``cycle=``, the cycle being computed (docs/modules.md, "The cycle").
CYCLE_METHODS = {"propose": ("state", "inputs", "streams", "weights"), "learn": ("state", "broadcast"),
                 "units": ("proposal", "b_prev")}


def cycle_signature(method) -> inspect.Signature | None:
    """The signature of a module's bound ``method`` when it names a parameter ``cycle`` (the loop then passes
    it ``cycle=``), else None: a method of the protocol before the cycle, or one without a signature to read
    (a builtin), is called as it always was."""
    try:
        signature = inspect.signature(method)
    except (TypeError, ValueError):
        return None
    return signature if "cycle" in signature.parameters else None


@dataclass
class Proposal:
    """What a module offers the workspace at one cycle.

    content:  (agents, D) the proposed workspace content
    salience: (agents,)   its evidence for access, in the module's own units (a prediction
                          error, a novelty, a decisiveness); the workspace turns it into a
                          bid, its surprise relative to the module's running statistics
    extras:   name -> (agents,) per-agent diagnostics recorded in the metrics
    """

    content: torch.Tensor
    salience: torch.Tensor
    extras: dict[str, torch.Tensor] = field(default_factory=dict)


@dataclass(frozen=True)
class BuildContext:
    """What a run gives each module to build itself with (:meth:`CognitiveModule.build`)."""

    content_dim: int  # D, run.content_dim
    seed: int  # run.seed
    dtype: torch.dtype
    device: str
    variant: str  # "quantum" or "classical": what this run asks of the module (quantum.mode, its control)
    backend: object = None  # the run's quantum backend, for a module that declares a circuit width
    width: int | None = None  # its circuit width after the qubit cap; None for a module without circuits


class CognitiveModule(ABC):
    """One node of the architecture (the module protocol; docs/modules.md).

    ``reads`` names what the module consumes: ``"broadcast"`` is the workspace
    broadcast of the previous cycle; any other name is the proposal another
    module makes in the same cycle, which fixes the order modules run in.

    A module of one's own subclasses this, implements :meth:`init_state` and
    :meth:`propose` (and, as it needs, ``unit_signals``/:meth:`units`,
    :meth:`weight_shapes`/:meth:`init_weights`, :meth:`learn`), and is registered with
    :func:`cognition.modules.register_module`, a ``cognition.modules`` entry point, or by path in
    ``modules.plugins`` (:mod:`cognition.modules.plugin_paths`). Every module, built-in or plug-in, is built
    by its class's :meth:`build`: by default ``cls(settings, content_dim, seed, dtype, device)`` (the
    default ``__init__`` below), where
    ``settings`` is its ``settings_class`` filled from ``modules.settings.<name>``, or None; a module
    whose :meth:`circuit_width` is not None also gets ``backend=`` and ``width=`` (its width after the
    qubit cap). What it declares (:meth:`circuit_width`, :meth:`state_shapes`, :meth:`weight_shapes`)
    is what the qubit cap and the memory planner count.

    The cycle: :meth:`propose`, :meth:`learn` and :meth:`units` that name a parameter ``cycle`` (best
    keyword-only: ``def propose(self, state, inputs, streams, weights, *, cycle)``) are also passed
    ``cycle=``, an ``int``: the cycle being computed, 1 for the first, the ``cycle`` of that cycle's line
    in metrics.jsonl. One number for every row of every call of the cycle (the agents, their donors and
    twins, every launch of a split batch), the same on a resume or a retried launch; under an intervention
    (:class:`cognition.architecture.perturb.Intervention`) the cycle after the recording, for every row.
    Methods that do not name it are called without it (the signature is read once, when the loop is built).
    """

    name: str = ""
    settings_class: type | None = None  # a (frozen) dataclass of a plug-in's settings, or None
    reads: tuple[str, ...] = ("broadcast",)
    variant: str = "classical"  # "quantum" or "classical"
    kernels: tuple[str, ...] = ()  # attributes holding pure tensor functions (cognition.runtime.compile)
    unit_signals: tuple[str, ...] = ("salience", "content_mean")  # its units of Phi (docs/architecture.md)
    shapes: dict = {}  # this instance's weight_shapes (set by the modules that have weights)

    def __init__(self, settings, content_dim: int, seed: int, dtype: torch.dtype, device: str, *,
                 backend=None, width: int | None = None):
        """What a plug-in module is built with (the built-ins have constructors of their own).

        settings:    its ``settings_class`` filled from ``modules.settings.<name>``, or None without one
        content_dim: D, the length of every content and broadcast vector (``run.content_dim``)
        seed:        the run's master seed (``run.seed``), for :meth:`weight_streams`/:meth:`initial_streams`
        dtype:       ``torch.float64``, or ``torch.float32`` with ``run.dtype: float32``
        device:      the torch device string of the run, e.g. ``"cpu"`` or ``"cuda:0"``
        backend:     the run's shared quantum backend (``quantum.make_backend``), given only to a module
                     whose :meth:`circuit_width` is not None; None otherwise
        width:       the qubits its circuits may use: :meth:`circuit_width` after the qubit cap
                     (``quantum.on_cap_exceeded: reduce`` may lower it); None for a module without circuits
        """
        self.settings, self.D, self.seed, self.dtype, self.device = settings, content_dim, seed, dtype, device
        self.backend, self.width = backend, width
        self.shapes = self.weight_shapes(settings, content_dim, width)

    @classmethod
    def build(cls, settings, ctx: BuildContext) -> "CognitiveModule":
        """The module for one run: ``cls(settings, D, seed, dtype, device)``, with ``backend=`` and ``width=``
        for a module that declares a circuit width. A class that is built otherwise overrides this (the
        hybrid module passes its decision model); :func:`cognition.modules.build_modules` calls it for every
        enabled module, so built-ins and plug-ins go one way."""
        circuit = {"backend": ctx.backend, "width": ctx.width} if ctx.width is not None else {}
        return cls(settings, ctx.content_dim, ctx.seed, ctx.dtype, ctx.device, **circuit)

    @property
    def backend_name(self) -> str:
        return "torch"

    @classmethod
    def weight_shapes(cls, cfg, content_dim: int, width: int | None = None) -> dict[str, tuple[int, ...]]:
        """Per-agent shapes of the module's fixed random weights, in weight-index order (default: none).

        cfg: the module's settings (as ``__init__`` receives them); content_dim: D; width: the qubit
        width after the cap, for a module whose :meth:`circuit_width` is not None (None otherwise).
        A weight's index (its position here) picks its random stream, so a weight added
        at the end leaves the others' draws alone.
        """
        return {}

    @classmethod
    def circuit_width(cls, cfg, content_dim: int) -> int | None:
        """The qubits this module's circuits use as configured, before the qubit cap; None (the default)
        for a module that runs no circuit.

        cfg: the module's settings (as ``__init__`` receives them); content_dim: D. Asked of the class
        that runs in the configured mode, and only when ``quantum.mode`` is not disabled: a width over
        the cap (``quantum.max_qubits``, or ``lite_max_qubits`` under lite) is refused when the run is
        built (before its directory is claimed), or lowered to the cap with
        ``quantum.on_cap_exceeded: reduce``; the module
        is then built with ``backend=`` and ``width=``, and the memory planner counts its statevectors.
        """
        return None

    @classmethod
    def state_shapes(cls, cfg, content_dim: int, width: int | None = None) -> dict[str, tuple[int, ...]]:
        """Per-row shapes of the state :meth:`init_state` returns, without the leading rows (default: none).

        cfg: the module's settings; content_dim: D; width: its width after the qubit cap (None for a
        module without circuits). The memory planner counts every row's state from these, in the
        run's dtype, twice (a cycle builds the new state beside the old); a state not declared here
        is not planned.
        """
        return {}

    def initial_streams(self, agents: np.ndarray) -> AgentStreams:
        """The module's own streams at cycle 0 (no cycle draws from them), for random initial states;
        the ``streams`` handed to :meth:`init_state` are the run's shared ``init`` streams.

        agents: the rows' agent indices, as :meth:`init_state` receives them.
        """
        return AgentStreams(self.seed, agents, self.name, 0)

    def weight_streams(self, agents: np.ndarray, name: str) -> AgentStreams:
        """The per-agent streams of weight ``name`` (see :meth:`weight_shapes`) under the run seed ``self.seed``."""
        return AgentStreams.weights(self.seed, agents, self.name, list(self.shapes).index(name))

    def init_weights(self, agents: np.ndarray) -> State:
        """The fixed random weights of the given rows: name -> (rows, *shape), in the module's dtype and
        device; each agent's a pure function of (seed, agent, module, weight).

        agents: (rows,) integer numpy array, the agent index of every batch row (as :meth:`init_state`).
        """
        return {}

    @abstractmethod
    def init_state(self, agents: np.ndarray, streams: AgentStreams) -> State:
        """The state before cycle 1: name -> (rows, ...) tensor in ``self.dtype`` on ``self.device``
        (possibly empty); it is checkpointed.

        agents:  (rows,) integer numpy array, the agent index of every batch row: the run's agents, then
                 the rows of its causal controls (donors and twins), so ``len(agents)`` is the row count
                 and usually exceeds ``run.agents``. An array, not a count: ``torch.zeros(len(agents), D)``.
        streams: the run's shared "init" streams for these rows, past the initial broadcast's draw (what
                 they give here is not the broadcast); a random initial state is better drawn from
                 :meth:`initial_streams`, the module's own.
        """

    @abstractmethod
    def propose(self, state: State, inputs: dict[str, torch.Tensor | Proposal], streams: AgentStreams,
                weights: State) -> tuple[Proposal, State]:
        """Read ``inputs``, return ``(proposal, new state)`` for the rows of this launch.

        state:   the launch's rows of this module's state (as :meth:`init_state` made it, then as
                 ``propose``/:meth:`learn` returned it); a launch may hold a slice of the rows.
        inputs:  ``"broadcast"`` -> (rows, D) the broadcast of the previous cycle that these rows' modules
                 read; and, for every other name in :attr:`reads`, that module's :class:`Proposal` of
                 this cycle.
        streams: this module's noise streams for this cycle and these rows (``streams.normal(*shape)``,
                 ``streams.uniform(low, high, *shape)``: (rows, *shape) float64 numpy); the only source
                 of randomness a module may use, so that retries and resumes draw the same numbers.
        weights: the rows' slice of :meth:`init_weights` (empty for a module without weights).
        cycle:   (keyword, only to a method that names it) the cycle being computed, an int, 1 for the
                 first: the same for every row (see the class docstring; docs/modules.md, "The cycle").

        Returns a :class:`Proposal` (content (rows, D), salience (rows,), extras name -> (rows,)) and the
        new state, with the same keys and shapes as ``state``.
        """

    def learn(self, state: State, broadcast: torch.Tensor) -> State:
        """Update from the broadcast that won this cycle (default: nothing to learn).

        state:     the rows' state as :meth:`propose` returned it this cycle.
        broadcast: (rows, D) the broadcast this cycle's competition produced, as these rows' modules
                   read it (a yoked twin's is its donor's); they read it in the next cycle.
        cycle:     (keyword, only to a method that names it) the cycle being computed, as :meth:`propose`'s.
        Returns the new state (same keys and shapes).
        """
        return state

    def units(self, proposal: Proposal, b_prev: torch.Tensor) -> torch.Tensor:
        """(rows, len(unit_signals)) this cycle's values of the module's units of Phi.

        proposal: this cycle's proposal, as :meth:`propose` returned it.
        b_prev:   (rows, D) the broadcast the module read this cycle (``inputs["broadcast"]``).
        cycle:    (keyword, only to a method that names it) the cycle being computed, as :meth:`propose`'s.

        Default: its salience (its evidence for access) and the mean over the D dimensions of its
        proposed content, ``content.mean(dim=1)`` (``unit_signals = ("salience", "content_mean")``):
        both the module's own, so that a module that ignores the broadcast has units that do not
        depend on it (``b_prev`` is there for modules that need it).
        """
        return torch.stack([proposal.salience, proposal.content.mean(dim=1)], dim=1)

    def describe(self) -> dict:
        return {"variant": self.variant, "backend": self.backend_name, "reads": list(self.reads)}


def compile_kernels(owner, compile_fn) -> None:
    """Replace each of ``owner.kernels`` with ``compile_fn(kernel)`` (see :mod:`cognition.runtime.compile`)."""
    for attr in owner.kernels:
        setattr(owner, attr, compile_fn(getattr(owner, attr)))


def per_agent(array: np.ndarray, dtype, device) -> torch.Tensor:
    """Weights drawn on the host in float64 (agents, ...) as a tensor of the run's dtype and device.

    Drawn and normalised on the CPU in float64 whatever the device, so an agent's weights do
    not depend on where the run executes (a CUDA eigensolver would round differently).
    """
    return torch.as_tensor(np.ascontiguousarray(array), dtype=torch.float64).to(dtype=dtype, device=device)


def uniform_init(streams: AgentStreams, fan: int, *shape: int) -> np.ndarray:
    """(agents, *shape) uniform on [-1/sqrt(fan), 1/sqrt(fan)] (torch.nn's default for RNN cells)."""
    bound = 1.0 / math.sqrt(fan)
    return streams.uniform(-bound, bound, *shape)


def slice_tree(tree, index):
    """Select agents ``index`` from every tensor of a nested dict/Proposal."""
    if isinstance(tree, torch.Tensor):
        return tree[index]
    if isinstance(tree, Proposal):
        return Proposal(tree.content[index], tree.salience[index], slice_tree(tree.extras, index))
    if isinstance(tree, dict):
        return {k: slice_tree(v, index) for k, v in tree.items()}
    raise TypeError(f"cannot slice {type(tree).__name__}")


def cat_rows(tensors: list[torch.Tensor]) -> torch.Tensor:
    """The chunks concatenated along the rows; a single chunk as it is (no copy)."""
    return tensors[0] if len(tensors) == 1 else torch.cat(tensors, dim=0)


def cat_trees(trees: list):
    """Inverse of :func:`slice_tree`: concatenate chunks along the agent dimension (one chunk: no copy)."""
    if len(trees) == 1:
        return trees[0]
    first = trees[0]
    if isinstance(first, torch.Tensor):
        return torch.cat(trees, dim=0)
    if isinstance(first, Proposal):
        return Proposal(torch.cat([t.content for t in trees]), torch.cat([t.salience for t in trees]),
                        cat_trees([t.extras for t in trees]))
    if isinstance(first, dict):
        return {k: cat_trees([t[k] for t in trees]) for k in first}
    raise TypeError(f"cannot concatenate {type(first).__name__}")


def cast_floats(tree, dtype):
    """Cast every floating tensor of a nested dict/Proposal to ``dtype`` (after autocast)."""
    if isinstance(tree, torch.Tensor):
        return tree.to(dtype) if tree.is_floating_point() else tree
    if isinstance(tree, Proposal):
        return Proposal(tree.content.to(dtype), tree.salience.to(dtype), cast_floats(tree.extras, dtype))
    if isinstance(tree, dict):
        return {k: cast_floats(v, dtype) for k, v in tree.items()}
    raise TypeError(f"cannot cast {type(tree).__name__}")


VECTOR_BLOCK = 64  # elements: a multiple of the widest SIMD step of torch's CPU loops (2 x 16 float32 lanes)


def batch_stable(fn, x: torch.Tensor) -> torch.Tensor:
    """``fn(x)`` for an elementwise ``fn`` (sigmoid, tanh, ndtri), rounded the same whatever the batch.

    torch's CPU kernels run an elementwise function over the flattened tensor in SIMD blocks and
    the remainder in a scalar loop whose last-ulp rounding differs. Which elements fall in the
    remainder depends on the tensor's size, so on a small tensor such as (agents, modules) an
    agent's result depended on how many agents shared the launch. Padding the flat tensor to a
    whole number of blocks sends every element through the SIMD path.
    """
    flat = x.reshape(-1)
    pad = (-flat.numel()) % VECTOR_BLOCK
    if pad:
        flat = torch.cat([flat, flat.new_zeros(pad)])
    return fn(flat)[:x.numel()].reshape(x.shape)
