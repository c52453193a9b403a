"""PCG32 (XSH-RR), the engine's only source of randomness.

The generator is the reference ``pcg32`` of M. E. O'Neill (pcg-random.org), so any
language can reproduce a game:

- state and increment are unsigned 64-bit integers;
- ``seed(s)`` is ``pcg32_srandom_r(rng, initstate=s mod 2**64, initseq=54)``:
  ``state = 0; inc = (54 << 1) | 1; step(); state += s; step()``;
- ``step`` is ``state = state * 6364136223846793005 + inc  (mod 2**64)``;
- output of one step (computed from the *old* state):
  ``xorshifted = ((old >> 18) ^ old) >> 27`` (low 32 bits), ``rot = old >> 59``,
  ``out = rotr32(xorshifted, rot)``;
- ``below(n)`` is ``pcg32_boundedrand_r``: ``threshold = (2**32 - n) % n``, draw until
  ``out >= threshold``, return ``out % n``;
- ``shuffle(xs)`` is Fisher-Yates from the end: for ``i`` from ``len-1`` down to ``1``,
  ``j = below(i + 1)``, swap ``xs[i]`` and ``xs[j]``. Index 0 is the top of a pile.

The generator is a value: every function takes and returns the ``(state, inc)`` pair,
so it lives inside the immutable game state and replays exactly.
"""

from __future__ import annotations

from collections.abc import MutableSequence

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
MULTIPLIER = 6364136223846793005
DEFAULT_SEQUENCE = 54

Rng = tuple[int, int]


def seed(value: int, sequence: int = DEFAULT_SEQUENCE) -> Rng:
    """The generator ``pcg32_srandom_r(value, sequence)``."""
    inc = ((sequence << 1) | 1) & MASK64
    state = (0 * MULTIPLIER + inc) & MASK64
    state = (state + (value & MASK64)) & MASK64
    state = (state * MULTIPLIER + inc) & MASK64
    return state, inc


def next_u32(rng: Rng) -> tuple[int, Rng]:
    """One 32-bit output and the advanced generator."""
    old, inc = rng
    xorshifted = (((old >> 18) ^ old) >> 27) & MASK32
    rot = old >> 59
    out = ((xorshifted >> rot) | (xorshifted << ((-rot) & 31))) & MASK32
    return out, ((old * MULTIPLIER + inc) & MASK64, inc)


def below(rng: Rng, bound: int) -> tuple[int, Rng]:
    """A uniform integer in ``[0, bound)`` without modulo bias."""
    if not 0 < bound <= MASK32:
        raise ValueError("bound must be in 1..2**32-1")
    threshold = ((1 << 32) - bound) % bound
    while True:
        out, rng = next_u32(rng)
        if out >= threshold:
            return out % bound, rng


def shuffle(rng: Rng, items: MutableSequence[int]) -> Rng:
    """Shuffle ``items`` in place (Fisher-Yates from the end); return the generator."""
    for i in range(len(items) - 1, 0, -1):
        j, rng = below(rng, i + 1)
        items[i], items[j] = items[j], items[i]
    return rng
