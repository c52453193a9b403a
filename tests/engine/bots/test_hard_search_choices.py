"""Hard's Monte Carlo search (UNO Flip, UNO All Wild) makes the same choices as the
code that recorded ``hard_search_choices.json``: the bot is made cheaper, never
different. Every hard decision of seeded benchmark rounds (``benchmarks/bots_bench.py``
``play``: hard against normal, 2 and 4 players) is replayed; each is checked by the move
chosen and a digest of the bot's ``random.Random`` state after it (a search that drew
one more or one fewer random number would change every later choice).

When hard's choices are meant to change, regenerate the fixture and say why in the
commit: ``python -m tests.engine.bots.test_hard_search_choices``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from benchmarks import bots_bench
from engine import bots
from engine.bots import montecarlo
from engine.bots.knowledge import shuffle
from engine.events import Event
from engine.moves import Move

FIXTURE = Path(__file__).with_name("hard_search_choices.json")
VARIANTS = ("uno_flip", "uno_all_wild")
PLAYERS = (2, 4)
#: Benchmark rounds per variant and player count (their game numbers: 0, 1, ...).
ROUNDS = 10
BUDGET = bots.DEFAULT_BUDGET


def key(variant: str, players: int, game: int) -> str:
    return f"{variant}/{players}p/{game}"


@contextmanager
def recording(out: list[str]) -> Iterator[None]:
    """Record every hard decision made while open: ``S`` when the Monte Carlo search
    ran (``-`` when not), the move, and the generator's state digest after it."""
    real_choose, real_search = bots.choose, montecarlo.search
    searched = [False]

    def search(*args: Any, **kwargs: Any) -> Move:
        searched[0] = True
        return real_search(*args, **kwargs)

    def choose(
        level: str,
        view: dict[str, Any],
        history: Sequence[Event],
        legal: Sequence[Move],
        rnd: random.Random,
        budget: int = BUDGET,
    ) -> Move:
        searched[0] = False
        move = real_choose(level, view, history, legal, rnd, budget)
        if level == "hard":
            state = hashlib.sha256(repr(rnd.getstate()).encode()).hexdigest()[:12]
            flag = "S" if searched[0] else "-"
            out.append(f"{flag} {json.dumps(move.to_dict(), sort_keys=True)} {state}")
        return move

    bots.choose, montecarlo.search = choose, search  # type: ignore[assignment]
    try:
        yield
    finally:
        bots.choose, montecarlo.search = real_choose, real_search


def replay(variant: str, players: int, game: int) -> list[str]:
    """Hard's decisions in one benchmark round (the round's winner last)."""
    out: list[str] = []
    levels = bots_bench.seats_for(game, players, "hard", "normal")
    with recording(out):
        winner, _, _ = bots_bench.play(variant, levels, game, BUDGET, whole_game=False)
    out.append(f"winner {winner}")
    return out


def generate() -> dict[str, list[str]]:
    return {key(v, p, g): replay(v, p, g) for v in VARIANTS for p in PLAYERS for g in range(ROUNDS)}


CASES = [(v, p, g) for v in VARIANTS for p in PLAYERS for g in range(ROUNDS)]


@pytest.fixture(scope="module")
def expected() -> dict[str, list[str]]:
    return json.loads(FIXTURE.read_text())  # type: ignore[no-any-return]


def test_the_fixture_covers_enough_searched_decisions(expected: dict[str, list[str]]) -> None:
    assert sorted(expected) == sorted(key(*c) for c in CASES)
    searched = [d for ds in expected.values() for d in ds if d.startswith("S ")]
    assert len(searched) >= 300
    for variant in VARIANTS:
        for players in PLAYERS:
            rows = [
                d
                for g in range(ROUNDS)
                for d in expected[key(variant, players, g)]
                if d.startswith("S ")
            ]
            assert len(rows) >= 40, (variant, players)


@pytest.mark.parametrize(("variant", "players", "game"), CASES)
def test_hard_makes_the_recorded_choices(
    expected: dict[str, list[str]], variant: str, players: int, game: int
) -> None:
    got = replay(variant, players, game)
    want = expected[key(variant, players, game)]
    for i, (g, w) in enumerate(zip(got, want, strict=False)):
        assert g == w, f"decision {i} of {key(variant, players, game)}"
    assert len(got) == len(want)


def test_the_recorder_sees_a_different_choice() -> None:
    """The check can fail: a search that picks another candidate changes the record."""
    base = replay("uno_flip", 2, 0)
    real = montecarlo.search

    def last(know: Any, ctx: Any, ranked: list[Move], rnd: random.Random, budget: int) -> Move:
        real(know, ctx, ranked, rnd, budget)
        return ranked[min(len(ranked), montecarlo.CANDIDATES) - 1]

    montecarlo.search = last  # type: ignore[assignment]
    try:
        changed = replay("uno_flip", 2, 0)
    finally:
        montecarlo.search = real
    assert changed != base


@pytest.mark.parametrize("size", [0, 1, 2, 3, 7, 64, 108, 112, 113])
def test_the_inline_shuffle_is_random_shuffle(size: int) -> None:
    for seed in range(20):
        ours, theirs = random.Random(seed), random.Random(seed)
        a, b = list(range(size)), list(range(size))
        shuffle(ours, a)
        theirs.shuffle(b)
        assert a == b
        assert ours.getstate() == theirs.getstate()


def test_the_inline_shuffle_defers_to_a_subclass() -> None:
    class Fixed(random.Random):
        def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
            x.reverse()

    items = [1, 2, 3]
    shuffle(Fixed(1), items)
    assert items == [3, 2, 1]


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(generate(), indent=0) + "\n")
    print(f"wrote {FIXTURE}", file=sys.stderr)
