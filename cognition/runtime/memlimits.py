"""The host memory limits that apply to this process, and how much of each is left.

Three limits, each read from where the kernel keeps it:

===============  ==============================================  =====================================
source           limit, and what is taken from it                 what it counts
===============  ==============================================  =====================================
MemAvailable     ``psutil.virtual_memory().available``, else       resident memory the OS can give now
                 ``MemAvailable`` of ``/proc/meminfo``
cgroup v2 / v1   ``memory.max`` less ``memory.current`` (v2), or   resident memory of the cgroup (what a
                 ``memory.limit_in_bytes`` less                    batch scheduler sets: Slurm, Kubernetes,
                 ``memory.usage_in_bytes`` (v1), of the process's  ``systemd-run -p MemoryMax=``); the
                 own cgroup (``/proc/self/cgroup``) and each of    kernel's OOM killer ends a process past
                 its ancestors ("max" or v1's page-counter         it (exit 137, nothing printed)
                 maximum: no limit)
RLIMIT_AS        ``ulimit -v`` (``resource.getrlimit``) less the   virtual memory: every mapping, touched
                 address space mapped now (``VmSize`` of           or not; a mapping past it fails
                 ``/proc/self/status``)                            (MemoryError, "cannot allocate memory")
===============  ==============================================  =====================================

``RLIMIT_AS`` counts virtual memory, not resident memory: torch, the BLAS libraries, thread stacks
and glibc's per-thread arenas map far more than they touch, so a run needs much more of it than of
the other two (measured in docs/runtime.md, "Host memory limits"). Every path is relative to
``root`` so that tests can hand in a fake ``/proc`` and ``/sys`` tree.
"""
from __future__ import annotations

import resource
from dataclasses import dataclass
from pathlib import Path

V1_UNLIMITED = 1 << 60  # cgroup v1 reports "no limit" as the page counter's maximum (9223372036854771712)


@dataclass(frozen=True)
class HostLimit:
    source: str  # "MemAvailable", "cgroup v2 memory.max", "cgroup v1 memory.limit_in_bytes", "RLIMIT_AS"
    limit_bytes: int  # the limit itself (MemAvailable: what is available)
    headroom_bytes: int  # what is left of it now
    kind: str  # "resident" or "virtual"
    where: str = ""  # the file or call it was read from

    def as_dict(self) -> dict:
        return {"source": self.source, "limit_bytes": self.limit_bytes, "headroom_bytes": self.headroom_bytes,
                "kind": self.kind, "where": self.where}


def _read_int(path: Path) -> int | None:
    """The integer in ``path``; None when missing, unreadable, or "max" (no limit)."""
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    if text == "max":
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _status_bytes(root: Path, key: str) -> int | None:
    try:
        for line in (root / "proc/self/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    return None


def mem_available(root: Path = Path("/")) -> HostLimit | None:
    if root == Path("/"):
        try:
            import psutil

            avail = int(psutil.virtual_memory().available)
            return HostLimit("MemAvailable", avail, avail, "resident", "psutil.virtual_memory().available")
        except ImportError:
            pass
    try:
        for line in (root / "proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                avail = int(line.split()[1]) * 1024
                return HostLimit("MemAvailable", avail, avail, "resident", "/proc/meminfo")
    except (OSError, ValueError, IndexError):
        pass
    return None


def _ancestors(rel: str) -> list[str]:
    """'/a/b' -> ['a/b', 'a', ''] (the cgroup and each parent up to the mount's root)."""
    parts = [p for p in rel.strip("/").split("/") if p and p != ".."]
    return ["/".join(parts[:i]) for i in range(len(parts), -1, -1)]


def cgroup_limits(root: Path = Path("/")) -> list[HostLimit]:
    """The memory limit of the process's own cgroup and of each ancestor that sets one (v2 and v1)."""
    try:
        lines = (root / "proc/self/cgroup").read_text().splitlines()
    except OSError:
        return []
    out: list[HostLimit] = []
    for line in lines:
        hid, _, rest = line.partition(":")
        controllers, _, rel = rest.partition(":")
        if hid == "0" and controllers == "":  # cgroup v2 (unified; /sys/fs/cgroup/unified on a hybrid host)
            for mount in (root / "sys/fs/cgroup", root / "sys/fs/cgroup/unified"):
                if (mount / "cgroup.controllers").is_file():
                    out += _walk(mount, rel, "memory.max", "memory.current", "cgroup v2 memory.max", root)
                    break
        elif "memory" in controllers.split(","):
            out += _walk(root / "sys/fs/cgroup/memory", rel, "memory.limit_in_bytes", "memory.usage_in_bytes",
                         "cgroup v1 memory.limit_in_bytes", root)
    return out


def _walk(mount: Path, rel: str, limit_name: str, usage_name: str, source: str, root: Path) -> list[HostLimit]:
    out = []
    for sub in _ancestors(rel):
        d = mount / sub if sub else mount
        limit = _read_int(d / limit_name)
        if limit is None or limit >= V1_UNLIMITED:
            continue
        used = _read_int(d / usage_name) or 0
        where = "/" + str((d / limit_name).relative_to(root))
        out.append(HostLimit(source, limit, max(0, limit - used), "resident", where))
    return out


def address_space_limit(root: Path = Path("/"), rlimit: int | None = None) -> HostLimit | None:
    """RLIMIT_AS less VmSize; None without a limit. ``rlimit``: the soft limit (read when None)."""
    soft = resource.getrlimit(resource.RLIMIT_AS)[0] if rlimit is None else rlimit
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    mapped = _status_bytes(root, "VmSize") or 0
    return HostLimit("RLIMIT_AS", int(soft), max(0, int(soft) - mapped), "virtual",
                     f"ulimit -v, {mapped / 2**20:.0f} MiB mapped (VmSize)")


def host_limits(root: Path = Path("/"), rlimit: int | None = None) -> list[HostLimit]:
    """Every host memory limit that applies now: MemAvailable, cgroup limits, RLIMIT_AS."""
    found = [mem_available(root), *cgroup_limits(root), address_space_limit(root, rlimit)]
    return [lim for lim in found if lim is not None]


def tightest(limits: list[HostLimit], need: dict[str, int]) -> HostLimit | None:
    """The limit with the least room once ``need[kind]`` is taken from its headroom (None: no limit known)."""
    return min(limits, key=lambda lim: lim.headroom_bytes - need.get(lim.kind, 0), default=None)


def describe(limit: HostLimit) -> str:
    """'RLIMIT_AS (ulimit -v, 337 MiB mapped (VmSize)) of 2.86 GiB, 2.53 GiB left', for a message."""
    gib = 2**30
    where = f" ({limit.where})" if limit.where else ""
    if limit.source == "MemAvailable":
        return f"MemAvailable{where}: {limit.headroom_bytes / gib:.3g} GiB"
    return f"{limit.source}{where} of {limit.limit_bytes / gib:.3g} GiB, {limit.headroom_bytes / gib:.3g} GiB left"
