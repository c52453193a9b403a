"""Differential test for UNO All Wild's play (issue 18): the play written out
(``put_on_discard`` and ``card_effect`` in line, per-card effect table) and the play it
replaced agree on every play of many random games: same events, same next state. The
replaced play lives on here only, as the reference."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import engine
from engine import Move, MoveType, Phase, State
from engine.cards import Kind
from engine.state import Work, freeze, work_of
from engine.uno import UnoRules
from engine.variants.all_wild import TARGETED_DRAW, WT2, AllWild

#: The card actions before issue 18's third wave (skip and draw: the base rules').
REFERENCE_EFFECTS: dict[Kind, Callable[..., None]] = {
    Kind.WILD_REVERSE: UnoRules.effect_reverse,
    Kind.WILD_SKIP: UnoRules.effect_skip,
    Kind.WILD_DRAW_TWO: UnoRules.effect_draw,
    Kind.WILD_DRAW_FOUR: UnoRules.effect_draw,
    Kind.WILD_TARGETED_DRAW_TWO: AllWild.effect_targeted_draw,
    Kind.WILD_SKIP_TWO: AllWild.effect_skip_two,
    Kind.WILD_FORCED_SWAP: AllWild.effect_swap,
}


def reference_all_wild_play(aw: AllWild, w: Work, move: Move, events: list[dict[str, Any]]) -> None:
    """UNO All Wild's ``on_play`` before issue 18's third wave, unchanged."""
    card, _ = aw.check_play(w, move)
    player = move.player
    w.pending = None
    aw.put_on_discard(w, player, card, None, events)
    if move.target is not None:
        events[-1]["target"] = move.target
    if not w.hands[player]:
        kind = aw._kinds[card]
        if kind in aw.draw_amounts:
            aw.draw_cards(w, w.next_seat(player), aw.draw_amounts[kind], events, "penalty")
        elif kind is WT2:
            aw.draw_cards(w, move.target, TARGETED_DRAW, events, "penalty")  # type: ignore[arg-type]
        aw.finish_round(w, player, events)
    else:
        effect = REFERENCE_EFFECTS.get(aw._kinds[card])
        if effect is None:
            w.current = w.next_seat(player)
        else:
            effect(aw, w, player, card, move, events)


def test_all_wild_play_agrees_with_the_replaced_one() -> None:
    aw = engine.find_variant("uno_all_wild")
    assert isinstance(aw, AllWild)
    rnd = random.Random(18)
    plays = 0
    for g in range(60):
        players = 2 + g % 5
        state: State
        state, _ = aw.new_game(players, rnd.randrange(2**64), options={"target": 100})
        while state.phase is not Phase.GAME_OVER:
            seat = (
                0
                if state.phase is Phase.ROUND_OVER
                else (state.pending.player if state.pending is not None else state.current)
            )
            move = rnd.choice(aw.legal_moves(state, seat))
            if move.type is MoveType.PLAY:
                new, old = work_of(state), work_of(state)
                new_events: list[dict[str, Any]] = []
                old_events: list[dict[str, Any]] = []
                aw.on_play(new, move, new_events)
                reference_all_wild_play(aw, old, move, old_events)
                assert new_events == old_events
                assert freeze(new) == freeze(old)
                plays += 1
            state, _ = aw.apply(state, move)
    assert plays > 1000, plays
