"""A circuit as the torch statevector backend runs it: few passes over the state.

`compile_program` turns a CircuitTemplate into a `Program`:

* ``product``: each qubit's one-qubit gates before its first two-qubit gate. All qubits start
  in |0>, so these gates prepare a product state, built directly as a Kronecker product of
  one 2-vector per qubit (no pass over the state per gate).
* ``steps``, in order:
  - ``("u", q, gates)``: a run of one-qubit gates on qubit q, fused into one 2x2 matrix;
  - ``("diag", gates)``: consecutive CZ and RZZ gates, diagonal in the computational basis,
    applied as one phase per basis state;
  - ``("perm", index, gates)``: consecutive CX and SWAP gates, which only move amplitudes,
    applied as one gather ``psi_new[k] = psi[index[k]]``.

Steps run in an order the circuit allows (gates on different qubits commute) that puts the two-qubit
gates of a layer next to each other, so they merge into one step. Diagonal steps at the end
change no probability (a phase of modulus 1 per basis state); `probability_steps` leaves them out.
Permutation steps at the end only reorder the probabilities: `state_steps_and_reorder` leaves them to
be applied, composed, to the real probabilities instead of the complex state.
Everything here is exact algebra on the gate list; nothing is simulated.
"""
from __future__ import annotations

from dataclasses import dataclass

from quantum.circuits import CircuitTemplate, Gate

DIAGONAL_2Q = ("cz", "rzz")
PERMUTATION_2Q = ("cx", "swap")


@dataclass(frozen=True)
class Program:
    n_qubits: int
    product: dict[int, tuple[Gate, ...]]  # qubit -> its leading one-qubit gates (may be empty)
    steps: tuple[tuple, ...]


def _schedule(circuit: CircuitTemplate) -> tuple[dict[int, list[Gate]], list[tuple]]:
    """Leading gates per qubit and the steps ("u", q, gates) / ("2q", gate), in circuit order."""
    product: dict[int, list[Gate]] = {q: [] for q in range(circuit.n_qubits)}
    touched: set[int] = set()
    pending: dict[int, list[Gate]] = {}
    steps: list[tuple] = []

    def flush(q: int) -> None:
        if pending.get(q):
            steps.append(("u", q, tuple(pending.pop(q))))

    for g in circuit.gates:
        if len(g.qubits) == 1:
            q = g.qubits[0]
            (pending.setdefault(q, []) if q in touched else product[q]).append(g)
            continue
        for q in g.qubits:
            flush(q)
        touched.update(g.qubits)
        steps.append(("2q", g))
    for q in sorted(pending):
        flush(q)
    return product, steps


def _layered(steps: list[tuple]) -> list[tuple]:
    """The steps in another order that the circuit allows (any order that keeps, on every qubit, the
    order of the steps acting on it), chosen so that two-qubit gates of one kind come in runs: a run
    goes on while a gate of its kind is ready; then every ready one-qubit step; then the next run."""
    last: dict[int, int] = {}
    preds: list[set[int]] = []
    for j, step in enumerate(steps):
        preds.append({last[q] for q in _qubits(step) if q in last})
        last.update({q: j for q in _qubits(step)})
    done: set[int] = set()
    order: list[int] = []
    kind = None

    def ready(j: int) -> bool:
        return j not in done and preds[j] <= done

    while len(order) < len(steps):
        run = [j for j in range(len(steps)) if ready(j) and steps[j][0] == "2q" and _kind(steps[j][1]) == kind]
        ones = [j for j in range(len(steps)) if ready(j) and steps[j][0] == "u"]
        if run:
            pick = run[:1]
        elif ones:
            pick, kind = ones, None
        else:
            pick = [next(j for j in range(len(steps)) if ready(j))]
            kind = _kind(steps[pick[0]][1])
        order.extend(pick)
        done.update(pick)
    return [steps[j] for j in order]


def _qubits(step: tuple) -> tuple[int, ...]:
    return (step[1],) if step[0] == "u" else step[1].qubits


def _kind(gate: Gate) -> str:
    if gate.name in DIAGONAL_2Q:
        return "diag"
    if gate.name in PERMUTATION_2Q:
        return "perm"
    raise ValueError(f"the torch backend has no two-qubit gate {gate.name!r}")


def _permutation(gates: tuple[Gate, ...], n: int) -> tuple[int, ...]:
    """index with psi_after[k] = psi_before[index[k]] for the gates applied in order."""
    index = list(range(1 << n))
    for g in gates:
        a, b = g.qubits
        if g.name == "cx":  # control a, target b: flip bit b where bit a is 1
            move = [k ^ (1 << b) if (k >> a) & 1 else k for k in range(1 << n)]
        else:  # swap: exchange bits a and b
            move = [k ^ ((1 << a) | (1 << b)) if ((k >> a) ^ (k >> b)) & 1 else k for k in range(1 << n)]
        index = [index[move[k]] for k in range(1 << n)]
    return tuple(index)


def compile_program(circuit: CircuitTemplate) -> Program:
    """The circuit's product-state preparation and its merged steps (module docstring)."""
    product, raw = _schedule(circuit)
    merged: list[tuple] = []  # ("u", q, gates) or (kind, gates)
    for step in _layered(raw):
        if step[0] == "u":
            merged.append(step)
            continue
        kind = _kind(step[1])
        if merged and merged[-1][0] == kind:
            merged[-1] = (kind, merged[-1][1] + (step[1],))
        else:
            merged.append((kind, (step[1],)))
    n = circuit.n_qubits
    steps = [("perm", _permutation(s[1], n), s[1]) if s[0] == "perm" else s for s in merged]
    return Program(n, {q: tuple(g) for q, g in product.items()}, tuple(steps))


def probability_steps(program: Program) -> tuple[tuple, ...]:
    """The steps that can change the probabilities: without the diagonal steps at the end."""
    steps = list(program.steps)
    while steps and steps[-1][0] == "diag":
        steps.pop()
    return tuple(steps)


def state_steps_and_reorder(program: Program) -> tuple[tuple[tuple, ...], tuple[int, ...] | None]:
    """The steps that must run on the state, and the reordering the rest applies to the probabilities,
    ``p_final[k] = p[reorder[k]]`` (None if none). The permutation and diagonal steps at the end are left
    out: a diagonal step there multiplies amplitudes by phases of modulus 1 and a permutation moves them,
    so |amplitude|^2 after the tail is |amplitude|^2 before it, reordered by the composed permutations."""
    steps = list(program.steps)
    reorder = None
    while steps and steps[-1][0] in ("perm", "diag"):
        kind, index, *_ = steps.pop()
        if kind == "perm":  # this step runs after the ones already composed: its gather comes first
            reorder = index if reorder is None else tuple(index[k] for k in reorder)
    return tuple(steps), reorder
