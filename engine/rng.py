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

import sys
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

#: The bits of one lane: ``shuffle`` works on many generator states at once, each in a
#: lane of this many bits of one big integer.
_LANE = 128
#: ``shuffle`` reads the lanes back as native unsigned 64-bit words: little-endian only.
_LITTLE = sys.byteorder == "little"


def _write_out(state: int, inc: int, items: MutableSequence[int], top: int) -> Rng:
    """Fisher-Yates from ``items[top]`` down to ``items[1]``: ``below(rng, i + 1)`` for
    each ``i``, with its PCG step written out (the same outputs, the same swaps)."""
    thresholds = _THRESHOLDS
    for i in range(top, 0, -1):
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


#: The most states one lane-parallel shuffle works out (a pile of up to 1024 cards).
_MOST = 1023


def _packed(values: list[int]) -> int:
    """``values`` as one big integer, value ``k`` in the lane at bit ``128k``."""
    return int.from_bytes(b"".join(v.to_bytes(16, "little") for v in values), "little")


def _powers() -> tuple[list[int], list[int]]:
    """``k`` steps of the generator are ``state_k = a_k * state_0 + inc * d_k`` (mod
    2**64): the lists of ``a_k`` and ``d_k`` for ``k`` up to ``_MOST``."""
    a, d = [1], [0]
    for _ in range(_MOST):
        a.append((a[-1] * MULTIPLIER) & MASK64)
        d.append((d[-1] * MULTIPLIER + 1) & MASK64)
    return a, d


_A, _D = _powers()
#: Lane ``k`` of these: ``a_k``; and the low 64 and 32 bits set.
_FACTORS = _packed(_A[:_MOST])
_MASK64S = _packed([MASK64] * _MOST)
_MASK32S = _packed([MASK32] * _MOST)
#: Lane ``k``: bits 59-63 set (where a state holds its output's rotation).
_ROTATIONS = _packed([31 << 59] * _MOST)


def _terms(inc: int) -> int:
    """Lane ``k``: ``inc * d_k`` (mod 2**64)."""
    return _packed([(inc * d) & MASK64 for d in _D[:_MOST]])


#: Increment -> its ``_terms`` (every game but a hand-built one has sequence 54's).
_TERMS: dict[int, int] = {(DEFAULT_SEQUENCE << 1) | 1: _terms((DEFAULT_SEQUENCE << 1) | 1)}
#: (states, increment) -> the factors and terms of that many lanes.
_LANES: dict[tuple[int, int], tuple[int, int]] = {}


def _lanes(steps: int, inc: int) -> tuple[int, int]:
    """The factors and terms of lanes ``0 .. steps - 1``: lane ``k`` of ``factors *
    state + terms`` is the state after ``k`` steps (before the 64-bit mask; a 64-bit
    state times a 64-bit factor plus a 64-bit term fits a lane of 128 bits, so no lane
    carries into the next)."""
    terms = _TERMS.get(inc)
    if terms is None:
        if len(_TERMS) >= 64:  # hand-built generators with many increments
            _TERMS.clear()
            _LANES.clear()
        terms = _TERMS[inc] = _terms(inc)
    low = (1 << (_LANE * steps)) - 1
    lanes = _LANES[steps, inc] = (_FACTORS & low, terms & low)
    return lanes


def shuffle(rng: Rng, items: MutableSequence[int]) -> Rng:
    """Shuffle ``items`` in place (Fisher-Yates from the end); return the generator.

    ``below(rng, i + 1)`` for each ``i``: the same outputs, the same swaps
    (tests/engine/records/test_rng.py checks it against ``below``). The ``len - 1`` states a shuffle
    draws from (one per card, if no draw is rejected) are worked out at once, lane by
    lane in big integers, with the ``next_u32`` output up to its rotation; the loop
    rotates, takes the bound and swaps. A rejected draw (``below`` draws again: rare,
    fewer than one in four million) hands the rest of the shuffle to the loop that steps
    the generator one draw at a time."""
    n = len(items)
    if n > 1024 or not _LITTLE:
        if n > 1024:
            for i in range(n - 1, 0, -1):
                j, rng = below(rng, i + 1)
                items[i], items[j] = items[j], items[i]
            return rng
        return _write_out(rng[0], rng[1], items, n - 1)
    if n < 2:
        return rng
    state, inc = rng
    steps = n - 1
    lanes = _LANES.get((steps, inc))
    if lanes is None:
        lanes = _lanes(steps, inc)
    factors, terms = lanes
    olds = (state * factors + terms) & _MASK64S
    # Per lane: next_u32's xorshifted value written twice side by side (low 64 bits)
    # and its rotation (the next 5 bits); the bits one lane shifts into another are
    # masked off. ``(old >> 18) ^ old`` keeps the rotation, bits 59-63 of ``old``, as
    # they are (bits 77 and up of a 64-bit ``old`` are zero): one shift fewer.
    mixed = (olds >> 18) ^ olds
    words = ((mixed >> 27) & _MASK32S) * _TWICE | (mixed & _ROTATIONS) << 5
    drawn = iter(memoryview(words.to_bytes(16 * steps, "little")).cast("Q").tolist())
    mask = MASK32
    for i, bound, twice, rot in zip(range(steps, 0, -1), range(n, 1, -1), drawn, drawn, strict=False):  # fmt: skip
        out = (twice >> rot) & mask
        # Rejected (below a threshold, which is below the bound): draw again, one
        # state at a time.
        if out < bound and out < _THRESHOLDS[bound]:
            k = steps - i + 1  # the states drawn so far, this one included
            return _write_out(_step_power(k, inc, state), inc, items, i)
        j = out % bound
        items[i], items[j] = items[j], items[i]
    return (_A[steps] * state + inc * _D[steps]) & MASK64, inc


def _step_power(k: int, inc: int, state: int) -> int:
    """``state`` after ``k`` PCG steps."""
    for _ in range(k):
        state = (state * MULTIPLIER + inc) & MASK64
    return state
