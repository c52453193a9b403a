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


#: ``(2**32 - n) % n`` for every bound ``n`` a shuffle of up to 1024 cards uses
#: (index 0 unused): ``below``'s rejection threshold, computed once.
_THRESHOLDS = (0, *(((1 << 32) - n) % n for n in range(1, 1025)))


#: A 32-bit value times this is the value twice, side by side (for the rotation).
_TWICE = (1 << 32) | 1


def shuffle(rng: Rng, items: MutableSequence[int]) -> Rng:
    """Shuffle ``items`` in place (Fisher-Yates from the end); return the generator.

    ``below(rng, i + 1)`` for each ``i``, with its PCG step written out in the loop (one
    call per card instead of three, no tuple per step): the same outputs, the same swaps
    (tests/test_rng.py checks it against ``below``)."""
    n = len(items)
    if n > 1024:
        for i in range(n - 1, 0, -1):
            j, rng = below(rng, i + 1)
            items[i], items[j] = items[j], items[i]
        return rng
    state, inc = rng
    thresholds = _THRESHOLDS
    for i in range(n - 1, 0, -1):
        # next_u32: rotr32(xorshifted, rot) is bits rot..rot+31 of xorshifted written
        # twice side by side (xorshifted * _TWICE).
        old = state
        state = (old * MULTIPLIER + inc) & MASK64
        out = ((((((old >> 18) ^ old) >> 27) & MASK32) * _TWICE) >> (old >> 59)) & MASK32
        bound = i + 1
        while out < thresholds[bound]:  # below's rejection: draw again (rare)
            old = state
            state = (old * MULTIPLIER + inc) & MASK64
            out = ((((((old >> 18) ^ old) >> 27) & MASK32) * _TWICE) >> (old >> 59)) & MASK32
        j = out % bound
        items[i], items[j] = items[j], items[i]
    return state, inc
