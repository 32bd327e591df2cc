"""Every row's winner as one character (metrics.jsonl ``winners``): the code round-trips and refuses what it
cannot hold. Reference: the documented alphabet, written out by hand here."""
import numpy as np
import pytest

from cognition.architecture.winners import decode_winners, encode_winners


def test_the_documented_alphabet_round_trips():
    winner = np.array([0, 1, 9, 10, 35, 36, 61, -1, 2])
    assert encode_winners(winner) == "019azAZ.2"
    assert decode_winners("019azAZ.2").tolist() == winner.tolist()
    assert encode_winners(np.array([], dtype=np.int64)) == "" and decode_winners("").size == 0


def test_what_cannot_be_coded_is_one_line():
    with pytest.raises(ValueError, match="winner index 62: at most 62 modules"):
        encode_winners(np.array([62]))
    for bad in ("01-", "0é"):
        with pytest.raises(ValueError, match="not a winner code"):
            decode_winners(bad)


def test_reading_runs_back_does_not_import_torch():
    # a command's host-memory check runs before torch maps its libraries (tests/runtime/test_memory_limits.py
    # caught cognition.api importing torch through the winners' decoder)
    import subprocess
    import sys

    code = "import sys, cognition.api, cognition.reporting.results; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr
