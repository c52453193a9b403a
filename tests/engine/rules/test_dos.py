"""Rule tests for DOS (``dos.md``) and the README rules it uses.

Each test is named after the rule line it checks. Decks are stacked with
``tests.support.stacked_deck`` (hands dealt one at a time from the dealer's left, then
the two center-row cards left to right, then the top of the draw pile). Unless a test
says otherwise the dealer is the last seat, so seat 0 plays first.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import engine
from engine import Move, MoveType, Phase, State
from engine.moves import MatchPart
from tests.support import mv, pend, play, rules_error, stacked_deck

V = "dos"
T = MoveType
CAT = engine.find_variant(V).catalog

# Filler hands of 8s, 9s and 10s: they match nothing in a center row of numbers up to 7
# (no pair of them adds up to 10 or less).
F0 = ["R10", "Y10", "G10", "B10", "R9", "Y9", "G9"]
F1 = ["R10", "Y10", "G10", "B10", "B9", "R9", "Y9"]
F2 = ["G9", "B9", "R8", "Y8", "G8", "B8", "R8"]
FILL = [F0, F1, F2]


def hand(*cards: str, seat: int = 0) -> list[str]:
    """``cards`` completed to seven with the seat's filler."""
    return [*cards, *FILL[seat][len(cards) :]]


def game(
    hands: list[list[str]],
    row: list[str],
    draw: tuple[str, ...] = (),
    dealer: int | None = None,
    **options: Any,
) -> State:
    dealer = len(hands) - 1 if dealer is None else dealer
    deck = stacked_deck(V, hands, row, draw, dealer)
    return engine.new_game(V, len(hands), seed=5, dealer=dealer, deck=deck, options=options or None)


def code(card: int) -> str:
    return CAT.code[0][card]


def cid(state: State, seat: int, c: str, nth: int = 0) -> int:
    """The id of the ``nth`` card with code ``c`` in ``seat``'s hand."""
    found = [x for x in state.hands[seat] if code(x) == c]
    assert len(found) > nth, f"{c} not in hand {seat}: {codes(state, seat)}"
    return found[nth]


def rid(state: State, c: str) -> int:
    """The id of the center-row card with code ``c``."""
    for e in state.ext.row:
        if code(e.card) == c:
            return e.card
    raise AssertionError(f"{c} not in the center row")


def codes(state: State, seat: int) -> list[str]:
    return [code(c) for c in state.hands[seat]]


def row_codes(state: State) -> list[str]:
    return [code(e.card) for e in state.ext.row]


def part(card: int, **decl: Any) -> dict[str, Any]:
    return {"card": card, **decl}


def match(player: int, target: dict[str, Any], *cards: dict[str, Any]) -> dict[str, Any]:
    return {"type": "match", "player": player, "target": target, "cards": list(cards)}


def drawn_card(state: State) -> int:
    card = pend(state).card
    assert card is not None
    return card


def matches(state: State, player: int) -> list[tuple[MatchPart, tuple[MatchPart, ...]]]:
    """The (target, cards) of every listed match move."""
    out = []
    for m in engine.legal_moves(state, player):
        if m.type is T.MATCH:
            assert isinstance(m.target, MatchPart) and m.cards is not None
            out.append((m.target, m.cards))
    return out


def legal(state: State, player: int) -> list[dict[str, Any]]:
    return [m.to_dict() for m in engine.legal_moves(state, player)]


def single(state: State, seat: int, center: str, c: str, **decl: Any) -> dict[str, Any]:
    """A single match of the hand card ``c`` on the center-row card ``center``."""
    return match(seat, part(rid(state, center)), part(cid(state, seat, c), **decl))


# ---------------------------------------------------------------- deck
def test_deck_108_cards_24_per_colour_and_12_wild_dos_no_plain_twos() -> None:
    assert CAT.size == 108
    count = Counter(CAT.code[0])
    assert count["W2"] == 12
    for col in "RYGB":
        assert sum(n for c, n in count.items() if c.startswith(col)) == 24
        for v in (1, 3, 4, 5):
            assert count[f"{col}{v}"] == 3
        for v in (6, 7, 8, 9, 10):
            assert count[f"{col}{v}"] == 2
        assert count[f"{col}#"] == 2 and count[f"{col}2"] == 0


def test_wild_number_keeps_its_colour_and_wild_dos_has_none() -> None:
    r_wild = next(c for c in CAT.ids if CAT.code[0][c] == "R#")
    dos = next(c for c in CAT.ids if CAT.code[0][c] == "W2")
    assert CAT.color[0][r_wild] == "red" and CAT.kind[0][r_wild] == "wild_number"
    assert CAT.color[0][dos] is None and CAT.kind[0][dos] == "wild_dos"


# ---------------------------------------------------------------- deal
def test_cut_for_dealer_non_number_cards_count_zero() -> None:
    variant = engine.find_variant(V)
    for c in CAT.ids:
        expected = CAT.value[0][c] if CAT.kind[0][c] == "number" else 0
        assert variant.cut_value(c) == expected
    for seed in range(10):
        state, events = engine.start(V, 3, seed)
        assert events[0]["type"] == "dealer_cut" and events[0]["winner"] == state.dealer


def test_deal_seven_each_then_two_center_row_cards_and_an_empty_discard_pile() -> None:
    state, events = engine.start(V, 3, seed=1, dealer=1, deck=list(range(108)))
    # Seat 2 (left of the dealer) gets cards 0, 3, 6, ...
    assert state.hands[2] == tuple(range(0, 21, 3))
    assert state.hands[0] == tuple(range(1, 21, 3))
    assert state.hands[1] == tuple(range(2, 21, 3))
    assert [e.card for e in state.ext.row] == [21, 22]
    assert state.draw_pile == tuple(range(23, 108))
    assert state.discard == ()
    view = engine.view(state, 2)
    assert view["discard_top"] is None
    assert [e["card"]["id"] for e in view["center_row"]] == [21, 22]
    assert {"type": "center_row_dealt", "cards": [CAT.card_ref(21), CAT.card_ref(22)]} in events


