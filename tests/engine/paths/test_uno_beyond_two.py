"""``UnoRules._uno_beyond_two`` (``uno_flag_allowed`` compiled: the cards whose plays may
say UNO from a hand of other than two cards) agrees with the hook it is made from, and a
subclass that overrides the hook gets its own table and its own listing.

On random games of every UNO-family variant (2 to 4 players, random options), for every
seat, every card of its hand and every seat the card may name: where the hand is not two
cards and the card is not in the table, the hook refuses ``uno: true``.
"""

from __future__ import annotations

import random

import pytest

import engine
from engine import Move, MoveType, Phase, State
from engine.cards import Kind
from engine.state import Work
from engine.uno import UnoRules
from engine.variants.all_wild import AllWild

from .test_listing_agrees_with_apply import next_move, random_options

T = MoveType
UNO_VARIANTS = [v.id for v in engine.all_variants() if isinstance(v, UnoRules)]


def refused_beyond(v: UnoRules, state: State) -> int:
    """Check every play of every seat in ``state``; return how many were checked."""
    beyond = v._uno_beyond_two[state.options][state.side]
    checked = 0
    for seat, hand in enumerate(state.hands):
        if len(hand) == 2:
            continue
        for card in hand:
            if card in beyond:
                continue
            color = v._colors[state.side][card][0]
            for target in v.targets_of(state, seat, card):
                move = Move(T.PLAY, seat, card, color, target, uno=True)
                assert not v.uno_flag_allowed(state, move), (v.id, move, state.hands)
                checked += 1
    return checked


@pytest.mark.parametrize("variant", UNO_VARIANTS)
def test_the_table_agrees_with_the_hook_in_played_games(variant: str) -> None:
    v = engine.find_variant(variant)
    assert isinstance(v, UnoRules)
    rnd = random.Random(f"uno-beyond-two-{variant}")
    checked = 0
    for game in range(12):
        players = 2 + game % 3
        players = min(max(players, v.min_players), v.max_players)
        state, _ = v.new_game(players, rnd.randrange(2**64), options=random_options(v, rnd))
        for _ in range(150):
            if state.phase is Phase.GAME_OVER:
                break
            if state.phase is Phase.PLAY:
                checked += refused_beyond(v, state)
            state = v.apply(state, next_move(v, state, rnd))[0]
    assert checked > 1000


def test_all_wild_asks_the_hook_for_its_forced_swaps_only() -> None:
    v = engine.find_variant("uno_all_wild")
    assert isinstance(v, AllWild)
    (beyond,) = v._uno_beyond_two[v.resolve_options({})]
    assert beyond == v._swaps


class SayUnoWithDrawFour(AllWild):
    """A house All Wild: a Wild Draw Four may always say UNO."""

    id = "uno_all_wild_test_draw_four_uno"

    def uno_flag_allowed(self, s: State | Work, move: Move) -> bool:
        card = move[2]
        if card is not None and self._kinds[card] is Kind.WILD_DRAW_FOUR:
            return True
        return super().uno_flag_allowed(s, move)


def test_a_subclass_overriding_the_hook_gets_its_own_table_and_listing() -> None:
    v = SayUnoWithDrawFour()
    (beyond,) = v._uno_beyond_two[v.resolve_options({})]
    fours = {c for c, k in enumerate(v._kinds) if k is Kind.WILD_DRAW_FOUR}
    assert beyond == v._swaps | fours
    state, _ = v.new_game(2, 7)
    state = state._replace(pending=None, phase=Phase.PLAY)
    seat = state.current
    hand = state.hands[seat]
    assert len(hand) != 2 and fours & set(hand)
    listed = v.legal_moves(state, seat)
    for card in hand:
        said = [m for m in listed if m.card == card and m.uno]
        assert bool(said) == (card in fours), (card, said)


def test_a_listing_never_makes_an_entry() -> None:
    """Making an entry asks the hook some thousands of times (~28 ms for UNO All Wild):
    a game of options other than the defaults, which come from requests, lists its moves
    by asking the hook per card, and the table gets no entry for them."""
    v = AllWild()
    options = {"target": 7}
    state, _ = v.new_game(2, 3, options=options)
    rnd = random.Random(7)
    listed = 0
    while state.phase is Phase.PLAY and listed < 60:
        seat = state.pending.player if state.pending is not None else state.current
        legal = v.legal_moves(state, seat)
        listed += 1
        state, _ = v.apply(state, v.encode_move(state, rnd.choice(legal)))
    assert listed >= 10
    assert list(v._uno_beyond_two) == [v.resolve_options({})]
