"""Batch-invariant numerics (issue 17): every agent's arithmetic independent of which agents share
its launch, so results are bit-identical across runtime.batch and after an OOM fallback.

Cause, measured: every kernel that is one 2-D GEMM with the agents as its rows rounds each row
differently depending on how many rows the launch has; every per-agent kernel (einsum over an
agent dimension, which torch runs as bmm, one small product per agent) and every reduction
along a row is invariant. On this machine (OpenBLAS, 1 thread, float64, 8 agents, 10 cycles),
splitting the batch changed these kernels by 1e-16 to 4e-15 per call (tests/ scratch script
in the branch's report):

* ``unconscious.associate``: ``torch.tanh(z @ M.T)``
* ``unconscious.rnn_drive`` (then ``stochastic_rnn``): ``hidden @ W.T + b_prev @ U.T``
* ``QuantumUnconscious.propose``: ``freq @ self._z_of_outcome``
* ``expectation.gru_features``: ``torch.gru_cell`` (two GEMMs inside)

A launch of one row becomes a GEMV and 2-3 rows fall outside the GEMM's 4-row register tiles,
so batches 1, 2, 3 differ from 4 and 8 in the last bits (unit signals by up to 1.6e-15 after
10 cycles; the issue saw 1e-14 in Phi). Fix: ``cognition.modules.base.rowwise_matmul`` (one
small product per agent, bmm over an expanded weight) for the three ``@`` above, and the GRU
cell written out with it (r, z, n gates as in ``torch.nn.GRUCell``; it differs from
``torch.gru_cell`` by <= 1e-15). On CUDA, cuBLAS
picks kernels by shape too; the strided-batched product keeps each agent's shape fixed,
but the same test should be run there before relying on it.
"""
import json

import numpy as np
import pytest
import torch
from looptools import run_loop
from runtools import fast_args, run

from cognition.simulator.build import assemble
from cognition.config.settings import load_config

def _trajectory(mode, batch, modules=None):
    quantum = {"mode": mode} if mode == "disabled" else {"mode": mode, "backend": "torch"}
    overrides = {"run": {"agents": 8, "cycles": 6}, "quantum": quantum, "modules": modules or {}}
    loop = assemble(load_config(overrides=overrides)).loop
    return run_loop(loop, 6, batch)


# the matched controls (docs/quantum-effects.md) draw from the agents' own streams too
CONTROLS = {"no_entanglement": {"unconscious": {"control": "no_entanglement"}},
            "classical_marginals": {"unconscious": {"control": "classical_marginals"}},
            "no_interference": {"hybrid": {"control": "no_interference"}},
            "matched_markov": {"hybrid": {"control": "matched_markov"}},
            "classical_reservoir": {"expectation": {"control": "classical_reservoir"}}}


@pytest.mark.parametrize("mode, control", [("disabled", None), ("lite", None)] + [("lite", c) for c in CONTROLS])
def test_bit_identical_for_every_batch(mode, control):
    modules = CONTROLS.get(control)
    ref_state, _, ref_units = _trajectory(mode, 8, modules)
    for batch in (1, 2, 3):
        state, _, units = _trajectory(mode, batch, modules)
        assert np.array_equal(units, ref_units), f"batch {batch}: max diff {np.abs(units - ref_units).max():.3g}"
        for name, st in ref_state.modules.items():
            for key, value in st.items():
                assert torch.equal(state.modules[name][key], value), (batch, name, key)


def test_bit_identical_after_an_oom_fallback(tmp_path, capsys):
    argv = fast_args(tmp_path, agents=8)
    assert run(argv + ["--out", tmp_path / "clean"], capsys)[0] in (0, 1)
    assert run(argv + ["--out", tmp_path / "oom", "--inject-fault", "oom@4,oom@5"], capsys)[0] in (0, 1)
    batches = [json.loads(line)["batch"] for line in (tmp_path / "oom" / "metrics.jsonl").read_text().splitlines()]
    assert batches[3:5] == [16, 8]  # the fallbacks really ran: 32 rows (8 agents, donors, two twins) -> 16 -> 8
    history = [(tmp_path / name / "unit_history.npy").read_bytes() for name in ("oom", "clean")]
    assert history[0] == history[1]