def test_player_left_of_the_dealer_plays_first() -> None:
    state = game([F0, F1, F2], ["R7", "B5"], dealer=1)
    assert state.current == 2 and state.pending is None


def test_deal_passes_left_every_round() -> None:
    state = game([hand("R7"), F1, F2], ["B7", "Y5"], dealer=2)
    state = state._replace(hands=(state.hands[0][:1], *state.hands[1:]),
                           draw_pile=state.hands[0][1:] + state.draw_pile)  # fmt: skip
    state, _ = engine.apply(state, single(state, 0, "B7", "R7"))
    assert state.phase is Phase.ROUND_OVER
    state, _ = engine.apply(state, mv("next_round", 1))
    assert state.dealer == 0 and state.current == 1 and state.round == 2
    assert all(len(h) == 7 for h in state.hands) and len(state.ext.row) == 2


# ---------------------------------------------------------------- matches
def test_single_match_one_card_with_the_center_cards_number() -> None:
    state = game([hand("Y7"), F1], ["B7", "R5"])
    state, events = engine.apply(state, single(state, 0, "B7", "Y7"))
    assert codes(state, 0) == F0[1:]
    assert state.ext.row[0].matched == (events[0]["cards"][0]["card"]["id"],)
    assert events[0]["type"] == "matched" and events[0]["match"] == "single"
    assert events[0]["color_bonus"] is False and state.ext.bonus == 0
    assert pend(state).type == "matching" and state.current == 0


def test_single_match_with_another_number_is_wrong_number() -> None:
    state = game([hand("Y6"), F1], ["B7", "R5"])
    assert rules_error(state, single(state, 0, "B7", "Y6")) == "wrong_number"


def test_double_match_two_cards_adding_up_to_the_center_number() -> None:
    state = game([hand("Y3", "G4", "G5"), F1], ["B7", "R5"])
    t = part(rid(state, "B7"))
    bad = match(0, t, part(cid(state, 0, "Y3")), part(cid(state, 0, "G5")))
    assert rules_error(state, bad) == "wrong_sum"
    good = match(0, t, part(cid(state, 0, "Y3")), part(cid(state, 0, "G4")))
    state, events = engine.apply(state, good)
    assert events[0]["match"] == "double" and events[0]["number"] == 7
    assert codes(state, 0) == ["G5", *F0[3:]]


def test_double_match_cards_in_either_order() -> None:
    state = game([hand("Y3", "G4"), F1], ["B7", "R5"])
    t = part(rid(state, "B7"))
    a, b = part(cid(state, 0, "Y3")), part(cid(state, 0, "G4"))
    s1, _ = engine.apply(state, match(0, t, a, b))
    s2, _ = engine.apply(state, match(0, t, b, a))
    assert s1.hands == s2.hands and sorted(s1.ext.row[0].matched) == sorted(s2.ext.row[0].matched)


def test_each_center_row_card_at_most_once_a_turn_and_several_may_be_matched() -> None:
    state = game([hand("Y7", "G7", "Y5"), F1], ["B7", "R5"])
    state, _ = engine.apply(state, single(state, 0, "B7", "Y7"))
    assert rules_error(state, single(state, 0, "B7", "G7")) == "already_matched"
    state, _ = engine.apply(state, single(state, 0, "R5", "Y5"))
    assert [len(e.matched) for e in state.ext.row] == [1, 1]
    assert codes(state, 0) == ["G7", *F0[3:]]
    # Nothing is left to match: end_turn is the only move.
    assert legal(state, 0) == [mv("end_turn", 0)]


def test_single_colour_match_earns_one_card_placed_at_the_end_of_the_turn() -> None:
    state = game([hand("B7"), F1], ["B7", "R5"], draw=("Y1",))
    state, events = engine.apply(state, single(state, 0, "B7", "B7"))
    assert events[0]["color_bonus"] is True and state.ext.bonus == 1
    assert engine.view(state, 1)["bonus_pending"] == 1
    state, _ = engine.apply(state, mv("end_turn", 0))
    assert pend(state).type == "bonus_place" and pend(state).player == 0
    assert row_codes(state) == ["R5", "Y1"]
    state, events = engine.apply(state, mv("place", 0, card=cid(state, 0, "Y10")))
    assert row_codes(state) == ["R5", "Y1", "Y10"]
    assert events == [
        {
            "type": "placed",
            "player": 0,
            "card": CAT.card_ref(state.ext.row[2].card),
            "reason": "bonus",
        }
    ]
    assert state.current == 1 and state.pending is None and state.ext.bonus == 0


def test_double_colour_match_every_other_player_draws_one_at_once_and_one_card_placed() -> None:
    state = game([hand("B3", "B4"), F1, F2], ["B7", "R5"], draw=("Y1", "Y3"))
    t = part(rid(state, "B7"))
    state, events = engine.apply(
        state, match(0, t, part(cid(state, 0, "B3")), part(cid(state, 0, "B4")))
    )
    assert events[0]["color_bonus"] is True
    drew = [e for e in events if e["type"] == "drew"]
    assert [(e["player"], e["count"], e["reason"]) for e in drew] == [
        (1, 1, "double_color_match"),
        (2, 1, "double_color_match"),
    ]
    assert codes(state, 1)[-1] == "Y1" and codes(state, 2)[-1] == "Y3"
    assert pend(state).type == "matching" and state.ext.bonus == 1


def test_double_match_with_one_card_of_another_colour_earns_no_bonus() -> None:
    state = game([hand("B3", "R4"), F1, F2], ["B7", "R5"])
    t = part(rid(state, "B7"))
    state, events = engine.apply(
        state, match(0, t, part(cid(state, 0, "B3")), part(cid(state, 0, "R4")))
    )
    assert events[0]["color_bonus"] is False and state.ext.bonus == 0
    assert [len(h) for h in state.hands] == [5, 7, 7]


