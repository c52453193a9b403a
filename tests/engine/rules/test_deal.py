"""The deal follows the rule book (one card at a time, from the seat left of the
dealer, clockwise), and the round's-end hand references are the public references of
every hand, on every variant, table size and dealer."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from engine.state import Work, seat_after, work_of

VARIANTS = [v.id for v in engine.all_variants()]


def dealt_one_at_a_time(
    w: Work, pile: list[int], count: int
) -> tuple[list[tuple[int, ...]], list[int]]:
    """The rule book's deal: one card at a time from the seat left of the dealer,
    clockwise, until every seat has ``count``; the hands and the rest of the pile."""
    n = w.num_players
    hands: list[list[int]] = [[] for _ in range(n)]
    position = 0
    for _ in range(count):
        for k in range(1, n + 1):
            hands[seat_after(w.dealer, n, k)].append(pile[position])
            position += 1
    return [tuple(h) for h in hands], pile[position:]


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_the_deal_gives_one_card_at_a_time_from_the_dealers_left(variant_id: str) -> None:
    variant = engine.find_variant(variant_id)
    rnd = random.Random(variant_id)
    for players in range(variant.min_players, variant.max_players + 1):
        for dealer in range(players):
            state, _ = variant.new_game(players, rnd.randrange(2**64), dealer=dealer)
            pile = list(variant.catalog.ids)
            rnd.shuffle(pile)
            count = rnd.randint(1, len(pile) // players)
            w = work_of(state)
            rest = variant.deal(w, list(pile), count)
            assert (w.hands, rest) == dealt_one_at_a_time(w, pile, count)
    w = work_of(state)
    with pytest.raises(ValueError):
        variant.deal(w, [0, 1], 2)


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_hand_refs_are_the_public_refs_of_every_hand(variant_id: str) -> None:
    variant = engine.find_variant(variant_id)
    rnd = random.Random(variant_id)
    seen = 0
    for _ in range(10):
        state, _ = variant.new_game(variant.min_players, rnd.randrange(2**64))
        for _ in range(rnd.randint(0, 60)):
            seat = variant.waiting_for(state)
            if seat is None:
                break
            legal = variant.legal_moves(state, seat)
            state = variant.apply(state, variant.encode_move(state, rnd.choice(legal)))[0]
        w = work_of(state)
        expected: list[list[dict[str, Any]]] = [
            [variant.public_ref(w, c) for c in h] for h in w.hands
        ]
        assert variant.hand_refs(w) == expected
        seen += sum(map(len, w.hands))
    assert seen > 0
