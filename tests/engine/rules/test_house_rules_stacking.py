"""House rule ``stacking`` (rules page "House rules", "Stacking"), through the engine and
the HTTP routes, on stacked decks. Three players, seat 0 deals: seat 1 plays first, then
seat 2, then seat 0."""

from __future__ import annotations

import pytest

import engine
from tests.engine.rules.house_table import (
    Deal,
    EngineTable,
    as_moves,
    codes,
    mv,
    play,
    table,
    types,
)
from tests.support import stacked_game

FIXTURES = (table,)  # the fixtures these tests take

H0 = ["G1", "G2", "G3", "G4", "G6", "G7", "G8"]  # fillers: seat 0 green, 1 blue, 2 yellow
H1 = ["B1", "B2", "B3", "B4", "B6", "B7", "B8"]
H2 = ["Y1", "Y2", "Y3", "Y4", "Y6", "Y7", "Y9"]


def hands(one: list[str], two: list[str], zero: list[str]) -> list[list[str]]:
    """Seat 0's, 1's, 2's hands: the named cards, filled up to 7 from the fillers."""
    return [zero + H0[: 7 - len(zero)], one + H1[: 7 - len(one)], two + H2[: 7 - len(two)]]


def test_with_stacking_none_a_draw_two_acts_as_in_classic_uno(table: Deal) -> None:
    t = table(hands(["RD2"], [], []), "R5", stacking="none")
    events = t.move(play(t, 1, "RD2"))
    assert types(events) == ["played", "drew", "skipped"]
    assert t.view(0)["current_player"] == 0 and t.view(0)["pending"] is None
    assert "draw_stack" not in t.view(None)


def test_a_draw_two_starts_a_penalty_the_next_player_answers(table: Deal) -> None:
    t = table(hands(["RD2"], ["YD2", "WD4"], []), "R5", stacking="same")
    assert t.view(None)["draw_stack"] == 0
    assert types(t.move(play(t, 1, "RD2"))) == ["played"]
    view = t.view(None)
    assert view["pending"] == {"type": "penalty", "player": 2, "draw_stack": 2}
    assert view["draw_stack"] == 2 and view["current_player"] == 2
    # same: a Draw Two of any colour stacks; the Wild Draw Four does not; or draw.
    assert as_moves(t.legal(2)) == as_moves([play(t, 2, "YD2"), mv("draw", 2)])
    assert t.legal(0) == [] and t.legal(1) == []


def test_stacking_a_draw_two_passes_the_raised_penalty_on(table: Deal) -> None:
    t = table(hands(["RD2"], ["YD2"], ["GD2"]), "R5", stacking="same")
    t.move(play(t, 1, "RD2"))
    t.move(play(t, 2, "YD2"))
    assert t.view(0)["pending"]["draw_stack"] == 4 and t.view(0)["pending"]["player"] == 0
    t.move(play(t, 0, "GD2"))
    assert t.view(1)["pending"] == {
        "type": "penalty",
        "player": 1,
        "draw_stack": 6,
        "card": {"id": t.state.discard[-1], "code": "GD2"},  # shown to the seat that answers
    }


def test_taking_the_penalty_draws_it_all_and_loses_the_turn(table: Deal) -> None:
    t = table(hands(["RD2"], ["YD2"], ["G5"]), "R5", stacking="same")
    t.move(play(t, 1, "RD2"))
    t.move(play(t, 2, "YD2"))
    events = t.move(mv("draw", 0))
    assert types(events) == ["drew", "skipped"]
    assert events[0]["count"] == 4 and events[0]["reason"] == "penalty"
    assert len(t.state.hands[0]) == 11
    view = t.view(1)
    assert view["pending"] is None and view["draw_stack"] == 0 and view["current_player"] == 1
    # The penalty is over: the next player plays as usual on the Draw Two (yellow).
    assert {"type": "play", "player": 1, "card": t.state.hands[1][0]} not in t.legal(1)  # B1
    assert mv("draw", 1) in t.legal(1)


def test_same_a_wild_draw_four_answers_only_a_wild_draw_four(table: Deal) -> None:
    t = table(hands(["WD4"], ["WD4", "YD2"], []), "R5", stacking="same")
    t.move(play(t, 1, "WD4", color="blue"))
    assert t.view(2)["pending"]["draw_stack"] == 4
    moves = as_moves(t.legal(2))
    plays = {m for m in moves if m.type.value == "play"}
    assert {m.color.value for m in plays} == {"red", "yellow", "green", "blue"}  # type: ignore[union-attr]
    assert {codes(t, 2)[t.state.hands[2].index(m.card)] for m in plays} == {"WD4"}  # type: ignore[arg-type]
    assert as_moves([mv("draw", 2), mv("challenge", 2)]) <= moves
    assert t.refused(play(t, 2, "YD2")) == "cannot_stack"
    t.move(play(t, 2, "WD4", color="green"))
    assert t.view(0)["pending"]["draw_stack"] == 8


def test_up_a_wild_draw_four_answers_a_draw_two_but_never_the_reverse(table: Deal) -> None:
    t = table(hands(["RD2"], ["WD4"], ["BD2", "WD4"]), "R5", stacking="up")
    t.move(play(t, 1, "RD2"))
    assert play(t, 2, "WD4", color="red") in t.legal(2)
    t.move(play(t, 2, "WD4", color="red"))
    assert t.view(0)["pending"]["draw_stack"] == 6
    assert t.refused(play(t, 0, "BD2")) == "cannot_stack"
    assert play(t, 0, "WD4", color="red") in t.legal(0)