# ---------------------------------------------------------------- wild cards
def test_wild_number_in_hand_is_played_as_the_number_its_player_declares() -> None:
    state = game([hand("R#"), F1], ["B7", "G5"])
    w = cid(state, 0, "R#")
    t = part(rid(state, "B7"))
    assert rules_error(state, match(0, t, part(w))) == "declaration_required"
    assert rules_error(state, match(0, t, part(w, number=11))) == "invalid_declaration"
    assert rules_error(state, match(0, t, part(w, number=0))) == "invalid_declaration"
    assert rules_error(state, match(0, t, part(w, number=7, color="blue"))) == (
        "invalid_declaration"
    )
    assert rules_error(state, match(0, t, part(w, number=5))) == "wrong_number"
    state, events = engine.apply(state, match(0, t, part(w, number=7)))
    assert events[0]["cards"] == [{"card": CAT.card_ref(w), "number": 7}]
    # It keeps its own colour (red): no colour match on a blue 7.
    assert events[0]["color_bonus"] is False


def test_wild_number_keeps_its_colour_for_a_colour_match() -> None:
    state = game([hand("B#"), F1], ["B7", "G5"])
    state, events = engine.apply(state, single(state, 0, "B7", "B#", number=7))
    assert events[0]["color_bonus"] is True


def test_two_wild_numbers_in_a_double_match_any_split() -> None:
    state = game([hand("R#", "Y#"), F1], ["B7", "G5"])
    t = part(rid(state, "B7"))
    a, b = cid(state, 0, "R#"), cid(state, 0, "Y#")
    assert rules_error(state, match(0, t, part(a, number=3), part(b, number=3))) == "wrong_sum"
    state, _ = engine.apply(state, match(0, t, part(a, number=1), part(b, number=6)))
    assert state.ext.row[0].matched == (a, b)


def test_wild_dos_counts_as_a_two_of_the_colour_its_player_names() -> None:
    state = game([hand("W2", "B5"), F1, F2], ["B7", "G5"])
    w, five = cid(state, 0, "W2"), cid(state, 0, "B5")
    t = part(rid(state, "B7"))
    assert rules_error(state, match(0, t, part(w), part(five))) == "declaration_required"
    assert rules_error(state, match(0, t, part(w, color="blue", number=2), part(five))) == (
        "invalid_declaration"
    )
    assert rules_error(state, match(0, t, part(w, color="pink"), part(five))) == (
        "invalid_declaration"
    )
    red, _ = engine.apply(state, match(0, t, part(w, color="red"), part(five)))
    assert red.ext.bonus == 0 and [len(h) for h in red.hands] == [5, 7, 7]
    # Named blue, it has the center card's colour: a double colour match.
    blue, events = engine.apply(state, match(0, t, part(w, color="blue"), part(five)))
    assert blue.ext.bonus == 1 and [len(h) for h in blue.hands] == [5, 8, 8]
    assert events[0]["cards"][0] == {"card": CAT.card_ref(w), "color": "blue"}


def test_wild_dos_is_only_a_two() -> None:
    state = game([hand("W2"), F1], ["B7", "G5"])
    assert rules_error(state, single(state, 0, "B7", "W2", color="blue")) == "wrong_number"


def test_center_row_wild_dos_takes_the_colour_the_matcher_names() -> None:
    state = game([hand("Y1", "Y1"), F1, F2], ["W2", "G5"])
    t = rid(state, "W2")
    a, b = part(cid(state, 0, "Y1")), part(cid(state, 0, "Y1", 1))
    assert rules_error(state, match(0, part(t), a, b)) == "declaration_required"
    assert rules_error(state, match(0, part(t, color="yellow", number=2), a, b)) == (
        "invalid_declaration"
    )
    green, events = engine.apply(state, match(0, part(t, color="green"), a, b))
    assert events[0]["color_bonus"] is False and events[0]["target"]["color"] == "green"
    yellow, events = engine.apply(state, match(0, part(t, color="yellow"), a, b))
    assert events[0]["color_bonus"] is True and yellow.ext.row[0].color == "yellow"
    assert [len(h) for h in yellow.hands] == [5, 8, 8]
    assert engine.view(yellow, None)["center_row"][0]["color"] == "yellow"


def test_center_row_wild_number_takes_the_number_named_and_keeps_its_colour() -> None:
    state = game([hand("G4", "B4"), F1], ["G#", "R5"])
    t = rid(state, "G#")
    g4 = part(cid(state, 0, "G4"))
    assert rules_error(state, match(0, part(t), g4)) == "declaration_required"
    assert rules_error(state, match(0, part(t, number=4, color="blue"), g4)) == (
        "invalid_declaration"
    )
    assert rules_error(state, match(0, part(t, number=12), g4)) == "invalid_declaration"
    assert rules_error(state, match(0, part(t, number=5), g4)) == "wrong_number"
    state, events = engine.apply(state, match(0, part(t, number=4), g4))
    assert events[0]["color_bonus"] is True  # green on the green Wild #
    assert events[0]["target"] == {"card": CAT.card_ref(t), "number": 4}
    assert engine.view(state, 1)["center_row"][0]["number"] == 4


def test_center_row_wild_number_double_match() -> None:
    state = game([hand("G4", "B4"), F1], ["G#", "R5"])
    t = rid(state, "G#")
    a, b = part(cid(state, 0, "G4")), part(cid(state, 0, "B4"))
    assert rules_error(state, match(0, part(t, number=7), a, b)) == "wrong_sum"
    state, events = engine.apply(state, match(0, part(t, number=8), a, b))
    assert events[0]["match"] == "double" and events[0]["color_bonus"] is False


