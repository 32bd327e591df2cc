"""The roofline's analytical counts (cognition/benchmarks/roofline.py) against hand counts, under its
conventions: a real multiply-add is 2 FLOP, a complex multiply 6, a complex multiply-add 8, bytes 8 a float64."""
import math

import pytest

from cognition.benchmarks import roofline
from cognition.config.settings import load_config
from quantum import CircuitTemplate, Gate


def counted(mode: str, **overrides):
    return roofline.count(load_config(overrides={"quantum": {"mode": mode}, **overrides}))


def test_a_gru_cell_is_two_gemvs_and_its_gates():
    # GEMVs (1 x 8)(8 x 48) and (1 x 16)(16 x 48): 2 x 8 x 48 + 2 x 16 x 48; 17 H elementwise (biases, gates, mix)
    t = roofline.gru_cell(8, 16)
    assert t["flop"] == 2 * 8 * 48 + 2 * 16 * 48 + 17 * 16 == 2576
    assert t["bytes"] == 8 * (8 * 48 + 16 * 48 + 2 * 48 + 8 + 2 * 16)  # weights, biases, input, hidden in and out


def test_leading_gates_prepare_a_product_state():
    # All qubits start in |0>: RY on qubits 0 and 2 before any two-qubit gate give a product state, built as a
    # Kronecker product: each angle and its cos, sin (4); qubit 2's factor multiplies 2^2 amplitudes by two
    # complex numbers (12 x 2^2). Then |a|^2 of 64 amplitudes (3 each). Compulsory bytes: 1 parameter in, 64 out.
    t = roofline.circuit_run(CircuitTemplate("two", 6, 1, (Gate("ry", (0,), param=0), Gate("ry", (2,), param=0))))
    assert t["flop"] == 4 + 4 + 12 * 4 + 64 * 3
    assert t["bytes"] == 8 * (1 + 64)


def test_fused_gates_and_two_qubit_gates():
    # RY, RZ on qubit 0 lead: one 2x2 complex product (8 complex multiply-adds = 64) and their angles (2 x 4).
    # CZ: a sign per amplitude, applied as a complex multiply (64 x 6); CX only moves amplitudes; RZZ: its angle
    # (3), z_a z_b theta (64 x 2), the complex exponential and signs (64 x 6), the multiply (64 x 6); RY on qubit 1
    # after them: a dense one-qubit gate, 14 per amplitude, and its angle (4). A trailing CZ changes no probability.
    gates = (Gate("ry", (0,), param=0), Gate("rz", (0,), param=0), Gate("cz", (0, 1)), Gate("cx", (1, 2)),
             Gate("rzz", (0, 1), param=0), Gate("ry", (1,), param=0), Gate("cz", (1, 2)))
    t = roofline.circuit_run(CircuitTemplate("c", 6, 1, gates))
    assert t["flop"] == (2 * 4 + 64) + 64 * 6 + 0 + (3 + 64 * 2 + 64 * 6 + 64 * 6) + (14 * 64 + 4) + 64 * 3


def test_classical_terms_and_totals():
    c = counted("disabled")
    terms = c["terms"]
    # RLS with F + 1 = 17: P f (2 x 17^2), P - h h^T fused and scaled (3 x 17^2; symmetric by construction, no
    # symmetrising pass), W^T f and W update (4 x 17 x 8), f.Pf, gain and h (4 x 17 + 2), the error (8)
    assert terms["expectation.rls_update"]["flop"] == 5 * 17**2 + 4 * 17 * 8 + 4 * 17 + 8 + 2
    assert terms["unconscious.rnn"]["flop"] == 2 * 16 * 16 + 2 * 8 * 16 + 4 * 16
    # 16 RNN normals and 3 workspace normals, two per Philox block: 8 + 2 blocks
    assert terms["unconscious.noise_draws"]["draws"] == 16 and c["blocks_per_row"] == 8 + 2
    assert terms["unconscious.noise_draws"]["flop"] == 5 * 16
    assert c["flop_per_row"] == sum(t["flop"] for t in terms.values())
    assert c["bytes_per_row"] == sum(t["bytes"] for t in terms.values())
    # agent, donor, yoked twin, proposal-yoked twin
    assert c["rows_per_agent"] == 4 and c["flop_per_agent_cycle"] == 4 * c["flop_per_row"]
    alone = counted("disabled", control={"yoked": False})
    assert alone["rows_per_agent"] == 1 and alone["flop_per_agent_cycle"] == c["flop_per_row"]


