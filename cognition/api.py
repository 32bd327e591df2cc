"""The Python API: configure, build, run, read the results (docs/api.md).

The same run as ``python -m cognition.validate``, from a script or notebook::

    import cognition.api as hc

    cfg = hc.configure(preset="classical", run={"cycles": 30, "agents": 4})
    with hc.Simulator(cfg, out="runs/first") as sim:   # builds and checks everything, claims the directory
        results = sim.run()                           # cycles, checkpoints, OOM retries, Phi, the report
    results.phi()                                     # (cycles,) per-cycle Phi in bits
    results.probe("unconscious.salience")             # (agents, cycles)

    sim = hc.Simulator.resume("runs/first")           # continue a stopped or killed run

As in Nengo, the configuration is a plain declaration, building it (``Simulator(...)``)
is where every check happens (config, devices, memory, the quantum backend, the module
set), and running it is a separate call. :class:`Simulator` wraps the command line's own
:class:`cognition.simulator.session.Session`, so a run made here and one made by the CLI write the
same run directory and the same numbers. Bad input raises
:class:`cognition.errors.UsageError` (a ``ConfigError`` for a config field) with a
one-line message; a run that stops after its start raises
:class:`cognition.runtime.stop.RunStopped`, with its checkpoint written.
"""
from __future__ import annotations

from pathlib import Path

from cognition.config.settings import Config, load_config
from cognition.errors import UsageError
from cognition.reporting.results import RunResults


def configure(preset: str | None = None, path: str | Path | None = None, **sections) -> Config:
    """A validated :class:`~cognition.config.settings.Config`: defaults < ``preset`` < the YAML file ``path`` <
    ``sections`` (e.g. ``run={"cycles": 30}``, ``modules={"enabled": [...]}``), like the CLI's layers."""
    return load_config(preset=preset, path=path, overrides=sections or None)


class Simulator:
    """One run of the architecture in a run directory of its own.

    config:   a :class:`Config` (see :func:`configure`); a dict is taken as ``configure(**config)``
    out:      the run directory to create (default ``runs/<time>-<mode>-<random>``)
    progress: show progress on stderr (a bar on a terminal, plain lines otherwise)
    faults:   a fault spec string as ``--inject-fault`` takes (``"oom@7"``, ``"sigkill@12"``), to rehearse
    """

    def __init__(self, config: Config | dict | None = None, *, out: str | Path | None = None,
                 progress: bool = True, faults: str | None = None, _resume=None, _argv: list[str] | None = None):
        from cognition.simulator.session import Session

        if config is None or isinstance(config, dict):
            config = configure(**(config or {}))
        if not isinstance(config, Config):
            raise UsageError(f"config = {type(config).__name__}: expected a cognition Config (cognition.api.configure)")
        argv = _argv or ["cognition.api"]  # what provenance.json records as the command
        if _resume is None:
            self._session = Session(config, write_report=_write_report, out=out, faults=fault_injector(faults),
                                    argv=argv)
        else:
            run_dir, lock = _resume
            try:
                self._session = Session(config, write_report=_write_report, resume_dir=run_dir,
                                        faults=fault_injector(faults), argv=argv, lock=lock)
            except BaseException:  # a bad fault spec, a damaged checkpoint: the directory is not left locked
                lock.release()
                raise
        self._session.show_progress = progress
        self.results: RunResults | None = None

    @classmethod
    def resume(cls, run_dir: str | Path, *, progress: bool = True, faults: str | None = None,
               accept_plugin_change: bool = False, _check=None, _argv: list[str] | None = None) -> "Simulator":
        """Continue a stopped or killed run from its last good checkpoint, with its own config.yaml
        (the modules it names must be registered in this process, or named in its modules.plugins).
        A modules.plugins file that changed since the run last ran is refused unless
        ``accept_plugin_change`` (the CLI's ``--accept-plugin-change``)."""
        from cognition.simulator.rundir import open_for_resume

        cfg, path, lock = open_for_resume(run_dir, _check, accept_plugin_change=accept_plugin_change)
        return cls(cfg, progress=progress, faults=faults, _resume=(path, lock), _argv=_argv)

    # -- what was built ------------------------------------------------------
    @property
    def config(self) -> Config:
        return self._session.cfg

    @property
    def run_dir(self) -> Path:
        return self._session.run_dir

    @property
    def loop(self):
        """The built :class:`cognition.architecture.loop.IntegrationLoop` (its modules, wiring graph and units)."""
        return self._session.assembly.loop

    @property
    def unit_names(self) -> list[str]:
        return list(self.loop.unit_names)

    @property
    def modules(self) -> dict:
        """Module name -> the built module instance."""
        return dict(self.loop.modules)

    # -- running -------------------------------------------------------------
    def run(self, *, read_back: bool = True) -> RunResults | dict:
        """Run the remaining cycles, the analysis and the report; the results read back from the run
        directory. A run that stops (a signal, an unrecoverable OOM) raises RunStopped.
        ``read_back=False``: report.json's content as written, without reading the run's arrays back
        (what ``python -m cognition.validate`` prints from)."""
        report = self._session.run()
        if not read_back:
            return report
        self.results = RunResults(self.run_dir)
        return self.results

    @property
    def seconds(self) -> float | None:
        """Wall-clock seconds of the last :meth:`run` (cycles, analysis and report), as the report says."""
        return self._session.run_seconds

    def close(self) -> None:
        """Release the run directory's lock."""
        self._session.close()

    def __enter__(self) -> "Simulator":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"Simulator({str(self.run_dir)!r}: {', '.join(self.loop.declared)}; "
                f"{self.loop.population.agents} agents, {self.config.run.cycles} cycles)")


