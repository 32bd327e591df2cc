"""Philox4x32-10 in torch against the Random123 known-answer vectors.

Source: Random123 1.14 (D. E. Shaw Research), tests/kat_vectors, the three "philox4x32 10" lines:
counter (4 words), key (2 words) -> output (4 words).
"""
import pytest
import torch

from cognition.architecture.rng import blocks_to_uniforms, box_muller, philox4x32

KAT = [
    ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
    ([0xFFFFFFFF] * 4, [0xFFFFFFFF] * 2, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
    ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
     [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]),
]


@pytest.mark.parametrize("counter, key, expected", KAT)
def test_known_answers(counter, key, expected):
    assert philox4x32(torch.tensor(counter), torch.tensor(key)).tolist() == expected


def test_a_batch_is_each_counter_alone():
    counters = torch.tensor([c for c, _, _ in KAT])
    keys = torch.tensor([k for _, k, _ in KAT])
    assert philox4x32(counters, keys).tolist() == [e for _, _, e in KAT]


def test_uniform_conversion_covers_zero_to_just_below_one():
    words = torch.tensor([[0, 0, 0xFFFFFFFF, 0xFFFFFFFF]])
    u = blocks_to_uniforms(words)
    assert u[0, 0].item() == 0.0 and u[0, 1].item() == 1.0 - 2.0**-53


def test_box_muller_is_finite_at_the_extremes():
    z = box_muller(torch.tensor([[0.0, 0.0], [1.0 - 2.0**-53, 0.25]], dtype=torch.float64))
    assert torch.isfinite(z).all()
    assert z[0].tolist() == [0.0, 0.0]
    assert abs(z[1, 1].item() - (2 * 53 * torch.log(torch.tensor(2.0, dtype=torch.float64)).item()) ** 0.5) < 1e-12


def _philox_reference(counter, key, rounds):
    """Philox4x32-R in Python integers, one round at a time as Salmon et al. (2011) define it."""
    c, (k0, k1) = list(counter), key
    for r in range(rounds):
        if r:
            k0, k1 = (k0 + 0x9E3779B9) & 0xFFFFFFFF, (k1 + 0xBB67AE85) & 0xFFFFFFFF
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & 0xFFFFFFFF, (p0 >> 32) ^ c[3] ^ k1, p0 & 0xFFFFFFFF]
    return c


@pytest.mark.parametrize("rounds", range(1, 11))
def test_every_round_count_matches_a_scalar_reference(rounds):
    # the vectorised rounds swap the planes of words 0 and 2 each round: odd counts must put them back
    counters = torch.tensor([c for c, _, _ in KAT])
    keys = torch.tensor([k for _, k, _ in KAT])
    expected = [_philox_reference(c, k, rounds) for c, k, _ in KAT]
    assert philox4x32(counters, keys, rounds).tolist() == expected
