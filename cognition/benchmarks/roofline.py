"""Roofline of one agent-cycle: FLOP and bytes per mode from the configuration, and the machine's roofs.

:func:`count` adds up, term by term, the arithmetic one batch row executes in one cycle of
:meth:`cognition.architecture.loop.IntegrationLoop.advance` (modules, workspace, learning; the ``agents``
suite times the per-cycle Phi apart) and the bytes it must move, from the configuration (D, the
hidden sizes, the circuits as the torch statevector backend compiles them, shots, the RLS size
F + 1, the surprise window). :func:`machine` measures the roofs on the current threads: batched
small-matrix products at the model's sizes and a large copy. :func:`bound`: the agent-cycles/s
no implementation of this arithmetic could beat here, the smaller of peak FLOP/s / FLOP and
bandwidth / bytes per agent-cycle. docs/performance.md reads them.

Conventions. FLOP: a real add, multiply, divide or comparison is 1, a real multiply-add 2, a
complex multiply 6, a complex multiply-add 8, a complex times a real 2; a (1 x k)(k x d) GEMV is
2 k d; a dense one-qubit gate updates each of 2^n amplitudes with a complex multiply and a
complex multiply-add, 14 x 2^n (896 at 6 qubits); a special function (tanh, sigmoid, exp, log,
sqrt, ndtri; cos with sin, or a complex exponential, 2) is 1 per evaluation, which understates
elementwise work. Random numbers: a term counts the numbers it draws and the
Philox4x32-10 blocks they take (cognition/architecture/rng.py; 4 random words per block, made of 20 32-bit
multiplications and about 100 other 64-bit integer operations, which are not FLOP); turning words
into doubles is 2 FLOP per double and a Box-Muller normal 3 (a log, a square root, cos with sin: 4
special functions per pair). Bytes: compulsory traffic at 8 B a float64: each term reads its weights,
state and inputs once and writes its outputs once; what stays within a term is free (a row's
working set, the 1 KiB of a 6-qubit statevector included, fits in L1); eager torch re-reads
every intermediate, so it moves more. Per agent-cycle = per row x rows per agent (3 with the
yoked control: agent, donor, twin), as the bench's agent-cycles/s counts the run's agents only.
Module controls (docs/quantum-effects.md) and plug-in modules are not counted.
"""
from __future__ import annotations

import math
import statistics
import time

import numpy as np

F8 = 8  # bytes of a float64
GATE_1Q = 14  # FLOP per amplitude of a dense one-qubit gate: complex multiply (6) + multiply-add (8)
SQUARE_SIZES = (8, 13, 16, 17, 48)  # k of the batched (k x k)(k x k) products: D, F+1 (lite), H, F+1, 3H
GEMV_SHAPES = ((8, 48), (16, 48), (17, 17), (17, 8))  # the model's row-vector products: GRU, RLS P f, W^T f
COMPLEX_SIZE = 64  # 2^6 amplitudes


def term(what: str, flop, nbytes, draws: int = 0, blocks: int = 0) -> dict:
    return {"what": what, "flop": int(flop), "bytes": int(nbytes), "draws": int(draws), "blocks": int(blocks)}


