"""Rule tests for classic UNO (``uno-classic.md``) and the README rules it uses.

Each test is named after the rule line it checks; decks are stacked with
``tests.support.stacked_deck`` (hands dealt one at a time from the dealer's left).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

import engine
from engine import Color, Kind, Move, MoveType, Phase, State
from tests.support import (
    DeckBuilder,
    card,
    codes,
    ids,
    mv,
    pend,
    play,
    round_scores,
    rules_error,
    stacked_deck,
    stacked_game,
)

V = "uno_classic"

#: A game of this variant dealt from a stacked deck (seed 7).
game = partial(stacked_game, V)
T = MoveType

# Filler hands: cards that do not match each other's colour or number by accident.
HAND0 = ["R1", "R2", "R3", "R4", "R5", "R6", "R7"]
HAND1 = ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"]
HAND2 = ["G1", "G2", "G3", "G4", "G5", "G6", "G7"]


# ---------------------------------------------------------------- deal
def test_deck_has_108_cards_as_listed() -> None:
    cat = engine.find_variant(V).catalog
    assert cat.size == 108
    kinds = [c.faces[0].kind.value for c in cat.cards]
    assert kinds.count("wild") == 4 and kinds.count("wild_draw_four") == 4
    for color in ("red", "yellow", "green", "blue"):
        faces = [c.faces[0] for c in cat.cards if c.faces[0].color == color]
        assert [f.value for f in faces if f.kind == "number"].count(0) == 1
        for n in range(1, 10):
            assert [f.value for f in faces if f.kind == "number"].count(n) == 2
        for k in ("skip", "reverse", "draw_two"):
            assert [f.kind for f in faces].count(Kind(k)) == 2


def test_cut_for_dealer_highest_number_wins_and_ties_draw_again() -> None:
    for seed in range(40):
        state, events = engine.start(V, 4, seed)
        cut = events[0]
        assert cut["type"] == "dealer_cut"
        assert state.dealer == cut["winner"]
        cat = engine.find_variant(V).catalog
        # The last round of draws is decided by the highest number (non-numbers count 0).
        last = cut["cards"][-len({c["player"] for c in cut["cards"]}) :]
        values = {
            c["player"]: (cat.value[0][c["card"]["id"]] or 0)
            if cat.kind[0][c["card"]["id"]] == "number"
            else 0
            for c in cut["cards"]
        }
        assert values[state.dealer] == max(values[c["player"]] for c in last)


def test_deal_seven_each_one_at_a_time_from_the_dealers_left() -> None:
    deck = list(range(108))
    state = engine.new_game(V, 3, seed=1, dealer=1, deck=deck)
    # Seat 2 (left of dealer 1) gets cards 0, 3, 6, ...; seat 0 gets 1, 4, ...; seat 1 gets 2, 5, ...
    assert state.hands[2] == tuple(range(0, 21, 3))
    assert state.hands[0] == tuple(range(1, 21, 3))
    assert state.hands[1] == tuple(range(2, 21, 3))
    assert state.discard == (21,)
    assert state.draw_pile == tuple(range(22, 108))
    assert all(len(h) == 7 for h in state.hands)


def test_given_deck_defaults_dealer_to_seat_zero() -> None:
    state = engine.new_game(V, 2, seed=1, deck=list(range(108)))
    assert state.dealer == 0


def test_turned_number_player_left_of_dealer_plays_first() -> None:
    state = game([HAND0, HAND1, HAND2], "B9", dealer=0)
    assert state.current == 1 and state.pending is None
    assert state.active_color is Color.BLUE


def test_turned_wild_draw_four_goes_back_and_another_is_turned() -> None:
    state, events = engine.start(
        V, 2, 3, dealer=0, deck=stacked_deck(V, [HAND0, HAND1], "WD4", draw=["B9"])
    )
    cat = engine.find_variant(V).catalog
    assert cat.code[0][state.top] == "B9"
    wd4 = next(c for c in range(108) if cat.code[0][c] == "WD4")
    assert wd4 in state.draw_pile
    assert [e["type"] for e in events][:3] == ["round_started", "returned_to_deck", "turned_up"]
    # Seeded: the same seed puts it back at the same position.
    again = engine.new_game(
        V, 2, 3, dealer=0, deck=stacked_deck(V, [HAND0, HAND1], "WD4", draw=["B9"])
    )
    assert again.draw_pile == state.draw_pile


def test_turned_wild_player_left_of_dealer_names_colour_then_plays() -> None:
    state = game([HAND0, HAND1, HAND2], "W", dealer=0)
    assert pend(state).type == "choose_color" and pend(state).player == 1
    assert rules_error(state, mv("play", 1, card=card(state, 1, "Y1"))) == "must_choose_color"
    assert rules_error(state, mv("choose_color", 2, color="red")) == "not_your_turn"
    state, events = engine.apply(state, mv("choose_color", 1, color="green"))
    assert state.active_color is Color.GREEN and state.current == 1 and state.pending is None
    assert events[0] == {"type": "color_chosen", "player": 1, "color": "green"}


def test_turned_skip_player_left_of_dealer_is_skipped() -> None:
    state = game([HAND0, HAND1, HAND2], "BS", dealer=0)
    assert state.current == 2


def test_turned_reverse_dealer_plays_first_and_play_goes_right() -> None:
    state = game([HAND0, HAND1, HAND2], "BR", dealer=0)
    assert state.current == 0 and state.direction == -1
    state, _ = engine.apply(state, mv("draw", 0))  # draws and ends the turn
    if state.pending:
        state, _ = engine.apply(state, mv("pass", 0))
    assert state.current == 2  # to the right of seat 0


def test_turned_draw_two_player_left_of_dealer_draws_two_and_is_skipped() -> None:
    state = game([HAND0, HAND1, HAND2], "BD2", draw=("B7", "B8"), dealer=0)
    assert len(state.hands[1]) == 9 and codes(state, 1)[-2:] == ["B7", "B8"]
    assert state.current == 2


# ---------------------------------------------------------------- a turn
def test_play_matches_by_colour() -> None:
    state = game([HAND0, ["B1", *HAND1[1:]]], "B9")
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    assert events[0]["type"] == "played" and state.current == 0


def test_play_matches_by_number() -> None:
    state = game([HAND0, ["G9", *HAND1[1:]]], "B9")
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "G9")))
    assert state.active_color is Color.GREEN


def test_play_matches_by_symbol() -> None:
    state = game([HAND0, ["GS", *HAND1[1:]], HAND2], "BS", dealer=2)
    # Dealer 2: seat 0 is skipped by the turned Skip, seat 1 plays.
    assert state.current == 1
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "GS")))
    assert {"type": "skipped", "player": 2} in events and state.current == 0


def test_card_that_matches_nothing_is_rejected() -> None:
    state = game([HAND0, HAND1], "B9")
    assert rules_error(state, mv("play", 1, card=card(state, 1, "Y1"))) == "does_not_match"


def test_wild_and_wild_draw_four_play_on_anything() -> None:
    state = game([HAND0, ["W", "WD4", *HAND1[2:]]], "B9")
    s1, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "W"), color="red"))
    assert s1.active_color is Color.RED
    s2, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "WD4"), color="red"))
    assert pend(s2).type == "challenge"


def test_wild_needs_a_colour_and_non_wild_takes_none() -> None:
    state = game([HAND0, ["W", "B1", *HAND1[2:]]], "B9")
    assert rules_error(state, mv("play", 1, card=card(state, 1, "W"))) == "color_required"
    assert (
        rules_error(state, mv("play", 1, card=card(state, 1, "W"), color="pink")) == "invalid_color"
    )
    assert (
        rules_error(state, mv("play", 1, card=card(state, 1, "B1"), color="red"))
        == "color_not_allowed"
    )


def test_draw_one_unplayable_card_ends_the_turn() -> None:
    state = game([HAND0, HAND1], "B9", draw=("G5",))
    state, events = engine.apply(state, mv("draw", 1))
    assert state.current == 0 and state.pending is None
    assert codes(state, 1)[-1] == "G5"
    assert events[0]["type"] == "drew" and events[0]["count"] == 1


def test_drawn_playable_card_may_be_played_at_once() -> None:
    state = game([HAND0, HAND1], "B9", draw=("B5",))
    state, _ = engine.apply(state, mv("draw", 1))
    assert pend(state).type == "play_drawn" and pend(state).player == 1
    drawn = pend(state).card
    legal = engine.legal_moves(state, 1)
    assert Move(T.PLAY, 1, drawn) in legal and Move(T.PASS, 1) in legal
    # Only the drawn card may be played now.
    other = ids(V, "B9")  # not in hand: a different card
    assert rules_error(state, mv("play", 1, card=other[0])) in {
        "card_not_in_hand",
        "not_drawn_card",
    }
    played, _ = engine.apply(state, mv("play", 1, card=drawn))
    assert played.top == drawn and played.current == 0


def test_drawn_playable_card_may_be_kept_and_the_turn_ends() -> None:
    state = game([HAND0, HAND1], "B9", draw=("B5",))
    state, _ = engine.apply(state, mv("draw", 1))
    state, events = engine.apply(state, mv("pass", 1))
    assert state.current == 0 and events == [{"type": "passed", "player": 1}]
    assert codes(state, 1)[-1] == "B5"


def test_only_the_drawn_card_may_be_played_after_a_draw() -> None:
    state = game([HAND0, ["B1", *HAND1[1:]]], "B9", draw=("B5",))
    state, _ = engine.apply(state, mv("draw", 1))
    assert rules_error(state, mv("play", 1, card=card(state, 1, "B1"))) == "not_drawn_card"


def test_play_is_optional_a_player_may_draw_with_a_playable_card() -> None:
    state = game([HAND0, ["B1", *HAND1[1:]]], "B9", draw=("G5",))
    assert Move(T.DRAW, 1) in engine.legal_moves(state, 1)
    state, _ = engine.apply(state, mv("draw", 1))
    assert len(state.hands[1]) == 8


def test_skip_next_player_loses_their_turn() -> None:
    state = game([HAND0, ["BS", *HAND1[1:]], HAND2], "B9")
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "BS")))
    assert {"type": "skipped", "player": 2} in events and state.current == 0


def test_reverse_changes_direction() -> None:
    state = game([HAND0, ["BR", *HAND1[1:]], HAND2], "B9")
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "BR")))
    assert state.direction == -1 and state.current == 0
    assert {"type": "reversed", "direction": "counterclockwise"} in events


def test_reverse_with_two_players_acts_as_skip() -> None:
    state = game([HAND0, ["BR", *HAND1[1:]]], "B9")
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "BR")))
    assert state.current == 1 and state.direction == 1
    assert {"type": "skipped", "player": 0} in events


def test_draw_two_next_player_draws_two_and_loses_turn_no_stacking() -> None:
    state = game([["RD2", *HAND0[1:]], ["BD2", *HAND1[1:]], HAND2], "B9", draw=("G8", "G9"))
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "BD2")))
    assert codes(state, 2)[-2:] == ["G8", "G9"] and state.current == 0
    # Seat 2 never got to answer with a Draw Two: no stacking.
    assert [e["type"] for e in events] == ["played", "drew", "skipped"]


def test_wild_names_the_colour() -> None:
    state = game([HAND0, ["W", *HAND1[1:]]], "B9")
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "W"), color="yellow"))
    assert state.active_color is Color.YELLOW and events[0]["color"] == "yellow"
    # The next player must follow the named colour.
    assert rules_error(state, mv("play", 0, card=card(state, 0, "R1"))) == "does_not_match"


# ---------------------------------------------------------------- wild draw four
def wd4_state(offender_hand: list[str], **options: Any) -> State:
    """Seat 1 plays a Wild Draw Four (naming red) on a blue 9; seat 2 must answer."""
    state = game(
        [HAND0, ["WD4", *offender_hand], HAND2],
        "B9",
        draw=("G8", "G9", "Y8", "Y9", "R8", "R9"),
        **options,
    )
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "WD4"), color="red"))
    return state


def test_wild_draw_four_next_player_must_answer() -> None:
    state = wd4_state(["Y1", "Y2", "Y3", "Y4", "Y5", "Y6"])
    assert pend(state).type == "challenge" and pend(state).player == 2
    assert set(engine.legal_moves(state, 2)) >= {Move(T.CHALLENGE, 2), Move(T.ACCEPT, 2)}
    assert rules_error(state, mv("draw", 2)) == "must_answer_challenge"


def test_wild_draw_four_accepted_draws_four_and_loses_turn() -> None:
    state = wd4_state(["Y1", "Y2", "Y3", "Y4", "Y5", "Y6"])
    state, events = engine.apply(state, mv("accept", 2))
    assert len(state.hands[2]) == 11 and state.current == 0


def test_wild_draw_four_challenge_guilty_offender_draws_four_challenger_plays() -> None:
    state = wd4_state(["B1", "Y2", "Y3", "Y4", "Y5", "Y6"])  # held a blue card: guilty
    state, events = engine.apply(state, mv("challenge", 2))
    assert len(state.hands[1]) == 6 + 4 and len(state.hands[2]) == 7
    assert state.current == 2 and state.pending is None
    challenged = events[0]
    assert challenged["type"] == "challenged" and challenged["secret"]["to"] == [2]
    assert engine.redact(challenged, 2)["guilty"] is True


def test_wild_draw_four_challenge_not_guilty_challenger_draws_six_loses_turn() -> None:
    # A blue number would be guilty; yellow cards and a wild are not (wilds do not count).
    state = wd4_state(["Y9", "Y2", "Y3", "Y4", "Y5", "W"])
    state, events = engine.apply(state, mv("challenge", 2))
    assert len(state.hands[2]) == 13 and len(state.hands[1]) == 6
    assert state.current == 0
    assert engine.redact(events[0], 2)["guilty"] is False


def test_challenge_only_counts_the_active_colour_not_number_matches() -> None:
    state = wd4_state(["Y9", "Y2", "Y3", "Y4", "Y5", "Y6"])  # Y9 matches the 9, not blue
    state, _ = engine.apply(state, mv("challenge", 2))
    assert len(state.hands[2]) == 13  # not guilty


def test_challenge_rule_option_any_playable_counts_number_matches() -> None:
    state = wd4_state(["Y9", "Y2", "Y3", "Y4", "Y5", "Y6"], challenge_rule="any_playable")
    state, _ = engine.apply(state, mv("challenge", 2))
    assert len(state.hands[1]) == 10  # guilty: Y9 could have been played on B9


def test_challenge_reveals_the_hand_to_the_challenger_only() -> None:
    state = wd4_state(["B1", "Y2", "Y3", "Y4", "Y5", "Y6"])
    _, events = engine.apply(state, mv("challenge", 2))
    for seat in (None, 0, 1):
        assert "hand" not in engine.redact(events[0], seat)
    shown = engine.redact(events[0], 2)["hand"]
    assert [c["code"] for c in shown] == ["B1", "Y2", "Y3", "Y4", "Y5", "Y6"]


# ---------------------------------------------------------------- UNO
def two_card_state() -> State:
    state = game([HAND0, ["B1", "B2", "G9", "G8", "G7", "G6", "G5"], HAND2], "B9")
    state = state._replace(hands=(state.hands[0], state.hands[1][:2], state.hands[2]),
                           draw_pile=state.draw_pile + state.hands[1][2:])  # fmt: skip
    engine.check_invariants(state)
    return state


def test_saying_uno_with_the_second_to_last_card_is_safe() -> None:
    state = two_card_state()
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "B1"), uno=True))
    assert state.exposed == () and {"type": "uno", "player": 1} in events
    assert rules_error(state, mv("catch", 0, target=1)) == "cannot_catch"


def test_not_saying_uno_can_be_caught_and_draws_two() -> None:
    state = two_card_state()
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    assert state.exposed == (1,)
    assert Move(T.CATCH, 0, target=1) in engine.legal_moves(state, 0)
    state, events = engine.apply(state, mv("catch", 0, target=1))
    assert len(state.hands[1]) == 3 and state.exposed == ()
    assert events[0] == {"type": "caught", "player": 0, "target": 1}
    assert state.current == 2  # a catch is not a turn


def test_uno_may_be_said_late_before_being_caught() -> None:
    state = two_card_state()
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    state, events = engine.apply(state, mv("uno", 1))
    assert events == [{"type": "uno", "player": 1}] and state.exposed == ()
    assert rules_error(state, mv("uno", 1)) == "nothing_to_declare"


def test_player_is_safe_once_the_next_player_has_moved() -> None:
    state = two_card_state()
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    state, _ = engine.apply(state, mv("draw", 2))
    assert state.exposed == ()
    assert rules_error(state, mv("catch", 0, target=1)) == "cannot_catch"


def test_catching_yourself_or_a_seat_with_more_cards_is_rejected() -> None:
    state = two_card_state()
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    assert rules_error(state, mv("catch", 1, target=1)) == "cannot_catch_self"
    assert rules_error(state, mv("catch", 1, target=0)) == "cannot_catch"
    assert rules_error(state, mv("catch", 0)) == "target_required"


def test_uno_flag_only_with_the_second_to_last_card() -> None:
    state = game([HAND0, ["B1", *HAND1[1:]]], "B9")
    assert (
        rules_error(state, mv("play", 1, card=card(state, 1, "B1"), uno=True))
        == "uno_not_applicable"
    )


# ---------------------------------------------------------------- draw pile
def test_empty_draw_pile_reshuffles_the_discards_keeping_the_top() -> None:
    state = game([HAND0, HAND1], "B9")
    rest = state.draw_pile
    # Move all but two draw cards under the top of the discard pile.
    state = state._replace(draw_pile=(), discard=rest + state.discard)
    engine.check_invariants(state)
    top = state.top
    state, events = engine.apply(state, mv("draw", 1))
    assert state.top == top and state.discard == (top,)
    assert events[0] == {"type": "reshuffled", "count": len(rest)}
    assert len(state.draw_pile) == len(rest) - 1 and len(state.hands[1]) == 8


def test_draw_with_nothing_left_yields_nothing_and_ends_the_turn() -> None:
    state = game([HAND0, HAND1], "B9")
    # Every other card is in hands.
    h0 = state.hands[0] + state.draw_pile
    state = state._replace(draw_pile=(), hands=(h0, state.hands[1]))
    engine.check_invariants(state)
    state, events = engine.apply(state, mv("draw", 1))
    assert events[0]["count"] == 0 and state.current == 0 and len(state.hands[1]) == 7


def test_reshuffle_is_seeded_and_replays() -> None:
    state = game([HAND0, HAND1], "B9")
    state = state._replace(draw_pile=(), discard=state.draw_pile + state.discard)
    a, _ = engine.apply(state, mv("draw", 1))
    b, _ = engine.apply(state, mv("draw", 1))
    assert a == b


# ---------------------------------------------------------------- scoring and the end
def last_card_state(
    last: str, others: list[list[str]], scores: tuple[int, ...] = (0, 0, 0)
) -> State:
    state = game([HAND0, [last, *HAND1[1:]], HAND2], "B9", draw=("G8", "G9", "Y8", "Y9"))
    hands = list(state.hands)
    hands[1] = (card(state, 1, last),)
    b = DeckBuilder(V)
    used = set(hands[1]) | {state.top}
    spare = [c for c in range(108) if c not in used]
    rebuilt = []
    for seat_codes in others:
        hand = []
        for code in seat_codes:
            c = next(c for c in spare if b.catalog.code[0][c] == code)
            spare.remove(c)
            hand.append(c)
        rebuilt.append(tuple(hand))
    hands[0], hands[2] = rebuilt
    state = state._replace(hands=tuple(hands), draw_pile=tuple(spare), scores=scores)
    engine.check_invariants(state)
    return state


def test_going_out_scores_cards_left_in_all_other_hands() -> None:
    state = last_card_state("B5", [["R7", "GS", "W"], ["Y0", "YR", "WD4", "BD2"]])
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "B5")))
    assert state.phase is Phase.ROUND_OVER and state.round_winner == 1
    # 7 + 20 + 50 + 0 + 20 + 50 + 20
    assert state.round_scores == (0, 167, 0) and state.scores == (0, 167, 0)
    over = next(e for e in events if e["type"] == "round_over")
    assert over["winner"] == 1 and over["round_scores"] == [0, 167, 0]


def test_draw_card_as_last_card_is_drawn_before_scoring() -> None:
    state = last_card_state("BD2", [["R7"], ["Y3"]])
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "BD2")))
    assert len(state.hands[2]) == 3
    drawn_points = engine.find_variant(V).hand_points(state, 2)
    assert round_scores(state)[1] == 7 + drawn_points
    assert [e["type"] for e in events][:3] == ["played", "drew", "round_over"]


def test_wild_draw_four_as_last_card_draws_four_before_scoring() -> None:
    state = last_card_state("WD4", [["R7"], ["Y3"]])
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "WD4"), color="red"))
    assert len(state.hands[2]) == 5 and state.phase is Phase.ROUND_OVER


def test_game_ends_when_a_total_reaches_500() -> None:
    state = last_card_state("B5", [["R7"], ["Y3"]], scores=(100, 495, 200))
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "B5")))
    assert state.phase is Phase.GAME_OVER and state.winners == (1,)
    assert state.scores == (100, 505, 200)
    assert events[-1] == {"type": "game_over", "winners": [1], "scores": [100, 505, 200]}
    assert engine.legal_moves(state, 0) == []
    assert rules_error(state, mv("next_round", 0)) == "game_over"


def test_game_below_target_continues_with_next_round_and_dealer_passes_left() -> None:
    state = last_card_state("B5", [["R7"], ["Y3"]])
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B5")))
    assert state.phase is Phase.ROUND_OVER
    assert rules_error(state, mv("draw", 2)) == "round_over"
    assert engine.legal_moves(state, 2) == [Move(T.NEXT_ROUND, 2)]
    nxt, events = engine.apply(state, mv("next_round", 2))
    assert nxt.round == 2 and nxt.dealer == 1 and nxt.phase is Phase.PLAY
    assert all(len(h) == 7 for h in nxt.hands) and nxt.scores == state.scores
    assert events[0] == {"type": "round_started", "round": 2, "dealer": 1}


def test_next_round_only_when_the_round_is_over() -> None:
    state = game([HAND0, HAND1], "B9")
    assert rules_error(state, mv("next_round", 0)) == "round_not_over"


def test_tied_winning_totals_are_shared_wins() -> None:
    v = engine.find_variant(V)
    assert v.game_winners((500, 500, 20), 500) == (0, 1)
    assert v.game_winners((499, 20), 500) == ()


def test_target_option_shortens_the_game() -> None:
    state = last_card_state("B5", [["R7"], ["Y3"]])
    state = state._replace(options=(("challenge_rule", "active_color"), ("target", 10)))
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B5")))
    assert state.phase is Phase.GAME_OVER and state.winners == (1,)


# ---------------------------------------------------------------- guards and bad input
def test_moves_out_of_turn_are_rejected() -> None:
    state = game([HAND0, HAND1], "R9")
    assert rules_error(state, mv("play", 0, card=card(state, 0, "R1"))) == "not_your_turn"
    assert rules_error(state, mv("draw", 0)) == "not_your_turn"


def test_card_not_in_hand_is_rejected() -> None:
    state = game([HAND0, HAND1], "R9")
    assert rules_error(state, mv("play", 1, card=card(state, 0, "R1"))) == "card_not_in_hand"
    assert rules_error(state, mv("play", 1)) == "card_required"


def test_moves_that_answer_nothing_are_rejected() -> None:
    state = game([HAND0, HAND1], "R9")
    assert rules_error(state, mv("pass", 1)) == "nothing_to_pass"
    assert rules_error(state, mv("challenge", 1)) == "nothing_to_challenge"
    assert rules_error(state, mv("choose_color", 1, color="red")) == "no_color_to_choose"
    assert rules_error(state, mv("give", 1, card=1)) == "unknown_move"
    assert rules_error(state, mv("play", 7, card=1)) == "invalid_player"
    assert rules_error(state, mv("draw", 1, card=3)) == "unexpected_field"


def test_malformed_moves_raise_invalid_move() -> None:
    state = game([HAND0, HAND1], "R9")
    bad: Any
    for bad in (
        {"type": "fly", "player": 1},
        {"type": "play", "player": "1"},
        {"type": "play", "player": 1, "card": True},
        {"type": "play", "player": 1, "colour": "red"},
        {"type": "play", "player": 1, "card": 1, "color": "mauve"},
        [],
    ):
        with pytest.raises(engine.InvalidMove):
            engine.apply(state, bad)  # type: ignore[arg-type]


def test_bad_setup_is_rejected_with_codes() -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"players": 1}, "invalid_player_count"),
        ({"players": 11}, "invalid_player_count"),
        ({"seed": -1}, "invalid_seed"),
        ({"dealer": 4}, "invalid_dealer"),
        ({"options": {"target": 0}}, "invalid_option"),
        ({"options": {"colour": 1}}, "unknown_option"),
        ({"options": {"challenge_rule": "x"}}, "invalid_option"),
        ({"deck": list(range(107))}, "invalid_deck"),
        ({"deck": [0, *range(107)]}, "invalid_deck"),
        ({"deck": [*range(107), 200]}, "invalid_deck"),
    ]
    for kwargs, code in cases:
        args: dict[str, Any] = {"variant": V, "players": 4, "seed": 1, **kwargs}
        with pytest.raises(engine.SetupError) as err:
            engine.new_game(**args)
        assert err.value.code == code, kwargs
    with pytest.raises(engine.UnknownVariant):
        engine.new_game("uno_nope", 2, 1)


def test_apply_never_changes_its_input() -> None:
    state = game([HAND0, ["B1", *HAND1[1:]]], "B9")
    before = engine.to_dict(state)
    engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    assert engine.to_dict(state) == before


# ---------------------------------------------------------------- state checks
def test_state_round_trips_through_json() -> None:
    state = wd4_state(["B1", "Y2", "Y3", "Y4", "Y5", "Y6"])
    assert engine.from_dict(engine.to_dict(state)) == state


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d["hands"][0].append(d["hands"][1][0]), "cards"),
        (lambda d: d["hands"][0].pop(), "cards"),
        (lambda d: d["hands"].pop(), "hands"),
        (lambda d: d.update(current=5), "current"),
        (lambda d: d.update(players=3), "hands"),
        (lambda d: d.update(direction=2), "direction"),
        (lambda d: d.update(schema=2), "schema"),
        (lambda d: d.pop("rng"), "rng"),
        (lambda d: d.update(extra=1), "extra"),
        (lambda d: d["hands"][0].append(500), "hands[0]"),
        (lambda d: d.update(phase="lunch"), "phase"),
        (lambda d: d.update(exposed=[0]), "exposed"),
        (lambda d: d.update(variant="uno_nope"), "variant"),
        (lambda d: d.update(rng={"state": "zz", "inc": "1"}), "rng"),
    ],
)
def test_states_breaking_invariants_are_rejected(mutate: Any, field: str) -> None:
    raw = engine.to_dict(game([HAND0, HAND1], "B9"))
    mutate(raw)
    with pytest.raises(engine.InvalidState) as err:
        engine.from_dict(raw)
    assert err.value.code == "invalid_state"
    assert err.value.context.get("field") == field or field in err.value.detail


# ---------------------------------------------------------------- views
def test_view_shows_own_hand_and_public_facts_only() -> None:
    state = game([HAND0, HAND1, HAND2], "B9")
    view = engine.view(state, 1)
    assert [c["code"] for c in view["hand"]] == HAND1
    assert view["hand_sizes"] == [7, 7, 7] and view["draw_pile_size"] == 108 - 22
    assert view["discard_top"]["code"] == "B9" and view["active_color"] == "blue"
    shown = {c["id"] for c in view["hand"]} | {view["discard_top"]["id"]}
    assert shown.isdisjoint(state.hands[0]) and shown.isdisjoint(state.draw_pile)
    spectator = engine.view(state, None)
    assert spectator["hand"] == [] and spectator["player"] is None


def test_drawn_cards_are_named_only_to_the_drawer() -> None:
    state = game([HAND0, HAND1], "B9", draw=("G5",))
    _, events = engine.apply(state, mv("draw", 1))
    assert engine.redact(events[0], 1)["cards"][0]["code"] == "G5"
    assert "cards" not in engine.redact(events[0], 0)
    assert "cards" not in engine.redact(events[0], None)


def test_replay_of_seed_and_moves_is_exact() -> None:
    state, _ = engine.start(V, 3, 99)
    moves = []
    s = state
    for _ in range(60):
        seat = pend(s).player if s.pending else s.current
        m = engine.legal_moves(s, seat)[0]
        moves.append(m)
        s, _ = engine.apply(s, m)
    again, _ = play(engine.new_game(V, 3, 99), *moves)
    assert again == s


# ---------------------------------------------------------------- audit: edge cases
def wd4_second_to_last(second: str) -> State:
    """Seat 1 holds WD4 + ``second`` and plays the WD4 (naming red) on a blue 9 without
    saying UNO; seat 2 must answer the challenge."""
    state = game(
        [HAND0, ["WD4", second, *HAND1[2:]], HAND2],
        "B9",
        draw=("B1", "B2", "G8", "G9", "Y8", "Y9", "R8", "R9"),
    )
    state = state._replace(hands=(state.hands[0], state.hands[1][:2], state.hands[2]),
                           draw_pile=state.draw_pile + state.hands[1][2:])  # fmt: skip
    engine.check_invariants(state)
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "WD4"), color="red"))
    assert state.exposed == (1,) and pend(state).type == "challenge"
    return state


def test_catch_during_a_pending_challenge_keeps_the_decision() -> None:
    state = wd4_second_to_last("Y2")
    assert Move(T.CATCH, 2, target=1) in engine.legal_moves(state, 2)
    assert Move(T.CATCH, 0, target=1) in engine.legal_moves(state, 0)
    state, _ = engine.apply(state, mv("catch", 0, target=1))
    assert codes(state, 1) == ["Y2", "B1", "B2"]
    assert pend(state).type == "challenge" and pend(state).player == 2
    assert set(engine.legal_moves(state, 2)) == {Move(T.CHALLENGE, 2), Move(T.ACCEPT, 2)}


def test_challenge_guilt_is_the_hand_when_played_not_the_cards_caught_since() -> None:
    # Y2 alone: not guilty; the blue cards drawn for the UNO catch do not count.
    state = wd4_second_to_last("Y2")
    state, _ = engine.apply(state, mv("catch", 2, target=1))
    state, events = engine.apply(state, mv("challenge", 2))
    assert engine.redact(events[0], 2)["guilty"] is False
    assert len(state.hands[2]) == 7 + 6 and len(state.hands[1]) == 3


def test_challenge_reveals_the_hand_that_was_checked_even_after_a_catch() -> None:
    state = wd4_second_to_last("Y2")
    state, _ = engine.apply(state, mv("catch", 2, target=1))
    _, events = engine.apply(state, mv("challenge", 2))
    shown = engine.redact(events[0], 2)
    # The verdict (not guilty) must be justified by the hand shown: Y2 only.
    assert [c["code"] for c in shown["hand"]] == ["Y2"]


def test_challenge_rule_any_playable_still_ignores_wild_cards() -> None:
    state = wd4_state(["W", "WD4", "Y3", "Y4", "Y5", "Y6"], challenge_rule="any_playable")
    state, events = engine.apply(state, mv("challenge", 2))
    assert engine.redact(events[0], 2)["guilty"] is False and len(state.hands[2]) == 13


def test_challenge_checks_the_colour_named_for_a_wild_before_it() -> None:
    # Seat 1 plays a Wild naming yellow, seat 2 a WD4 holding yellow: guilty.
    state = game(
        [HAND0, ["W", *HAND1[1:]], ["WD4", "Y9", *HAND2[2:]]],
        "B9",
        draw=("G8", "G9", "B7", "B8"),
    )
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "W"), color="yellow"))
    state, _ = engine.apply(state, mv("play", 2, card=card(state, 2, "WD4"), color="red"))
    state, events = engine.apply(state, mv("challenge", 0))
    assert engine.redact(events[0], 0)["guilty"] is True
    assert len(state.hands[2]) == 6 + 4 and state.current == 0


def test_drawn_card_in_a_pending_decision_is_shown_to_the_drawer_only() -> None:
    state = game([HAND0, HAND1], "B9", draw=("B5",))
    state, _ = engine.apply(state, mv("draw", 1))
    assert engine.view(state, 1)["pending"]["card"]["code"] == "B5"
    for seat in (0, None):
        assert engine.view(state, seat)["pending"] == {"type": "play_drawn", "player": 1}
    assert engine.legal_moves(state, 0) == []


def test_turned_reverse_with_two_players_the_dealer_plays_first() -> None:
    state = game([HAND0, HAND1], "BR", dealer=1)
    assert state.current == 1 and state.pending is None


def test_going_out_with_draw_two_on_an_empty_draw_pile_reshuffles_first() -> None:
    state = last_card_state("BD2", [["R7"], ["Y3"]])
    state = state._replace(draw_pile=(), discard=state.draw_pile + state.discard)
    engine.check_invariants(state)
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "BD2")))
    assert [e["type"] for e in events][:3] == ["played", "reshuffled", "drew"]
    assert len(state.hands[2]) == 3 and state.phase is Phase.ROUND_OVER


def test_game_ends_when_a_total_reaches_exactly_500() -> None:
    state = last_card_state("B5", [["R7"], ["Y3"]], scores=(0, 490, 0))
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B5")))
    assert state.scores == (0, 500, 0) and state.phase is Phase.GAME_OVER
    assert state.winners == (1,) and engine.view(state, 0)["winners"] == [1]
    below = last_card_state("B5", [["R7"], ["Y3"]], scores=(0, 489, 0))
    below, _ = engine.apply(below, mv("play", 1, card=card(below, 1, "B5")))
    assert below.scores == (0, 499, 0) and below.phase is Phase.ROUND_OVER


def test_tied_winners_are_reported_in_the_game_over_event() -> None:
    # Seat 2 already at 500 (a hand-made state): seat 1 reaches 500 too; both share the win.
    state = last_card_state("B5", [["R7"], ["Y3"]], scores=(0, 490, 500))
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "B5")))
    assert state.winners == (1, 2)
    assert events[-1] == {"type": "game_over", "winners": [1, 2], "scores": [0, 500, 500]}


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.update(card=None),
        lambda p: p.update(card=0),
        lambda p: p["data"].pop("offender"),
        lambda p: p["data"].update(offender=9),
        lambda p: p["data"].update(guilty="yes"),
    ],
)
def test_a_pending_challenge_missing_what_it_needs_is_invalid_state(damage: Any) -> None:
    raw = engine.to_dict(wd4_state(["Y1", "Y2", "Y3", "Y4", "Y5", "Y6"]))
    damage(raw["pending"])
    with pytest.raises(engine.InvalidState):
        engine.from_dict(raw)