def test_number_cards_take_no_declaration() -> None:
    state = game([hand("Y7"), F1], ["B7", "R5"])
    assert rules_error(state, single(state, 0, "B7", "Y7", number=7)) == "invalid_declaration"
    t = part(rid(state, "B7"), color="blue")
    assert rules_error(state, match(0, t, part(cid(state, 0, "Y7")))) == "invalid_declaration"


# ---------------------------------------------------------------- drawing
def test_draw_when_no_match_made_this_turn_only_the_drawer_sees_the_card() -> None:
    state = game([F0, F1], ["B7", "R5"], draw=("G1",))
    assert mv("draw", 0) in legal(state, 0)
    state, events = engine.apply(state, mv("draw", 0))
    assert codes(state, 0)[-1] == "G1" and pend(state).type == "drawn"
    assert drawn_card(state) == state.hands[0][-1]
    assert engine.redact(events[0], 0)["cards"][0]["code"] == "G1"
    assert "cards" not in engine.redact(events[0], 1)
    assert "card" not in engine.view(state, 1)["pending"]
    assert engine.view(state, 0)["pending"]["card"]["code"] == "G1"


def test_no_draw_after_a_match_this_turn() -> None:
    state = game([hand("Y7"), F1], ["B7", "R5"])
    state, _ = engine.apply(state, single(state, 0, "B7", "Y7"))
    assert rules_error(state, mv("draw", 0)) == "cannot_draw_after_match"
    assert mv("draw", 0) not in legal(state, 0)


def test_only_one_draw_a_turn() -> None:
    state = game([F0, F1], ["B7", "R5"], draw=("G1", "G3"))
    state, _ = engine.apply(state, mv("draw", 0))
    assert rules_error(state, mv("draw", 0)) == "already_drew"
    assert rules_error(state, mv("end_turn", 0)) == "must_match_or_place"


def test_drawn_card_that_matches_alone_may_make_that_one_match_then_the_turn_ends() -> None:
    state = game([hand("Y5"), F1], ["B7", "R5"], draw=("G7", "Y1", "Y3"))
    state, _ = engine.apply(state, mv("draw", 0))
    drawn = drawn_card(state)
    # The hand's Y5 could match R5, but only a match with the drawn card is allowed.
    assert rules_error(state, single(state, 0, "R5", "Y5")) == "must_match_drawn_card"
    state, events = engine.apply(state, match(0, part(rid(state, "B7")), part(drawn)))
    # The end-of-turn steps follow at once: discard, refill, next player.
    assert [code(c) for c in state.discard] == ["B7", "G7"] and state.discard[1] == drawn
    assert row_codes(state) == ["R5", "Y1"]
    assert state.current == 1 and state.pending is None
    assert [e["type"] for e in events] == ["matched", "turn_ended", "center_row_refilled"]


def test_drawn_card_may_make_a_double_match_with_one_hand_card() -> None:
    state = game([hand("Y3"), F1], ["B7", "R5"], draw=("G4", "Y1"))
    state, _ = engine.apply(state, mv("draw", 0))
    drawn = drawn_card(state)
    listed = legal(state, 0)
    t = part(rid(state, "B7"))
    assert match(0, t, part(cid(state, 0, "Y3")), part(drawn)) in listed
    assert sum(m["type"] == "match" for m in listed) == 1
    assert sum(m["type"] == "place" for m in listed) == 8
    state, _ = engine.apply(state, match(0, t, part(drawn), part(cid(state, 0, "Y3"))))
    assert state.current == 1 and len(state.hands[0]) == 6


def test_drawn_colour_match_still_earns_the_bonus_placement() -> None:
    state = game([F0, F1], ["B7", "R5"], draw=("B7", "Y1"))
    state, _ = engine.apply(state, mv("draw", 0))
    state, _ = engine.apply(state, match(0, part(rid(state, "B7")), part(drawn_card(state))))
    assert pend(state).type == "bonus_place" and row_codes(state) == ["R5", "Y1"]


def test_no_match_after_drawing_place_one_card_at_the_end_of_the_row_and_the_turn_ends() -> None:
    state = game([F0, F1], ["B7", "R5"], draw=("G1",))
    state, _ = engine.apply(state, mv("draw", 0))
    assert all(m["type"] == "place" for m in legal(state, 0))
    assert len(legal(state, 0)) == 8
    state, events = engine.apply(state, mv("place", 0, card=cid(state, 0, "G1")))
    assert row_codes(state) == ["B7", "R5", "G1"]
    assert events[0]["reason"] == "draw"
    assert state.current == 1 and state.pending is None and len(state.hands[0]) == 7


def test_a_player_may_draw_instead_of_matching() -> None:
    state = game([hand("Y7"), F1], ["B7", "R5"])
    assert mv("draw", 0) in legal(state, 0) and single(state, 0, "B7", "Y7") in legal(state, 0)
    state, _ = engine.apply(state, mv("draw", 0))
    assert pend(state).type == "drawn"


# ---------------------------------------------------------------- end of the turn
def test_matching_ends_with_an_explicit_end_turn_and_may_stop_early() -> None:
    state = game([hand("Y7", "Y5"), F1], ["B7", "R5"])
    assert rules_error(state, mv("end_turn", 0)) == "no_match_made"
    state, _ = engine.apply(state, single(state, 0, "B7", "Y7"))
    listed = legal(state, 0)
    assert mv("end_turn", 0) in listed and single(state, 0, "R5", "Y5") in listed
    assert rules_error(state, mv("place", 0, card=cid(state, 0, "Y5"))) == "must_match_or_end_turn"
    state, _ = engine.apply(state, mv("end_turn", 0))
    assert state.current == 1 and "Y5" in codes(state, 0)


