"""--resume guards the settings that change the numbers, by what each field changes (issue 32).

Before: ``runner.config_hash`` hashed by section name, so ``runtime.autocast`` (numerics) edited into a stopped
run's config.yaml was continued without a word, ``quantum.lite_threads`` (execution) refused the resume, and the
refusal said "config hash differs" without naming the field. Now every field is tagged (cognition.config.settings
CHANGES_OF), a checkpoint records its science and numerics settings, and the refusal names each field with
both values.
"""
import pytest
import yaml
from runtools import copy_run, finished_run, run


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    return finished_run(tmp_path_factory.mktemp("finished"))


_copy = copy_run


def _edit(run_dir, **changes):
    """Edit the run's config.yaml as a user would between stop and --resume: {"runtime.autocast": "bf16"}."""
    data = yaml.safe_load((run_dir / "config.yaml").read_text())
    for key, value in changes.items():
        section, name = key.split("__")
        data[section][name] = value
    (run_dir / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False))


def test_a_changed_autocast_is_refused_naming_the_field_and_both_values(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    _edit(out, runtime__autocast="bf16")
    before = (out / "metrics.jsonl").read_text()
    rc, _, err = run(["--resume", out], capsys)
    assert rc == 2 and len(err) == 1, err
    assert "runtime.autocast = 'bf16' (the checkpoint has null)" in err[0], err
    assert "config hash differs" not in err[0]
    assert (out / "metrics.jsonl").read_text() == before


def test_every_changed_field_is_named_in_one_line(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    _edit(out, run__dtype="float32", workspace__noise=0.3, runtime__compile="default")
    rc, _, err = run(["--resume", out], capsys)
    assert rc == 2 and len(err) == 1, err
    for fragment in ("run.dtype = 'float32' (the checkpoint has 'float64')",
                     "workspace.noise = 0.3 (the checkpoint has 0.2)",
                     "runtime.compile = 'default' (the checkpoint has 'off')"):
        assert fragment in err[0], err


def test_changed_thread_counts_and_other_execution_settings_are_accepted(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    _edit(out, runtime__threads=2, quantum__lite_threads=2, runtime__keep_checkpoints=5, runtime__batch=2,
          criteria__alpha=0.01)
    rc, _, err = run(["--resume", out], capsys)
    assert rc in (0, 1), err
    assert any("the run had already finished" in line for line in err), err


def test_a_checkpoint_written_before_the_tags_still_resumes(finished, tmp_path, capsys):
    # a checkpoint of 0.5.0 before the tags carries only the hash by section ("config_hash"): it resumes as it
    # did, and a changed science field is refused as it was
    from cognition.runtime.checkpoint import CheckpointStore

    out = _copy(finished, tmp_path)
    store = CheckpointStore(out)
    payload, cycle = store.load_latest()
    del payload["settings"], payload["settings_hash"]
    store.save(payload, cycle)
    rc, _, err = run(["--resume", out], capsys)
    assert rc in (0, 1), err
    _edit(out, workspace__noise=0.3)
    rc, _, err = run(["--resume", out], capsys)
    assert rc == 2 and len(err) == 1 and "config hash differs" in err[0], err


def test_the_checkpoint_records_what_the_hash_covers(finished):
    from cognition.config.settings import CHANGES_OF, config_from_resolved
    from cognition.simulator.runner import config_hash
    from cognition.runtime.checkpoint import CheckpointStore

    payload, _ = CheckpointStore(finished).load_latest()
    cfg = config_from_resolved(yaml.safe_load((finished / "config.yaml").read_text()))
    assert set(payload["settings"]) == {k for k, tag in CHANGES_OF.items() if tag in ("science", "numerics")}
    assert "runtime.autocast" in payload["settings"] and "runtime.threads" not in payload["settings"]
    assert payload["settings_hash"] == config_hash(cfg)
