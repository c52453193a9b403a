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
from typing import NamedTuple

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

#: ``shuffle`` reads its outputs back as native unsigned 32-bit words: little-endian only.
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


def _packed(values: list[int], width: int) -> int:
    """``values`` as one big integer, value ``k`` in the lane at bit ``width * k``."""
    size = width // 8
    return int.from_bytes(b"".join(v.to_bytes(size, "little") for v in values), "little")


def _pairs(values: list[int]) -> tuple[int, int]:
    """``values[2m]`` in the low half of 128-bit lane ``m`` of one integer, ``values[2m +
    1]`` in the high half of lane ``m`` of another."""
    return _packed(values[0::2], 128), _packed(values[1::2], 128) << 64


def _spread(bits: int, lanes: int = _MOST) -> int:
    """``bits`` in each of ``lanes`` 64-bit lanes."""
    return _packed([bits] * lanes, 64)


def _powers() -> tuple[list[int], list[int]]:
    """``k`` steps of the generator are ``state_k = a_k * state_0 + inc * d_k`` (mod
    2**64): the lists of ``a_k`` and ``d_k`` for ``k`` up to ``_MOST``."""
    a, d = [1], [0]
    for _ in range(_MOST):
        a.append((a[-1] * MULTIPLIER) & MASK64)
        d.append((d[-1] * MULTIPLIER + 1) & MASK64)
    return a, d


_A, _D = _powers()
#: ``a_k`` as ``_pairs``, and the bits of a state in them (a 128-bit lane's low half, and
#: its high half).
_EVEN_FACTORS, _ODD_FACTORS = _pairs(_A[:_MOST])
_EVEN_STATES = _packed([MASK64] * ((_MOST + 1) // 2), 128)
_ODD_STATES = _EVEN_STATES << 64
#: Per 64-bit lane of ``old >> 26``: the bits of ``2 * xorshifted`` from ``old >> 27``
#: (bits 1-32) and from ``old >> 45`` (bits 1-19, after a further shift by 18).
_XOR_LOW = _spread(MASK32 << 1)
_XOR_HIGH = _spread(((1 << 19) - 1) << 1)
#: Per 64-bit lane of ``old >> 58``: bit ``b + 1`` (the rotation's bit ``b``).
_ROTATION_BITS = tuple(_spread(2 << b) for b in range(5))
#: Per 64-bit lane: bits 42-63 (the output's bits 10-31, the output being in bits 32-63).
_NOT_SMALL = _spread(((1 << 22) - 1) << 42)
#: 2**64 per 64-bit lane: bit 0 of lanes 1 .. _MOST.
_CARRIES = _spread(1, _MOST + 1) - 1


def _terms(inc: int) -> tuple[int, int]:
    """``inc * d_k`` (mod 2**64) as ``_pairs``."""
    return _pairs([(inc * d) & MASK64 for d in _D[:_MOST]])


#: Increment -> its ``_terms`` (every game but a hand-built one has sequence 54's).
_TERMS: dict[int, tuple[int, int]] = {
    (DEFAULT_SEQUENCE << 1) | 1: _terms((DEFAULT_SEQUENCE << 1) | 1)
}


class _Lanes(NamedTuple):
    """What ``shuffle`` needs for ``steps`` states with one increment: see ``_lanes``."""

    even_factors: int
    even_terms: int
    odd_factors: int
    odd_terms: int
    #: 2**64 per 64-bit lane: bit 0 of lanes 1 .. steps.
    carries: int
    #: ``_NOT_SMALL`` for ``steps`` lanes.
    not_small: int


#: (states, increment) -> its ``_Lanes``.
_LANES: dict[tuple[int, int], _Lanes] = {}


def _lanes(steps: int, inc: int) -> _Lanes:
    """The factors and terms of states ``0 .. steps - 1``: the even states' in 128-bit
    lanes, the odd states' in the high halves of 128-bit lanes. Lane ``m`` of ``factors *
    state + terms`` is (before the 64-bit mask) state ``2m`` (``2m + 1``: shifted by 64):
    a 64-bit state times a 64-bit factor plus a 64-bit term fits 128 bits, so what the
    even states carry out of their low halves is masked off, and what the odd states carry
    out of lane ``m`` lands in the low half of lane ``m + 1``, where the odd states have
    nothing. The two masked products, or-ed, are the states in 64-bit lanes."""
    terms = _TERMS.get(inc)
    if terms is None:
        if len(_TERMS) >= 64:  # hand-built generators with many increments
            _TERMS.clear()
            _LANES.clear()
        terms = _TERMS[inc] = _terms(inc)
    even = (1 << (128 * ((steps + 1) // 2))) - 1
    odd = (1 << (128 * (steps // 2))) - 1
    lanes = _LANES[steps, inc] = _Lanes(
        _EVEN_FACTORS & even, terms[0] & even, _ODD_FACTORS & odd, terms[1] & odd,
        _CARRIES & ((1 << (64 * steps + 1)) - 1), _NOT_SMALL & ((1 << (64 * steps)) - 1),
    )  # fmt: skip
    return lanes


def shuffle(rng: Rng, items: MutableSequence[int]) -> Rng:
    """Shuffle ``items`` in place (Fisher-Yates from the end); return the generator.

    ``below(rng, i + 1)`` for each ``i``: the same outputs, the same swaps
    (tests/engine/records/test_rng.py checks it against ``below``). The ``len - 1`` states a
    shuffle draws from (one per card, if no draw is rejected) and their ``next_u32``
    outputs are worked out at once, each in a 64-bit lane of big integers (see ``_lanes``);
    the loop takes each output modulo its bound and swaps.

    The rotation is a barrel shifter: ``rotr32(x, rot)`` is bits 32-63 of ``2x * _TWICE``
    shifted left by ``31 - rot``, so five passes shift by 16, 8, 4, 2 and 1 the lanes whose
    rotation has that bit clear. A pass's mask is ``carries`` minus the rotation bit at bit
    ``b + 1``: lanes with the bit set keep bits ``b + 1`` to 63 (all the pass needs: bits
    ``33 - 2**b`` and up still move into the output), the others get bit 0 of the next lane
    (which never reaches it). What a lane shifts into the next lane's low bits stays below
    bit 31 there.

    A draw ``below`` rejects (an output under the bound's threshold, itself under the
    bound, so under 2**10) is rare, fewer than one in four million: if any output is under
    2**10, the shuffle runs step by step (``_write_out``) from the start."""
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
    even_factors, even_terms, odd_factors, odd_terms, carries, not_small = lanes
    olds = (state * even_factors + even_terms) & _EVEN_STATES | (
        state * odd_factors + odd_terms
    ) & _ODD_STATES
    high = olds >> 26
    doubled = (high & _XOR_LOW) ^ ((high >> 18) & _XOR_HIGH)  # 2 * xorshifted
    words = doubled | doubled << 32
    rotations = high >> 32  # bit b + 1: the rotation's bit b
    for b in (4, 3, 2, 1, 0):
        keep = carries - (rotations & _ROTATION_BITS[b])
        shifted = words << (1 << b)
        words = shifted ^ ((words ^ shifted) & keep)
    # Every lane's bits 42-63 not all zero: each carries into the next lane's bit 0.
    if (words & not_small) + not_small & carries != carries:
        return _write_out(state, inc, items, steps)
    i = steps
    for out in memoryview(words.to_bytes(8 * n, "little")).cast("I")[1 : 2 * steps : 2]:
        j = out % (i + 1)
        items[i], items[j] = items[j], items[i]
        i -= 1
    return (_A[steps] * state + inc * _D[steps]) & MASK64, inc