def test_end_of_turn_matched_cards_to_the_discard_pile_and_the_row_refilled_to_two() -> None:
    state = game([hand("Y3", "G4", "Y5"), F1], ["B7", "R5"], draw=("G6", "Y6"))
    t = part(rid(state, "B7"))
    state, _ = engine.apply(
        state, match(0, t, part(cid(state, 0, "Y3")), part(cid(state, 0, "G4")))
    )
    state, _ = engine.apply(state, single(state, 0, "R5", "Y5"))
    state, events = engine.apply(state, mv("end_turn", 0))
    assert [code(c) for c in state.discard] == ["B7", "Y3", "G4", "R5", "Y5"]
    assert row_codes(state) == ["G6", "Y6"]
    assert engine.view(state, 1)["discard_top"]["code"] == "Y5"
    assert events[0]["type"] == "turn_ended" and len(events[0]["discarded"]) == 5
    assert events[1]["type"] == "center_row_refilled"
    assert state.current == 1 and state.pending is None


def test_refill_only_up_to_two_cards() -> None:
    # A row of three (after a placement) with one matched card keeps two: no refill.
    state = game([F0, hand("Y1", "G7", seat=1)], ["B7", "R5"], draw=("G1",))
    state, _ = engine.apply(state, mv("draw", 0))
    state, _ = engine.apply(state, mv("place", 0, card=cid(state, 0, "G1")))
    assert row_codes(state) == ["B7", "R5", "G1"]
    state, _ = play(state, single(state, 1, "G1", "Y1"), mv("end_turn", 1))
    assert row_codes(state) == ["B7", "R5"] and state.current == 0


def test_bonus_cards_placed_after_the_refill_one_per_bonus_and_the_row_grows() -> None:
    state = game([hand("B7", "R5"), F1], ["B7", "R5"], draw=("G1", "G3"))
    state, _ = engine.apply(state, single(state, 0, "B7", "B7"))
    state, _ = engine.apply(state, single(state, 0, "R5", "R5"))
    assert state.ext.bonus == 2
    state, events = engine.apply(state, mv("end_turn", 0))
    assert [e["type"] for e in events] == ["turn_ended", "center_row_refilled"]
    assert row_codes(state) == ["G1", "G3"] and pend(state).type == "bonus_place"
    assert legal(state, 0) == [mv("place", 0, card=c) for c in state.hands[0]]
    assert rules_error(state, mv("end_turn", 0)) == "must_place_card"
    state, _ = engine.apply(state, mv("place", 0, card=cid(state, 0, "G10")))
    assert pend(state).type == "bonus_place" and state.ext.bonus == 1
    state, _ = engine.apply(state, mv("place", 0, card=cid(state, 0, "B10")))
    assert row_codes(state) == ["G1", "G3", "G10", "B10"]
    assert state.current == 1 and state.pending is None and len(state.hands[0]) == 3


def test_bonus_placements_as_many_as_the_hand_has_cards_the_last_one_wins() -> None:
    state = game([hand("B7", "R5", "G10"), F1], ["B7", "R5"])
    state = state._replace(hands=(state.hands[0][:3], state.hands[1]),
                           draw_pile=state.hands[0][3:] + state.draw_pile)  # fmt: skip
    state, _ = play(state, single(state, 0, "B7", "B7"), single(state, 0, "R5", "R5"))
    state, _ = engine.apply(state, mv("end_turn", 0))
    assert state.ext.bonus == 1  # two bonuses, one card to place
    state, events = engine.apply(state, mv("place", 0, card=cid(state, 0, "G10")))
    assert state.phase is Phase.ROUND_OVER and state.round_winner == 0
    assert events[-1]["type"] == "round_over"


def test_no_card_placed_without_a_draw_or_a_bonus() -> None:
    state = game([F0, F1], ["B7", "R5"])
    assert rules_error(state, mv("place", 0, card=state.hands[0][0])) == "nothing_to_place"


# ---------------------------------------------------------------- end of the round
def short_hand_state(cards: list[str], others: list[list[str]], row: list[str]) -> State:
    """Seat 0 holds only ``cards``; the rest of its dealt hand goes back under the draw
    pile (so the round can end in one turn)."""
    hands = [hand(*cards), *(hand(*o, seat=i + 1) for i, o in enumerate(others))]
    state = game(hands, row, draw=("Y1", "Y3", "Y4"))
    k = len(cards)
    return state._replace(
        hands=(state.hands[0][:k], *state.hands[1:]),
        draw_pile=state.draw_pile + state.hands[0][k:],
    )


def test_empty_hand_wins_the_round_at_once_without_end_of_turn_steps() -> None:
    state = short_hand_state(["R7"], [[]], ["B7", "R5"])
    state, events = engine.apply(state, single(state, 0, "B7", "R7"))
    assert state.phase is Phase.ROUND_OVER and state.round_winner == 0
    assert state.discard == () and state.ext.row[0].matched  # nothing was discarded
    assert [e["type"] for e in events] == ["matched", "round_over"]
    assert engine.legal_moves(state, 1) == [Move(T.NEXT_ROUND, 1)]


def test_double_colour_match_with_the_last_cards_others_draw_before_scoring() -> None:
    state = short_hand_state(["B3", "B4"], [["Y5"], ["W2"]], ["B7", "R5"])
    t = part(rid(state, "B7"))
    state, events = engine.apply(
        state, match(0, t, part(cid(state, 0, "B3")), part(cid(state, 0, "B4")))
    )
    assert [e["type"] for e in events] == ["matched", "drew", "drew", "round_over"]
    assert codes(state, 1)[-1] == "Y1" and codes(state, 2)[-1] == "Y3"
    # Seat 1: F1 minus one + Y5 + Y1; seat 2: F2 minus one + W2 + Y3.
    p1 = 5 + 10 + 10 + 10 + 9 + 9 + 9 + 1
    p2 = 20 + 9 + 8 + 8 + 8 + 8 + 8 + 3
    assert state.round_scores == (p1 + p2, 0, 0) and state.scores == (p1 + p2, 0, 0)


