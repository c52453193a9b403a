"""``private_refs`` (hands and draws at once) shows every card as ``private_ref`` does,
in every variant: UNO Flip's labels included, never a catalog id where a label is due."""

from __future__ import annotations

import pytest

import engine


@pytest.mark.parametrize("variant", [v.id for v in engine.all_variants()])
def test_private_refs_is_private_ref_of_each_card(variant: str) -> None:
    v = engine.find_variant(variant)
    state = engine.new_game(variant, v.min_players, 7)
    while not all(state.hands):  # UNO Duo drafts its hands first
        seat = state.pending.player if state.pending is not None else state.current
        state, _ = engine.apply(state, engine.legal_moves(state, seat)[0])
    for seat, hand in enumerate(state.hands):
        one_by_one = [v.private_ref(state, c) for c in hand]
        assert v.private_refs(state, hand) == one_by_one
        assert engine.view(state, seat)["hand"] == one_by_one
