"""House rules ``draw_to_match``, ``forced_play`` and ``uno_penalty`` (rules page
"House rules"), through the engine and the HTTP routes, on stacked decks. Three
players, seat 0 deals: seat 1 plays first, then seat 2, then seat 0."""

from __future__ import annotations

from collections.abc import Sequence

from tests.engine.rules.house_table import Deal, as_moves, card, keep, mv, play, table, types

FIXTURES = (table,)  # the fixtures these tests take

FILL = (
    ["G1", "G2", "G3", "G4", "G6", "G7", "G8"],
    ["B1", "B2", "B3", "B4", "B6", "B7", "B8"],
    ["Y1", "Y2", "Y3", "Y4", "Y6", "Y7", "Y8"],
)


def hands(
    one: Sequence[str] = (), two: Sequence[str] = (), zero: Sequence[str] = ()
) -> list[list[str]]:
    return [[*zero, *FILL[0]][:7], [*one, *FILL[1]][:7], [*two, *FILL[2]][:7]]


# ---------------------------------------------------------------- draw to match
def test_a_draw_goes_on_until_a_card_that_can_be_played(table: Deal) -> None:
    t = table(hands(), "R5", draw=["Y9", "G9", "R9", "R8"], draw_to_match=True)
    events = t.move(mv("draw", 1))
    assert types(events) == ["drew", "drew", "drew"]
    assert [e["count"] for e in events] == [1, 1, 1] and len(t.state.hands[1]) == 10
    assert [e["cards"][0]["code"] for e in events] == ["Y9", "G9", "R9"]  # the drawer's
    assert t.view(1)["pending"] == {
        "type": "play_drawn",
        "player": 1,
        "card": {"id": card(t, 1, "R9"), "code": "R9"},
    }
    assert as_moves(t.legal(1)) == as_moves([play(t, 1, "R9"), mv("pass", 1)])
    assert types(t.move(mv("pass", 1))) == ["passed"]  # it may be kept
    assert t.view(None)["current_player"] == 2


def test_a_playable_first_card_ends_the_drawing_at_once(table: Deal) -> None:
    t = table(hands(), "R5", draw=["R9", "Y9"], draw_to_match=True)
    assert types(t.move(mv("draw", 1))) == ["drew"]
    assert t.view(None)["pending"] == {"type": "play_drawn", "player": 1}


def test_without_the_rule_a_draw_takes_one_card(table: Deal) -> None:
    t = table(hands(), "R5", draw=["Y9", "R9"])
    assert types(t.move(mv("draw", 1))) == ["drew"]
    assert t.view(None)["pending"] is None and t.view(None)["current_player"] == 2


def test_when_both_piles_run_out_the_drawer_stops_and_the_turn_ends(table: Deal) -> None:
    t = table(hands(), "R5", draw=["Y9", "G9"], draw_to_match=True)
    state = t.state  # seat 2 holds the rest of the draw pile; nothing left plays on R5
    rest = state.draw_pile[2:]
    t.state = state._replace(
        draw_pile=state.draw_pile[:2],
        hands=(state.hands[0], state.hands[1], state.hands[2] + rest),
    )
    events = t.move(mv("draw", 1))
    assert types(events) == ["drew", "drew", "drew"]
    assert [e["count"] for e in events] == [1, 1, 0]  # nothing was left to draw
    view = t.view(None)
    assert view["pending"] is None and view["current_player"] == 2
    assert view["draw_pile_size"] == 0


def test_a_penalty_or_a_catch_is_never_drawn_to_match(table: Deal) -> None:
    t = table(hands(["RD2", "R6"]), "R5", draw=["Y9", "G9", "R9", "R8"], draw_to_match=True)
    keep(t, 1, "RD2", "R6")
    events = t.move(play(t, 1, "RD2"))  # no UNO said
    assert (events[1]["player"], events[1]["count"]) == (2, 2)  # Y9 G9, though neither plays
    events = t.move(mv("catch", 0, target=1))
    assert (events[1]["player"], events[1]["count"]) == (1, 2)  # R9 R8: exactly two


# ---------------------------------------------------------------- forced play
def test_a_player_who_can_play_may_not_draw(table: Deal) -> None:
    t = table(hands(["R6"]), "R5", forced_play=True)
    assert mv("draw", 1) not in t.legal(1)
    assert t.refused(mv("draw", 1)) == "draw_not_allowed"


def test_a_player_who_cannot_play_draws(table: Deal) -> None:
    t = table(hands(), "R5", draw=["Y9"], forced_play=True)
    assert t.legal(1) == [mv("draw", 1)]
    t.move(mv("draw", 1))
    assert t.view(None)["current_player"] == 2


def test_without_forced_play_a_player_who_can_play_may_draw(table: Deal) -> None:
    t = table(hands(["R6"]), "R5")
    assert mv("draw", 1) in t.legal(1)


def test_a_playable_drawn_card_must_be_played(table: Deal) -> None:
    t = table(hands(), "R5", draw=["R9"], forced_play=True)
    t.move(mv("draw", 1))
    assert t.legal(1) == [play(t, 1, "R9")]
    assert t.refused(mv("pass", 1)) == "must_play_drawn_card"
    assert types(t.move(play(t, 1, "R9"))) == ["played"]


def test_a_wild_draw_four_stays_playable_at_any_time(table: Deal) -> None:
    t = table(hands(["R6", "WD4"]), "R5", forced_play=True)
    plays = {m.color for m in as_moves(t.legal(1)) if m.card == card(t, 1, "WD4")}
    assert len(plays) == 4


def test_a_hand_whose_only_playable_card_is_a_wild_draw_four_plays_it_innocently(
    table: Deal,
) -> None:
    t = table(hands(["WD4"]), "R5", forced_play=True)  # no red, no 5 in hand
    assert mv("draw", 1) not in t.legal(1)
    t.move(play(t, 1, "WD4", color="blue"))
    events = t.move(mv("challenge", 2))
    assert events[0]["guilty"] is False  # forced play never forces a bluff


# ---------------------------------------------------------------- UNO penalty
def test_a_caught_player_draws_the_uno_penalty(table: Deal) -> None:
    for penalty in (None, 1, 4, 10):
        options = {} if penalty is None else {"uno_penalty": penalty}
        t = table(hands(["R6"]), "R5", **options)
        keep(t, 1, "R6", "B1")
        t.move(play(t, 1, "R6"))
        events = t.move(mv("catch", 2, target=1))
        assert types(events) == ["caught", "drew"]
        assert events[1]["count"] == (penalty or 2) and events[1]["reason"] == "caught"