def test_the_markov_decision_squarings_follow_the_config():
    # largest column 1-norm of K t: (2 + 2 gamma) pi/2 with mu_scale 1, gamma 2.09; squarings to bring it under 1/2
    hybrid = load_config().modules.hybrid
    assert roofline.markov_squarings(hybrid) == math.ceil(math.log2((2 + 2 * 2.09) * (math.pi / 2) / 0.5)) == 5


def test_lite_counts_the_reservoir_run_and_the_sampler():
    terms = counted("lite")["terms"]
    # quantum.program: each qubit's 4 leading rotations (3 products) make the product state (Kronecker product:
    # 12 x 2^q for q = 1..5); the 6 CZ as one diagonal step; 12 fused steps of 4 rotations; the 6 CX as one
    # gather (no FLOP); |a|^2. Run once for both <Z> and <ZZ>.
    matrices, kronecker = 4 * 4 + 3 * 64, 12 * (2 + 4 + 8 + 16 + 32)
    reservoir = 6 * matrices + kronecker + 6 * 64 + 6 * (896 + matrices) + 3 * 64
    assert terms["expectation.circuit"]["flop"] == reservoir and "expectation.circuit_zz" not in terms
    # sampler: H and layer 0's RY on each qubit lead (one product, one angle); layer 0's 6 RZZ as
    # one diagonal step; layer 1's RY alone on each qubit; layer 1's RZZ come last and change no probability
    sampler = 6 * (4 + 64) + kronecker + (6 * 64 + 6 * (2 * 64 + 3) + 6 * 64) + 6 * (896 + 4) + 3 * 64 + 8
    assert terms["unconscious.circuit"]["flop"] == sampler
    assert terms["expectation.rls_update"]["what"].startswith("RLS update, P (13x13)")  # 6 <Z> + 6 <ZZ> + 1
    # <Z> and <ZZ>: 6 butterfly stages of 64 sums and differences; the sample's <Z> in integers (no FLOP) and 6
    # divisions, the entropy's 64-term sum of looked-up f log f, the shot-noise variance (4 x 6 + 1)
    assert terms["expectation.parities"]["flop"] == 6 * 64
    assert terms["unconscious.z_entropy"]["flop"] == 6 + 64 + 4 * 6 + 1
    # the closed form: H, H^2 (a 4x4 product), mean + centring + Frobenius half gap (4 + 2 + 32), roots and half
    # sums, 14 special functions with 20 other operations, the divided difference, three (4x4)(4x3) products
    # (96 each, one in two blends of 24), |a|^2, P(act)
    assert terms["hybrid.decision"]["flop"] == 46 + 128 + 38 + 12 + 34 + (16 * 5 + 14) + 96 + 48 + 96 + 36 + 8
    # 128 shots: 128 uniforms of 32 bits, four per Philox block; a 64-entry cumulative sum, then per shot a
    # scaling, 6 comparisons of the binary search over 64 outcomes and a count
    shots = terms["unconscious.shots"]
    assert (shots["draws"], shots["blocks"], shots["flop"]) == (128, 32, 64 + 128 * 8)


def test_the_bound_is_the_smaller_roof():
    counts = {"flop_per_agent_cycle": 1000, "bytes_per_agent_cycle": 4000}
    b = roofline.bound(counts, {"peak_gflops": 10.0, "bandwidth_gbs": 20.0})  # 1e10 / 1e3 vs 2e10 / 4e3
    assert b["compute_bound_agent_cycles_per_s"] == pytest.approx(1e7)
    assert b["bound_agent_cycles_per_s"] == pytest.approx(5e6) and b["bound_by"] == "memory"


def test_machine_measures_every_kernel_and_a_copy():
    roofs = roofline.machine(agents=8, repeats=1, copy_mib=1)
    names = [k["kernel"] for k in roofs["kernels"]]
    assert len(names) == len(roofline.SQUARE_SIZES) + len(roofline.GEMV_SHAPES) + 1
    assert "bmm (8,64,64)x(8,64,64) complex128" in names and "bmm (8,1,16)x(8,16,48) float64" in names
    assert all(k["gflops"] > 0 for k in roofs["kernels"]) and roofs["bandwidth_gbs"] > 0
    assert roofs["copy_bytes"] == 2 * 2**20 and roofs["peak_gflops"] == max(k["gflops"] for k in roofs["kernels"])
