"""Atomic, verified checkpoints of a run directory, and the RNG states they must carry.

Layout: ``RUN_DIR/checkpoints/ckpt-000000123.npz`` holds the payload and
``ckpt-000000123.json`` is its completion marker (format, cycle, size, sha256). A
checkpoint without a marker was never finished and is ignored.

Why ``.npz`` + JSON and not ``torch.save``/pickle: ``numpy.load(allow_pickle=False)``
and ``json.loads`` cannot execute code, so a foreign or tampered file in a run
directory can at worst be rejected, never run; tensors and arrays round-trip
bit-exactly (bfloat16 and other dtypes numpy lacks are stored as same-width integer
views); and CPU-only, torch-free runs can read and write them. The sha256 in the
marker catches truncation and flipped bytes before anything is parsed.

Write order (POSIX crash safety): temp file in the same directory -> fsync file ->
rename -> fsync directory -> marker written the same way. A crash at any point leaves
either the previous complete checkpoint or the new one, never a half-read.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import random
import re
import sys
import tempfile
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from cognition.runtime.oom import host_allocation_failure
from cognition.errors import CheckpointError

CHECKPOINTS = "checkpoints"  # the run directory's folder of checkpoints (cognition.simulator.rundir)

# /2: per-agent module weights (drawn from the seed, not stored) and no unit history in the state;
# a /1 checkpoint's state belongs to code whose agents shared one draw of weights.
# /3: the workspace's state (access units, evidence statistics, winner and dwell) and the rows of the
# yoked control (agents, donors, twins)
FORMAT = "hybrid-cognition-checkpoint/3"
_FORMAT_FAMILY = FORMAT.rsplit("/", 1)[0] + "/"
_NAME = re.compile(r"^ckpt-(\d{9})\.json$")
_TREE_KEY = "__tree__"


# ----------------------------------------------------------------- payload codec
def _encode(obj: Any, arrays: dict[str, np.ndarray], path: str) -> Any:
    """JSON-able tree for ``obj``; arrays and tensors go to ``arrays`` by reference."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (int, float)) and type(obj) in (int, float):
        return obj
    if isinstance(obj, (np.ndarray, np.generic)):
        if obj.dtype.hasobject:
            raise CheckpointError(f"checkpoint payload {path}: object arrays are not allowed")
        ref = f"a{len(arrays)}"
        arrays[ref] = np.asarray(obj)
        return {"__array__": ref, "scalar": isinstance(obj, np.generic)}
    torch = sys.modules.get("torch")  # a tensor can only exist if torch is imported
    if torch is not None and isinstance(obj, torch.Tensor):
        return _encode_tensor(torch, obj, arrays)
    if isinstance(obj, tuple):
        return {"__tuple__": [_encode(v, arrays, f"{path}[{i}]") for i, v in enumerate(obj)]}
    if isinstance(obj, list):
        return [_encode(v, arrays, f"{path}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, Mapping):
        if all(isinstance(k, str) for k in obj):
            return {"__dict__": {k: _encode(v, arrays, f"{path}.{k}") for k, v in obj.items()}}
        if all(type(k) in (int, str) for k in obj):
            return {"__items__": [[k, _encode(v, arrays, f"{path}[{k!r}]")] for k, v in obj.items()]}
    raise CheckpointError(
        f"checkpoint payload {path}: type {type(obj).__name__} is not storable "
        "(allowed: None, bool, int, float, str, list, tuple, dict with str/int keys, "
        "numpy arrays and scalars, torch tensors)"
    )


def _encode_tensor(torch, t, arrays: dict[str, np.ndarray]) -> dict:
    t = t.detach().to("cpu").contiguous()
    dtype = str(t.dtype).removeprefix("torch.")
    try:
        data = t.numpy()
        view = None
    except TypeError:  # bfloat16, float8...: numpy has no such dtype, store the bits
        view = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
        data = t.view(view).numpy()
        view = str(view).removeprefix("torch.")
    ref = f"a{len(arrays)}"
    arrays[ref] = data
    return {"__tensor__": ref, "dtype": dtype, "bits_as": view}


def _decode(node: Any, arrays: Mapping[str, np.ndarray]) -> Any:
    if isinstance(node, list):
        return [_decode(v, arrays) for v in node]
    if not isinstance(node, dict):
        return node
    if "__dict__" in node:
        return {k: _decode(v, arrays) for k, v in node["__dict__"].items()}
    if "__items__" in node:
        return {k: _decode(v, arrays) for k, v in node["__items__"]}
    if "__tuple__" in node:
        return tuple(_decode(v, arrays) for v in node["__tuple__"])
    if "__array__" in node:
        a = arrays[node["__array__"]]
        return a[()] if node["scalar"] else a
    if "__tensor__" in node:
        import torch

        t = torch.from_numpy(np.array(arrays[node["__tensor__"]]))
        return t.view(getattr(torch, node["dtype"])) if node["bits_as"] else t
    raise ValueError(f"unknown node {sorted(node)}")


def encode_payload(payload: Mapping[str, Any]) -> bytes:
    """The ``.npz`` bytes of ``payload`` (a dict with str keys)."""
    arrays: dict[str, np.ndarray] = {}
    tree = _encode(dict(payload), arrays, "payload")
    blob = np.frombuffer(json.dumps(tree).encode(), dtype=np.uint8)
    buf = io.BytesIO()
    try:
        np.savez(buf, **{_TREE_KEY: blob}, **arrays)
    except Exception as exc:
        # out of memory mid-entry, zipfile's unwinding (closing the entry, then the archive) raises "ValueError:
        # I/O operation on closed file." over the MemoryError: raise the MemoryError, the cause to act on
        failure = host_allocation_failure(exc)
        if failure is None or failure is exc:
            raise
        raise failure from None
    return buf.getvalue()


def decode_payload(data: bytes) -> dict[str, Any]:
    """Inverse of :func:`encode_payload`; never unpickles."""
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    tree = json.loads(arrays.pop(_TREE_KEY).tobytes().decode())
    return _decode(tree, arrays)


# --------------------------------------------------------------------- storage
def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: temp file in the same directory, fsync, rename, fsync the directory."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide run files from the owner's group
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


class CheckpointStore:
    """The checkpoints of one run directory; keeps the newest ``keep`` complete ones.

    One writer per run directory (the run itself). ``skipped`` lists, after
    :meth:`load_latest`, each newer checkpoint that was rejected and why.
    """

    def __init__(self, run_dir: str | os.PathLike, keep: int = 3):
        if not isinstance(keep, int) or keep < 1:
            raise ValueError(f"keep={keep!r}: must be an int >= 1")
        self.directory = Path(run_dir) / CHECKPOINTS
        self.keep = keep
        self.skipped: list[str] = []

    def _paths(self, cycle: int) -> tuple[Path, Path]:
        stem = self.directory / f"ckpt-{cycle:09d}"
        return stem.with_suffix(".npz"), stem.with_suffix(".json")

    def cycles(self) -> list[int]:
        """Cycles that have a completion marker, newest first (not yet verified)."""
        if not self.directory.is_dir():
            return []
        found = (_NAME.match(p.name) for p in self.directory.iterdir())
        return sorted((int(m.group(1)) for m in found if m), reverse=True)

    def save(self, payload: Mapping[str, Any], cycle: int) -> Path:
        """Write ``payload`` as the checkpoint taken after ``cycle``; return its path."""
        if not isinstance(cycle, int) or isinstance(cycle, bool) or not 0 <= cycle < 10**9:
            raise ValueError(f"cycle={cycle!r}: must be an int in [0, 1e9)")
        data = encode_payload(payload)
        self.directory.mkdir(parents=True, exist_ok=True)
        body, marker = self._paths(cycle)
        marker.unlink(missing_ok=True)  # re-saving a cycle: no marker may vouch for a stale body
        atomic_write(body, data)
        manifest = {"format": FORMAT, "cycle": cycle, "file": body.name, "bytes": len(data),
                    "sha256": hashlib.sha256(data).hexdigest()}
        atomic_write(marker, json.dumps(manifest).encode())
        self._prune()
        return body

    def _prune(self) -> None:
        for cycle in self.cycles()[self.keep:]:
            for p in self._paths(cycle)[::-1]:  # marker first: a body without one is ignored
                p.unlink(missing_ok=True)
        for p in self.directory.glob(".tmp-*"):  # left by a save killed mid-write
            p.unlink(missing_ok=True)

    def orphans(self) -> list[str]:
        """Checkpoint files without a completion marker (a save killed between the two renames,
        or a deleted marker): never loaded, named when a resume deletes them."""
        if not self.directory.is_dir():
            return []
        marked = {f"ckpt-{c:09d}.npz" for c in self.cycles()}
        return sorted(p.name for p in self.directory.glob("ckpt-*.npz") if p.name not in marked)

    def discard(self, cycles: list[int], orphans: list[str] = ()) -> list[str]:
        """Delete the checkpoints of ``cycles`` (marker first) and the ``orphans``; return their names.

        A resume from an older checkpoint, because the newer ones failed to verify, discards
        the newer ones, so that they can never shadow the resumed run."""
        gone = []
        for c in cycles:
            for p in self._paths(c)[::-1]:
                p.unlink(missing_ok=True)
            gone.append(self._paths(c)[0].name)
        for name in orphans:
            (self.directory / name).unlink(missing_ok=True)
            gone.append(name)
        return gone

    def _verify(self, cycle: int) -> dict[str, Any]:
        body, marker = self._paths(cycle)
        try:
            manifest = json.loads(marker.read_text())
        except (OSError, ValueError) as exc:
            raise CheckpointError(f"completion marker unreadable ({exc.__class__.__name__})") from None
        found = manifest.get("format") if isinstance(manifest, dict) else None
        if isinstance(found, str) and found.startswith(_FORMAT_FAMILY) and found != FORMAT:
            raise CheckpointError(f"written by another version of hybrid-cognition ({found}; this version reads "
                                  f"{FORMAT}): its state does not fit this code, start a new run")
        if found != FORMAT:
            raise CheckpointError(f"not a {FORMAT} marker (foreign file)")
        if manifest.get("cycle") != cycle or manifest.get("file") != body.name:
            raise CheckpointError("marker names another checkpoint (foreign or renamed file)")
        try:
            data = body.read_bytes()
        except OSError:
            raise CheckpointError("checkpoint file missing") from None
        if len(data) != manifest.get("bytes") or hashlib.sha256(data).hexdigest() != manifest.get("sha256"):
            raise CheckpointError(f"checksum mismatch, {len(data)} of {manifest.get('bytes')} bytes "
                                  "(truncated, corrupted or replaced)")
        try:
            return decode_payload(data)
        except Exception as exc:  # checksum matched but the content is not ours
            raise CheckpointError(f"payload unreadable ({exc.__class__.__name__}: {exc})") from None

    def load_latest(self) -> tuple[dict[str, Any], int]:
        """The newest checkpoint that verifies, as ``(payload, cycle)``.

        Raises :class:`CheckpointError` (one line, every rejected checkpoint and why)
        when none does.
        """
        self.skipped = []
        for cycle in self.cycles():
            try:
                return self._verify(cycle), cycle
            except CheckpointError as exc:
                self.skipped.append(f"ckpt-{cycle:09d}: {exc}")
        why = "; ".join(self.skipped) if self.skipped else "no completed checkpoint found"
        raise CheckpointError(f"no usable checkpoint in {self.directory}: {why}")


# ------------------------------------------------------------------ RNG states
def capture_rng_states(generators: Mapping[str, np.random.Generator] | None = None) -> dict[str, Any]:
    """Every RNG state a run draws from: python ``random``, numpy's global and named
    ``Generator`` objects, torch CPU and (when initialised) every CUDA device.

    torch is read only if already imported: a run that never imported it has no
    torch RNG to save.
    """
    state: dict[str, Any] = {
        "python": random.getstate(),
        "numpy_global": np.random.get_state(),
        "numpy_generators": {k: g.bit_generator.state for k, g in (generators or {}).items()},
    }
    torch = sys.modules.get("torch")
    if torch is not None:
        state["torch_cpu"] = torch.get_rng_state()
        if torch.cuda.is_initialized():
            state["torch_cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng_states(state: Mapping[str, Any], generators: Mapping[str, np.random.Generator] | None = None) -> None:
    """Inverse of :func:`capture_rng_states` (``generators`` are updated in place)."""
    random.setstate(state["python"])
    np.random.set_state(state["numpy_global"])
    for name, g in (generators or {}).items():
        g.bit_generator.state = state["numpy_generators"][name]
    if "torch_cpu" in state:
        import torch

        torch.set_rng_state(state["torch_cpu"])
        if "torch_cuda" in state:
            torch.cuda.set_rng_state_all(state["torch_cuda"])