def test_a_draw_two_on_a_draw_two_is_refused_with_stacking_same_for_a_wild(table: Deal) -> None:
    t = table(hands(["RD2"], ["WD4", "R6"], []), "R5", stacking="same")
    t.move(play(t, 1, "RD2"))
    assert t.refused(play(t, 2, "WD4", color="red")) == "cannot_stack"
    assert t.refused(play(t, 2, "R6")) == "cannot_stack"  # a red card: matches, but no stack


def test_the_penalty_is_answered_only_by_stack_draw_or_challenge(table: Deal) -> None:
    t = table(hands(["RD2"], [], []), "R5", stacking="same")
    t.move(play(t, 1, "RD2"))
    assert t.refused(mv("accept", 2)) == "must_answer_penalty"
    assert t.refused(mv("pass", 2)) == "must_answer_penalty"
    assert t.refused(mv("challenge", 2)) == "nothing_to_challenge"  # a Draw Two on top
    assert t.refused(mv("draw", 0)) == "not_your_turn"


def test_a_guilty_wild_draw_four_draws_the_whole_penalty(table: Deal) -> None:
    # Seat 2 stacks a Wild Draw Four on seat 1's while holding yellow, the colour in play.
    t = table(hands(["WD4"], ["WD4", "Y5"], []), "Y8", stacking="same")
    t.move(play(t, 1, "WD4", color="yellow"))
    t.move(play(t, 2, "WD4", color="green"))
    events = t.move(mv("challenge", 0))
    assert types(events) == ["challenged", "drew"]
    assert events[0]["target"] == 2 and events[0]["guilty"] is True  # the top's player
    assert len(events[0]["hand"]) == 6  # the challenger sees the hand that was checked
    assert events[1]["player"] == 2 and events[1]["count"] == 8
    view = t.view(0)
    assert view["pending"] is None and view["current_player"] == 0  # a normal turn
    assert view["active_color"] == "green" and view["draw_stack"] == 0


def test_a_challenge_that_fails_draws_the_penalty_plus_two(table: Deal) -> None:
    t = table(hands(["WD4"], ["WD4"], []), "Y8", stacking="same")
    t.move(play(t, 1, "WD4", color="red"))
    t.move(play(t, 2, "WD4", color="green"))  # seat 2 holds no red: innocent
    events = t.move(mv("challenge", 0))
    assert types(events) == ["challenged", "drew", "skipped"]
    assert events[0]["guilty"] is False
    assert events[1]["player"] == 0 and events[1]["count"] == 10
    assert t.view(1)["current_player"] == 1


@pytest.mark.parametrize(
    ("held", "guilty", "drawer", "count"), [("Y5", True, 1, 4), ("B5", False, 2, 6)]
)
def test_with_a_penalty_of_four_a_challenge_is_exactly_classic(
    table: Deal, held: str, guilty: bool, drawer: int, count: int
) -> None:
    t = table(hands(["WD4", held], [], []), "Y8", stacking="up")
    t.move(play(t, 1, "WD4", color="red"))
    events = t.move(mv("challenge", 2))
    assert events[0]["guilty"] is guilty
    assert (events[1]["player"], events[1]["count"]) == (drawer, count)


def test_a_wild_draw_four_on_a_draw_two_is_checked_against_the_colour_in_play(
    table: Deal,
) -> None:
    # up: seat 2 answers a red Draw Two with a Wild Draw Four while holding red.
    t = table(hands(["RD2"], ["WD4", "R6"], []), "R5", stacking="up")
    t.move(play(t, 1, "RD2"))
    t.move(play(t, 2, "WD4", color="blue"))
    events = t.move(mv("challenge", 0))
    assert events[0]["guilty"] is True and events[1] == {
        "type": "drew",
        "player": 2,
        "count": 6,
        "reason": "penalty",
    }


def test_a_draw_two_turned_up_at_the_deal_acts_as_in_classic_uno(table: Deal) -> None:
    t = table(hands([], [], []), "RD2", stacking="up")
    view = t.view(None)
    assert view["pending"] is None and view["draw_stack"] == 0
    assert view["hand_sizes"] == [7, 9, 7] and view["current_player"] == 2


def test_going_out_with_a_stacked_draw_card_makes_the_next_draw_the_whole_penalty(
    table: Deal,
) -> None:
    t = table(hands(["RD2"], ["YD2"], []), "R5", stacking="same")
    t.move(play(t, 1, "RD2"))
    t.state = t.state._replace(  # seat 2 is down to the Draw Two it stacks
        hands=(t.state.hands[0], t.state.hands[1], (t.state.hands[2][0],)),
        draw_pile=t.state.draw_pile + t.state.hands[2][1:],
    )
    events = t.move(play(t, 2, "YD2"))
    assert types(events) == ["played", "drew", "round_over"]
    assert events[1]["player"] == 0 and events[1]["count"] == 4
    assert t.view(None)["phase"] == "round_over" and len(t.state.hands[0]) == 11


def test_a_penalty_without_the_stacking_option_is_not_a_state() -> None:
    t = EngineTable(stacked_game("uno_classic", hands(["RD2"], [], []), "R5", stacking="same"))
    t.move(play(t, 1, "RD2"))
    raw = engine.to_dict(t.state)
    raw["options"] = {k: v for k, v in raw["options"].items() if k != "stacking"}
    with pytest.raises(engine.InvalidState):
        engine.from_dict(raw)
