"""runtime.compile: torch.compile of the step's kernels equals the eager step.

Reference: the eager step itself (the same kernels run without compilation).
Stated tolerance: 1e-12 absolute on every unit signal and module state in float64
over 8 cycles; TorchInductor fuses and reorders floating-point operations, which
changes the last bits (2.6e-14 was the largest difference seen over a 30-cycle run).
"""
import numpy as np
import pytest
import torch
from clitools import command
from looptools import run_loop

from cognition.simulator.build import assemble
from cognition.config.settings import load_config
from cognition.runtime.compile import COMPILE_MODES, StepCompiler

TOL = 1e-12
CYCLES = 8


def _trajectory(mode, compile_mode, batch=None, device="cpu"):
    quantum = {"mode": mode} if mode == "disabled" else {"mode": mode, "backend": "torch"}
    cfg = load_config(overrides={"run": {"agents": 5, "cycles": CYCLES}, "quantum": quantum,
                                 "runtime": {"compile": compile_mode, "device": device}})
    a = assemble(cfg)
    state, _, units = run_loop(a.loop, CYCLES, batch)
    return (state, units), a.compiler


def _assert_same(a, b):
    (a, a_units), (b, b_units) = a, b
    np.testing.assert_allclose(a_units, b_units, rtol=0, atol=TOL)
    for name, st in a.modules.items():
        for key, value in st.items():
            assert torch.allclose(value, b.modules[name][key], rtol=0, atol=TOL), (name, key)


@pytest.mark.parametrize("mode", ["disabled", "lite"])
def test_compiled_step_equals_eager(mode):
    eager, _ = _trajectory(mode, "off")
    compiled, compiler = _trajectory(mode, "default", batch=3)  # chunks of 3 and 2: two shapes compiled
    eager_chunks, _ = _trajectory(mode, "off", batch=3)
    _assert_same(eager_chunks, compiled)
    _assert_same(eager, compiled)
    kernels = set(compiler.describe()["kernels"])
    assert {"surprise", "access_step", "ignite", "leaky_readout", "readout_learn"} <= kernels
    assert ({"rnn_drive", "rnn_sample"} <= kernels) == (mode == "disabled")


def test_off_is_the_eager_function_itself():
    def kernel(x):
        return x + 1

    assert StepCompiler("off", "cpu")(kernel) is kernel
    with pytest.raises(ValueError, match="off, default, reduce-overhead"):
        StepCompiler("max-autotune", "cpu")
    assert COMPILE_MODES == ("off", "default", "reduce-overhead")


def test_cuda_graph_wrapper_returns_fresh_tensors():
    # The CUDA-graph path's own code (step marker, cloned outputs) runs here on CPU tensors,
    # where torch.compile skips graph capture: outputs must be equal values in new storage.
    compiler = StepCompiler("reduce-overhead", "cuda:0")
    assert compiler.cuda_graphs

    def kernel(x, y):
        return x * y, (x + y).sum(dim=1)

    wrapped = compiler(kernel)
    x, y = torch.randn(4, 3, dtype=torch.float64), torch.randn(4, 3, dtype=torch.float64)
    got, want = wrapped(x, y), kernel(x, y)
    for g, w in zip(got, want):
        assert torch.allclose(g, w, rtol=0, atol=TOL)
    assert got[0].data_ptr() != wrapped(x, y)[0].data_ptr()
    assert compiler.describe() == {"mode": "reduce-overhead", "cuda_graphs": True, "kernels": ["kernel"]}


def test_reduce_overhead_on_cpu_has_no_cuda_graphs():
    assert not StepCompiler("reduce-overhead", "cpu").cuda_graphs


@pytest.mark.integration
def test_validate_records_the_compile_in_provenance(tmp_path):
    import json

    cfg = tmp_path / "c.yaml"
    cfg.write_text("runtime:\n  compile: default\n")
    out = tmp_path / "run"
    res = command("cognition.validate", "--config", cfg, "--cycles", "5", "--disable-quantum", "--out", out)
    assert res.returncode in (0, 1), res.stderr
    info = json.loads((out / "provenance.json").read_text())["compile"]
    assert info["mode"] == "default" and not info["cuda_graphs"] and info["warmup_seconds"] > 0
    assert {"rnn_drive", "rnn_sample"} <= set(info["kernels"])
    assert "| compiled step | torch.compile mode default, no CUDA graphs; 8 kernels" in (out / "report.md").read_text()


def test_bad_compile_value_is_one_line(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("runtime:\n  compile: fast\n")
    res = command("cognition.validate", "--config", cfg, "--cycles", "5", "--out", tmp_path / "run")
    assert res.returncode == 2
    assert len(res.stderr.strip().splitlines()) == 1
    assert "runtime.compile" in res.stderr and "fast" in res.stderr and "reduce-overhead" in res.stderr
    assert not (tmp_path / "run").exists()


def test_no_cxx_compiler_is_one_line_before_anything_is_written(tmp_path, monkeypatch):
    # A real compilation failure: TorchInductor's CPU backend needs a C++ compiler, and CXX names none.
    # A private cache directory, so that no kernel compiled earlier is reused.
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-g++"))
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "cache"))
    cfg = tmp_path / "c.yaml"
    cfg.write_text("runtime:\n  compile: default\n")
    res = command("cognition.validate", "--config", cfg, "--cycles", "5", "--disable-quantum",
                  "--out", tmp_path / "run")
    assert res.returncode == 2, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert "runtime.compile: 'default' could not compile" in res.stderr and "compile: off" in res.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.gpu
def test_cuda_graphs_equal_eager_on_gpu():
    eager, _ = _trajectory("disabled", "off", device="cuda")
    graphs, compiler = _trajectory("disabled", "reduce-overhead", device="cuda")
    assert compiler.cuda_graphs
    _assert_same(eager, graphs)


def test_unquoted_yaml_off_means_off(tmp_path):
    # YAML 1.1 (PyYAML) reads `compile: off` as the boolean false; the schema takes it as "off".
    from cognition.config.settings import load_config

    path = tmp_path / "c.yaml"
    path.write_text("runtime:\n  compile: off\n")
    assert load_config(path=path).runtime.compile == "off"


def test_an_oom_in_the_warm_up_is_deferred_to_the_runner(monkeypatch):
    # A real torch.OutOfMemoryError raised in the warm-up cycle: compilation moves to cycle 1, where the
    # runner's OOM retry applies; any other error is not swallowed.
    from cognition.runtime.compile import warm_up

    cfg = load_config(overrides={"run": {"agents": 2, "cycles": 3}, "quantum": {"mode": "disabled"},
                                 "runtime": {"compile": "default"}})
    a = assemble(cfg)
    monkeypatch.setattr(a.loop, "advance", lambda *_: (_ for _ in ()).throw(torch.OutOfMemoryError("out of memory")))
    info = warm_up(a.loop, a.compiler, None)
    assert "out of memory in the warm-up cycle" in info["warmup_deferred"]
    monkeypatch.setattr(a.loop, "advance", lambda *_: (_ for _ in ()).throw(ValueError("not an OOM")))
    with pytest.raises(ValueError, match="not an OOM"):
        warm_up(a.loop, a.compiler, None)
