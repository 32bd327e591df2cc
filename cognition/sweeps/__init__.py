"""Sweeps over configs x seeds: ``python -m cognition.sweep SWEEP.yaml`` (see docs/sweeps.md).

* :mod:`~cognition.sweeps.spec`: the sweep file, expanded to points and validated
  (:mod:`~cognition.sweeps.keys`: which keys are sweepable; :mod:`~cognition.sweeps.sampling`:
  random samples; :mod:`~cognition.sweeps.naming`: run-directory names).
* :mod:`~cognition.sweeps.root`: the sweep directory; :func:`cognition.simulator.rundir.state`: what a
  run directory says about its point; :mod:`~cognition.sweeps.point`: run one point.
* executors: :mod:`~cognition.sweeps.local` (default) and :mod:`~cognition.sweeps.ray_executor`.
* :mod:`~cognition.sweeps.drive` runs them with :class:`cognition.simulator.progress.RunsProgress`, then writes
  :mod:`~cognition.sweeps.aggregate` and :mod:`~cognition.sweeps.plots`.

Nothing here is imported by ``import cognition``; Ray is imported only by the Ray executor.
"""
