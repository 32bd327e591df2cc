"""Checkpoint storage: exact round trip, atomicity, corruption detection, fallback, RNG states."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest
import torch

from cognition.runtime.checkpoint import FORMAT, CheckpointStore, capture_rng_states, decode_payload, encode_payload, restore_rng_states
from cognition.errors import CheckpointError


def _payload(cycle: int) -> dict:
    rng = np.random.default_rng(cycle)
    return {
        "cycle": cycle,
        "phi_bits": [0.5, float("nan"), 1e-300],
        "big_int": 2**127 + 3,  # PCG64 states are 128-bit ints
        "name": "run-α",
        "flags": (True, None),
        "weights": rng.standard_normal((3, 4)),
        "counts": np.arange(5, dtype=np.int16),
        "scalar": np.float32(1.25),
        "by_agent": {0: "a", 7: "b"},
        "hidden": torch.randn(2, 3, generator=torch.Generator().manual_seed(cycle)),
        "hidden_bf16": torch.linspace(-3, 3, 7).to(torch.bfloat16),
        "mask": torch.tensor([True, False]),
    }


def _assert_same(a, b):
    """Bitwise equality, type included (recursive)."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _assert_same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _assert_same(x, y)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    elif isinstance(a, torch.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    elif isinstance(a, float) and a != a:
        assert b != b
    else:
        assert a == b and (not isinstance(a, np.generic) or a.dtype == b.dtype)


def test_round_trip_is_exact():
    p = _payload(3)
    _assert_same(p, decode_payload(encode_payload(p)))


def test_unstorable_type_names_the_path():
    with pytest.raises(CheckpointError, match=r"payload\.state\.fn: type function"):
        encode_payload({"state": {"fn": lambda: 0}})
    with pytest.raises(CheckpointError, match="object arrays"):
        encode_payload({"x": np.array([object()])})


