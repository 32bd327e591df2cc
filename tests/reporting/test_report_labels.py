"""Runs and groups in a comparison are named by the settings that differ between them (issue 44, item 4):
``python -m cognition.report A B`` said "classical #1 / #2" for two points of a sweep.

The configurations are made here with load_config, as config.yaml holds them (Config.to_dict()); the expected
labels are written out by hand from the overrides.
"""
from __future__ import annotations

import pytest

from cognition.config.settings import load_config
from cognition.errors import UsageError
from cognition.reporting.compare import compare_groups, group_labels, run_labels
from cognition.reporting.rundata import RunData


def config(**sections) -> dict:
    """A resolved configuration with ``sections``' overrides, e.g. ``config(run={"seed": 3})``."""
    return load_config(overrides=sections).to_dict()


def test_two_runs_differing_in_one_key_are_named_by_it():
    a, b = config(workspace={"threshold": 0.0}), config(workspace={"threshold": 0.5})
    assert run_labels([a, b]) == ["workspace.threshold=0.0", "workspace.threshold=0.5"]
    # a run.* key is named as its flag is (--seed), without the section
    assert run_labels([config(run={"seed": 0}), config(run={"seed": 3})]) == ["seed=0", "seed=3"]


def test_two_keys_are_both_named_in_the_configurations_order_the_mode_first():
    a = config(run={"seed": 0}, workspace={"threshold": 0.0})
    b = config(run={"seed": 3}, workspace={"threshold": 0.5})
    assert run_labels([a, b]) == ["seed=0, workspace.threshold=0.0", "seed=3, workspace.threshold=0.5"]
    # the mode by its name, ahead of the rest; a key the runs share is not named
    c = config(quantum={"mode": "disabled"}, run={"seed": 0})
    d = config(quantum={"mode": "lite"}, run={"seed": 1})
    assert run_labels([c, d, config(run={"seed": 1})]) == ["classical, seed=0", "quantum-lite, seed=1",
                                                            "full quantum, seed=1"]


def test_settings_that_only_change_how_a_run_executes_do_not_name_it():
    a, b = config(runtime={"threads": 1, "batch": 4}), config(runtime={"threads": 2, "batch": 8})
    assert run_labels([a, b]) is None  # nothing differs that a number depends on: the caller's mode labels
    # a numerics field of runtime does count: it changes how the numbers round
    assert run_labels([a, config(runtime={"threads": 1, "batch": 4, "autocast": "bf16"})]) == [
        "runtime.autocast=null", "runtime.autocast=bf16"]


def test_many_differing_keys_are_cut_to_three_and_counted_and_repeats_numbered():
    a = config(run={"seed": 0, "cycles": 10, "agents": 8}, workspace={"threshold": 0.0, "noise": 0.1})
    b = config(run={"seed": 1, "cycles": 20, "agents": 16}, workspace={"threshold": 0.5, "noise": 0.2})
    assert run_labels([a, b]) == ["cycles=10, seed=0, agents=8 (+2 more)", "cycles=20, seed=1, agents=16 (+2 more)"]
    # a copy of a run has the same settings as the run: the same name, numbered by position
    assert run_labels([a, a, b]) == ["cycles=10, seed=0, agents=8 (+2 more) #1",
                                     "cycles=10, seed=0, agents=8 (+2 more) #2",
                                     "cycles=20, seed=1, agents=16 (+2 more)"]


def test_groups_are_named_by_what_they_share_and_not_by_the_seeds_within_them():
    low = [config(workspace={"threshold": 0.0}, run={"seed": s}) for s in (0, 1, 2)]
    high = [config(workspace={"threshold": 0.5}, run={"seed": s}) for s in (0, 1)]
    assert group_labels([low, high]) == ["workspace.threshold=0.0", "workspace.threshold=0.5"]
    # two keys between the groups, the seeds within them
    lite = [config(quantum={"mode": "lite"}, workspace={"threshold": 0.5}, run={"seed": s}) for s in (0, 1)]
    assert group_labels([low, lite]) == ["full quantum, workspace.threshold=0.0",
                                         "quantum-lite, workspace.threshold=0.5"]
    # groups of the same settings that differ only by seed within: nothing tells them apart
    assert group_labels([low[:2], low[1:]]) is None


def _run(cfg: dict, name: str) -> RunData:
    """A finished run as compare_groups reads it: its config, and a report without a headline (no test)."""
    report = {"phi": {"measure": "phi_r", "headline_bits": None, "whole_run_note": "too short"},
              "cycles_completed": 0, "passed": True}
    return RunData(path=name, report=report, records=[], provenance={"seed": cfg["run"]["seed"]}, config=cfg)


def test_a_comparison_uses_the_labels_and_falls_back_to_the_mode():
    a, b = _run(config(run={"seed": 0}), "a"), _run(config(run={"seed": 3}), "b")
    cmp = compare_groups([[a], [b]])
    assert [r["label"] for r in cmp["runs"]] == ["seed=0", "seed=3"] and not cmp["grouped"]
    assert [t["a"] + " - " + t["b"] for t in cmp["tests"]] == ["seed=0 - seed=3"]
    # the same settings (a run and its copy): the mode, numbered, as before
    assert [r["label"] for r in compare_groups([[a], [a]])["runs"]] == ["full quantum #1", "full quantum #2"]
    # given names win; one per condition
    assert [r["label"] for r in compare_groups([[a], [b]], ["x", "y"])["runs"]] == ["x", "y"]
    with pytest.raises(UsageError, match="1 label"):
        compare_groups([[a], [b]], ["x"])
    grouped = compare_groups([[a, b], [_run(config(run={"seed": 0}, workspace={"threshold": 0.5}), "c")]])
    assert [g["label"] for g in grouped["groups"]] == ["workspace.threshold=0.0", "workspace.threshold=0.5"]
    assert [r["label"] for r in grouped["runs"]] == ["workspace.threshold=0.0 #1", "workspace.threshold=0.0 #2",
                                                      "workspace.threshold=0.5 #1"]
