"""Config validation: every bad value is one ConfigError naming field, value and what is allowed."""
import pytest

from cognition.config.settings import available_presets, config_from_resolved, load_config
from cognition.errors import ConfigError


def test_defaults_equal_default_preset():
    assert load_config(preset="default") == load_config()


@pytest.mark.parametrize("preset", available_presets())
def test_every_preset_loads_and_round_trips(preset):
    cfg = load_config(preset=preset)
    assert config_from_resolved(cfg.to_dict()) == cfg


@pytest.mark.parametrize("overrides, field, fragment", [
    ({"run": {"cyclez": 3}}, "run.cyclez", "known keys here"),
    ({"run": {"cycles": -1}}, "run.cycles", ">= 1"),
    ({"run": {"cycles": 2.5}}, "run.cycles", "an integer"),
    ({"run": {"agents": True}}, "run.agents", "an integer"),
    ({"quantum": {"lite_max_qubits": 0}}, "quantum.lite_max_qubits", ">= 1"),
    ({"quantum": {"mode": "turbo"}}, "quantum.mode", "'full'"),
    ({"phi": {"confidence": 1.0}}, "phi.confidence", "< 1"),
    ({"phi": {"shrinkage": "oas"}}, "phi.shrinkage", "ledoit-wolf"),
    ({"modules": {"enabled": ["expectation", "telepathy"]}}, "modules.enabled", "a registered module: expectation, unconscious, hybrid"),
    ({"runtime": "fast"}, "runtime", "a mapping"),
])
def test_bad_values_name_field_value_and_allowed(overrides, field, fragment):
    with pytest.raises(ConfigError) as info:
        load_config(overrides=overrides)
    err = info.value
    assert err.field == field
    assert fragment in str(err)
    assert "\n" not in str(err)


def test_missing_and_malformed_files(tmp_path):
    with pytest.raises(ConfigError, match="an existing YAML file"):
        load_config(path=tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("run: [unclosed\n")
    with pytest.raises(ConfigError, match="valid YAML"):
        load_config(path=bad)
    scalar = tmp_path / "scalar.yaml"
    scalar.write_text("42\n")
    with pytest.raises(ConfigError, match="mapping at the top level"):
        load_config(path=scalar)


def test_unknown_preset_lists_available():
    with pytest.raises(ConfigError, match="one of .*default"):
        load_config(preset="nonexistent")


def test_layering_file_over_preset_over_defaults(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("run: {cycles: 7}\nquantum: {lite_threads: 2}\n")
    cfg = load_config(preset="quantum_lite", path=f, overrides={"run": {"seed": 3}})
    assert (cfg.run.cycles, cfg.run.seed, cfg.quantum.mode, cfg.quantum.lite_threads) == (7, 3, "lite", 2)
    assert cfg.quantum.qubit_cap == 16


def test_a_width_over_the_qubit_cap_is_refused_when_the_run_is_built():
    # the widths are the modules' classes' (circuit_width): asked when the run is built, before its directory
    # is claimed, since importing the classes imports torch (after the host memory limits are checked)
    from cognition.modules import resolve_widths

    cfg = load_config(overrides={"quantum": {"mode": "lite", "lite_max_qubits": 4},
                                 "modules": {"expectation": {"qubits": 6}, "unconscious": {"qubits": 4}}})
    with pytest.raises(ConfigError) as info:
        resolve_widths(cfg)
    assert info.value.field == "modules.expectation.qubits" and info.value.value == 6
    assert "at most the qubit cap 4 (or quantum.on_cap_exceeded: reduce)" in str(info.value)
    classical = load_config(overrides={"quantum": {"mode": "lite", "lite_max_qubits": 4},
                                       "modules": {"expectation": {"qubits": 6, "control": "classical"},
                                                   "unconscious": {"qubits": 4}}})
    assert resolve_widths(classical) == ({"unconscious": 4}, [])  # its classical stand-in runs no circuit


def test_reduce_policy_allows_wide_modules():
    cfg = load_config(overrides={"quantum": {"mode": "lite", "lite_max_qubits": 4, "on_cap_exceeded": "reduce"}})
    assert cfg.modules.expectation.qubits == 6 and cfg.quantum.qubit_cap == 4


def test_resample_counts_are_bounded_where_the_estimate_bounds_them():
    # issue 43: phi.surrogates had no upper bound (1e8 asked for 5.96 GiB); the config refuses what
    # phi.estimate would refuse at the end of the run, before the run starts
    import pytest

    from cognition.config.settings import MAX_RESAMPLES, load_config
    from cognition.errors import ConfigError
    from cognition.phi.validation import MAX_RESAMPLES as ESTIMATE_MAX

    assert MAX_RESAMPLES == ESTIMATE_MAX == 10_000
    assert load_config(overrides={"phi": {"surrogates": MAX_RESAMPLES}}).phi.surrogates == MAX_RESAMPLES
    for key in ("surrogates", "bootstrap"):
        with pytest.raises(ConfigError) as info:
            load_config(overrides={"phi": {key: MAX_RESAMPLES + 1}})
        assert f"phi.{key}" in str(info.value) and "\n" not in str(info.value)
