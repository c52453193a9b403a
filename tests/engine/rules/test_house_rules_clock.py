"""The documented defaults a time-out plays under the house rules (rules page,
"Time-outs"): each is a legal move of the seat the game waits for."""

from __future__ import annotations

from collections.abc import Sequence

import engine
from engine import State
from tests.engine.rules.house_table import EngineTable, keep, mv, play
from tests.support import stacked_game

FILL = (
    ["G1", "G2", "G3", "G4", "G6", "G7", "G8"],
    ["B1", "B2", "B3", "B4", "B6", "B7", "B8"],
    ["Y1", "Y2", "Y3", "Y4", "Y6", "Y7", "Y8"],
)


def deal(one: list[str], turned: str, draw: Sequence[str] = (), **options: object) -> EngineTable:
    hands = [FILL[0], [*one, *FILL[1]][:7], FILL[2]]
    return EngineTable(stacked_game("uno_classic", hands, turned, draw, 0, **options))


def forced(state: State) -> dict[str, object]:
    seat = engine.waiting_for(state)
    assert seat is not None
    move = engine.forced_move(state, seat)
    assert move is not None and move in engine.legal_moves(state, seat)
    return move.to_dict()


def test_a_penalty_times_out_to_taking_it() -> None:
    t = deal(["RD2"], "R5", stacking="up")
    t.move(play(t, 1, "RD2"))
    assert forced(t.state) == mv("draw", 2)


def test_forced_play_times_out_to_the_first_playable_card_a_wild_draw_four_last() -> None:
    t = deal(["WD4", "B1", "R6", "W"], "R5", forced_play=True)
    assert forced(t.state) == play(t, 1, "R6")
    keep(t, 1, "WD4", "B2", "W")
    assert forced(t.state) == play(t, 1, "W", color="red")
    keep(t, 1, "WD4", "B2")
    assert forced(t.state) == play(t, 1, "WD4", color="red")


def test_a_drawn_card_under_forced_play_times_out_to_its_play() -> None:
    t = deal([], "R5", draw=["R9"], forced_play=True)
    t.move(mv("draw", 1))
    assert forced(t.state) == play(t, 1, "R9")


def test_a_seven_played_by_a_time_out_names_the_next_player_in_the_direction_of_play() -> None:
    t = deal(["RR"], "R5", draw=["R7"], seven_zero=True, forced_play=True)
    t.state = t.state._replace(direction=-1)  # counterclockwise: seat 0 follows seat 1
    keep(t, 1, "B1", "B2")
    t.move(mv("draw", 1))
    assert forced(t.state) == play(t, 1, "R7", target=0)
    t.state = t.state._replace(direction=1)
    assert forced(t.state) == play(t, 1, "R7", target=2)


def test_without_forced_play_a_turn_with_a_playable_card_still_times_out_to_a_draw() -> None:
    options: list[dict[str, bool]] = [
        {"draw_to_match": True},
        {"seven_zero": True, "jump_in": True},
    ]
    for house in options:
        t = deal(["R6"], "R5", [], **house)
        assert forced(t.state) == mv("draw", 1)
