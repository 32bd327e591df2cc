"""Whole-run memory planner: arithmetic by hand, the 4 GiB preset, and the check before cycle 1."""
import pytest

from cognition.config.settings import load_config
from cognition.errors import ConfigError
from cognition.runtime.planner import check_fits, classical_bytes_per_agent, plan_run, weight_bytes_per_agent

MiB = 2**20


def test_quantum_bytes_by_hand():
    cfg = load_config(overrides={"run": {"agents": 10}, "quantum": {"mode": "lite", "precision": "single"},
                                 "modules": {"expectation": {"qubits": 10}, "unconscious": {"qubits": 12}}})
    p = plan_run(cfg, 1024 * MiB, working_copies=3)
    # widest module 12 qubits: 2^12 amplitudes x 8 B (complex64) x 3 copies x 40 rows in one launch (10 agents,
    # their donors, their yoked twins and their proposal-yoked twins)
    assert p.quantum_bytes == 40 * 2**12 * 8 * 3
    # expectation, quantum: F = 10 <Z> + 10 ring <ZZ> = 20; floats = the broadcast D, then its features F,
    # prediction D, RLS readout W (F+1) D and inverse correlation P (F+1)^2 (D = 8), doubled (old and new
    # state), 8 B each (float64); the quantum unconscious and the hybrid hold no state
    floats = 8 + 20 + 8 + 21 * 8 + 21**2
    assert classical_bytes_per_agent(cfg) == 2 * floats * 8
    # every agent's own weights, 8 B a value: reservoir angles 2 x 10 qubits x depth 2, association M 12 x D,
    # the hybrid module's action vector D
    weights = 2 * 10 * 2 + 12 * 8 + 8
    assert weight_bytes_per_agent(cfg) == weights * 8
    assert p.classical_bytes == 40 * (2 * floats + weights) * 8
    # max batch: (budget / 2 - classical) // per-row bytes, capped at the rows
    assert p.max_batch == 40 and p.fits