def test_scoring_numbers_face_value_wild_dos_20_wild_number_40() -> None:
    state = short_hand_state(["R7"], [["W2", "G#", "B1", "Y3", "R4", "G5", "B6"]], ["B7", "R5"])
    state, events = engine.apply(state, single(state, 0, "B7", "R7"))
    assert state.round_scores == (20 + 40 + 1 + 3 + 4 + 5 + 6, 0)
    assert events[-1]["hands"][1][0]["code"] == "W2"


def test_first_to_200_wins_the_game() -> None:
    state = short_hand_state(["R7"], [[]], ["B7", "R5"])
    points = sum(CAT.points[0][c] for c in state.hands[1])
    below, _ = engine.apply(state._replace(scores=(199 - points, 0)), single(state, 0, "B7", "R7"))
    assert below.phase is Phase.ROUND_OVER and below.winners == ()
    won, events = engine.apply(
        state._replace(scores=(200 - points, 0)), single(state, 0, "B7", "R7")
    )
    assert won.phase is Phase.GAME_OVER and won.winners == (0,) and won.scores[0] == 200
    assert events[-1] == {"type": "game_over", "winners": [0], "scores": [200, 0]}
    assert engine.find_variant(V).target == 200


# ---------------------------------------------------------------- draw pile empty
def test_empty_draw_pile_the_whole_discard_pile_is_shuffled_the_center_row_stays() -> None:
    state = game([F0, F1], ["B7", "R5"])
    # Move the whole draw pile to the discard pile.
    state = state._replace(discard=state.draw_pile, draw_pile=())
    before = state.discard
    size = len(state.discard)
    state, events = engine.apply(state, mv("draw", 0))
    assert {"type": "reshuffled", "count": size} in events
    assert state.discard == () and len(state.draw_pile) == size - 1
    assert row_codes(state) == ["B7", "R5"] and len(state.hands[0]) == 8
    assert sorted(state.draw_pile + state.hands[0][-1:]) == sorted(before)


def test_refill_reshuffles_the_discard_pile_when_the_draw_pile_is_empty() -> None:
    state = game([hand("Y7"), F1], ["B7", "R5"])
    state = state._replace(discard=state.draw_pile, draw_pile=())
    state, _ = engine.apply(state, single(state, 0, "B7", "Y7"))
    state, events = engine.apply(state, mv("end_turn", 0))
    kinds = [e["type"] for e in events]
    assert kinds == ["turn_ended", "reshuffled", "center_row_refilled"]
    assert len(state.ext.row) == 2 and state.discard == ()


def test_a_draw_that_yields_nothing_ends_the_turn() -> None:
    state = game([F0, F1], ["B7", "R5"])
    # Every other card is in seat 1's hand: nothing to draw, nothing to reshuffle.
    state = state._replace(hands=(state.hands[0], state.hands[1] + state.draw_pile), draw_pile=())
    state, events = engine.apply(state, mv("draw", 0))
    assert events[0]["count"] == 0
    assert state.current == 1 and state.pending is None and len(state.hands[0]) == 7


# ---------------------------------------------------------------- legal moves
def test_legal_moves_every_single_and_double_match_with_declarations_filled_in() -> None:
    state = game([["R3", "Y4", "R#", "W2", "R10", "Y9", "G8"], F1], ["R7", "Y1"])
    r3, y4, rw, w2 = (cid(state, 0, c) for c in ("R3", "Y4", "R#", "W2"))
    r7, y1 = rid(state, "R7"), rid(state, "Y1")
    expected = [
        match(0, part(r7), part(rw, number=7)),
        match(0, part(r7), part(r3), part(y4)),
        match(0, part(r7), part(r3), part(rw, number=4)),
        match(0, part(r7), part(y4), part(rw, number=3)),
        *(match(0, part(r7), part(rw, number=5), part(w2, color=c)) for c in ("red", "yellow", "green", "blue")),
        match(0, part(y1), part(rw, number=1)),
        mv("draw", 0),
    ]  # fmt: skip

    def key(m: dict[str, Any]) -> Any:
        return (m["type"], str(m.get("target")), sorted(str(p) for p in m.get("cards", [])))

    assert sorted(map(key, legal(state, 0))) == sorted(map(key, expected))
    for m in expected:
        engine.validate(state, m)


def test_legal_moves_center_wild_number_lists_only_numbers_the_hand_makes() -> None:
    others = ["R10", "R10", "G10", "G10", "R9", "Y9", "G9"]
    state = game([["G4", "Y3", "B10", "B10", "B9", "B9", "B8"], others], ["G#", "Y10"])
    t = rid(state, "G#")
    numbers = Counter(target.number for target, _ in matches(state, 0) if target.card == t)
    # singles 4, 3, 10 x2, 9 x2, 8; the double 4 + 3 = 7
    assert numbers == Counter({4: 1, 3: 1, 10: 2, 9: 2, 8: 1, 7: 1})


def test_legal_moves_center_wild_dos_lists_every_colour() -> None:
    state = game([hand("Y1", "G1"), F1], ["W2", "R5"])
    listed = matches(state, 0)
    assert {target.color for target, _ in listed} == {"red", "yellow", "green", "blue"}
    assert len(listed) == 4  # Y1 + G1 = 2, one per colour named for the Wild DOS


def test_legal_moves_two_wild_numbers_list_every_split() -> None:
    state = game([hand("R#", "B#"), F1], ["R7", "Y10"])
    t = rid(state, "R7")
    doubles = [cards for target, cards in matches(state, 0) if len(cards) == 2 and target.card == t]
    assert sorted(tuple(p.number for p in cards) for cards in doubles) == [
        (n, 7 - n) for n in range(1, 7)
    ]


def test_legal_moves_are_for_the_player_whose_turn_it_is_only() -> None:
    state = game([hand("Y7"), hand("Y5", seat=1)], ["B7", "R5"])
    assert legal(state, 1) == []
    assert not engine.find_variant(V).side_moves


