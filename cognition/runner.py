"""Run an IntegrationLoop inside a run directory, and keep it alive.

The runner owns everything that is not science: the metrics file, OOM
recovery (retry the failing cycle from the state before it with half the
agents per launch), checkpoints (every N % of the run, on a timer, and on
SIGTERM/SIGINT), and resume. The science in :mod:`cognition.loop` never sees
any of it.
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

from cognition.loop import IntegrationLoop, LoopState
from cognition.rundir import write_metrics
from cognition.runtime.checkpoint import (CheckpointError, CheckpointStore, capture_rng_states,
                                          restore_rng_states)
from cognition.runtime.oom import classify_oom, free_memory, next_batch, oom_advice

CHECKPOINT_FORMAT = "hybrid-cognition/loop-state/1"


@dataclass
class RunOutcome:
    status: str  # "completed", "interrupted" or "failed"
    cycles_done: int
    records: list[dict]
    units: np.ndarray
    retries: list[dict] = field(default_factory=list)
    message: str = ""


class _StopRequest:
    """Turns SIGTERM/SIGINT into a flag checked between cycles."""

    def __init__(self):
        self.signum = None
        self._previous = {}

    def __enter__(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                self._previous[sig] = signal.signal(sig, self._handle)
            except ValueError:  # not the main thread: leave signals alone
                pass
        return self

    def _handle(self, signum, frame):
        self.signum = signum

    def __exit__(self, *exc):
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


def config_hash(cfg) -> str:
    """Hash of the settings that change the numbers (runtime settings excluded)."""
    science = {k: v for k, v in cfg.to_dict().items() if k not in ("runtime", "criteria")}
    return hashlib.sha256(json.dumps(science, sort_keys=True).encode()).hexdigest()[:16]


class Runner:
    def __init__(self, cfg, loop: IntegrationLoop, run_dir: Path, *, faults=None, telemetry=None,
                 progress=None):
        self.cfg, self.loop, self.run_dir = cfg, loop, Path(run_dir)
        self.faults, self.telemetry, self.progress = faults, telemetry, progress
        self.store = CheckpointStore(self.run_dir, keep=cfg.runtime.keep_checkpoints)
        self.metrics_path = self.run_dir / "metrics.jsonl"
        cycles = cfg.run.cycles
        self.checkpoint_every = max(1, math.ceil(cycles * cfg.runtime.checkpoint_every_percent / 100.0))

    # -- checkpoints -------------------------------------------------------
    def _payload(self, state: LoopState, records: list[dict], retries: list[dict], batch) -> dict:
        return {"format": CHECKPOINT_FORMAT, "config_hash": config_hash(self.cfg),
                "cycle": state.cycle, "broadcast": state.broadcast.cpu(),
                "modules": {n: {k: v.cpu() for k, v in s.items()} for n, s in state.modules.items()},
                "units": state.units, "records": records, "retries": retries, "batch": batch,
                "rng_note": "science draws are counter-based (cognition.streams); global RNGs saved for completeness",
                "rng": capture_rng_states()}

    def restore(self) -> tuple[LoopState, list, list, int | None]:
        """Load the newest checkpoint that verifies; CheckpointError (one line) when none does."""
        payload, _ = self.store.load_latest()
        return self._restore(payload)

    def _restore(self, payload: dict) -> tuple[LoopState, list, list, int | None]:
        if payload.get("format") != CHECKPOINT_FORMAT:
            raise CheckpointError(f"checkpoint format {payload.get('format')!r} is not {CHECKPOINT_FORMAT!r}")
        if payload.get("config_hash") != config_hash(self.cfg):
            raise CheckpointError("checkpoint was written by a different configuration (config hash differs)")
        dev, dt = self.loop.device, self.loop.dtype
        modules = {n: {k: v.to(device=dev, dtype=dt) if v.is_floating_point() else v.to(dev)
                       for k, v in s.items()} for n, s in payload["modules"].items()}
        state = LoopState(int(payload["cycle"]), payload["broadcast"].to(device=dev, dtype=dt), modules,
                          np.asarray(payload["units"], dtype=np.float64))
        restore_rng_states(payload["rng"])
        self.store.discard_newer_than(state.cycle)
        return state, list(payload["records"]), list(payload["retries"]), payload["batch"]

    def _checkpoint(self, state, records, retries, batch) -> None:
        self.store.save(self._payload(state, records, retries, batch), cycle=state.cycle)

    # -- one cycle with OOM recovery --------------------------------------
    def _attempt(self, state: LoopState, batch, attempt: int):
        if self.faults is not None:
            self.faults.maybe_raise(state.cycle + 1, attempt)
        return self.loop.step(state, batch)

    def _step_with_retries(self, state: LoopState, batch, retries: list[dict]):
        """Run the next cycle; on an OOM-like error retry it from ``state`` with half the batch.

        Returns (state, record, batch, failure): failure is None, or (kind, exc) when
        every try failed.
        """
        current = len(self.loop.agents) if batch is None else batch
        failure = None
        for attempt in range(self.cfg.runtime.max_retries + 1):
            try:
                new_state, record = self._attempt(state, current, attempt)
                return new_state, record, current, None
            except Exception as exc:  # noqa: BLE001 - anything not OOM-like is re-raised
                kind = classify_oom(exc)
                if kind is None:
                    raise
                free_memory(self.loop.device)
                # at the floor there is nothing smaller: retry once the cache is freed, same batch
                smaller = next_batch(current, min(self.cfg.runtime.min_batch, current)) or current
                retries.append({"cycle": state.cycle + 1, "attempt": attempt + 1, "kind": kind,
                                "batch_before": current, "batch_after": smaller,
                                "error": (str(exc).splitlines() or [type(exc).__name__])[0][:200]})
                failure, current = (kind, exc), smaller
        return state, None, current, failure

    # -- the run -----------------------------------------------------------
    def run(self, start: tuple | None = None) -> RunOutcome:
        """Run to the end; ``start`` is what :meth:`restore` returned, to resume."""
        if start is None:
            start = (self.loop.initial_state(), [], [], self.cfg.runtime.batch)
        state, records, retries, batch = start
        write_metrics(self.metrics_path, records)
        last_checkpoint_time = time.monotonic()
        with _StopRequest() as stop, open(self.metrics_path, "a") as metrics:
            if self.progress is not None:
                self.progress.update(state.cycle)
            while state.cycle < self.cfg.run.cycles:
                t0 = time.perf_counter()
                state_before = state
                state, record, batch, failure = self._step_with_retries(state, batch, retries)
                if failure is not None:
                    self._checkpoint(state_before, records, retries, batch)
                    return RunOutcome("failed", state.cycle, records, state.units, retries,
                                      self._advice(failure, batch, state.cycle + 1))
                rec = self._metrics_record(record, batch, retries, time.perf_counter() - t0)
                records.append(rec)
                metrics.write(json.dumps(rec, sort_keys=True) + "\n")
                metrics.flush()
                if self.progress is not None:
                    self.progress.update(1)
                due = state.cycle % self.checkpoint_every == 0 or state.cycle == self.cfg.run.cycles
                timer = time.monotonic() - last_checkpoint_time >= self.cfg.runtime.checkpoint_every_seconds
                if due or timer or stop.signum is not None:
                    self._checkpoint(state, records, retries, batch)
                    last_checkpoint_time = time.monotonic()
                if stop.signum is not None:
                    name = signal.Signals(stop.signum).name
                    return RunOutcome("interrupted", state.cycle, records, state.units, retries,
                                      f"stopped by {name} after cycle {state.cycle}; checkpoint written, "
                                      f"continue with --resume {self.run_dir}")
        return RunOutcome("completed", state.cycle, records, state.units, retries)

    def _metrics_record(self, record, batch, retries, seconds: float) -> dict:
        rec = dataclasses.asdict(record)
        rec["batch"] = batch
        rec["retries"] = [r for r in retries if r["cycle"] == record.cycle]
        rec["timing"] = {"cycle_s": seconds}
        rec["telemetry"] = self.telemetry.sample() if self.telemetry is not None else {}
        return rec

    def _advice(self, failure, batch, cycle: int) -> str:
        kind, _ = failure
        advice = oom_advice(kind)
        return (f"cycle {cycle} failed with {kind} on all {self.cfg.runtime.max_retries + 1} tries (agents "
                f"per launch down to {batch}); a checkpoint was written. To fix: {advice}; then continue "
                f"with --resume {self.run_dir}")
