"""House rule ``seven_zero`` (rules page "House rules", "Seven and zero"), through the
engine and the HTTP routes, on stacked decks. Three players, seat 0 deals: seat 1 plays
first, then seat 2, then seat 0."""

from __future__ import annotations

import engine
from tests.engine.rules.house_table import (
    Deal,
    EngineTable,
    card,
    codes,
    keep,
    mv,
    play,
    table,
    types,
)
from tests.support import ids_in, stacked_game

FIXTURES = (table,)  # the fixtures these tests take

H0 = ["G1", "G2", "G3", "G4", "G6", "G7", "G8"]  # fillers: seat 0 green, 1 blue, 2 yellow
H1 = ["B1", "B2", "B3", "B4", "B6", "B7", "B8"]
H2 = ["Y1", "Y2", "Y3", "Y4", "Y6", "Y8", "Y9"]


def hands(one: list[str], two: list[str] = (), zero: list[str] = ()) -> list[list[str]]:  # type: ignore[assignment]
    return [[*zero, *H0][:7], [*one, *H1][:7], [*two, *H2][:7]]


def test_a_seven_names_another_seat_the_next_player_first(table: Deal) -> None:
    t = table(hands(["R7"]), "R5", seven_zero=True)
    sevens = [m for m in t.legal(1) if m.get("card") == card(t, 1, "R7")]
    assert sevens == [play(t, 1, "R7", target=2), play(t, 1, "R7", target=0)]
    assert t.refused(play(t, 1, "R7")) == "target_required"
    assert t.refused(play(t, 1, "R7", target=1)) == "invalid_target"
    assert t.refused(play(t, 1, "R7", target=3)) == "invalid_target"


def test_a_seven_swaps_hands_with_the_seat_it_names(table: Deal) -> None:
    t = table(hands(["R7"]), "R5", seven_zero=True)
    before = t.state.hands
    events = t.move(play(t, 1, "R7", target=0))
    assert types(events) == ["played", "swapped"]
    assert events[1] == {"type": "swapped", "player": 1, "target": 0, "hand_sizes": [7, 6]}
    assert t.state.hands[1] == before[0] and t.state.hands[0] == before[1][1:]
    assert t.state.hands[2] == before[2]
    # Each seat sees only its own new hand; everybody sees the sizes.
    assert [r["id"] for r in t.view(0)["hand"]] == list(before[1][1:])
    assert t.view(None)["hand"] == [] and t.view(None)["hand_sizes"] == [6, 7, 7]
    assert t.view(2)["current_player"] == 2


def test_a_zero_passes_every_hand_to_the_next_player(table: Deal) -> None:
    t = table(hands(["R0"]), "R5", seven_zero=True)
    before = t.state.hands
    events = t.move(play(t, 1, "R0"))
    assert events[1] == {
        "type": "hands_passed",
        "player": 1,
        "direction": "clockwise",
        "hand_sizes": [7, 7, 6],
    }
    assert t.state.hands == (before[2], before[0], before[1][1:])
    assert t.view(2)["current_player"] == 2


def test_a_zero_passes_in_the_direction_of_play(table: Deal) -> None:
    t = table(hands(["RR"], [], ["R0"]), "R5", seven_zero=True)
    t.move(play(t, 1, "RR"))  # counterclockwise: seat 0 is next
    before = t.state.hands
    events = t.move(play(t, 0, "R0"))
    assert events[1]["direction"] == "counterclockwise"
    # Every hand goes one seat counterclockwise: 0 -> 2, 2 -> 1, 1 -> 0.
    assert t.state.hands == (before[1], before[2], before[0][1:])


def test_a_seven_or_zero_that_goes_out_ends_the_round_with_no_exchange(table: Deal) -> None:
    for last, target in (("R7", {"target": 2}), ("R0", {})):
        t = table(hands([last]), "R5", seven_zero=True)
        keep(t, 1, last)
        sizes = [len(h) for h in t.state.hands]
        events = t.move(play(t, 1, last, **target))
        assert types(events) == ["played", "round_over"]
        assert [len(h) for h in t.state.hands] == [sizes[0], 0, sizes[2]]