# ---------------------------------------------------------------- bad input
def test_bad_matches_get_specific_codes() -> None:
    state = game([hand("Y7", "Y3", "G4"), hand("B7", seat=1)], ["B7", "R5"])
    y7 = cid(state, 0, "Y7")
    t = part(rid(state, "B7"))
    other = cid(state, 1, "B7")
    cases = [
        (match(0, part(other), part(y7)), "not_in_center_row"),
        (match(0, t, part(other)), "card_not_in_hand"),
        (match(0, t, part(y7), part(y7)), "duplicate_card"),
        (match(0, t, part(y7), part(cid(state, 0, "Y3")), part(cid(state, 0, "G4"))), "too_many_cards"),
        (match(0, t), "cards_required"),
        ({"type": "match", "player": 0, "cards": [part(y7)]}, "target_required"),
        ({"type": "match", "player": 0, "target": 1, "cards": [part(y7)]}, "invalid_target"),
        ({**match(0, t, part(y7)), "card": y7}, "unexpected_field"),
        (match(1, part(rid(state, "B7")), part(other)), "not_your_turn"),
        ({**match(0, t, part(y7)), "uno": True}, "uno_not_applicable"),
        (mv("play", 0, card=y7), "unknown_move"),
        (mv("uno", 0), "unknown_move"),
        (mv("next_round", 0), "round_not_over"),
        (mv("place", 0), "nothing_to_place"),
    ]  # fmt: skip
    for move, expected in cases:
        assert rules_error(state, move) == expected, move


def test_place_needs_a_card_from_the_hand() -> None:
    state = game([F0, F1], ["B7", "R5"], draw=("G1",))
    state, _ = engine.apply(state, mv("draw", 0))
    assert rules_error(state, mv("place", 0)) == "card_required"
    assert rules_error(state, mv("place", 0, card=state.hands[1][0])) == "card_not_in_hand"
    assert rules_error(state, mv("place", 0, card=rid(state, "B7"))) == "card_not_in_hand"


def test_malformed_match_moves_raise_invalid_move() -> None:
    state = game([hand("Y7"), F1], ["B7", "R5"])
    for bad in (
        {"type": "match", "player": 0, "target": {"card": "x"}, "cards": []},
        {"type": "match", "player": 0, "target": {"card": 1}, "cards": {"card": 1}},
        {"type": "match", "player": 0, "target": {"card": 1, "suit": 1}, "cards": []},
        {"type": "match", "player": 0, "target": {"card": 1}, "cards": [{"card": 1, "color": "mauve"}]},
    ):  # fmt: skip
        with pytest.raises(engine.InvalidMove):
            engine.apply(state, bad)


def test_apply_never_changes_its_input() -> None:
    state = game([hand("Y7"), F1], ["B7", "R5"])
    before = engine.to_dict(state)
    engine.apply(state, single(state, 0, "B7", "Y7"))
    assert engine.to_dict(state) == before


# ---------------------------------------------------------------- state, views
def test_view_center_row_matched_cards_and_bonus_pending() -> None:
    state = game([hand("B3", "B4"), F1, F2], ["B7", "R5"])
    t = part(rid(state, "B7"))
    a, b = cid(state, 0, "B3"), cid(state, 0, "B4")
    state, _ = engine.apply(state, match(0, t, part(a), part(b)))
    view = engine.view(state, 2)
    assert view["center_row"][0] == {
        "card": CAT.card_ref(t["card"]),
        "color": None,
        "number": None,
        "matched": [CAT.card_ref(a), CAT.card_ref(b)],
    }
    assert view["center_row"][1]["matched"] == [] and view["bonus_pending"] == 1
    assert view["pending"] == {"type": "matching", "player": 0}
    assert view["hand_sizes"] == [5, 8, 8]


def test_state_round_trips_through_json_in_every_decision() -> None:
    state = game([hand("B7", "W2", "Y3"), F1], ["B7", "W2"], draw=("G1", "G3"))
    states = [state]
    s, _ = engine.apply(state, single(state, 0, "B7", "B7"))
    states.append(s)
    s, _ = engine.apply(
        s, match(0, part(rid(s, "W2"), color="green"), part(cid(s, 0, "W2"), color="green"))
    )
    states.append(s)
    s, _ = engine.apply(s, mv("end_turn", 0))
    states.append(s)
    d, _ = engine.apply(state, mv("draw", 0))
    states.append(d)
    for st in states:
        assert engine.from_dict(engine.to_dict(st)) == st
        engine.check_invariants(st)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(ext=None),
        lambda d: d.update(ext={"center_row": []}),
        lambda d: d["ext"].update(bonus=-1),
        lambda d: d["ext"].update(bonus=True),
        lambda d: d["ext"]["center_row"][0].update(card=500),
        lambda d: d["ext"]["center_row"][0].update(matched="x"),
        lambda d: d["ext"]["center_row"][0].update(color="pink"),
        lambda d: d["ext"]["center_row"][0].update(number=11),
        lambda d: d["ext"]["center_row"][0].pop("number"),
        lambda d: d["ext"]["center_row"].append(d["ext"]["center_row"][0]),  # a card twice
        lambda d: d["ext"]["center_row"].pop(),  # a card missing
        lambda d: d["ext"].update(bonus=1),  # a bonus with no match made
        lambda d: d["ext"]["center_row"][0].update(number=7),  # a declaration before a match
        lambda d: d.update(pending={"type": "matching", "player": 0, "card": None, "data": {}}),
        lambda d: d.update(pending={"type": "bonus_place", "player": 0, "card": None, "data": {}}),
        lambda d: d.update(
            pending={"type": "drawn", "player": 0, "card": d["hands"][1][0], "data": {}}
        ),
        lambda d: d.update(pending={"type": "choose_color", "player": 0, "card": None, "data": {}}),
        lambda d: d.update(active_color="red"),
        lambda d: d.update(direction=-1),
    ],
)
def test_bad_states_are_invalid(mutate: Any) -> None:
    raw = engine.to_dict(game([F0, F1], ["B7", "R5"]))
    mutate(raw)
    with pytest.raises(engine.InvalidState):
        engine.from_dict(raw)


