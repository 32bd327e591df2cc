"""python -m cognition.experiment ablations: the factorial's conditions, its resumable runner, its errors.

Independent checks: the noise-matched condition's recorded noise variance equals the all-quantum run's
measured one (the matching's definition, tests/modules/test_noise_match.py checks the variance itself against
scipy); a resumed experiment gives the same summaries as an uninterrupted one (bit-identical resume of
each run, tests/simulator/test_resume.py).
"""
import json
import shutil

import pytest

from cognition.experiment.__main__ import main
from cognition.experiment.conditions import CONDITIONS, REFERENCE, contrasts, overrides, select


def test_every_condition_has_a_valid_configuration():
    from cognition.api import configure
    from cognition.experiment.ablations import config_sections

    settings = {"cycles": 20, "agents": 4, "quantum_mode": "lite"}
    for c in CONDITIONS:
        cfg = configure(**config_sections(settings, overrides(c, 0.01 if c.measured else None), seed=3))
        assert (cfg.run.seed, cfg.run.cycles, cfg.run.agents, cfg.control.yoked) == (3, 20, 4, False)
        assert cfg.quantum.mode == ("disabled" if c.name.startswith("classical") else "lite")
        assert cfg.modules.unconscious.noise_variance == (0.01 if c.measured else None)


def test_contrasts_pair_every_condition_with_the_reference_and_each_matched_stand_in_with_its_twin():
    names = [c.name for c in CONDITIONS]
    pairs = {(k.condition, k.reference) for k in contrasts(names)}
    assert {(n, REFERENCE) for n in names if n != REFERENCE} <= pairs
    assert ("unconscious.classical_matched", "unconscious.classical") in pairs
    assert ("classical_matched", "classical") in pairs
    assert len(pairs) == len(names) + 1
    assert [c.name for c in select(["hybrid.classical"])] == [REFERENCE, "hybrid.classical"]
    with pytest.raises(ValueError, match="nope: not a condition"):
        select(["nope"])


def _argv(out, *extra):
    return ["ablations", "--seeds", "2", "--cycles", "14", "--agents", "4", "--workers", "1", "--out", str(out),
            "--conditions", "unconscious.classical_matched,hybrid.no_interference", *extra]


@pytest.mark.parametrize("extra, message", [
    (["--conditions", "bogus"], "--conditions bogus: bogus: not a condition"),
    (["--seeds", "1"], "python -m cognition.experiment ablations: argument --seeds: 1 is not allowed: expected an "
                       "integer from 2 to 10000"),
    (["--config", "/no/such.yaml"], "--config /no/such.yaml: no such file"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, capsys, extra, message):
    out = tmp_path / "exp"
    assert main(_argv(out) + extra) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {message}" or err.startswith(f"error: {message}")
    assert len(err.splitlines()) == 1 and not out.exists()


def test_a_directory_that_is_not_an_experiment_is_refused(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("mine")
    assert main(_argv(tmp_path)) == 2
    assert "is not an ablation experiment's directory" in capsys.readouterr().err
    assert (tmp_path / "keep.txt").read_text() == "mine" and len(list(tmp_path.iterdir())) == 1


def _summaries(out):
    return {p.relative_to(out).as_posix(): json.loads(p.read_text()) for p in sorted((out / "runs").glob("*/*.json"))}


@pytest.mark.integration
def test_the_experiment_runs_reports_matches_noise_and_resumes_to_the_same_numbers(tmp_path, capsys):
    out = tmp_path / "exp"
    assert main(_argv(out)) == 0
    first = _summaries(out)
    assert len(first) == 6 and {p.name for p in out.iterdir()} >= {"report.json", "report.md", "report.html",
                                                                    "phi_effects.png", "experiment.json"}
    for seed in (0, 1):  # the matched stand-in has the quantum sampler's measured noise variance
        quantum = first[f"runs/quantum/seed-{seed}.json"]["noise_var"]
        assert first[f"runs/unconscious.classical_matched/seed-{seed}.json"]["noise_var"] == pytest.approx(
            quantum, rel=1e-9)
    report = json.loads((out / "report.json").read_text())
    assert report["settings"]["seeds"] == [0, 1]

    # a run whose summary and report are lost resumes from its checkpoint; one lost whole is made again
    resumed = out / "runs" / "hybrid.no_interference" / "seed-1"
    resumed.with_suffix(".json").unlink()
    (resumed / "report.json").unlink()
    remade = out / "runs" / "quantum" / "seed-0"
    remade.with_suffix(".json").unlink()
    shutil.rmtree(remade)
    capsys.readouterr()
    assert main(_argv(out)) == 0
    assert "4 of 6 runs reused" in capsys.readouterr().out
    again = _summaries(out)
    for key, summary in first.items():
        assert {k: v for k, v in again[key].items() if k != "seconds"} == \
            {k: v for k, v in summary.items() if k != "seconds"}, key

    # other settings in the same directory: refused, nothing touched
    before = (out / "experiment.json").read_text()
    assert main(_argv(out, "--cycles", "20")) == 2
    assert "holds an experiment made with cycles 14" in capsys.readouterr().err
    assert (out / "experiment.json").read_text() == before


def test_a_run_stopped_by_a_signal_is_resumed_not_reused(tmp_path):
    # Before: a run stopped by SIGTERM/SIGINT returns its results with status "interrupted", and make_run wrote
    # them as its summary; read_summaries took that summary as a finished run and make_run reused its report,
    # so a rerun of the experiment never continued the run (its numbers: those of the first cycles only).
    from cognition.api import Simulator, configure
    from cognition.experiment.ablations import config_sections, make_run, read_summaries, run_path, summarise
    from cognition.simulator.rundir import write_json

    condition = next(c for c in CONDITIONS if c.name == "classical")
    settings = {"cycles": 14, "agents": 4, "quantum_mode": "lite", "config": None}
    out, reference = tmp_path / "exp", tmp_path / "ref"
    path = run_path(out, condition.name, 3)
    path.parent.mkdir(parents=True)
    cfg = configure(**config_sections(settings, overrides(condition, None), 3))
    with Simulator(cfg, out=path, progress=False, faults="sigterm@6") as sim:  # as a Ctrl-C reaches a worker
        results = sim.run()
    status = lambda: json.loads((path / "report.json").read_text())["status"]  # noqa: E731
    assert results.report["status"] == "interrupted" and status() == "interrupted"
    write_json(path.with_suffix(".json"), dict(summarise(results), condition=condition.name, seed=3))

    assert read_summaries(out, [condition], [3]) == {condition.name: {}}  # not taken as finished
    unfinished = []
    read_summaries(out, [condition], [3], unfinished)
    assert unfinished == [(condition.name, 3, "interrupted")]  # reported, for run_all's line
    resumed = make_run(str(out), settings, condition.name, overrides(condition, None), 3)
    assert resumed["status"] == "completed" and status() == "completed"
    assert len((path / "metrics.jsonl").read_text().splitlines()) == 14
    whole = make_run(str(reference), settings, condition.name, overrides(condition, None), 3)
    assert {k: v for k, v in resumed.items() if k != "seconds"} == {k: v for k, v in whole.items() if k != "seconds"}
    assert read_summaries(out, [condition], [3])[condition.name][3] == resumed