def test_a_seven_or_zero_turned_up_is_a_plain_number(table: Deal) -> None:
    for turned in ("R7", "R0"):
        t = table(hands([]), turned, seven_zero=True)
        view = t.view(None)
        assert view["current_player"] == 1 and view["pending"] is None
        assert view["hand_sizes"] == [7, 7, 7]


def test_without_the_rule_a_seven_takes_no_target_and_a_zero_passes_nothing(table: Deal) -> None:
    t = table(hands(["R7", "R0"]), "R5")
    assert t.refused(play(t, 1, "R7", target=0)) == "unexpected_field"
    before = t.state.hands
    assert types(t.move(play(t, 1, "R0"))) == ["played"]
    assert t.state.hands[0] == before[0] and t.state.hands[2] == before[2]


def test_after_a_swap_each_seat_left_with_one_card_owes_uno(table: Deal) -> None:
    # Seat 1 holds R7 and B1; seat 0 holds a single G1 (it said UNO long ago).
    t = table(hands(["R7"]), "R5", seven_zero=True)
    keep(t, 1, "R7", "B1")
    keep(t, 0, "G1")
    # UNO fits the swap with seat 0 (seat 1 receives one card), not the one with seat 2.
    assert play(t, 1, "R7", target=0, uno=True) in t.legal(1)
    assert play(t, 1, "R7", target=2, uno=True) not in t.legal(1)
    assert t.refused(play(t, 1, "R7", target=2, uno=True)) == "uno_not_applicable"
    events = t.move(play(t, 1, "R7", target=0, uno=True))
    assert types(events) == ["played", "swapped", "uno"]
    assert codes(t, 1) == ["G1"] and codes(t, 0) == ["B1"]
    view = t.view(None)
    assert view["uno_exposed"] == [0]  # a new one-card hand: a new duty
    assert mv("uno", 0) in t.legal(0)
    assert mv("catch", 2, target=0) in t.legal(2)
    events = t.move(mv("catch", 2, target=0))
    assert types(events) == ["caught", "drew"] and len(t.state.hands[0]) == 3


def test_the_mover_who_does_not_say_uno_with_the_swap_can_be_caught(table: Deal) -> None:
    t = table(hands(["R7"]), "R5", seven_zero=True)
    keep(t, 1, "R7", "B1")
    keep(t, 0, "G1")
    t.move(play(t, 1, "R7", target=0))
    assert t.view(None)["uno_exposed"] == [0, 1]
    # The window closes when the next player (seat 2) has moved.
    t.move(mv("draw", 2))
    assert t.view(None)["uno_exposed"] == []


def test_after_a_pass_every_seat_left_with_one_card_owes_uno(table: Deal) -> None:
    t = table(hands(["R0"]), "R5", seven_zero=True)
    keep(t, 1, "R0", "B1", "B2")
    keep(t, 0, "G1")
    keep(t, 2, "Y1")
    t.move(play(t, 1, "R0"))
    # 1's B1 B2 to seat 2, 2's Y1 to seat 0, 0's G1 to seat 1.
    assert (codes(t, 0), codes(t, 1), codes(t, 2)) == (["Y1"], ["G1"], ["B1", "B2"])
    assert t.view(None)["uno_exposed"] == [0, 1]
    for seat in (0, 1):
        assert mv("uno", seat) in t.legal(seat)


def test_no_seat_sees_another_hand_after_an_exchange() -> None:
    """The views show each seat its own new hand only, and the events of a pass and a
    swap name no card but the one played."""
    t = EngineTable(stacked_game("uno_classic", hands(["R0", "R7"]), "R5", seven_zero=True))
    # Seat 1's 0 passes its R7 to seat 2, who swaps with seat 1.
    for seat, code, target in ((1, "R0", None), (2, "R7", 1)):
        move = play(t, seat, code, **({"target": target} if target is not None else {}))
        t.state, events = engine.apply(t.state, move)
        for viewer in (None, 0, 1, 2):
            own = set(t.state.hands[viewer]) if viewer is not None else set()
            assert ids_in(engine.view(t.state, viewer)) <= own | set(t.state.discard[-1:])
            assert ids_in(engine.redact_all(events, viewer)) == {move["card"]}
