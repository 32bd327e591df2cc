"""Inputs that used to get past validation (issue 17): each is now one ConfigError, before anything runs.

Non-finite numbers, a bad section hidden by a flag that overrides it, a workspace
capacity above the number of modules, a key repeated in a YAML mapping, a run longer
than checkpoints can number.
"""
import pytest

from cognition.config.settings import load_config
from cognition.errors import ConfigError


def _from_file(tmp_path, text, overrides=None):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return load_config(path=path, overrides=overrides)


@pytest.mark.parametrize("text, field", [
    ("modules: {hybrid: {gamma: .inf}}\n", "modules.hybrid.gamma"),
    ("modules: {hybrid: {gamma: -.inf}}\n", "modules.hybrid.gamma"),
    ("workspace: {temperature: .nan}\n", "workspace.temperature"),
    ("runtime: {checkpoint_every_seconds: .inf}\n", "runtime.checkpoint_every_seconds"),
])
def test_non_finite_numbers_are_refused(tmp_path, text, field):
    with pytest.raises(ConfigError, match="a finite number") as info:
        _from_file(tmp_path, text)
    assert info.value.field == field


@pytest.mark.parametrize("text, field, fragment", [
    ("run: 5\n", "run", "a mapping"),
    ("run: {cycles: fifty}\n", "run.cycles", "an integer"),
])
def test_a_bad_section_is_refused_even_when_a_flag_overrides_it(tmp_path, text, field, fragment):
    with pytest.raises(ConfigError) as info:
        _from_file(tmp_path, text, overrides={"run": {"cycles": 5}})
    assert info.value.field == field and fragment in str(info.value)


def test_workspace_capacity_above_the_number_of_modules_is_refused():
    with pytest.raises(ConfigError, match=r"at most the number of enabled modules \(2\)") as info:
        load_config(overrides={"modules": {"enabled": ["expectation", "unconscious"]}, "workspace": {"capacity": 3}})
    assert info.value.field == "workspace.capacity"
    assert load_config(overrides={"workspace": {"capacity": 3}}).workspace.capacity == 3  # three modules: fine


def test_a_repeated_yaml_key_is_refused_naming_key_and_lines(tmp_path):
    with pytest.raises(ConfigError) as info:
        _from_file(tmp_path, "run:\n  cycles: 5\n  seed: 1\n  cycles: 7\n")
    msg = str(info.value)
    assert "'cycles' appears twice" in msg and "lines 2 and 4" in msg and "\n" not in msg


def test_a_yaml_merge_that_overrides_a_key_is_not_a_repeat(tmp_path):
    cfg = _from_file(tmp_path, "modules:\n  expectation: &q {qubits: 4, hidden: 8}\n"
                               "  unconscious: {<<: *q, qubits: 5}\n")
    assert (cfg.modules.unconscious.qubits, cfg.modules.unconscious.hidden) == (5, 8)


def test_cycles_beyond_what_checkpoints_can_number_are_refused():
    with pytest.raises(ConfigError, match="<= 999999999"):
        load_config(overrides={"run": {"cycles": 1_000_000_000}})