def test_max_batch_when_the_budget_binds():
    cfg = load_config(overrides={"run": {"agents": 4096}, "quantum": {"mode": "lite"}, "control": {"yoked": False},
                                 "modules": {"expectation": {"qubits": 16}, "unconscious": {"qubits": 16}}})
    budget = 256 * MiB
    p = plan_run(cfg, budget, working_copies=3)
    per_row = 2**16 * 16 * 3  # complex128
    assert p.max_batch == (budget // 2 - p.classical_bytes) // per_row
    assert not p.fits
    with pytest.raises(ConfigError, match=rf"run.agents = 4096 .* at most {p.max_batch} agents per launch"):
        check_fits(cfg, budget, working_copies=3)


def test_low_memory_preset_fits_a_4gb_card():
    cfg = load_config(preset="low_memory_4gb")
    assert cfg.runtime.memory_budget_mb * MiB <= 4 * 1024 * MiB
    p = check_fits(cfg, cfg.runtime.memory_budget_mb * MiB)
    assert p.fits and p.batch == cfg.runtime.batch
    assert p.total_bytes <= 0.5 * cfg.runtime.memory_budget_mb * MiB
    assert (cfg.run.dtype, cfg.quantum.precision, cfg.runtime.autocast) == ("float32", "single", "fp16")


def test_host_and_disk_plan_by_hand():
    import math

    from cognition.runtime.planner import RUN_RESIDENT_BYTES, WORKING_SHARE, check_disk, check_host

    cfg = load_config(overrides={"run": {"agents": 4, "cycles": 100}, "quantum": {"mode": "disabled"},
                                 "control": {"yoked": False}})
    # classical weights (hidden 16, D 8): M 16 x 8, W 16 x 16, U 8 x 16; GRU 3H x D, 3H x H, two 3H biases;
    # the hybrid module's action vector D
    weights = 16 * 8 + 16 * 16 + 8 * 16 + 48 * 8 + 48 * 16 + 2 * 48 + 8
    assert weight_bytes_per_agent(cfg) == weights * 8 == 14144
    state = 4 * (classical_bytes_per_agent(cfg) + weights * 8)
    assert check_host(cfg, 8, available=None)["host_bytes"] == state + 6 * (4 * 8 * 8) * 100  # 6 copies
    disk = check_disk(cfg, 8, run_dir="x", free_disk=None)["disk_bytes"]
    # unit history, one metrics line a cycle, and in it one byte per row for the row's winner
    assert disk == 100 * (4 * 8 * 8 + 4 + 1024)
    assert check_disk(cfg, 8, run_dir="x", free_disk=None, done=60)["disk_bytes"] == 40 * (4 * 8 * 8 + 4 + 1024)
    # against MemAvailable (resident): what the libraries touch, the state with a cycle's working copies
    # (0.75 of it more), the analysis
    working = state + math.ceil(WORKING_SHARE * state)
    plan = check_host(cfg, 8, available=RUN_RESIDENT_BYTES + working + 6 * (4 * 8 * 8) * 100)
    assert plan["need_bytes"]["resident"] == RUN_RESIDENT_BYTES + working + 6 * (4 * 8 * 8) * 100
    assert plan["limit"]["source"] == "MemAvailable"
    with pytest.raises(ConfigError, match=r"run.agents = 4 .* MemAvailable: .* at most [0-3] agents fit: lower run.agents"):
        check_host(cfg, 8, available=RUN_RESIDENT_BYTES + working - 1)
    with pytest.raises(ConfigError, match=r"run.cycles = 100 .* final analysis over 100 cycles.* at most \d+ cycles"):
        check_host(cfg, 8, available=RUN_RESIDENT_BYTES + working + 1)
    with pytest.raises(ConfigError, match="100 cycles to go.* fit the disk of x"):
        check_disk(cfg, 8, run_dir="x", free_disk=disk - 1)


def test_the_yoked_control_quadruples_the_rows_planned():
    from cognition.runtime.planner import check_disk, check_host

    plain, yoked = (load_config(overrides={"run": {"agents": 4, "cycles": 10}, "quantum": {"mode": "disabled"},
                                           "control": {"yoked": y}}) for y in (False, True))
    # rows per agent: the agent, its donor, its yoked twin and its proposal-yoked twin
    assert check_host(yoked, 7, available=None)["host_bytes"] == 4 * check_host(plain, 7, available=None)["host_bytes"]
    d_plain = check_disk(plain, 7, run_dir="x", free_disk=None)["disk_bytes"]
    # the unit history's extra rows: 10 cycles x 3 extra rows x 4 agents x (7 units x 8 B + a winner's byte)
    assert check_disk(yoked, 7, run_dir="x", free_disk=None)["disk_bytes"] == d_plain + 10 * 3 * 4 * (7 * 8 + 1)
    assert plan_run(yoked, 1024 * MiB).classical_bytes == 4 * plan_run(plain, 1024 * MiB).classical_bytes


@pytest.mark.parametrize("overrides", [
    {},  # quantum: the reservoir's features and readout, the sampler holds none
    {"quantum": {"mode": "disabled"}},  # classical: the GRU and the stochastic RNN add hidden states
    {"modules": {"expectation": {"qubits": 1, "depth": 4}}},  # one qubit: no ring pair
    {"quantum": {"mode": "lite", "lite_max_qubits": 5, "on_cap_exceeded": "reduce"}},  # planned after the cap
    {"modules": {"expectation": {"control": "classical_reservoir"}, "unconscious": {"control": "classical"}}},
])
def test_the_planner_counts_the_state_each_module_builds(overrides):
    """What a module declares (state_shapes, weight_shapes) is what its init_state and init_weights make."""
    import math

    import numpy as np
    import torch

    from cognition.modules import build_modules, capped_widths, lookup, settings_of, variant_of

    cfg = load_config(overrides=dict(overrides, run={"agents": 2, "content_dim": 5}))
    widths = capped_widths(cfg)
    modules = build_modules(cfg, dtype=torch.float64, device="cpu", widths=widths)
    agents = np.arange(3)
    floats = cfg.run.content_dim  # the broadcast
    for m in modules:
        cls, settings = lookup(m.name, variant_of(cfg, m.name)), settings_of(cfg, m.name)
        declared = cls.state_shapes(settings, cfg.run.content_dim, widths.get(m.name))
        assert {k: tuple(v.shape) for k, v in m.init_state(agents, None).items()} == {
            k: (3, *shape) for k, shape in declared.items()}, m.name
        assert {k: tuple(v.shape) for k, v in m.init_weights(agents).items()} == {
            k: (3, *shape) for k, shape in cls.weight_shapes(settings, cfg.run.content_dim, widths.get(m.name)).items()}
        floats += sum(math.prod(shape) for shape in declared.values())
    assert classical_bytes_per_agent(cfg) == 2 * floats * 8
