"""``python -m cognition.experiment ablations``: the factorial of quantum components and their controls.

Every condition of :mod:`cognition.experiment.conditions` is run for every seed (a seed is an
independent architecture: the replication unit), each as an ordinary run directory
(``OUT/runs/<condition>/seed-<s>``, made by :class:`cognition.api.Simulator`, the CLI's own code
path) without the yoked twins (``control.yoked: false``: the contrasts are between conditions, and an
agent's numbers do not depend on its twins). Each finished run leaves a one-line summary
(``OUT/runs/<condition>/seed-<s>.json``); the report (``OUT/report.{json,md,html}`` and plots,
:mod:`cognition.experiment.ablation_report`) is written from the summaries.

Resumable: a later call with the same OUT and settings reuses every summarised run, resumes a run
that was stopped or killed from its checkpoint, and makes the rest. The noise-matched conditions run
after the all-quantum run of their seed, whose measured noise variance they take.
"""
from __future__ import annotations

import contextlib
import io
import itertools
import json
import signal
import sys
from concurrent.futures import FIRST_COMPLETED, wait
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from cognition.errors import RunFailed, UsageError
from cognition.experiment.conditions import REFERENCE, Condition, overrides
from cognition.runtime.lifeline import bound_pool
from cognition.simulator import rundir
from cognition.simulator.progress import RunEnd, RunsProgress
from cognition.simulator.rundir import write_json

SETTINGS_FILE = "experiment.json"
FINISHED = "completed"  # a summary's run status that is reused; any other run is resumed
MUST_MATCH = ("cycles", "agents", "quantum_mode", "config_text", "conditions")  # what a resumed experiment keeps


def run_path(out: Path, condition: str, seed: int) -> Path:
    return out / "runs" / condition / f"seed-{seed}"


def summarise(results) -> dict:
    """One run's numbers for the factorial, from its RunResults: the headline Phi (report.json
    ``phi.headline_bits``, the mean over agents of each agent's own Phi, what ``cognition.report``
    compares across runs) and behaviour (mean P(act), winner shares, switching rate), the
    unconscious module's noise variance."""
    report = results.report
    competition = report.get("competition") or {}
    shares = dict(competition.get("winner_share") or {})
    if competition:
        shares["none"] = competition.get("no_access")

    def extra_mean(key):
        known = {k for r in results.records for k in r["extras"]}
        return float(np.nanmean(results.extras(key))) if key in known else None

    phi = report["phi"].get("headline_bits")
    return {"phi_bits": float("nan") if phi is None else float(phi), "p_act": extra_mean("hybrid.p_act"),
            "winner_shares": shares, "switching_rate": competition.get("switching_rate"),
            "noise_var": extra_mean("unconscious.noise_var"),
            "seconds": report["telemetry"]["run_wall_seconds"], "status": report["status"],
            "git_sha": results.provenance.get("package", {}).get("git_sha")}


def config_sections(settings: dict, condition_overrides: dict, seed: int) -> dict:
    from cognition.config.settings import _merge

    base = {"run": {"seed": seed, "cycles": settings["cycles"], "agents": settings["agents"]},
            "quantum": {"mode": settings["quantum_mode"]}, "control": {"yoked": False},
            "runtime": {"device": "cpu"}}
    return _merge(base, condition_overrides)


def make_run(out: str, settings: dict, name: str, condition_overrides: dict, seed: int) -> dict:
    """Run (or resume, or summarise) one condition for one seed; writes and returns its summary."""
    from cognition.api import Simulator, configure  # the simulator's first import: --help stays fast
    from cognition.reporting.results import RunResults

    path = run_path(Path(out), name, seed)
    summary_file = path.with_suffix(".json")
    found = rundir.state(path)
    if found == "foreign":
        raise UsageError(f"{path}: holds something that is not a run of this experiment; move it away")
    quiet = contextlib.redirect_stdout(io.StringIO())
    with quiet, contextlib.redirect_stderr(io.StringIO()):
        if found == "finished":
            results = RunResults(path)
        elif found == "resume":  # stopped or killed after its claim: from its last checkpoint, or cycle 0
            with Simulator.resume(path, progress=False) as sim:
                results = sim.run()
        else:  # fresh, or a start killed before its claim
            path.parent.mkdir(parents=True, exist_ok=True)
            cfg = configure(path=settings["config"], **config_sections(settings, condition_overrides, seed))
            with Simulator(cfg, out=path, progress=False) as sim:
                results = sim.run()
    summary = dict(summarise(results), condition=name, seed=seed)
    write_json(summary_file, summary)
    return summary


