"""A Session is one run from a validated config to its report.

Order matters: every check that can fail on bad input (allocator string,
device, quantum backend, run directory) happens in ``__init__``, before
anything is written; :meth:`run` then cannot fail on user input.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from cognition.errors import UsageError
from cognition.runtime.checkpoint import CheckpointError


def _progress(total: int):
    from tqdm import tqdm

    return tqdm(total=total, desc="cycles", unit="cycle", disable=not sys.stderr.isatty(), leave=False)


class Session:
    def __init__(self, cfg, *, out=None, resume_dir=None, faults=None, argv=None):
        from cognition.assemble import assemble
        from cognition.rundir import create_run_dir

        self.cfg, self.faults, self.resume = cfg, faults, resume_dir is not None
        self.allocator = self._allocator(cfg)
        self.assembly = assemble(cfg)
        from cognition.runtime.threads import set_cpu_threads

        self.threads = set_cpu_threads(cfg.runtime.threads)
        self.memory_cap = self._cap_gpu_memory(cfg)
        self.memory_plan = self._check_memory(cfg)
        self.compile_info = self._compile(cfg)
        self.start = None
        if resume_dir is not None:
            self.run_dir = Path(resume_dir)
            self.runner = self._runner()
            try:
                # killed before its first checkpoint: nothing to lose, start from cycle 0
                self.start = self.runner.restore() if self.runner.store.cycles() else None
            except CheckpointError as exc:
                raise UsageError(f"--resume {resume_dir}: {exc}") from None
        else:
            self.run_dir = create_run_dir(out, label=cfg.quantum.mode)
            self.runner = self._runner()
        self.argv = argv or []

    def _runner(self):
        from cognition.runner import Runner
        from cognition.runtime.telemetry import MemoryTelemetry

        loop = self.assembly.loop
        return Runner(self.cfg, loop, self.run_dir, faults=self.faults, telemetry=MemoryTelemetry(loop.device))

    @staticmethod
    def _allocator(cfg) -> dict | None:
        from cognition.runtime.allocator import AllocatorConfigError, alloc_conf_in_effect, apply_alloc_conf

        if cfg.runtime.alloc_conf is None:
            return alloc_conf_in_effect()
        try:
            apply_alloc_conf(cfg.runtime.alloc_conf)
        except AllocatorConfigError as exc:
            raise UsageError(f"runtime.alloc_conf: {exc}") from None
        return alloc_conf_in_effect()

    def _compile(self, cfg) -> dict:
        """Compile the step's kernels now (runtime.compile), so that a failure is one line before any write."""
        from cognition.runtime.compile import CompileFailedError, warm_up

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
        from cognition import provenance
        from cognition.rundir import write_json, write_yaml

        a = self.assembly
        prov = provenance.collect(self.cfg, device=a.device, components=a.components,
                                  quantum_backend=a.quantum_backend, notes=a.notes, argv=self.argv)
        prov["allocator"] = self.allocator
        prov["memory_plan"] = self.memory_plan
        prov["cpu_threads"] = self.threads
        prov["compile"] = self.compile_info
        prov["gpu_memory_fraction"] = self.memory_cap
        if self.resume:
            prov["resumed"] = True
            prov_path = self.run_dir / "provenance.resume.json"
        else:
            write_yaml(self.run_dir / "config.yaml", self.cfg.to_dict())
            prov_path = self.run_dir / "provenance.json"
        write_json(prov_path, prov)
        return prov

    def run(self) -> dict:
        from cognition import analysis, criteria, report
        from cognition.runtime.telemetry import summarise

        prov = self._write_inputs()
        loop = self.assembly.loop
        self.runner.progress = _progress(self.cfg.run.cycles)
        try:
            outcome = self.runner.run(self.start)
        finally:
            self.runner.progress.close()
        np.save(self.run_dir / "units.npy", outcome.units[:, :len(outcome.records), :])
        phi_summary = analysis.summarise_phi(self.cfg, outcome.records, outcome.units, loop.unit_names,
                                             loop.phi_window)
        unrecovered = 1 if outcome.status == "failed" else 0
        checks = criteria.evaluate(self.cfg, status=outcome.status, phi_summary=phi_summary,
                                   provenance=prov, unrecovered_errors=unrecovered)
        tel = summarise([r["telemetry"] for r in outcome.records if r.get("telemetry")])
        rep = report.build(status=outcome.status, message=outcome.message, phi_summary=phi_summary,
                           criteria=checks, provenance=prov, retries=outcome.retries,
                           records=outcome.records, telemetry_summary=tel, cfg=self.cfg, units=outcome.units)
        report.write(self.run_dir, rep, outcome.records)
        return rep
