"""The engine's generator is the reference PCG32, so other languages can replay games."""

from __future__ import annotations

import pytest

from engine import rng


def test_pcg32_matches_the_reference_demo_output() -> None:
    # pcg32-demo (pcg-random.org): pcg32_srandom_r(&rng, 42u, 54u), first six outputs.
    r = rng.seed(42, 54)
    out = []
    for _ in range(6):
        x, r = rng.next_u32(r)
        out.append(x)
    assert out == [0xA15C02B7, 0x7B47F409, 0xBA1D3330, 0x83D2F293, 0xBFA4784B, 0xCBED606E]


def test_default_sequence_is_54() -> None:
    assert rng.seed(42) == rng.seed(42, 54)


def test_below_is_in_range_and_deterministic() -> None:
    r = rng.seed(7)
    seen = set()
    for _ in range(2000):
        x, r = rng.below(r, 6)
        assert 0 <= x < 6
        seen.add(x)
    assert seen == set(range(6))
    assert rng.below(rng.seed(7), 6) == rng.below(rng.seed(7), 6)
    with pytest.raises(ValueError):
        rng.below(r, 0)


def test_shuffle_is_fisher_yates_from_the_end() -> None:
    items = list(range(10))
    r = rng.shuffle(rng.seed(1), items)
    # The same algorithm by hand: for i from 9 down to 1, j = below(i + 1), swap.
    expected = list(range(10))
    s = rng.seed(1)
    for i in range(9, 0, -1):
        j, s = rng.below(s, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert items == expected and r == s
    assert sorted(items) == list(range(10)) and items != list(range(10))


def _reference_shuffle(r: rng.Rng, items: list[int]) -> rng.Rng:
    """The published algorithm, step by step (what ``shuffle`` wrote out in its loop)."""
    for i in range(len(items) - 1, 0, -1):
        j, r = rng.below(r, i + 1)
        items[i], items[j] = items[j], items[i]
    return r


def test_shuffle_agrees_with_below_step_by_step() -> None:
    # Many seeds and every pile size a game uses (and the long-pile path past 1024).
    cases = [(rng.seed(s), n) for s in range(60) for n in (0, 1, 2, 3, 7, 52, 108, 112, 130)]
    cases += [(rng.seed(s), 1030) for s in range(3)]
    # Every size the lane-parallel shuffle takes (2..1024 cards), one seed each.
    cases += [(rng.seed(1000 + n), n) for n in range(2, 1025)]
    # State 0 outputs 0, below every threshold above 0: the rejection loop runs.
    cases += [((0, inc), n) for inc in (1, 109, 12345) for n in range(2, 40)]
    for start, n in cases:
        fast, slow = list(range(n)), list(range(n))
        assert rng.shuffle(start, fast) == _reference_shuffle(start, slow)
        assert fast == slow


def _steps_back(state: int, inc: int, k: int) -> int:
    """The state ``k`` PCG steps before ``state`` (the multiplier is odd, so invertible)."""
    inverse = pow(rng.MULTIPLIER, -1, 1 << 64)
    for _ in range(k):
        state = ((state - inc) * inverse) & rng.MASK64
    return state


def _steps(state: int, inc: int, k: int) -> int:
    for _ in range(k):
        state = (state * rng.MULTIPLIER + inc) & rng.MASK64
    return state


#: A state whose output is 0 (every bit the output takes is 0) and whose next state's
#: output is not below any threshold, with each of the increments below.
REJECTED = (1 << 20) | 7


def test_shuffle_agrees_with_below_when_a_draw_is_rejected_mid_shuffle() -> None:
    # The state before draw k is below 2**27, so its output is 0, below the rejection
    # threshold of every bound that is not a power of two: ``below`` draws again there
    # (once: the next state's output is not that small), and every later draw uses a
    # state one step further on. The shuffle works its states out
    # ahead, so a rejection in the middle (or at the last draw) must hand over exactly.
    rejected = 0
    for inc in (109, 1, 12345):
        assert rng.next_u32((REJECTED, inc))[0] == 0
        assert rng.next_u32(rng.next_u32((REJECTED, inc))[1])[0] >= 1024
        for n in (3, 7, 52, 108, 112, 300, 1024):
            for k in sorted({0, 1, n // 3, n // 2, n - 3, n - 2}):
                bound = n - k  # draw k is below(bound)
                if bound < 2 or rng._THRESHOLDS[bound] == 0:
                    continue
                start = (_steps_back(REJECTED, inc, k), inc)
                fast, slow = list(range(n)), list(range(n))
                end = rng.shuffle(start, fast)
                assert end == _reference_shuffle(start, slow)
                assert fast == slow
                # The draw was rejected: the shuffle used more states than it drew cards.
                assert end != (_steps(start[0], inc, n - 1), inc)
                rejected += 1
    assert rejected > 60


def test_shuffle_agrees_with_below_when_a_small_draw_is_kept() -> None:
    # Output 0 at a bound that is a power of two: the threshold is 0, so ``below`` keeps
    # the draw (j = 0). The shuffle cannot tell that from a rejection by the output alone
    # (any output under 2**10 sends it step by step): it must still draw exactly once.
    kept = 0
    for inc in (109, 1, 12345):
        for n in (3, 5, 9, 17, 65, 112, 129, 1024):
            for bound in (2, 4, 8, 16, 64, 128, 512, 1024):
                k = n - bound  # draw k is below(bound)
                if not 0 <= k < n - 1:
                    continue
                assert rng._THRESHOLDS[bound] == 0
                start = (_steps_back(REJECTED, inc, k), inc)
                fast, slow = list(range(n)), list(range(n))
                end = rng.shuffle(start, fast)
                assert end == _reference_shuffle(start, slow)
                assert fast == slow
                assert end == (_steps(start[0], inc, n - 1), inc)  # no draw rejected
                kept += 1
    assert kept > 40
