"""Where two house rules meet (rules page "House rules", "When house rules meet"): every
line, through the engine and the HTTP routes, on stacked decks. Four players, seat 0
deals: seat 1 plays first, then seats 2, 3 and 0."""

from __future__ import annotations

from tests.engine.rules.house_table import (
    Deal,
    as_moves,
    card,
    four_hands,
    mv,
    play,
    table,
    types,
)

FIXTURES = (table,)  # the fixtures these tests take


# ---------------------------------------------------------------- stacking and jump-in
def test_no_jump_in_while_a_penalty_is_being_answered(table: Deal) -> None:
    t = table(four_hands(["RD2"], ["RD2"]), "R5", stacking="same", jump_in=True)
    t.move(play(t, 1, "RD2"))
    assert t.view(None)["pending"]["type"] == "penalty"
    assert t.legal(0) == []
    assert t.refused(play(t, 0, "RD2")) == "not_your_turn"


def test_a_draw_two_jumped_in_starts_a_penalty_for_the_player_after_the_jumper(
    table: Deal,
) -> None:
    # The Draw Two turned up acts as in classic UNO (seat 1 draws 2): no penalty, so
    # seat 3 may jump in on it.
    t = table(four_hands([], [], [], ["RD2"]), "RD2", stacking="same", jump_in=True)
    assert t.view(None)["pending"] is None and t.view(None)["current_player"] == 2
    events = t.move(play(t, 3, "RD2"))
    assert types(events) == ["jumped_in", "played"]
    assert t.view(None)["pending"] == {"type": "penalty", "player": 0, "draw_stack": 2}


# ---------------------------------------------------------------- seven-zero and jump-in
def test_a_seven_jumped_in_swaps_with_the_seat_the_jumper_names(table: Deal) -> None:
    t = table(four_hands([], [], [], ["R7"]), "R7", seven_zero=True, jump_in=True)
    sevens = [m for m in t.legal(3) if m.get("card") == card(t, 3, "R7")]
    # From the seat after the jumper on: 0, 1, 2.
    assert sevens == [play(t, 3, "R7", target=s) for s in (0, 1, 2)]
    before = t.state.hands
    events = t.move(play(t, 3, "R7", target=1))
    assert types(events) == ["jumped_in", "played", "swapped"]
    assert t.state.hands[1] == before[3][1:] and t.state.hands[3] == before[1]
    assert t.view(None)["current_player"] == 0


# ---------------------------------------------------------------- seven-zero and stacking
def test_seven_zero_and_stacking_are_independent(table: Deal) -> None:
    t = table(four_hands(["R7"], ["RD2"], ["R0"], ["R3"]), "R5", seven_zero=True, stacking="up")
    t.move(play(t, 1, "RD2"))  # a Draw Two names no seat
    assert t.refused(play(t, 2, "R0")) == "cannot_stack"  # a 0 is no draw card
    t.move(mv("draw", 2))
    t.move(play(t, 3, "R3"))
    events = t.move(play(t, 0, "R7", target=2))  # a 7 swaps, no penalty
    assert types(events) == ["played", "swapped"] and t.view(None)["draw_stack"] == 0


# ---------------------------------------------------------------- draw to match and forced play
def test_the_card_that_ends_the_drawing_must_be_played(table: Deal) -> None:
    t = table(four_hands(), "R5", draw=["Y9", "G9", "R9"], draw_to_match=True, forced_play=True)
    assert types(t.move(mv("draw", 1))) == ["drew", "drew", "drew"]
    assert t.legal(1) == [play(t, 1, "R9")]
    assert t.refused(mv("pass", 1)) == "must_play_drawn_card"


# ---------------------------------------------------------------- draw to match and stacking
def test_accepting_a_penalty_draws_exactly_the_penalty(table: Deal) -> None:
    t = table(
        four_hands([], ["RD2"]), "R5", draw=["Y9", "G9", "R9"], stacking="same", draw_to_match=True
    )
    t.move(play(t, 1, "RD2"))
    events = t.move(mv("draw", 2))
    assert types(events) == ["drew", "skipped"] and events[0]["count"] == 2


# ---------------------------------------------------------------- forced play and stacking
def test_a_player_facing_a_penalty_may_still_take_it_under_forced_play(table: Deal) -> None:
    t = table(four_hands([], ["RD2"], ["RD2"]), "R5", stacking="same", forced_play=True)
    t.move(play(t, 1, "RD2"))
    assert as_moves([mv("draw", 2), play(t, 2, "RD2")]) == as_moves(t.legal(2))
    assert types(t.move(mv("draw", 2))) == ["drew", "skipped"]


# ---------------------------------------------------------------- forced play and a WD4
def test_a_wild_draw_four_stays_legal_under_forced_play_even_as_a_bluff(table: Deal) -> None:
    t = table(four_hands([], ["R6", "WD4"]), "R5", forced_play=True)
    assert play(t, 1, "WD4", color="green") in t.legal(1)
    t.move(play(t, 1, "WD4", color="green"))
    assert t.move(mv("challenge", 2))[0]["guilty"] is True  # R6 was held: a bluff


def test_forced_play_never_forces_a_bluff(table: Deal) -> None:
    """A hand that may not draw holds an innocent play: here only the Wild Draw Four
    plays, so the hand holds nothing of the colour in play."""
    t = table(four_hands([], ["WD4", "B5"]), "R9", forced_play=True)
    assert t.refused(mv("draw", 1)) == "draw_not_allowed"
    assert {m.card for m in as_moves(t.legal(1))} == {card(t, 1, "WD4")}
    t.move(play(t, 1, "WD4", color="blue"))
    assert t.move(mv("challenge", 2))[0]["guilty"] is False
