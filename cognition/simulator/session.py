"""A Session is one run from a validated config to its report.

Order matters: every check that can fail on bad input (allocator string, sizes
against host memory and disk, device, quantum backend, GPU budget, compilation,
fault spec, the checkpoint to resume from, the modules' weights and initial states)
happens in ``__init__``, before the run directory is claimed or anything in it changes.
:meth:`run` then cannot fail on user input; whatever fails in it (a full disk, a second Ctrl-C, a bug) is a
:class:`~cognition.runtime.stop.RunStopped`: one line, exit 1, nothing written lost.
"""
from __future__ import annotations

import sys
from pathlib import Path

from cognition.errors import AllocatorConfigError, CheckpointError, CompileFailedError, FaultSpecError, RunStopped, StopNow, UsageError
from cognition.runtime import early_signals
from cognition.runtime.memlimits import host_limits
from cognition.runtime.planner import check_host, check_libraries
from cognition.simulator.rundir import PROVENANCE


def note(run_dir, text: str) -> None:
    print(f"note: {run_dir}: {text}", file=sys.stderr)


class Session:
    show_progress = True  # progress of the cycles, analysis and report on stderr (cognition.simulator.progress)
    run_seconds: float | None = None  # wall-clock seconds of run(): cycles, analysis and report

    def __init__(self, cfg, *, write_report, out=None, resume_dir=None, faults=None, argv=None, lock=None):
        from cognition.simulator.build import assemble
        from cognition.runtime.host_memory import retain_freed_memory
        from cognition.runtime.threads import set_cpu_threads

        self.cfg, self.faults, self.resume, self.lock = cfg, faults, resume_dir is not None, lock
        self.write_report = write_report  # (session, provenance, outcome, progress=, started=) -> the report
        self.argv = argv or []
        self.allocator = self._allocator(cfg)
        self.host_plan = self._check_host(cfg)
        self.assembly = assemble(cfg)
        self.threads = set_cpu_threads(cfg.runtime.threads)
        self.host_allocator = retain_freed_memory()
        self.memory_cap = self._cap_gpu_memory(cfg)
        self.memory_plan = self._check_memory(cfg)
        self.compile_info = self._compile(cfg)
        if resume_dir is not None:
            self.run_dir = Path(resume_dir)
            self.runner = self._runner()
            try:
                self.start = self.runner.restore() or self.runner.fresh()
            except CheckpointError as exc:
                raise UsageError(f"--resume {resume_dir}: {exc}") from None
            self._check_faults(self.start.state.cycle)
            self.host_plan.update(self._check_disk(cfg, resume_dir, done=self.start.state.cycle))
        else:
            self._check_faults(0)
            self.host_plan.update(self._check_disk(cfg, out or "runs"))
            # the modules' initial states (their init_state) are the last of the build: made before the
            # claim, so that a module that fails to build leaves no run directory behind
            initial = self.assembly.loop.initial_state()
            from cognition.simulator.rundir import create_run_dir

            early_signals.defer()  # from the claim on, a signal stops the run after its cycle-0 checkpoint
            self.run_dir, self.lock = create_run_dir(out, label=cfg.quantum.mode, config=cfg.to_dict())
            self.runner = self._runner()
            self.start = self.runner.fresh(initial)

    def close(self) -> None:
        """Release the run directory's lock (it is released at exit anyway)."""
        if self.lock is not None:
            self.lock.release()

    def _runner(self):
        from cognition.simulator.runner import Runner
        from cognition.runtime.telemetry import MemoryTelemetry

        loop = self.assembly.loop
        return Runner(self.cfg, loop, self.run_dir, faults=self.faults, telemetry=MemoryTelemetry(loop.device))

    def _check_faults(self, done: int) -> None:
        from cognition.runtime.faults import check_reachable

        try:
            check_reachable(self.faults.faults if self.faults else [], self.cfg.run.cycles, done)
        except FaultSpecError as exc:
            raise UsageError(str(exc)) from None

    @staticmethod
    def _n_units(cfg) -> int:
        from cognition.architecture.loop import WORKSPACE_SIGNALS
        from cognition.modules import unit_signal_count

        return unit_signal_count(cfg) + len(WORKSPACE_SIGNALS)

    def _check_host(self, cfg) -> dict:
        """Agents and cycles against the tightest host memory limit (MemAvailable, the cgroup's, RLIMIT_AS:
        ConfigError naming it), before any allocation. The limits are read, and what the libraries map checked,
        before torch is imported: under a tight ``ulimit -v`` that import alone fails."""
        limits, torch_loaded = host_limits(), "torch" in sys.modules
        check_libraries(cfg, limits, torch_loaded=torch_loaded)
        return check_host(cfg, self._n_units(cfg), limits=limits, torch_loaded=torch_loaded)

    def _check_disk(self, cfg, where, done: int = 0) -> dict:
        """The cycles still to run against the free disk (ConfigError), before anything is written."""
        from cognition.runtime.planner import check_disk, free_disk_bytes

        return check_disk(cfg, self._n_units(cfg), run_dir=where, free_disk=free_disk_bytes(where), done=done)

    @staticmethod
    def _allocator(cfg) -> dict | None:
        from cognition.runtime.allocator import alloc_conf_in_effect, apply_alloc_conf

        if cfg.runtime.alloc_conf is None:
            return alloc_conf_in_effect()
        try:
            apply_alloc_conf(cfg.runtime.alloc_conf)
        except AllocatorConfigError as exc:
            raise UsageError(f"runtime.alloc_conf: {exc}") from None
        return alloc_conf_in_effect()

    def _compile(self, cfg) -> dict:
        """Compile the step's kernels now (runtime.compile), so that a failure is one line before any write."""
        from cognition.runtime.compile import warm_up

        a = self.assembly
        try:
            return warm_up(a.loop, a.compiler, cfg.runtime.batch)
        except CompileFailedError as exc:
            raise UsageError(f"runtime.compile: {cfg.runtime.compile!r} could not compile the step on "
                             f"{a.device['device']} ({exc}); set runtime.compile: off to run eager") from None

    def _cap_gpu_memory(self, cfg) -> dict | None:
        """runtime.gpu_memory_fraction: cap this process's share of the CUDA device (e.g. rehearse a
        4 GiB card on an 80 GiB one). On the CPU there is nothing to cap: recorded in the notes."""
        fraction, device = cfg.runtime.gpu_memory_fraction, self.assembly.device
        if fraction is None:
            return None
        if not device["device"].startswith("cuda"):
            self.assembly.notes.append(f"runtime.gpu_memory_fraction {fraction:g} not applied: the run is on "
                                       f"{device['device']}, and the cap is for CUDA devices")
            return {"fraction": fraction, "applied": False}
        import torch

        torch.cuda.set_per_process_memory_fraction(fraction, torch.device(device["device"]))
        return {"fraction": fraction, "applied": True, "cap_bytes": int(fraction * device["total_bytes"])}

    def _check_memory(self, cfg) -> dict | None:
        """Check the configured batch against the budget before cycle 1 (ConfigError if it cannot fit)."""
        from cognition.runtime.planner import DEFAULT_WORKING_COPIES, check_fits

        available = [b for b in (self.assembly.device.get("free_bytes"),
                                 (self.memory_cap or {}).get("cap_bytes")) if b]
        budget = (cfg.runtime.memory_budget_mb * 2**20 if cfg.runtime.memory_budget_mb
                  else min(available, default=None))
        if not budget:
            return None
        backend = self.assembly.backend
        copies = getattr(backend, "working_copies", DEFAULT_WORKING_COPIES)
        return check_fits(cfg, budget, widths=self.assembly.widths, working_copies=copies).as_dict()

    def _write_inputs(self) -> dict:
        from cognition.simulator import provenance
        from cognition.simulator.rundir import write_json

        a = self.assembly
        prov = provenance.collect(self.cfg, device=a.device, components=a.components,
                                  quantum_backend=a.quantum_backend, notes=a.notes, argv=self.argv)
        prov.update(allocator=self.allocator, host_allocator=self.host_allocator, memory_plan=self.memory_plan,
                    host_plan=self.host_plan, cpu_threads=self.threads, compile=self.compile_info,
                    gpu_memory_fraction=self.memory_cap)
        first = self.run_dir / PROVENANCE
        if self.resume:
            prov["resumed"] = True
        # a run killed before its provenance was written gets it from its first resume
        write_json(self.run_dir / "provenance.resume.json" if self.resume and first.is_file() else first, prov)
        return prov

    def run(self) -> dict:
        """Run the cycles and write the report; RunStopped (one line) when that fails."""
        import time

        from cognition.simulator.progress import Progress
        from cognition.runtime.stop import StopRequest, stopped_message

        started, show = time.perf_counter(), Progress(enabled=self.show_progress)
        early_signals.defer()  # a resume changes its files from here on: a signal stops it after they match
        if self.lock is not None:
            self.lock.keep()  # the PID of the process that used the directory stays in its lock file
        runner = self.runner
        runner.progress = show.bar("cycles", self.cfg.run.cycles)
        with StopRequest() as stop:
            try:
                try:
                    prov = self._write_inputs()
                    for text in runner.prepare(self.start):
                        note(self.run_dir, text)
                except (Exception, StopNow) as exc:
                    raise RunStopped(stopped_message(stop.reason(exc), where="while starting", run_dir=self.run_dir,
                                                     last_checkpoint=runner.last_checkpoint)) from exc
                if stop.signum is not None:  # received while starting (or before: early_signals): no cycle runs
                    where = f"before cycle {self.start.state.cycle + 1}"
                    raise RunStopped(stopped_message(StopNow(stop.signum), where=where, run_dir=self.run_dir,
                                                     last_checkpoint=runner.last_checkpoint))
                said = resume_note(self.cfg, self.start, self.resume)
                if said:
                    note(self.run_dir, said)
                    self.start.recovery.events.append({"cycle": self.start.state.cycle, "kind": "resume",
                                                       "detail": said})
                outcome = runner.run(self.start, stop)
                stop.urgent = True
                runner.progress.close()
                try:
                    rep = self.write_report(self, prov, outcome, progress=show, started=started)
                    self.run_seconds = rep["telemetry"]["run_wall_seconds"]
                    return rep
                except (Exception, StopNow) as exc:
                    where = f"after cycle {outcome.cycles_done}, while writing the report"
                    raise RunStopped(stopped_message(stop.reason(exc), where=where, run_dir=self.run_dir,
                                                     last_checkpoint=runner.last_checkpoint)) from exc
            finally:
                runner.progress.close()
                runner.files.close()


def resume_note(cfg, start, resuming: bool) -> str | None:
    """What to tell the user when ``--resume`` finds the run finished, or with nothing written yet."""
    if not resuming:
        return None
    if start.resumed_from is None:
        return "the run was stopped before its first checkpoint and wrote no cycle: it starts from cycle 0"
    if start.state.cycle >= cfg.run.cycles:
        return (f"the run had already finished (cycle {start.state.cycle} of {cfg.run.cycles}); "
                "only its report is written again")
    return None
