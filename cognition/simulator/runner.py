"""Run an IntegrationLoop inside a run directory, and keep it alive.

The runner owns everything that is not science: the per-cycle files
(:mod:`cognition.simulator.runfiles`), OOM recovery (retry the failing cycle from the state
before it with half the agents per launch, and double the batch again after a run of
good cycles), checkpoints (at cycle 0, every N % of the run, on a timer, on
SIGTERM/SIGINT) and resume. The science in :mod:`cognition.architecture.loop` never sees any of it.

A checkpoint holds the loop's state, the RNG states and how far the files reach
(offsets), never the history itself, so it has the same size at every cycle.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from cognition.config.schema import ABSENT, diff as _diff
from cognition.errors import CheckpointError, ModuleFault, RunStopped, StopNow, abbreviate, classify_oom
from cognition.architecture.winners import encode_winners
from cognition.architecture.loop import WORKSPACE_SIGNALS, IntegrationLoop, LoopState, workspace_units
from cognition.simulator.runfiles import RunFiles
from cognition.architecture.streams import PREVIOUS_SCHEME, SCHEME as STREAMS_SCHEME
from cognition.runtime.checkpoint import CheckpointStore, capture_rng_states, restore_rng_states
from cognition.runtime.oom import (free_memory, host_allocation_failure, host_memory_line, next_batch, oom_advice,
                                   release_frames)
from cognition.runtime.stop import StopRequest, resume_command, stopped_message
from cognition.runtime.unit_history import UnitWindow

CHECKPOINT_FORMAT = "hybrid-cognition/loop-state/2"


@dataclass
class RecoveryLog:
    """The run's recovery log: what a checkpoint carries besides the loop state (OOM retries, recoveries and
    batch changes, the batch now); its size does not grow per cycle. (Progress shown to the user is
    :mod:`cognition.simulator.progress`.)"""

    retries: list = field(default_factory=list)  # every OOM retry
    events: list = field(default_factory=list)  # recoveries and batch changes, for the report
    batch: int | None = None  # agents per launch now (None: all)
    good_cycles: int = 0  # cycles without a retry since the batch was last lowered or raised


@dataclass
class Start:
    state: LoopState
    recovery: RecoveryLog
    offsets: dict  # metrics_bytes, history_cycles
    resumed_from: int | None = None  # the checkpoint's cycle; None for a fresh start
    skipped: list = field(default_factory=list)  # checkpoints that failed to verify, and why
    discard: list = field(default_factory=list)  # newer checkpoint cycles to delete
    orphans: list = field(default_factory=list)  # checkpoint files without a marker


@dataclass
class RunOutcome:
    status: str  # "completed", "interrupted" or "failed"
    cycles_done: int
    retries: list
    events: list
    message: str = ""


def config_hash(cfg) -> str:
    """Hash of the settings that change the numbers: every field tagged science or numerics
    (:data:`cognition.config.settings.CHANGES_OF`), by dotted key."""
    return hashlib.sha256(json.dumps(cfg.settings(), sort_keys=True).encode()).hexdigest()[:16]


def section_hash(cfg) -> str:
    """The hash by section name that checkpoints carried before the settings were tagged (every section but
    ``runtime`` and ``criteria``): still written as the payload's ``config_hash``, so that a release of this
    major.minor from before the tags resumes a run checkpointed now, and checked for checkpoints without
    ``settings`` (written before the tags), which record nothing else. ``analysis``, a section added after the
    tags, changes no number of the run and is left out, so the hash is the one those checkpoints hold."""
    science = {k: v for k, v in cfg.to_dict().items() if k not in ("runtime", "criteria", "analysis")}
    return hashlib.sha256(json.dumps(science, sort_keys=True).encode()).hexdigest()[:16]


def _shown(value) -> str:
    return value if value is ABSENT else "null" if value is None else abbreviate(value, 60)


def check_settings(payload: dict, cfg) -> None:
    """CheckpointError (one line) unless ``cfg`` has the science and numerics settings the checkpoint was
    written with, naming each field that differs with both values; a checkpoint from before the tags carries
    only :func:`section_hash`, compared as it was then."""
    saved = payload.get("settings")
    if saved is None:
        if payload.get("config_hash") != section_hash(cfg):
            raise CheckpointError("checkpoint was written by a different configuration (config hash differs; "
                                  "written before the settings were recorded, it cannot name the field)")
        return
    changed = [f"{key} = {_shown(now)} (the checkpoint has {_shown(then)})"
               for key, then, now in _diff(saved, cfg.settings())]
    if changed:
        raise CheckpointError(f"checkpoint was written with other settings that change the numbers: "
                              f"{'; '.join(changed)}; continuing would splice two computations into one run: "
                              "restore them in config.yaml, or start a new run")
    if payload.get("settings_hash") != config_hash(cfg):  # its settings are not those it was written with
        raise CheckpointError("checkpoint's recorded settings do not match its settings_hash: refusing to "
                              "continue from it")


def check_module_set(saved: dict, running: dict) -> None:
    """CheckpointError (one line) naming the first difference between the module set a checkpoint
    was written by and the one this run built (names, variants, classes, units)."""
    def text(m):
        return f"{m['name']} ({m['variant']}, {m['class']})"

    have, want = saved.get("modules", []), running["modules"]
    for a, b in zip(have, want):
        if a != b:
            raise CheckpointError(f"checkpoint was written by module {text(a)}; this run has {text(b)}")
    if len(have) != len(want):
        raise CheckpointError(f"checkpoint was written by modules {', '.join(m['name'] for m in have)}; "
                              f"this run has {', '.join(m['name'] for m in want)}")
    if saved.get("units") != running["units"]:
        units = saved.get("units") or []
        raise CheckpointError(f"checkpoint was written with {len(units)} units ({', '.join(units)}); this run "
                              f"has {len(running['units'])} ({', '.join(running['units'])})")


def event(cycle: int, kind: str, detail: str) -> dict:
    return {"cycle": cycle, "kind": kind, "detail": detail}


class Runner:
    def __init__(self, cfg, loop: IntegrationLoop, run_dir: Path, *, faults=None, telemetry=None,
                 progress=None):
        self.cfg, self.loop, self.run_dir = cfg, loop, Path(run_dir)
        self.faults, self.telemetry, self.progress = faults, telemetry, progress
        self.store = CheckpointStore(self.run_dir, keep=cfg.runtime.keep_checkpoints)
        self.files = RunFiles(self.run_dir, len(loop.agents), loop.n_units)
        self.checkpoint_every = max(1, math.ceil(cfg.run.cycles * cfg.runtime.checkpoint_every_percent / 100.0))
        self.last_checkpoint: int | None = None  # cycle of the newest checkpoint known good

    # -- starting ----------------------------------------------------------
    def fresh(self, state: LoopState | None = None) -> Start:
        """A start at cycle 0 from ``state`` (the loop's initial state, made now when None)."""
        return Start(state if state is not None else self.loop.initial_state(), RecoveryLog(batch=self.cfg.runtime.batch),
                     {"metrics_bytes": 0, "history_cycles": 0})

    def restore(self) -> Start | None:
        """The newest checkpoint that verifies, checked against the files; reads only.

        None when the run wrote nothing yet (killed before its cycle-0 checkpoint).
        CheckpointError (one line) when no checkpoint verifies, or when cycles were written
        but no checkpoint is left to continue them from.
        """
        if not self.store.cycles():
            written = self.files.written() + [f"checkpoints/{n}" for n in self.store.orphans()]
            if written:
                raise CheckpointError(f"no completed checkpoint, but the run wrote {', '.join(written)}; "
                                      "refusing to start over them (move them away to start again from cycle 0)")
            return None
        payload, cycle = self.store.load_latest()
        start = self._from_payload(payload)
        self.files.check(start.offsets["metrics_bytes"], cycle)
        self._check_state_agrees(start, cycle)
        start.skipped = list(self.store.skipped)
        start.discard = [c for c in self.store.cycles() if c > cycle]
        start.orphans = self.store.orphans()
        return start

    def _check_state_agrees(self, start: Start, cycle: int) -> None:
        """CheckpointError (one line) unless the restored state is the one that wrote the files' last cycle:
        the workspace's unit signals its broadcast gives must be those unit_history.npy holds for the cycle,
        and its winners the winner shares of metrics.jsonl's record for it. The files are written by the
        cycles, the checkpoint after them: a state of another cycle (or run) under this checkpoint's name,
        whose checksum and offsets were made to match, is refused here, not continued."""
        state, name, n_ws = start.state, f"checkpoint ckpt-{cycle:09d}", len(WORKSPACE_SIGNALS)
        if state.cycle != cycle:
            raise CheckpointError(f"{name} holds the state of cycle {state.cycle}: refusing to continue from it")
        if cycle == 0:  # no cycle written yet: nothing to compare
            return
        row = self.files.history_row(cycle)
        if row is None:
            raise CheckpointError(f"{name}: unit_history.npy does not hold cycle {cycle}")
        implied = workspace_units(state.broadcast).detach().cpu().double().numpy()
        recorded = row[:, -n_ws:]
        # the same arithmetic on the same rows; a tolerance only for a reduction launched over other row blocks
        tol = 64 * float(torch.finfo(state.broadcast.dtype).eps) * (1.0 + float(np.abs(recorded).max(initial=0.0)))
        far = np.argwhere(~(np.abs(implied - recorded) <= tol))
        if len(far):
            r, u = (int(i) for i in far[0])
            raise CheckpointError(
                f"{name}: its state does not match the files' cycle {cycle}: {self.loop.unit_names[-n_ws + u]} of "
                f"row {r} is {implied[r, u]:.9g} from the checkpoint's broadcast, {recorded[r, u]:.9g} in "
                f"unit_history.npy ({len(far)} of {implied.size} values differ): a state of another cycle or run "
                "under this checkpoint's name; refusing to continue from it")
        record = self.files.record_at(start.offsets["metrics_bytes"]) or {}
        share = self.loop.winner_share(state.workspace["winner"])
        if record.get("winner_share") != share:
            raise CheckpointError(
                f"{name}: its state does not match the files' cycle {cycle}: its winners give the winner shares "
                f"{share}, metrics.jsonl's record of cycle {cycle} has {record.get('winner_share')}: a state of "
                "another cycle or run under this checkpoint's name; refusing to continue from it")
        winners = encode_winners(state.workspace["winner"].cpu().numpy())
        if "winners" in record and record["winners"] != winners:  # runs of 0.8.0 did not record them
            raise CheckpointError(
                f"{name}: its state does not match the files' cycle {cycle}: its rows' winners are {winners!r}, "
                f"metrics.jsonl's record of cycle {cycle} has {record['winners']!r}: a state of another cycle or "
                "run under this checkpoint's name; refusing to continue from it")

    def _from_payload(self, payload: dict) -> Start:
        if payload.get("format") != CHECKPOINT_FORMAT:
            raise CheckpointError(f"checkpoint format {payload.get('format')!r} is not {CHECKPOINT_FORMAT!r}")
        check_settings(payload, self.cfg)
        written_with = payload.get("streams", PREVIOUS_SCHEME)
        if written_with != STREAMS_SCHEME:
            raise CheckpointError(f"checkpoint was written with the random streams {written_with!r}; this version "
                                  f"draws {STREAMS_SCHEME!r}, so its cycles cannot continue bit for bit: start the "
                                  "run again in a new directory, or resume it with the version that wrote it")
        # checkpoints from before plug-in modules carry no module set: their config fixed it
        if "module_set" in payload:
            check_module_set(payload["module_set"], self._module_set())
        dev, dt = self.loop.device, self.loop.dtype
        modules = {n: {k: v.to(device=dev, dtype=dt) if v.is_floating_point() else v.to(dev)
                       for k, v in s.items()} for n, s in payload["modules"].items()}
        workspace = {k: v.to(device=dev, dtype=dt) if v.is_floating_point() else v.to(dev)
                     for k, v in payload["workspace"].items()}
        state = LoopState(int(payload["cycle"]), payload["broadcast"].to(device=dev, dtype=dt), modules, workspace)
        restore_rng_states(payload["rng"])
        recovery = RecoveryLog(list(payload["retries"]), list(payload["events"]), payload["batch"],
                            int(payload["good_cycles"]))
        offsets = {"metrics_bytes": int(payload["metrics_bytes"]), "history_cycles": state.cycle}
        return Start(state, recovery, offsets, resumed_from=state.cycle)

    def prepare(self, start: Start) -> list[str]:
        """Make the files match ``start`` (the first writes of a run or resume); return what a
        resume discarded or dropped, one note each (also recorded as events for the report)."""
        if start.resumed_from is None:
            self.files.create()
            self._checkpoint(start.state, start.recovery)
            return []
        cycle, events = start.resumed_from, start.recovery.events
        notes = [f"skipped checkpoint {s}" for s in start.skipped]
        gone = self.store.discard(start.discard, start.orphans)
        notes += [f"discarded checkpoint {name} (newer than cycle {cycle}, or without a completion marker)"
                  for name in gone]
        lines, rows = self.files.reopen(start.offsets["metrics_bytes"], cycle)
        if lines or rows:
            notes.append(f"dropped {lines} metrics lines and {rows} unit-history cycles written after cycle {cycle}")
        notes.append(f"resumed from the checkpoint of cycle {cycle}")
        events += [event(cycle, "resume", n) for n in notes]
        self.last_checkpoint = cycle
        return notes

    # -- checkpoints -------------------------------------------------------
    def _module_set(self) -> dict:
        from cognition.modules import module_set

        return module_set(self.loop.modules.values(), self.loop.unit_names)

    def _checkpoint(self, state: LoopState, recovery: RecoveryLog) -> None:
        offsets = self.files.commit()
        payload = {"format": CHECKPOINT_FORMAT, "config_hash": section_hash(self.cfg), "cycle": state.cycle,
                   "settings": self.cfg.settings(), "settings_hash": config_hash(self.cfg),
                   "module_set": self._module_set(), "streams": STREAMS_SCHEME,
                   "broadcast": state.broadcast.cpu(),
                   "modules": {n: {k: v.cpu() for k, v in s.items()} for n, s in state.modules.items()},
                   "workspace": {k: v.cpu() for k, v in state.workspace.items()},
                   "retries": recovery.retries, "events": recovery.events, "batch": recovery.batch,
                   "good_cycles": recovery.good_cycles, "metrics_bytes": offsets["metrics_bytes"],
                   "rng_note": "science draws are counter-based (cognition.architecture.streams); global RNGs saved too",
                   "rng": capture_rng_states()}
        self.store.save(payload, cycle=state.cycle)
        self.last_checkpoint = state.cycle

    # -- one cycle with OOM recovery --------------------------------------
    def _step_with_retries(self, state: LoopState, window, recovery: RecoveryLog):
        """Run the next cycle; on an OOM-like error retry it from ``state`` with half the batch.

        Returns (state, record, signals, failure): failure is None, or (kind, exc) when
        every try failed. Retries are appended to ``recovery.retries``; ``recovery.batch`` follows.
        """
        current = len(self.loop.agents) if recovery.batch is None else recovery.batch
        failure = None
        for attempt in range(self.cfg.runtime.max_retries + 1):
            try:
                if self.faults is not None:
                    self.faults.maybe_raise(state.cycle + 1, attempt)
                new_state, record, signals = self.loop.step(state, window, current)
                recovery.batch = current
                return new_state, record, signals, None
            except Exception as exc:  # noqa: BLE001 - anything not OOM-like is re-raised
                kind = classify_oom(exc)
                if kind is None:
                    raise
                release_frames(exc)  # the failed try's frames hold its temporaries: drop them, then free
                free_memory(self.loop.device)
                # at the floor there is nothing smaller: retry once the cache is freed, same batch
                smaller = next_batch(current, min(self.cfg.runtime.min_batch, current)) or current
                recovery.retries.append({"cycle": state.cycle + 1, "attempt": attempt + 1, "kind": kind,
                                         "batch_before": current, "batch_after": smaller,
                                         "error": (str(exc).splitlines() or [type(exc).__name__])[0][:200]})
                recovery.good_cycles = 0
                failure, current = (kind, exc), smaller
        recovery.batch = current
        return state, None, None, failure

    def _regrow(self, recovery: RecoveryLog, cycle: int, retried: bool) -> None:
        """After ``runtime.regrow_after_cycles`` good cycles at a lowered batch, double it (up to the
        configured batch): an OOM fallback is not for the rest of the run."""
        recovery.good_cycles = 0 if retried else recovery.good_cycles + 1
        after, target = self.cfg.runtime.regrow_after_cycles, self.cfg.runtime.batch or len(self.loop.agents)
        if after is None or recovery.batch is None or recovery.batch >= target or recovery.good_cycles < after:
            return
        grown = min(target, 2 * recovery.batch)
        recovery.events.append(event(cycle, "batch_regrown", f"agents per launch {recovery.batch} -> {grown} "
                                                             f"after {recovery.good_cycles} cycles without a retry"))
        recovery.batch, recovery.good_cycles = grown, 0

    # -- the run -----------------------------------------------------------
    def run(self, start: Start, stop: StopRequest) -> RunOutcome:
        """Run from ``start`` (after :meth:`prepare`) to the end. Any failure other than an OOM that
        retries cannot cure becomes :class:`~cognition.runtime.stop.RunStopped` (one line)."""
        state, recovery = start.state, start.recovery
        window = UnitWindow(len(self.loop.agents), self.loop.n_units, self.loop.phi_window - 1)
        window.fill(self.files.tail(window.size))
        clock = {"checkpoint": time.monotonic(), "cycle_end": time.perf_counter()}
        if self.progress is not None:
            self.progress.update(state.cycle)
        cycle = state.cycle + 1  # the cycle in flight, for the message if it fails
        try:
            while state.cycle < self.cfg.run.cycles:
                cycle = state.cycle + 1
                state, stopped = self._cycle(state, recovery, window, stop, clock)
                if stopped is not None:
                    return stopped
        except (Exception, StopNow) as exc:
            raise RunStopped(stopped_message(stop.reason(exc), where=f"in cycle {cycle}",
                                             last_checkpoint=self.last_checkpoint, run_dir=self.run_dir)) from exc
        return RunOutcome("completed", state.cycle, recovery.retries, recovery.events)

    def _cycle(self, state: LoopState, recovery: RecoveryLog, window: UnitWindow, stop: StopRequest, clock: dict):
        """One cycle, its files and any checkpoint; returns (state, outcome when the run stops here, else None)."""
        t0, before, n_retries = time.perf_counter(), state, len(recovery.retries)
        try:
            state, record, signals, failure = self._step_with_retries(state, window.view(), recovery)
        except ModuleFault as fault:  # the run stops at the faulty cycle, the state before it checkpointed
            recovery.events.append(event(before.cycle + 1, "module_fault", f"run stopped: {fault}"))
            self._checkpoint(before, recovery)
            raise
        if failure is not None:
            self._checkpoint(before, recovery)
            return state, RunOutcome("failed", state.cycle, recovery.retries, recovery.events,
                                     self._advice(failure, recovery.batch, state.cycle + 1))
        if self.faults is not None:
            self.faults.maybe_raise(state.cycle, stage="write")
        now = time.perf_counter()
        self.files.append(self._metrics_record(record, recovery, recovery.retries[n_retries:], now - t0,
                                               now - clock["cycle_end"]), signals)
        clock["cycle_end"] = now
        window.push(signals)
        self._regrow(recovery, state.cycle, retried=len(recovery.retries) > n_retries)
        if self.progress is not None:
            self.progress.update(1)
        due = state.cycle % self.checkpoint_every == 0 or state.cycle == self.cfg.run.cycles
        timer = time.monotonic() - clock["checkpoint"] >= self.cfg.runtime.checkpoint_every_seconds
        if due or timer or stop.signum is not None:
            self._checkpoint(state, recovery)
            clock["checkpoint"] = time.monotonic()
        if stop.signum is None:
            return state, None
        return state, RunOutcome("interrupted", state.cycle, recovery.retries, recovery.events,
                                 f"stopped by {signal.Signals(stop.signum).name} after cycle {state.cycle}; "
                                 f"checkpoint written, continue with: {resume_command(self.run_dir)}")

    def _metrics_record(self, record, recovery: RecoveryLog, retries: list, seconds: float, wall: float) -> dict:
        """``timing``: ``cycle_s`` the step (with retries and Phi), ``wall_s`` since the previous cycle's
        record (the step, the files and any checkpoint in between: what a cycle costs)."""
        rec = dataclasses.asdict(record)
        rec["batch"] = recovery.batch
        rec["retries"] = retries
        rec["timing"] = {"cycle_s": seconds, "wall_s": wall}
        rec["telemetry"] = self.telemetry.sample() if self.telemetry is not None else {}
        return rec

    def _advice(self, failure, batch, cycle: int) -> str:
        kind, exc = failure
        advice = oom_advice(kind)
        memory = host_allocation_failure(exc)
        if memory is not None:
            kind = f"{kind}, {host_memory_line(memory)},"
        return (f"cycle {cycle} failed with {kind} on all {self.cfg.runtime.max_retries + 1} tries (agents "
                f"per launch down to {batch}); a checkpoint was written. To fix: {advice}; then continue "
                f"with: {resume_command(self.run_dir)}")
