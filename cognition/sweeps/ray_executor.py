"""Ray executor: each point is a Ray task that runs the point in its own process.

``--ray`` starts a local Ray cluster (``ray.init(num_cpus=...)``); ``--ray-address``
joins an existing one, whose nodes must have this package installed and see
the sweep directory at the same path (shared storage). Each task asks for
``cpus_per_point`` CPUs and ``gpus_per_point`` GPUs; a fraction such as 0.25
packs four small runs onto one GPU (Ray sets ``CUDA_VISIBLE_DEVICES`` for the task,
and the run's ``--device auto`` takes that device).

Retries: Ray retries a task up to ``retries`` times when its worker dies (a node
lost, the worker killed) and when the task raises
:class:`~cognition.sweeps.point.PointRetry` (its run was killed or stopped).
Either way the retry calls :func:`~cognition.sweeps.point.run_point` again,
which resumes the run directory from its last checkpoint.

Ray is imported only here, inside the functions, since it is an optional extra.
"""
from __future__ import annotations

import logging

from cognition.errors import UsageError
from cognition.sweeps.point import PointResult, PointRetry, PointTask, run_point_or_raise


def import_ray():
    """The ``ray`` module, or a UsageError saying which extra installs it."""
    try:
        import ray
    except ImportError as exc:
        raise UsageError(f"--ray needs Ray, which is not installed ({exc}); "
                         "install it with: pip install -c constraints.txt -e \".[distributed]\"") from None
    return ray


def _failed(task: PointTask, exc: Exception, ray) -> PointResult:
    """The point's result when ``ray.get`` raised ``exc``: "killed" when Ray lost the worker (crashed,
    killed by Ray's memory monitor, node died), "error" otherwise; by type, ``ray.exceptions``."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, PointRetry):  # retries used up: the last attempt's own outcome
        return cause.result
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    lost = (ray.exceptions.WorkerCrashedError, ray.exceptions.OutOfMemoryError, ray.exceptions.NodeDiedError)
    status = "killed" if isinstance(exc, lost) else "error"
    return PointResult(task.name, status, False, -1, 0.0, f"{type(exc).__name__}: {first}"[:300])


class RayExecutor:
    def __init__(self, *, address: str | None = None, num_cpus: int | None = None,
                 cpus_per_point: float = 1.0, gpus_per_point: float = 0.0, retries: int = 2):
        self.ray = import_ray()
        self.address, self.num_cpus = address, num_cpus
        self.cpus_per_point, self.gpus_per_point, self.retries = cpus_per_point, gpus_per_point, retries
        self.threads = max(1, int(cpus_per_point))
        self._refs: dict = {}
        self._started = False

    def describe(self) -> str:
        where = f"Ray cluster at {self.address}" if self.address else f"local Ray cluster ({self.num_cpus} CPUs)"
        return (f"{where}: {self.cpus_per_point:g} CPU and {self.gpus_per_point:g} GPU per point, "
                f"{self.retries} retries")

    def open(self) -> None:
        """Start the local cluster or join ``address``; a UsageError (one line) when that fails."""
        quiet = dict(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
        try:
            if self.address:
                self.ray.init(address=self.address, **quiet)
            else:
                self.ray.init(address="local", num_cpus=self.num_cpus, **quiet)
        except Exception as exc:  # noqa: BLE001 - Ray raises many kinds; each is the user's cluster
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            where = f"--ray-address {self.address}" if self.address else "--ray"
            raise UsageError(f"{where}: Ray did not start ({type(exc).__name__}: {first})") from None
        self._started = True

    def start(self, tasks: list[PointTask]) -> None:
        remote = self.ray.remote(run_point_or_raise).options(
            num_cpus=self.cpus_per_point, num_gpus=self.gpus_per_point, max_retries=self.retries,
            retry_exceptions=[PointRetry], name="sweep-point")
        self._refs = {remote.remote(task): task for task in tasks}

    def wait(self, timeout: float) -> list[PointResult]:
        if not self._refs:
            return []
        ready, _ = self.ray.wait(list(self._refs), num_returns=len(self._refs), timeout=timeout)
        results = []
        for ref in ready:
            task = self._refs.pop(ref)
            try:
                results.append(self.ray.get(ref))
            except Exception as exc:  # noqa: BLE001 - every Ray failure becomes this point's result
                results.append(_failed(task, exc, self.ray))
        return results

    def stop(self) -> None:
        for ref in self._refs:
            self.ray.cancel(ref)
        self._refs = {}

    def close(self) -> None:
        if self._started:
            self.ray.shutdown()
            self._started = False
