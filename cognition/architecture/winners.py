"""Who won each row's workspace, as numbers and as the one character per row metrics.jsonl records.

Torch-free, so that reading a run back (``cognition.reporting.results``, ``cognition.api``) does not import
torch: a command's memory check must come before torch maps its libraries.
"""
from __future__ import annotations

import numpy as np

NO_ACCESS = -1  # winner when no module ignited

# a winner as one character: module index i (in the loop's module order) -> WINNER_CODES[i], no access -> "."
WINNER_CODES = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
NO_ACCESS_CODE = "."


def encode_winners(winner) -> str:
    """Every row's winner as one character each, in row order: the module's index in the loop's module
    order as ``WINNER_CODES[i]`` ("0".."9", then letters), no access (-1) as ".". winner: (rows,) integers."""
    winner = np.asarray(winner, dtype=np.int64)
    if winner.size and int(winner.max()) >= len(WINNER_CODES):
        raise ValueError(f"winner index {int(winner.max())}: at most {len(WINNER_CODES)} modules can be recorded")
    codes = np.frombuffer((WINNER_CODES + NO_ACCESS_CODE).encode("ascii"), dtype=np.uint8)
    return codes[winner].tobytes().decode("ascii")  # -1 indexes the last code, "."


def decode_winners(text: str) -> np.ndarray:
    """(rows,) int64 winners of :func:`encode_winners`'s string: module index, -1 for no access."""
    lookup = np.full(128, -2, dtype=np.int64)
    lookup[np.frombuffer(WINNER_CODES.encode("ascii"), dtype=np.uint8)] = np.arange(len(WINNER_CODES))
    lookup[ord(NO_ACCESS_CODE)] = NO_ACCESS
    raw = np.frombuffer(text.encode("ascii", errors="replace"), dtype=np.uint8)
    out = lookup[np.minimum(raw, 127)]
    if (out == -2).any():
        bad = text[int(np.argmax(out == -2))]
        raise ValueError(f"winners record holds {bad!r}, not a winner code ({WINNER_CODES} or {NO_ACCESS_CODE!r})")
    return out