def read_summaries(out: Path, conditions: list[Condition], seeds: list[int], unfinished: list | None = None) -> dict:
    """condition -> seed -> summary, for the runs already summarised as finished. A summary of a run that
    did not finish (stopped by a signal, or an out-of-memory failure: status other than "completed") is
    left out, so that the run is resumed; its (condition, seed, status) goes to ``unfinished``."""
    found: dict = {c.name: {} for c in conditions}
    for c in conditions:
        for s in seeds:
            f = run_path(out, c.name, s).with_suffix(".json")
            if not f.is_file():
                continue
            summary = json.loads(f.read_text())
            if summary.get("status") == FINISHED:
                found[c.name][s] = summary
            elif unfinished is not None:
                unfinished.append((c.name, s, summary.get("status")))
    return found


def check_settings(out: Path, settings: dict) -> None:
    """Claim OUT for these settings, or check that a resumed experiment keeps them (UsageError if not)."""

    f = out / SETTINGS_FILE
    if f.is_file():
        before = json.loads(f.read_text())
        for key in MUST_MATCH:
            if before.get(key) != settings[key]:
                shown = "the --config file's text" if key == "config_text" else f"{key} {before.get(key)!r}"
                raise UsageError(f"--out {out}: holds an experiment made with {shown}, this call asks "
                                 f"{settings[key]!r}; use the same settings to resume it, or another --out")
        settings = dict(settings, seeds=sorted(set(before.get("seeds", [])) | set(settings["seeds"])))
    elif out.exists() and any(out.iterdir()):
        raise UsageError(f"--out {out}: exists and is not an ablation experiment's directory (no {SETTINGS_FILE}); "
                         "choose a new or empty directory")
    out.mkdir(parents=True, exist_ok=True)
    write_json(f, settings)


def _jobs(conditions, seeds, found, noise: dict | None) -> list[tuple[str, dict, int]]:
    """The unsummarised runs that can start now: the measured conditions only once ``noise`` is known."""
    jobs = []
    for c in conditions:
        if c.measured != (noise is not None):
            continue
        for s in seeds:
            if s not in found[c.name]:
                jobs.append((c.name, overrides(c, noise.get(s) if noise else None), s))
    return jobs


def run_all(out: Path, settings: dict, conditions: list[Condition], workers: int) -> dict:
    seeds, unfinished = settings["seeds"], []
    found = read_summaries(out, conditions, seeds, unfinished)
    total = len(conditions) * len(seeds)
    progress = RunsProgress("ablations", total, sum(len(v) for v in found.values()), unit="runs", stream=sys.stdout)
    print(f"ablations: {len(conditions)} conditions x {len(seeds)} seeds, {progress.done} of {total} runs "
          f"reused from {out}; {workers} worker{'s' if workers > 1 else ''}", flush=True)
    if unfinished:
        named = ", ".join(f"{name} seed {seed} ({status})" for name, seed, status in unfinished)
        print(f"ablations: {len(unfinished)} run{'s' if len(unfinished) > 1 else ''} did not finish, resumed: {named}",
              flush=True)
    # The workers die with this process, however it dies (cognition.runtime.lifeline). A SIGTERM here is a
    # stop like Ctrl-C: no new runs, and wait for the runs in flight (which checkpoint and stop when the
    # signal reached them too, as it does from a terminal, `timeout` or a batch scheduler). At most one run
    # per worker is submitted at a time, so that no run waits in the pool's queue to start after a stop.
    with _sigterm_interrupts(), bound_pool(workers, mp_context=get_context("spawn")) as pool:
        try:
            for phase in ("unmeasured", "measured"):
                noise = None
                if phase == "measured":
                    noise = {s: found[REFERENCE][s]["noise_var"] for s in seeds}
                todo, futures, pending = iter(_jobs(conditions, seeds, found, noise)), {}, set()
                while True:
                    for job in itertools.islice(todo, workers - len(pending)):
                        f = pool.submit(make_run, str(out), settings, *job)
                        futures[f] = job
                        pending.add(f)
                    progress.set_running(len(pending))
                    if not pending:
                        break
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in finished:
                        name, _, seed = futures[f]
                        if f.exception() is not None:
                            raise RunFailed(name, seed, f.exception())
                        found[name][seed] = f.result()
                        progress.finished(RunEnd(f"{name} seed {seed}"))
        except KeyboardInterrupt:
            pool.shutdown(wait=True, cancel_futures=True)
            progress.close("stopped: run the same command again to continue")
            raise
    progress.close()
    return found


@contextlib.contextmanager
def _sigterm_interrupts():
    """SIGTERM raises KeyboardInterrupt while inside (from the main thread; elsewhere nothing changes)."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


