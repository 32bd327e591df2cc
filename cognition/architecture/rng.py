"""Philox4x32-10, vectorised in torch: a counter-based generator evaluated for every agent at once.

Philox4x32-10 (Salmon, Moraes, Dror & Shaw 2011, "Parallel random numbers: as easy as 1, 2,
3") maps a 128-bit counter and a 64-bit key to 128 random bits through ten rounds of 32-bit
multiplications and xors. Output block i is a pure function of (key, counter i): there is no
state, so any block of any stream can be computed on its own, in any batch, on any device.

Here the four counter words and two key words are int64 tensors holding unsigned 32-bit
values, so a whole batch of counters runs through the rounds in a few tensor operations on
the tensors' device. The 32 x 32 -> 64-bit products wrap modulo 2^64 in int64 with the same
bits an unsigned product has, so the high word is ``(p >> 32) & 0xffffffff`` and the low word
``p & 0xffffffff``. The known-answer vectors of the Random123 distribution (kat_vectors) are
checked in tests/architecture/test_rng.py.

Conversions: a double in [0, 1) from two 32-bit words with 53 random bits (a >> 5, b >> 6:
the same construction as numpy's ``random_standard_uniform`` from 32-bit words); standard
normals by the Box-Muller transform, two per pair of doubles (one Philox block gives four
words = two doubles = two normals).
"""
from __future__ import annotations

import torch

MASK32 = 0xFFFFFFFF
_M0, _M1 = 0xD2511F53, 0xCD9E8D57  # Philox4x32 multipliers
_W0, _W1 = 0x9E3779B9, 0xBB67AE85  # Weyl key increments (golden ratio, sqrt(3) - 1)
ROUNDS = 10


def philox4x32(counter: torch.Tensor, key: torch.Tensor, rounds: int = ROUNDS) -> torch.Tensor:
    """Philox4x32-R of each counter: (..., 4) int64 words in [0, 2^32) -> (..., 4) int64 words.

    key: (..., 2) int64 words in [0, 2^32), broadcast against the counters' leading shape.
    """
    shape = torch.broadcast_shapes(counter.shape[:-1], key.shape[:-1])
    words = counter.expand(*shape, 4).movedim(-1, 0).contiguous()  # a copy: the rounds run in it
    return philox_words(words, key.movedim(-1, 0), rounds).movedim(0, -1)


def philox_words(words: torch.Tensor, key: torch.Tensor, rounds: int = ROUNDS) -> torch.Tensor:
    """Philox4x32-R in place on word-major counters: (4, ...) int64 words in [0, 2^32), each word's
    plane contiguous, -> the same tensor holding the output words (4, ...).

    key: (2, ...) int64 words, broadcast against a word's plane. The rounds run in place on the four
    planes and two product buffers instead of allocating a fresh tensor per operation (400 000 blocks on
    one thread: 37.7 -> 28.0 ms), and word-major counters need no transposition in or out.
    """
    c0, c1, c2, c3 = words.unbind(0)
    k0, k1 = key.unbind(0)  # kept at the key's own shape: the bumps cost nothing, the xors broadcast
    p0, p1 = torch.empty_like(c0), torch.empty_like(c0)
    for r in range(rounds):
        if r:
            k0 = (k0 + _W0) & MASK32
            k1 = (k1 + _W1) & MASK32
        torch.mul(c0, _M0, out=p0)
        torch.mul(c2, _M1, out=p1)
        # c0' = hi(p1) ^ c1 ^ k0 (into c2's plane), c1' = lo(p1), c2' = hi(p0) ^ c3 ^ k1 (into c0's), c3' = lo(p0)
        new0, new2 = c2, c0
        torch.bitwise_right_shift(p1, 32, out=new0).bitwise_and_(MASK32).bitwise_xor_(c1).bitwise_xor_(k0)
        torch.bitwise_and(p1, MASK32, out=c1)
        torch.bitwise_right_shift(p0, 32, out=new2).bitwise_and_(MASK32).bitwise_xor_(c3).bitwise_xor_(k1)
        torch.bitwise_and(p0, MASK32, out=c3)
        c0, c2 = new0, new2
    # each round swaps the planes of words 0 and 2: after an even number they are back in place
    return words if rounds % 2 == 0 else words[[2, 1, 0, 3]]


def words_to_unit(hi: torch.Tensor, lo: torch.Tensor) -> torch.Tensor:
    """Doubles in [0, 1) with 53 random bits from two 32-bit words (27 from ``hi``, 26 from ``lo``)."""
    return ((hi >> 5) * 67108864 + (lo >> 6)).to(torch.float64) * (1.0 / 9007199254740992.0)


def blocks_to_uniforms32(blocks: torch.Tensor) -> torch.Tensor:
    """(..., 4) Philox words -> (..., 4) doubles k / 2^32 in [0, 1), one per word (32 random bits each),
    contiguous whatever the words' strides (a word-major view converts in one pass)."""
    out = torch.empty(blocks.shape, dtype=torch.float64, device=blocks.device)
    return out.copy_(blocks).mul_(1.0 / 4294967296.0)


def blocks_to_uniforms(blocks: torch.Tensor) -> torch.Tensor:
    """(..., 4) Philox words -> (..., 2) doubles in [0, 1)."""
    return torch.stack((words_to_unit(blocks[..., 0], blocks[..., 1]),
                        words_to_unit(blocks[..., 2], blocks[..., 3])), dim=-1)


def box_muller(uniforms: torch.Tensor) -> torch.Tensor:
    """(..., 2) doubles in [0, 1) -> (..., 2) independent standard normals.

    1 - u1 lies in (0, 1], so the logarithm is finite: the largest |z| is sqrt(-2 ln 2^-53) = 8.57.
    """
    radius = torch.sqrt(-2.0 * torch.log1p(-uniforms[..., 0]))
    angle = (2.0 * torch.pi) * uniforms[..., 1]
    return torch.stack((radius * torch.cos(angle), radius * torch.sin(angle)), dim=-1)
