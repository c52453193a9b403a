"""House rule ``jump_in`` (rules page "House rules", "Jump-in"), through the engine and
the HTTP routes, on stacked decks. Four players, seat 0 deals: seat 1 plays first, then
seats 2, 3 and 0."""

from __future__ import annotations

from tests.engine.rules.house_table import (
    Deal,
    as_moves,
    four_hands,
    keep,
    mv,
    play,
    table,
    types,
)

FIXTURES = (table,)  # the fixtures these tests take


def test_a_card_identical_to_the_one_in_play_is_listed_for_a_seat_not_to_move(
    table: Deal,
) -> None:
    t = table(four_hands(["B5"], [], ["R6", "W"], ["R5"]), "R5", jump_in=True)
    assert t.legal(3) == [play(t, 3, "R5")]
    assert t.legal(2) == []  # R6: same colour, not the same number; a Wild never
    assert t.legal(0) == []  # B5: same number, not the same colour


def test_a_jump_in_takes_the_turn_and_play_goes_on_from_the_jumper(table: Deal) -> None:
    t = table(four_hands([], [], [], ["R5"]), "R5", jump_in=True)
    events = t.move(play(t, 3, "R5"))
    assert types(events) == ["jumped_in", "played"]
    assert events[0] == {"type": "jumped_in", "player": 3, "target": 1}
    assert t.view(None)["current_player"] == 0  # seat 1 lost its turn


def test_a_jump_in_with_another_card_is_refused_and_changes_nothing(table: Deal) -> None:
    t = table(four_hands([], [], ["R6", "W", "B5"]), "R5", jump_in=True)
    assert t.refused(play(t, 2, "R6")) == "not_identical"
    assert t.refused(play(t, 2, "B5")) == "not_identical"
    assert t.refused(play(t, 2, "W", color="red")) == "not_identical"
    assert t.refused(mv("draw", 2)) == "not_your_turn"  # only a play jumps in


def test_without_the_rule_a_play_out_of_turn_is_not_your_turn(table: Deal) -> None:
    t = table(four_hands([], [], [], ["R5"]), "R5")
    assert t.legal(3) == []
    assert t.refused(play(t, 3, "R5")) == "not_your_turn"


def test_a_skip_jumped_in_skips_the_player_after_the_jumper(table: Deal) -> None:
    t = table(four_hands(["RS"], ["RS"]), "R5", jump_in=True)
    t.move(play(t, 1, "RS"))  # seat 2 skipped: seat 3 to move
    events = t.move(play(t, 0, "RS"))
    assert types(events) == ["jumped_in", "played", "skipped"]
    assert events[0]["target"] == 3 and events[2]["player"] == 1
    assert t.view(None)["current_player"] == 2


def test_a_reverse_jumped_in_turns_the_direction_at_the_jumper(table: Deal) -> None:
    t = table(four_hands([], ["RR"], ["RR"]), "R5", jump_in=True)
    t.move(play(t, 1, "RR"))  # counterclockwise: seat 0 to move
    events = t.move(play(t, 2, "RR"))
    assert types(events) == ["jumped_in", "played", "reversed"]
    assert events[0]["target"] == 0 and events[2]["direction"] == "clockwise"
    assert t.view(None)["current_player"] == 3


def test_a_draw_two_jumped_in_hits_the_player_after_the_jumper(table: Deal) -> None:
    t = table(four_hands(["RD2"], ["RD2"]), "R5", jump_in=True)
    t.move(play(t, 1, "RD2"))  # seat 2 draws 2 and is skipped: seat 3 to move
    events = t.move(play(t, 0, "RD2"))
    assert types(events) == ["jumped_in", "played", "drew", "skipped"]
    assert events[2]["player"] == 1 and events[2]["count"] == 2
    assert t.view(None)["current_player"] == 2


def test_the_player_to_move_plays_the_identical_card_as_a_plain_turn(table: Deal) -> None:
    t = table(four_hands([], ["R5"]), "R5", jump_in=True)
    assert play(t, 1, "R5") in t.legal(1)
    assert types(t.move(play(t, 1, "R5"))) == ["played"]
    assert t.view(None)["current_player"] == 2


def test_no_jump_in_while_a_decision_is_pending(table: Deal) -> None:
    t = table(four_hands([], [], [], ["R5"]), "R5", draw=["R9"], jump_in=True)
    t.move(mv("draw", 1))  # R9 can be played: seat 1 decides
    assert t.view(None)["pending"] == {"type": "play_drawn", "player": 1}
    assert t.legal(3) == []
    assert t.refused(play(t, 3, "R5")) == "not_your_turn"


def test_no_jump_in_between_rounds(table: Deal) -> None:
    t = table(four_hands([], ["R6"], [], ["R6"]), "R5", jump_in=True)
    keep(t, 1, "R6")
    t.move(play(t, 1, "R6"))
    assert t.view(None)["phase"] == "round_over"
    assert t.legal(3) == [mv("next_round", 3)]
    assert t.refused(play(t, 3, "R6")) == "round_over"


def test_a_jump_in_closes_the_window_to_catch_a_missing_uno(table: Deal) -> None:
    t = table(four_hands(["R8"], ["R8"]), "R5", jump_in=True)
    keep(t, 1, "R8", "B1")
    t.move(play(t, 1, "R8"))  # no UNO said
    assert t.view(None)["uno_exposed"] == [1]
    t.move(play(t, 0, "R8"))
    assert t.view(None)["uno_exposed"] == []
    assert t.refused(mv("catch", 2, target=1)) == "cannot_catch"


def test_a_jump_in_with_the_second_to_last_card_says_uno_with_it(table: Deal) -> None:
    t = table(four_hands([], [], [], ["R5"]), "R5", jump_in=True)
    keep(t, 3, "R5", "G9")
    assert as_moves(t.legal(3)) == as_moves([play(t, 3, "R5"), play(t, 3, "R5", uno=True)])
    events = t.move(play(t, 3, "R5", uno=True))
    assert types(events) == ["jumped_in", "played", "uno"]
    assert t.view(None)["uno_exposed"] == []


def test_a_jump_in_without_uno_leaves_the_jumper_catchable(table: Deal) -> None:
    t = table(four_hands([], [], [], ["R5"]), "R5", jump_in=True)
    keep(t, 3, "R5", "G9")
    t.move(play(t, 3, "R5"))
    assert t.view(None)["uno_exposed"] == [3]
    assert mv("catch", 1, target=3) in t.legal(1)


def test_of_two_moves_on_one_card_in_play_the_first_wins(table: Deal) -> None:
    # Seat 3 may jump in on the R5 while seat 1, to move, may play its B5.
    t = table(four_hands([], ["B5"], [], ["R5"]), "R5", jump_in=True)
    start = t.state
    jump, turn = play(t, 3, "R5"), play(t, 1, "B5")
    t.move(turn)
    assert t.refused(jump) == "not_identical"  # the card in play is now the B5
    t.state = start
    t.move(jump)
    assert t.refused(turn) == "not_identical"  # seat 1 lost its turn; B5 is no jump-in