def test_matched_cards_must_make_the_declared_number() -> None:
    state = game([hand("Y7", "R#"), F1], ["B7", "G#"])
    s, _ = engine.apply(
        state, match(0, part(rid(state, "G#"), number=5), part(cid(state, 0, "R#"), number=5))
    )
    raw = engine.to_dict(s)
    engine.from_dict(raw)
    raw["ext"]["center_row"][1]["number"] = None
    with pytest.raises(engine.InvalidState):
        engine.from_dict(raw)
    s, _ = engine.apply(state, single(state, 0, "B7", "Y7"))
    raw = engine.to_dict(s)
    # The Y7 matched onto the B7 swapped for an R5: the match no longer adds up.
    five = next(c for c in raw["draw_pile"] if code(c) == "R5")
    raw["draw_pile"].remove(five)
    raw["draw_pile"].append(raw["ext"]["center_row"][0]["matched"][0])
    raw["ext"]["center_row"][0]["matched"] = [five]
    with pytest.raises(engine.InvalidState):
        engine.from_dict(raw)


def test_metadata_players_2_to_4_target_200_and_dos_moves() -> None:
    meta = engine.find_variant(V).metadata()
    assert meta["players"] == {"min": 2, "max": 4} and meta["target"] == 200
    assert meta["hand_size"] == 7 and meta["deck_size"] == 108
    assert meta["move_types"] == ["draw", "end_turn", "match", "next_round", "place"]
    with pytest.raises(engine.SetupError):
        engine.new_game(V, 5, 1)


def test_replay_of_seed_and_moves_is_exact() -> None:
    state, _ = engine.start(V, 3, 99)
    moves = []
    s = state
    for _ in range(80):
        if s.phase is Phase.GAME_OVER:
            break
        seat = 0 if s.phase is not Phase.PLAY else (pend(s).player if s.pending else s.current)
        m = engine.legal_moves(s, seat)[0]
        moves.append(m)
        s, _ = engine.apply(s, m)
    again, _ = play(engine.new_game(V, 3, 99), *moves)
    assert again == s


def test_match_moves_built_in_python_with_match_parts() -> None:
    state = game([hand("R#"), F1], ["B7", "G5"])
    w = cid(state, 0, "R#")
    move = Move(T.MATCH, 0, target=MatchPart(rid(state, "B7")), cards=(MatchPart(w, None, 7),))
    assert move in engine.legal_moves(state, 0)
    assert Move.from_dict(move.to_dict()) == move
    state, _ = engine.apply(state, move)
    assert state.ext.row[0].matched == (w,)


# ---------------------------------------------------------------- audit: edge cases
def one_card_state(card: str, row: list[str], draw: tuple[str, ...]) -> State:
    """Seat 0 holds only ``card`` (the rest of its dealt hand goes under the draw pile)."""
    state = game([hand(card), F1], row, draw=draw)
    return state._replace(
        hands=(state.hands[0][:1], state.hands[1]),
        draw_pile=state.draw_pile + state.hands[0][1:],
    )


def test_drawn_card_double_match_with_the_last_hand_card_wins_the_round_at_once() -> None:
    state = one_card_state("Y3", ["B7", "R5"], draw=("G4", "Y1"))
    state, _ = engine.apply(state, mv("draw", 0))
    drawn = drawn_card(state)
    t = part(rid(state, "B7"))
    state, events = engine.apply(state, match(0, t, part(drawn), part(cid(state, 0, "Y3"))))
    # No end-of-turn steps: nothing discarded, no refill, no placement.
    assert [e["type"] for e in events] == ["matched", "round_over"]
    assert state.phase is Phase.ROUND_OVER and state.round_winner == 0
    assert state.discard == () and row_codes(state) == ["B7", "R5"]
    assert state.round_scores == (sum(CAT.points[0][c] for c in state.hands[1]), 0)


def test_double_colour_match_with_the_drawn_card_others_draw_at_once_then_one_placement() -> None:
    state = game([hand("B3"), F1, F2], ["B7", "R5"], draw=("B4", "Y1", "Y3", "G1"))
    state, _ = engine.apply(state, mv("draw", 0))
    drawn = drawn_card(state)
    t = part(rid(state, "B7"))
    state, events = engine.apply(state, match(0, t, part(cid(state, 0, "B3")), part(drawn)))
    assert [e["type"] for e in events] == [
        "matched",
        "drew",
        "drew",
        "turn_ended",
        "center_row_refilled",
    ]
    assert codes(state, 1)[-1] == "Y1" and codes(state, 2)[-1] == "Y3"
    assert pend(state).type == "bonus_place" and state.ext.bonus == 1
    assert row_codes(state) == ["R5", "G1"]
    # Each drawer sees only their own card; the other seats see only the count.
    for ev, seat in ((events[1], 1), (events[2], 2)):
        for viewer in range(3):
            shown = engine.redact(ev, viewer)
            assert shown["count"] == 1
            assert ("cards" in shown) is (viewer == seat)


def test_double_colour_match_draws_reshuffle_the_discard_pile_when_the_draw_pile_is_empty() -> None:
    state = game([hand("B3", "B4"), F1, F2], ["B7", "R5"])
    state = state._replace(discard=state.draw_pile, draw_pile=())
    size = len(state.discard)
    t = part(rid(state, "B7"))
    state, events = engine.apply(
        state, match(0, t, part(cid(state, 0, "B3")), part(cid(state, 0, "B4")))
    )
    assert [e["type"] for e in events] == ["matched", "reshuffled", "drew", "drew"]
    assert [len(h) for h in state.hands] == [5, 8, 8]
    # The center row (and the cards matched onto it) stays out of the shuffle.
    assert len(state.draw_pile) == size - 2 and state.discard == ()
    assert row_codes(state) == ["B7", "R5"] and len(state.ext.row[0].matched) == 2