def normal_draws(what: str, count: int) -> dict:
    """``count`` standard normals: two per Philox block, each 2 FLOP to a double and 3 to a normal."""
    return term(what, 5 * count, F8 * count, draws=count, blocks=(count + 1) // 2)


def gru_cell(D: int, H: int) -> dict:
    """One GRU cell step: two GEMVs, (1xD)(Dx3H) and (1xH)(Hx3H), and 17 H elementwise (gates, mix)."""
    return term(f"GRU cell, ({D}x{3 * H}) and ({H}x{3 * H}) GEMVs", 2 * D * 3 * H + 2 * H * 3 * H + 17 * H,
                F8 * (D * 3 * H + H * 3 * H + 6 * H + D + 2 * H))


def readout_terms(F: int, D: int) -> dict:
    """The expectation's leaky readout, its prediction error, and one RLS step (cognition/modules/readout.py):
    P f (2 F1^2), f.Pf, the gain and h = P f / sqrt(denominator) (4 F1 + 2), W^T f and the W update
    (4 F1 D + D), P - h h^T as one fused multiply-subtract (2 F1^2) and the 1/lambda scale (F1^2)."""
    F1 = F + 1
    return {"expectation.readout": term(f"feature memory and prediction W^T [f; 1], W ({F1}x{D})",
                                        3 * F + 2 * F1 * D, F8 * (3 * F + F1 * D + D)),
            "expectation.error": term("salience: mean squared prediction error", 3 * D, F8 * (2 * D + 1)),
            "expectation.rls_update": term(f"RLS update, P ({F1}x{F1}), W ({F1}x{D})",
                                           5 * F1 * F1 + 4 * F1 * D + 4 * F1 + D + 2,
                                           F8 * (2 * F1 * F1 + 2 * F1 * D + F1 + D))}


def rnn_terms(D: int, H: int, nodes: int) -> dict:
    """The stochastic RNN's draws and step, and tanh_noise_variance: Gauss-Hermite quadrature over
    (H, nodes), the variance only (the slope is computed only when the noise is matched). The
    symmetric nodes +-x_j go in pairs (cognition/modules/noise_match.py): per row, tanh and sech^2 of
    the nodes/2 scaled nodes (3 each); per unit, sech^2 (2) and the moments' combination (8); per unit
    and pair, the denominator (2), rho (1), the weighted term (1), its square (1) and two sums (2)."""
    return {"unconscious.noise_draws": normal_draws(f"{H} normals", H),
            "unconscious.rnn": term(f"stochastic RNN, ({H}x{H}) and ({D}x{H}) GEMVs, tanh",
                                    2 * H * H + 2 * D * H + 4 * H, F8 * (H * H + D * H + 3 * H + D)),
            "unconscious.noise_variance": term(f"noise variance, quadrature over ({H}x{nodes // 2} node pairs)",
                                               7 * H * (nodes // 2) + 10 * H + 3 * (nodes // 2), F8 * (H + 1))}


def association(k: int, D: int) -> dict:
    return term(f"association tanh(M z), M ({D}x{k}), novelty", 2 * k * D + 4 * D, F8 * (k * D + k + 2 * D + 1))


def _matrix_flop(gates) -> int:
    """One fused 2x2 matrix: each rotation's angle (2) and cos/sin (2); 64 per 2x2 complex product."""
    return sum(4 * g.is_rotation for g in gates) + 64 * (len(gates) - 1)


def _diagonal_flop(gates, amps: int) -> int:
    """A run of CZ/RZZ gates (quantum.program): each RZZ's angle (3) and its term z_a z_b theta summed
    (2 per amplitude), one complex exponential and the CZ signs (6), the phase multiply (6). The signs
    and z_a z_b are the same for every row: free per row."""
    rzz = sum(g.name == "rzz" for g in gates)
    return 6 * amps + rzz * (2 * amps + 3) + (6 * amps if rzz else 0)


def circuit_run(circuit) -> dict:
    """One statevector simulation as quantum.backends.torch_statevector runs it (quantum.program):
    the product state of the leading one-qubit gates (their 2x2 matrices and a complex multiply per
    amplitude of the Kronecker product, 12 x 2^q for qubit q > 0), fused one-qubit steps (14 x 2^n each,
    plus their 2x2 matrices), diagonal runs of CZ/RZZ, permutation runs of CX/SWAP (moves only; no FLOP);
    trailing diagonal runs are left out; then the probabilities |a|^2 (3 x 2^n)."""
    from quantum.program import compile_program, probability_steps

    program = compile_program(circuit)
    amps = 1 << circuit.n_qubits
    flop = 3 * amps + sum(_matrix_flop(g) + (12 << q if q else 0) for q, g in program.product.items() if g)
    steps = {}
    for step in probability_steps(program):
        steps[step[0]] = steps.get(step[0], 0) + 1
        if step[0] == "u":
            flop += GATE_1Q * amps + _matrix_flop(step[2])
        elif step[0] == "diag":
            flop += _diagonal_flop(step[1], amps)
    shape = ", ".join(f"{n} {name}" for name, n in sorted(steps.items()))
    return term(f"{circuit.n_qubits}-qubit statevector (product state, {shape})", flop,
                F8 * (circuit.n_params + amps))


def markov_squarings(hcfg) -> int:
    """Squarings batched_expm takes for the Markov generator at the largest 1-norm the config allows."""
    from cognition.decision import markov_intensity

    r = np.linspace(0.0, 1.0, 101)  # the unreliability tanh(salience) sweeps [0, 1)
    k = markov_intensity(hcfg.mu_scale * (1 - r), np.full(r.shape, hcfg.gamma), hcfg.mu_scale * r) * hcfg.time
    norm = np.abs(k).sum(axis=-2).max()
    return max(0, math.ceil(math.log2(norm / 0.5)))


def decision(hcfg, quantum: bool) -> dict:
    """Pothos & Busemeyer choice probabilities: the quantum model's closed-form evolution, or the Markov 4x4 expm."""
    if quantum:  # cognition/decision/reflections.py: Hamiltonian (46), H^2 (128), its mean, centring and half gap
        # (38), roots and half sums (12), the interpolants' means and slopes with 14 special functions (34), the
        # sinc divided difference (series 16 x 5, quotient and near form 14), (H^2 - m) psi for 3 states (96), two
        # blends (48), H times the sine part (96), |a|^2 (36), P(act) (8)
        flop = 46 + 128 + 38 + 12 + 34 + 94 + 96 + 48 + 96 + 36 + 8
        return term("decision: closed-form 4x4 evolution (two reflections)", flop, F8 * 7)
    from cognition.decision.batched import _PS_BLOCK, _TAYLOR_DEGREE

    # Paterson-Stockmeyer Taylor (cognition/decision/batched.py): the powers x^2 .. x^4, then one 4x4
    # product (128) per Horner step in x^4; each step's block is 4 scaled powers summed (4 x 32), added to
    # the product (16)
    steps = _TAYLOR_DEGREE // _PS_BLOCK
    products = _PS_BLOCK - 1 + steps
    s = markov_squarings(hcfg)  # generator, scaling, norm, Taylor, squarings, T S, P(act)
    flop = 40 + 16 + 31 + 16 + products * 128 + steps * (_PS_BLOCK * 32 + 16) + 16 + s * (128 + 16) + 96 + 8
    return term(f"decision: 4x4 expm (Taylor {_TAYLOR_DEGREE}, {products} products, {s} squarings)", flop, F8 * 7)


def count(cfg) -> dict:
    """FLOP and bytes per row and per agent-cycle of ``cfg``'s cycle, term by term (module docstring)."""
    from cognition.architecture.controls import rows_per_agent
    from cognition.architecture.loop import WORKSPACE_SIGNALS
    from cognition.modules import unit_signal_count
    from cognition.modules.noise_match import node_count

    D, mods, quantum = cfg.run.content_dim, cfg.modules, cfg.quantum.mode != "disabled"
    terms = {}
    if "expectation" in mods.enabled:
        e = mods.expectation
        if quantum:
            from quantum import angle_encoded_reservoir, resolve_width

            n = resolve_width(e.qubits, cfg.quantum.qubit_cap, cfg.quantum.on_cap_exceeded)[0]
            pairs, amps = (n if n > 1 else 0), 1 << n  # ring pairs (q, q+1 mod n)
            run = circuit_run(angle_encoded_reservoir(n, D, e.depth))
            terms["expectation.encode"] = term("tanh of the broadcast", D, F8 * 2 * D)
            terms["expectation.circuit"] = dict(run, what=run["what"] + ", once for <Z> and <ZZ>")
            terms["expectation.parities"] = term(  # quantum.readout.walsh_hadamard_
                "<Z_q> and <Z_q Z_q+1>: the probabilities' Walsh-Hadamard transform", n * amps,
                F8 * (amps + n + pairs))
            F = n + pairs
        else:
            terms["expectation.gru"] = gru_cell(D, e.hidden)
            F = e.hidden
        terms.update(readout_terms(F, D))
    if "unconscious" in mods.enabled:
        u = mods.unconscious
        if quantum:
            from quantum import entangling_sampler, resolve_width

            n = resolve_width(u.qubits, cfg.quantum.qubit_cap, cfg.quantum.on_cap_exceeded)[0]
            amps = 1 << n
            run = circuit_run(entangling_sampler(n, D, u.layers))
            terms["unconscious.circuit"] = dict(run, flop=run["flop"] + D, what=run["what"] + ", tanh of the cue")
            terms["unconscious.shots"] = term(
                f"{u.shots} shots: inverse transform over {amps} outcomes (cumulative sum, {n} comparisons a shot)",
                amps + u.shots * (n + 2), F8 * (2 * amps + u.shots), draws=u.shots, blocks=(u.shots + 3) // 4)
            # <Z>: the counts' Walsh-Hadamard transform in integers (not FLOP), n divisions; the entropy: a table's
            # f log f per count (a lookup), summed; the shot-noise variance 4n + 1
            terms["unconscious.z_entropy"] = term("<Z> of the sample, its entropy, shot-noise variance",
                                                  n + amps + 4 * n + 1, F8 * (amps + n + 2))
            k = n
        else:
            terms.update(rnn_terms(D, u.hidden, node_count(u.noise)))
            k = u.hidden
        terms["unconscious.association"] = association(k, D)
    if "hybrid" in mods.enabled:
        terms["hybrid.evidence"] = term("agreement (cosine), belief, utilities", 6 * D + 10, F8 * (2 * D + 4))
        terms["hybrid.decision"] = decision(mods.hybrid, quantum)
        terms["hybrid.content"] = term("content (2 p_act - 1) action, novelty", 2 + 4 * D, F8 * (3 * D + 2))
    M, W = len(mods.enabled), cfg.workspace.surprise_window
    terms["workspace.noise_draws"] = normal_draws(f"{M} normals", M)
    terms["workspace.competition"] = term(f"surprise over W={W}, access, ignition, broadcast",
                                          4 * M * W + 30 * M + 2 * M * D + D, F8 * (2 * M * W + 6 * M + M * D + 2 * D))
    units = unit_signal_count(cfg) + len(WORKSPACE_SIGNALS)
    terms["loop.units"] = term(f"{units} unit signals", 4 * D + 1, F8 * (3 * D + units))
    rows = rows_per_agent(cfg)
    total = {k: sum(t[k] for t in terms.values()) for k in ("flop", "bytes", "draws", "blocks")}
    return {"mode": cfg.quantum.mode, "rows_per_agent": rows, "terms": terms,
            **{f"{k}_per_row": v for k, v in total.items()},
            "flop_per_agent_cycle": rows * total["flop"], "bytes_per_agent_cycle": rows * total["bytes"],
            "flop_per_byte": total["flop"] / total["bytes"]}


def breakdown_lines(counted: dict) -> list[str]:
    """The per-term table the bench prints and docs/performance.md shows."""
    lines = [f"  {'term':28} {'FLOP/row':>9} {'bytes/row':>9} {'draws':>5} {'blocks':>6}  what"]
    for name, t in counted["terms"].items():
        lines.append(f"  {name:28} {t['flop']:9d} {t['bytes']:9d} {t['draws']:5d} {t['blocks']:6d}  {t['what']}")
    lines.append(f"  {'total per row':28} {counted['flop_per_row']:9d} {counted['bytes_per_row']:9d} "
                 f"{counted['draws_per_row']:5d} {counted['blocks_per_row']:6d}  "
                 f"x {counted['rows_per_agent']} rows per agent = {counted['flop_per_agent_cycle']} FLOP, "
                 f"{counted['bytes_per_agent_cycle']} bytes per agent-cycle")
    return lines


def _seconds(fn, repeats: int) -> float:
    """Median seconds per call of ``fn`` over ``repeats`` timings of >= 50 ms each, after a warm-up."""
    fn()
    t0 = time.perf_counter()
    fn()
    number = max(1, int(0.05 / max(time.perf_counter() - t0, 1e-9)))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def machine_bytes(agents: int, copy_mib: int = 256) -> int:
    """The most memory :func:`machine` holds at once: its largest batched product (both operands and the
    output), or the copy's source and destination."""
    products = [(k * k * 3, 8) for k in SQUARE_SIZES] + [(k + k * d + d, 8) for k, d in GEMV_SHAPES]
    products.append((COMPLEX_SIZE ** 2 * 3, 16))
    return max(max(agents * n * size for n, size in products), 2 * copy_mib * 2**20)


def machine(agents: int = 4096, repeats: int = 5, copy_mib: int = 256) -> dict:
    """The roofs on the current torch threads: GFLOP/s of batched products over ``agents`` (float64
    (k x k)(k x k) at SQUARE_SIZES, the model's GEMVs, complex128 64 x 64) and copy bandwidth (GB/s)."""
    import torch

    g = torch.Generator().manual_seed(0)
    shapes = [(f"bmm ({agents},{k},{k})x({agents},{k},{k}) float64", (k, k, k), torch.float64, 2)
              for k in SQUARE_SIZES]
    shapes += [(f"bmm ({agents},1,{k})x({agents},{k},{d}) float64", (1, k, d), torch.float64, 2)
               for k, d in GEMV_SHAPES]
    c = COMPLEX_SIZE
    shapes.append((f"bmm ({agents},{c},{c})x({agents},{c},{c}) complex128", (c, c, c), torch.complex128, 8))
    kernels = []
    for name, (m, k, d), dtype, per_fma in shapes:
        a = torch.randn(agents, m, k, dtype=dtype, generator=g)
        b = torch.randn(agents, k, d, dtype=dtype, generator=g)
        out = torch.empty(agents, m, d, dtype=dtype)
        seconds = _seconds(lambda: torch.bmm(a, b, out=out), repeats)
        flop = per_fma * m * k * d * agents
        kernels.append({"kernel": name, "flop": flop, "seconds": seconds, "gflops": flop / seconds / 1e9})
        del a, b, out
    src = torch.randn(copy_mib * 2**20 // F8, dtype=torch.float64, generator=g)
    dst = torch.empty_like(src)
    seconds = _seconds(lambda: dst.copy_(src), repeats)
    peak = max(kernels, key=lambda k: k["gflops"])
    return {"agents": agents, "threads": torch.get_num_threads(), "repeats": repeats, "kernels": kernels,
            "peak_gflops": peak["gflops"], "peak_kernel": peak["kernel"],
            "copy_bytes": 2 * src.numel() * F8, "bandwidth_gbs": 2 * src.numel() * F8 / seconds / 1e9}


def bound(counted: dict, roofs: dict) -> dict:
    """Agent-cycles/s the roofs allow: compute (peak FLOP/s / FLOP) and memory (bandwidth / bytes)."""
    compute = roofs["peak_gflops"] * 1e9 / counted["flop_per_agent_cycle"]
    memory = roofs["bandwidth_gbs"] * 1e9 / counted["bytes_per_agent_cycle"]
    return {"compute_bound_agent_cycles_per_s": compute, "memory_bound_agent_cycles_per_s": memory,
            "bound_agent_cycles_per_s": min(compute, memory), "bound_by": "compute" if compute <= memory else "memory"}


def machine_lines(roofs: dict) -> list[str]:
    copy = f"copy of {roofs['copy_bytes'] // 2**21} MiB (read + write)"
    return [f"  {k['kernel']:52} {k['gflops']:7.2f} GFLOP/s" for k in roofs["kernels"]] + \
        [f"  {copy:52} {roofs['bandwidth_gbs']:7.2f} GB/s", f"  compute roof: {roofs['peak_kernel']}"]