def test_keeps_last_three_and_loads_newest(tmp_path):
    store = CheckpointStore(tmp_path, keep=3)
    for c in (10, 20, 30, 40, 50):
        store.save(_payload(c), c)
    assert store.cycles() == [50, 40, 30]
    assert sorted(p.name for p in store.directory.iterdir()) == [
        f"ckpt-{c:09d}.{ext}" for c in (30, 40, 50) for ext in ("json", "npz")
    ]
    payload, cycle = store.load_latest()
    assert cycle == 50
    _assert_same(payload, _payload(50))


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "marker_garbage", "no_body"])
def test_damaged_newest_falls_back_to_previous(tmp_path, damage):
    store = CheckpointStore(tmp_path)
    for c in (1, 2):
        store.save(_payload(c), c)
    body = store.directory / "ckpt-000000002.npz"
    data = bytearray(body.read_bytes())
    if damage == "truncate":
        body.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        for i in (100, len(data) // 2, len(data) - 10):
            data[i] ^= 0xFF
        body.write_bytes(bytes(data))
    elif damage == "empty":
        body.write_bytes(b"")
    elif damage == "marker_garbage":
        (store.directory / "ckpt-000000002.json").write_bytes(b"{\x00\xff")
    else:
        body.unlink()
    payload, cycle = store.load_latest()
    assert cycle == 1
    _assert_same(payload, _payload(1))
    assert len(store.skipped) == 1 and store.skipped[0].startswith("ckpt-000000002: ")


def test_foreign_files_are_rejected(tmp_path):
    store = CheckpointStore(tmp_path)
    store.save(_payload(1), 1)
    d = store.directory
    # a foreign checkpoint with a marker that is valid JSON but not ours
    (d / "ckpt-000000009.npz").write_bytes(b"PK\x03\x04not really a zip")
    (d / "ckpt-000000009.json").write_text(json.dumps({"format": "other/1", "cycle": 9}))
    # a body with a valid marker of ours that was copied from another cycle
    (d / "ckpt-000000008.npz").write_bytes((d / "ckpt-000000001.npz").read_bytes())
    (d / "ckpt-000000008.json").write_text((d / "ckpt-000000001.json").read_text())
    # a body without any marker (a save killed before the marker) is never considered
    (d / "ckpt-000000007.npz").write_bytes(b"half")
    payload, cycle = store.load_latest()
    assert cycle == 1
    assert [s.split(":")[0] for s in store.skipped] == ["ckpt-000000009", "ckpt-000000008"]
    assert "foreign" in store.skipped[0] and "another checkpoint" in store.skipped[1]


def test_a_pickle_in_the_body_is_never_executed(tmp_path):
    # A checksum-valid file holding a pickled object array: np.load(allow_pickle=False) refuses it.
    import hashlib
    import io
    import zipfile

    store = CheckpointStore(tmp_path)
    buf = io.BytesIO()
    np.save(buf, np.array([{"evil": 1}], dtype=object), allow_pickle=True)
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as z:
        z.writestr("__tree__.npy", buf.getvalue())
    data = zbuf.getvalue()
    store.directory.mkdir(parents=True)
    (store.directory / "ckpt-000000004.npz").write_bytes(data)
    (store.directory / "ckpt-000000004.json").write_text(json.dumps({
        "format": FORMAT, "cycle": 4, "file": "ckpt-000000004.npz",
        "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}))
    with pytest.raises(CheckpointError, match="payload unreadable"):
        store.load_latest()


def test_no_good_checkpoint_is_one_clear_error(tmp_path):
    store = CheckpointStore(tmp_path)
    with pytest.raises(CheckpointError, match="no completed checkpoint found"):
        store.load_latest()
    store.save(_payload(5), 5)
    (store.directory / "ckpt-000000005.npz").write_bytes(b"")
    with pytest.raises(CheckpointError) as info:
        store.load_latest()
    msg = str(info.value)
    assert "\n" not in msg and "ckpt-000000005: checksum mismatch, 0 of" in msg


def test_resave_same_cycle_and_leftover_temp_files(tmp_path):
    store = CheckpointStore(tmp_path)
    store.save({"v": 1}, 3)
    (store.directory / ".tmp-abandoned.npz").write_bytes(b"x")  # a save killed mid-write
    store.save({"v": 2}, 3)
    assert store.load_latest() == ({"v": 2}, 3)
    assert not list(store.directory.glob(".tmp-*"))


def test_discard_names_what_it_deletes_orphans_included(tmp_path):
    store = CheckpointStore(tmp_path)
    for c in (1, 2, 3):
        store.save({"c": c}, c)
    (store.directory / "ckpt-000000002.json").unlink()  # a deleted marker: an orphan body
    assert store.cycles() == [3, 1] and store.orphans() == ["ckpt-000000002.npz"]
    assert store.discard([3], store.orphans()) == ["ckpt-000000003.npz", "ckpt-000000002.npz"]
    assert store.cycles() == [1] and store.orphans() == []


@pytest.mark.parametrize("bad", [-1, 1.5, True, 10**9])
def test_bad_cycle_or_keep(tmp_path, bad):
    with pytest.raises(ValueError, match="cycle="):
        CheckpointStore(tmp_path).save({}, bad)
    with pytest.raises(ValueError, match="keep="):
        CheckpointStore(tmp_path, keep=0)


def test_rng_states_survive_a_checkpoint(tmp_path):
    """After restoring, every generator draws exactly what it would have drawn."""
    gens = {"agents": np.random.default_rng(11), "shots": np.random.Generator(np.random.MT19937(5))}
    random.seed(1), np.random.seed(2), torch.manual_seed(3)
    for g in gens.values():
        g.random(7)
    store = CheckpointStore(tmp_path)
    store.save({"rng": capture_rng_states(gens)}, 1)

    def draw():
        return (random.random(), np.random.random(), torch.rand(3).tolist(),
                gens["agents"].integers(0, 2**62, 4).tolist(), gens["shots"].random())

    expected = draw()
    random.seed(99), np.random.seed(99), torch.manual_seed(99)
    gens = {"agents": np.random.default_rng(0), "shots": np.random.Generator(np.random.MT19937(0))}
    payload, _ = store.load_latest()
    restore_rng_states(payload["rng"], gens)
    assert draw() == expected


def test_a_checkpoint_of_another_version_is_named_as_such(tmp_path):
    # /1 checkpoints hold states of agents that shared one draw of weights: resuming them with
    # per-agent weights would silently change every agent's anatomy mid-run
    store = CheckpointStore(tmp_path)
    store.save(_payload(5), 5)
    marker = store.directory / "ckpt-000000005.json"
    marker.write_text(marker.read_text().replace(FORMAT, "hybrid-cognition-checkpoint/1"))
    with pytest.raises(CheckpointError, match="another version of hybrid-cognition .*start a new run"):
        store.load_latest()