def _write_report(session, provenance: dict, outcome, **kwargs) -> dict:
    """The report writer a :class:`Simulator`'s session is given (the simulator layer does not import reporting).
    Imported when the report is written: the analysis imports torch, which must not load before the session
    has checked the host's memory limits (under a tight ``ulimit -v`` that import alone fails)."""
    from cognition.reporting.session_report import write_report

    return write_report(session, provenance, outcome, **kwargs)


def fault_injector(spec: str | None):
    """The FaultInjector of a ``--inject-fault`` spec (None for none); UsageError (one line) when bad."""
    if not spec:
        return None
    from cognition.runtime.faults import FaultInjector, parse_fault_spec

    try:
        return FaultInjector(parse_fault_spec(spec))
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def iit4_by_intervention(source, *, cycles: int | None = None, burn: int | None = None, draws: int | None = None,
                         seed: int = 0, units=None, bootstrap: int | None = None, null: int | None = None,
                         complexes: bool = True) -> dict:
    """IIT 4.0 of each agent's own loop by intervention (docs/iit4.md), as ``python -m cognition.experiment iit4``
    writes it: ``units``, ``owners``, ``grain``, ``agents`` (per agent ``phi_s``, ``phi_s_ci``, ``p_value``,
    ``mip``, ``complex``, ``big_phi``, ...) and ``summary``. ``source``: a :class:`Config`, a :class:`Simulator`
    (its configuration) or a run directory (its config.yaml); its agents are rebuilt without twins, from the
    same seed, so their weights are the run's. ``seed`` seeds the choice of recorded states. A count left None
    takes the analysis's default (``cognition.analysis.perturbational.DEFAULTS``: 300 cycles, burn-in 50, 256
    draws, 50 bootstrap and 19 null TPMs)."""
    from cognition.analysis.perturbational import analyze
    from cognition.simulator.build import intervention_loop

    if isinstance(source, Simulator):
        source = source.config
    elif isinstance(source, (str, Path)):
        from cognition.simulator.rundir import CONFIG

        path = Path(source) / CONFIG
        if not path.is_file():
            raise UsageError(f"{source}: not a run directory (no {CONFIG})")
        source = configure(path=path)
    if not isinstance(source, Config):
        raise UsageError(f"source = {type(source).__name__}: expected a Config, a Simulator or a run directory")
    return analyze(intervention_loop(source), mode=source.quantum.mode, lesion=source.control.lesion, cycles=cycles,
                   burn=burn, draws=draws, seed=seed, units=units, bootstrap=bootstrap, null=null,
                   complexes=complexes)


def load(run_dir: str | Path, partial: bool = False) -> RunResults:
    """The results of a finished run directory (made here or by the CLI). ``partial=True`` also reads a run
    that did not finish (killed, stopped, or still running), read-only: every cycle that metrics.jsonl and
    unit_history.npy both hold whole, marked ``incomplete`` (``committed_cycles``: what a resume keeps)."""
    return RunResults(run_dir, partial=partial)


__all__ = ["Config", "RunResults", "Simulator", "configure", "iit4_by_intervention", "load"]
