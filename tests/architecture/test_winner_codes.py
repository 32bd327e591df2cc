"""Every row's winner as one character (metrics.jsonl ``winners``): the code round-trips and refuses what it
cannot hold. Reference: the documented alphabet, written out by hand here."""
import numpy as np
import pytest

from cognition.architecture.competition import decode_winners, encode_winners


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
