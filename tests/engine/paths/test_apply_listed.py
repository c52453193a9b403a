"""``Variant.apply_listed`` (the hook hard's playouts apply their moves with) gives
what ``apply`` gives for every move ``legal_moves`` lists, on random games of every
variant: the same state and the same events, the input state unchanged."""

from __future__ import annotations

import random

import pytest

import engine
from engine import Phase

VARIANTS = [v.id for v in engine.all_variants()]


@pytest.mark.parametrize("variant", VARIANTS)
def test_apply_listed_is_apply_of_the_encoded_listed_move(variant: str) -> None:
    v = engine.find_variant(variant)
    rnd = random.Random(f"listed-{variant}")
    compared = 0
    kinds = set()
    for _ in range(6):
        players = rnd.randint(v.min_players, min(v.max_players, 4))
        state, _ = v.new_game(players, rnd.randrange(2**64))
        for _ in range(250):
            if state.phase is Phase.GAME_OVER:
                break
            before = engine.to_dict(state)
            listed = [m for seat in range(players) for m in v.legal_moves(state, seat)]
            for m in listed:
                assert v.apply_listed(state, m) == v.apply(state, v.encode_move(state, m))
                kinds.add(m.type)
                compared += 1
            assert engine.to_dict(state) == before
            state, _ = v.apply(state, v.encode_move(state, rnd.choice(listed)))
    assert compared > 1000 and len(kinds) >= 3
