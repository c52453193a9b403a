"""Rule tests for UNO Pocket Pizza Pizza (``uno-pocket-pizza.md``) and the README rules
it uses. Each test is named after the rule line it checks; decks are stacked with
``tests.support.stacked_deck`` (5 cards dealt one at a time from the dealer's left).
"""

from __future__ import annotations

from functools import partial

import pytest

import engine
from engine import Color, InvalidState, Move, MoveType, Phase, SetupError, State
from engine.events import redact_all
from tests.support import (
    card,
    codes,
    mv,
    pend,
    play,
    round_scores,
    rules_error,
    stacked_deck,
    stacked_game,
    with_hand,
)

V = "uno_pocket_pizza"

#: A game of this variant dealt from a stacked deck (seed 7).
game = partial(stacked_game, V)
T = MoveType
CAT = engine.find_variant(V).catalog

# Filler hands (every card exists once in this deck).
HAND0 = ["R1", "R2", "R3", "R4", "R5"]
HAND1 = ["Y1", "Y2", "Y3", "Y4", "Y5"]
HAND2 = ["G1", "G2", "G3", "G4", "G5"]


# ---------------------------------------------------------------- deck
def test_deck_is_the_51_listed_cards() -> None:
    faces = [c.faces[0] for c in CAT.cards]
    assert CAT.size == 51
    for color in ("red", "yellow", "green", "blue"):
        mine = [f for f in faces if f.color == color]
        assert sorted(f.value or 0 for f in mine if f.kind == "number") == list(range(1, 10))
        assert sorted(f.kind.value for f in mine if f.kind != "number") == [
            "draw_one",
            "reverse",
            "skip",
        ]
    wilds = sorted(f.code for f in faces if f.color is None)
    assert wilds == ["W", "WD2", "WDIP"]


def test_metadata_says_the_sheet_says_52_but_lists_51() -> None:
    meta = engine.find_variant(V).metadata()
    assert meta["deck_size"] == 51 and meta["hand_size"] == 5 and meta["target"] == 250
    assert meta["players"] == {"min": 2, "max": 5}
    assert any("52" in n and "51" in n for n in meta["notes"])
    assert "give" in meta["move_types"]


def test_card_values_numbers_face_actions_20_wilds_50() -> None:
    for c in CAT.cards:
        f = c.faces[0]
        expected = f.value if f.kind == "number" else 50 if f.color is None else 20
        assert f.points == expected, c


# ---------------------------------------------------------------- deal
def test_deal_five_cards_to_each_of_two_to_five_players() -> None:
    for n in (2, 5):
        state = engine.new_game(V, n, seed=3)
        assert all(len(h) == 5 for h in state.hands)
        assert len(state.draw_pile) == 51 - 5 * n - len(state.discard)
    for n in (1, 6):
        with pytest.raises(SetupError) as err:
            engine.new_game(V, n, seed=3)
        assert err.value.code == "invalid_player_count"


def test_deal_one_at_a_time_from_the_dealers_left_then_turn_the_top_card() -> None:
    deck = list(range(51))
    state = engine.new_game(V, 3, seed=1, dealer=1, deck=deck)
    assert state.hands[2] == tuple(range(0, 15, 3))
    assert state.hands[0] == tuple(range(1, 15, 3))
    assert state.discard == (15,) and state.draw_pile == tuple(range(16, 51))


def test_turned_number_player_left_of_dealer_goes_first() -> None:
    state = game([HAND0, HAND1, HAND2], "B9", dealer=0)
    assert state.current == 1 and state.pending is None


def test_turned_skip_player_left_of_dealer_is_skipped() -> None:
    state = game([HAND0, HAND1, HAND2], "BS")
    assert state.current == 2


def test_turned_draw_one_that_player_draws_one_and_loses_the_turn() -> None:
    state, events = engine.start(
        V, 3, 7, dealer=0, deck=stacked_deck(V, [HAND0, HAND1, HAND2], "BD1", ("B7",))
    )
    assert codes(state, 1)[-1] == "B7" and len(state.hands[1]) == 6
    assert state.current == 2


def test_turned_reverse_dealer_plays_first_and_play_goes_right() -> None:
    state = game([HAND0, HAND1, HAND2], "BR")
    assert state.current == 0 and state.direction == -1
    state, _ = engine.apply(state, mv("draw", 0))
    if state.pending:
        state, _ = engine.apply(state, mv("pass", 0))
    assert state.current == 2


def test_turned_reverse_two_players_the_player_left_of_the_dealer_is_skipped() -> None:
    state, events = engine.start(V, 2, 7, dealer=0, deck=stacked_deck(V, [HAND0, HAND1], "BR"))
    assert state.current == 0 and state.direction == 1
    assert {"type": "skipped", "player": 1} in events


def test_turned_wild_player_left_of_dealer_names_the_colour_then_plays() -> None:
    state = game([HAND0, HAND1, HAND2], "W")
    assert pend(state).type == "choose_color" and pend(state).player == 1
    assert rules_error(state, mv("play", 1, card=card(state, 1, "Y1"))) == "must_choose_color"
    state, _ = engine.apply(state, mv("choose_color", 1, color="yellow"))
    assert state.current == 1 and state.active_color is Color.YELLOW


@pytest.mark.parametrize("turned", ["WD2", "WDIP"])
def test_turned_wild_draw_two_or_wild_dip_goes_back_at_a_seeded_position(turned: str) -> None:
    deck = stacked_deck(V, [HAND0, HAND1], turned, ("B9",))
    state, events = engine.start(V, 2, 3, dealer=0, deck=deck)
    assert CAT.code[0][state.top] == "B9"
    back = next(c for c in range(51) if CAT.code[0][c] == turned)
    assert back in state.draw_pile
    assert [e["type"] for e in events][1:3] == ["returned_to_deck", "turned_up"]
    again = engine.new_game(V, 2, 3, dealer=0, deck=deck)
    assert again.draw_pile == state.draw_pile


# ---------------------------------------------------------------- a turn
def test_play_matches_by_colour_number_or_symbol_or_any_wild() -> None:
    state = game([HAND0, ["B1", "G9", "RS", "W", "Y5"]], "B9")
    for code in ("B1", "G9"):
        after, _ = engine.apply(state, mv("play", 1, card=card(state, 1, code)))
        assert after.current == 0
    assert rules_error(state, mv("play", 1, card=card(state, 1, "Y5"))) == "does_not_match"
    after, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "W"), color="green"))
    assert after.active_color is Color.GREEN
    symbol = game([HAND0, ["GS", *HAND1[1:]]], "BS", dealer=1)  # seat 0 skipped, seat 1 plays
    assert symbol.current == 1
    assert engine.apply(symbol, mv("play", 1, card=card(symbol, 1, "GS")))[0].current == 1


def test_draw_one_a_playable_drawn_card_may_be_played_or_kept() -> None:
    state = game([HAND0, HAND1], "B9", draw=("B2",))
    state, _ = engine.apply(state, mv("draw", 1))
    assert pend(state).type == "play_drawn"
    kept, _ = engine.apply(state, mv("pass", 1))
    assert kept.current == 0 and len(kept.hands[1]) == 6
    played, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B2")))
    assert played.current == 0 and len(played.hands[1]) == 5


# ---------------------------------------------------------------- action cards
def test_skip_the_next_player_loses_their_turn() -> None:
    state = game([HAND0, ["BS", *HAND1[1:]], HAND2], "B9")
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "BS")))
    assert state.current == 0 and {"type": "skipped", "player": 2} in events


def test_reverse_direction_reverses() -> None:
    state = game([HAND0, ["BR", *HAND1[1:]], HAND2], "B9")
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "BR")))
    assert state.direction == -1 and state.current == 0


def test_reverse_two_players_acts_as_skip() -> None:
    state = game([HAND0, ["BR", *HAND1[1:]]], "B9")
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "BR")))
    assert state.current == 1


def test_draw_one_next_player_draws_one_and_loses_the_turn() -> None:
    state = game([HAND0, ["BD1", *HAND1[1:]], HAND2], "B9", draw=("G7",))
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "BD1")))
    assert codes(state, 2)[-1] == "G7" and len(state.hands[2]) == 6
    assert state.current == 0


def test_wild_may_be_played_on_any_card_and_names_the_colour() -> None:
    state = game([HAND0, ["W", *HAND1[1:]]], "BS", dealer=1)
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "W"), color="red"))
    assert state.active_color is Color.RED and events[0]["color"] == "red"
    plain = game([HAND0, ["W", *HAND1[1:]]], "B9")
    assert rules_error(plain, mv("play", 1, card=card(plain, 1, "W"))) == "color_required"


# ---------------------------------------------------------------- Wild Dip
def dip_game(players: int = 3) -> State:
    hands = [HAND0, ["WDIP", *HAND1[1:]], HAND2][:players]
    state = game(hands, "B9", draw=("B8",))
    return engine.apply(state, mv("play", 1, card=card(state, 1, "WDIP"), color="green"))[0]


def test_wild_dip_names_the_colour_draws_the_top_card_then_gives() -> None:
    state = game([HAND0, ["WDIP", *HAND1[1:]], HAND2], "B9", draw=("B8",))
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "WDIP"), color="green"))
    assert state.active_color is Color.GREEN
    assert codes(state, 1)[-1] == "B8" and len(state.hands[1]) == 5
    drew = next(e for e in events if e["type"] == "drew")
    assert redact_all([drew], 1)[0]["cards"][0]["code"] == "B8"
    assert "cards" not in redact_all([drew], 0)[0] and "cards" not in redact_all([drew], 2)[0]
    assert pend(state).type == "give" and pend(state).player == 1
    assert engine.view(state, 1)["pending"]["card"]["code"] == "B8"
    assert "card" not in engine.view(state, 2)["pending"]
    assert len(engine.legal_moves(state, 1)) == 5  # one give per card


def test_wild_dip_give_must_answer_and_only_the_giver() -> None:
    state = dip_game()
    assert rules_error(state, mv("play", 1, card=card(state, 1, "Y2"))) == "must_give_card"
    assert rules_error(state, mv("draw", 1)) == "must_give_card"
    assert rules_error(state, mv("give", 2, card=card(state, 2, "G1"))) == "not_your_turn"
    assert rules_error(state, mv("give", 1, card=card(state, 0, "R1"))) == "card_not_in_hand"
    assert rules_error(state, mv("give", 1)) == "card_required"
    assert rules_error(state, mv("give", 1, card=card(state, 1, "Y2"), uno=True)) == (
        "uno_not_applicable"
    )
    plain = game([HAND0, HAND1], "B9")
    assert rules_error(plain, mv("give", 1, card=card(plain, 1, "Y2"))) == "nothing_to_give"


def test_wild_dip_the_given_card_goes_to_the_next_player_who_then_plays() -> None:
    state = dip_game()
    y3 = card(state, 1, "Y3")
    state, events = engine.apply(state, mv("give", 1, card=y3))
    assert y3 in state.hands[2] and y3 not in state.hands[1]
    assert len(state.hands[1]) == 4 and len(state.hands[2]) == 6
    assert state.current == 2 and state.pending is None
    gave = next(e for e in events if e["type"] == "gave")
    assert gave["player"] == 1 and gave["target"] == 2
    assert redact_all([gave], 1)[0]["card"]["id"] == y3
    assert redact_all([gave], 2)[0]["card"]["id"] == y3
    assert "card" not in redact_all([gave], 0)[0] and "card" not in redact_all([gave], None)[0]


def test_wild_dip_the_drawn_card_may_be_the_one_given() -> None:
    state = dip_game()
    b8 = card(state, 1, "B8")
    state, _ = engine.apply(state, mv("give", 1, card=b8))
    assert b8 in state.hands[2]


def test_wild_dip_gives_in_the_direction_of_play() -> None:
    hands = [HAND0, ["WDIP", *HAND1[1:]], HAND2]
    state = game(hands, "BR", dealer=2)  # the dealer plays first, to the right
    assert state.current == 2 and state.direction == -1
    state, _ = engine.apply(state, mv("draw", 2))
    if state.pending:
        state, _ = engine.apply(state, mv("pass", 2))
    assert state.current == 1
    state, _ = play(
        state,
        mv("play", 1, card=card(state, 1, "WDIP"), color="red"),
        mv("give", 1, card=card(state, 1, "Y2")),
    )
    assert "Y2" in codes(state, 0) and state.current == 0


def test_wild_dip_as_the_last_card_still_draws_and_gives_and_ends_with_no_cards() -> None:
    state = game([HAND0, ["WDIP", *HAND1[1:]]], "B9", draw=("B8",))
    state = with_hand(state, 1, [card(state, 1, "WDIP")])
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "WDIP"), color="red"))
    assert state.phase is Phase.PLAY and codes(state, 1) == ["B8"]
    assert pend(state).type == "give"
    state, events = engine.apply(state, mv("give", 1, card=card(state, 1, "B8")))
    assert state.phase is Phase.ROUND_OVER and state.round_winner == 1
    assert state.hands[1] == () and codes(state, 0)[-1] == "B8"
    assert state.round_scores == (0, 1 + 2 + 3 + 4 + 5 + 8)


def test_wild_dip_uno_is_said_at_the_give_that_leaves_one_card() -> None:
    state = game([HAND0, ["WDIP", *HAND1[1:]]], "B9", draw=("B8",))
    state = with_hand(state, 1, [card(state, 1, "WDIP"), card(state, 1, "Y2")])
    wdip = card(state, 1, "WDIP")
    assert all(not m.uno for m in engine.legal_moves(state, 1) if m.card == wdip)
    assert rules_error(state, mv("play", 1, card=wdip, color="red", uno=True)) == (
        "uno_not_applicable"
    )
    state, _ = engine.apply(state, mv("play", 1, card=wdip, color="red"))
    assert state.exposed == ()
    said, events = engine.apply(state, mv("give", 1, card=card(state, 1, "B8"), uno=True))
    assert said.exposed == () and {"type": "uno", "player": 1} in events
    silent, _ = engine.apply(state, mv("give", 1, card=card(state, 1, "B8")))
    assert silent.exposed == (1,)
    caught, _ = engine.apply(silent, mv("catch", 0, target=1))
    assert len(caught.hands[1]) == 3


# ---------------------------------------------------------------- Wild Draw Two
def wd2_game(second: str) -> State:
    state = game([HAND0, ["WD2", second, *HAND1[2:]], HAND2], "B9", draw=("G6", "G7", "G8", "G9"))
    return engine.apply(state, mv("play", 1, card=card(state, 1, "WD2"), color="red"))[0]


def test_wild_draw_two_next_player_draws_two_and_loses_the_turn() -> None:
    state = wd2_game("B1")
    assert pend(state).type == "challenge" and pend(state).player == 2
    assert rules_error(state, mv("draw", 2)) == "must_answer_challenge"
    state, _ = engine.apply(state, mv("accept", 2))
    assert codes(state, 2)[-2:] == ["G6", "G7"] and state.current == 0


def test_wild_draw_two_challenge_guilty_player_who_played_it_draws_two() -> None:
    state, events = engine.apply(wd2_game("B1"), mv("challenge", 2))  # held blue
    ch = next(e for e in events if e["type"] == "challenged")
    assert ch["guilty"] is True and "hand" in redact_all([ch], 2)[0]
    assert "hand" not in redact_all([ch], 0)[0]
    assert len(state.hands[1]) == 4 + 2 and len(state.hands[2]) == 5 and state.current == 2


def test_wild_draw_two_challenge_not_guilty_challenger_draws_four_and_loses_the_turn() -> None:
    state, events = engine.apply(wd2_game("Y9"), mv("challenge", 2))
    assert next(e for e in events if e["type"] == "challenged")["guilty"] is False
    assert len(state.hands[2]) == 5 + 4 and state.current == 0


# ---------------------------------------------------------------- UNO
def test_uno_not_said_and_caught_before_the_next_player_moves_draws_two() -> None:
    state = game([HAND0, ["B1", "B2", *HAND1[2:]]], "B9")
    state = with_hand(state, 1, [card(state, 1, "B1"), card(state, 1, "B2")])
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    assert state.exposed == (1,)
    caught, _ = engine.apply(state, mv("catch", 0, target=1))
    assert len(caught.hands[1]) == 3
    moved, _ = engine.apply(state, mv("draw", 0))
    if moved.pending:
        moved, _ = engine.apply(moved, mv("pass", 0))
    assert rules_error(moved, mv("catch", 0, target=1)) == "cannot_catch"


# ---------------------------------------------------------------- end of round, scoring
def test_first_to_play_their_last_card_wins_and_scores_the_opponents_cards() -> None:
    hands = [["R1", "RS", "RD1", "W", "R9"], ["B1", *HAND1[1:]], HAND2]
    state = game(hands, "B9")
    state = with_hand(state, 1, [card(state, 1, "B1")])
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    assert state.phase is Phase.ROUND_OVER and state.round_winner == 1
    assert state.round_scores == (0, (1 + 20 + 20 + 50 + 9) + 15, 0)


@pytest.mark.parametrize(("last", "drawn"), [("BD1", 1), ("WD2", 2)])
def test_last_card_draw_one_or_wild_draw_two_next_player_draws_first(last: str, drawn: int) -> None:
    state = game([HAND0, [last, *HAND1[1:]]], "B9", draw=("G6", "G7"))
    state = with_hand(state, 1, [card(state, 1, last)])
    extra = {"color": "red"} if last == "WD2" else {}
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, last), **extra))
    assert state.phase is Phase.ROUND_OVER
    assert codes(state, 0)[5:] == ["G6", "G7"][:drawn]
    assert round_scores(state)[1] == 15 + 6 + (7 if drawn == 2 else 0)


def test_first_player_to_reach_250_wins_the_game() -> None:
    state = game([HAND0, ["B1", *HAND1[1:]]], "B9")
    state = with_hand(state, 1, [card(state, 1, "B1")])
    state = state._replace(scores=(240, 236))
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    assert state.phase is Phase.GAME_OVER and state.scores == (240, 251)
    assert state.winners == (1,)


def test_state_round_trips_with_a_give_pending() -> None:
    state = dip_game()
    assert engine.from_dict(engine.to_dict(state)) == state
    raw = engine.to_dict(state)
    raw["pending"]["card"] = card(state, 0, "R1")
    with pytest.raises(InvalidState):
        engine.from_dict(raw)


def test_listed_moves_all_apply_during_a_give() -> None:
    state = dip_game(players=2)
    for m in engine.legal_moves(state, 1):
        assert m.type is T.GIVE
        engine.apply(state, m)
    assert Move(T.GIVE, 1, card(state, 1, "Y2")) in engine.legal_moves(state, 1)


# ---------------------------------------------------------------- audit: edge cases
def test_wild_dip_as_the_last_card_cannot_be_caught_during_the_give() -> None:
    # Seat 1 plays a Skip as their second-to-last card without UNO (two players: plays
    # again), then goes out with Wild Dip: they still end with no cards (rule book).
    state = game([HAND0, ["BS", "WDIP", *HAND1[2:]]], "B9", draw=("G6", "G7", "G8"))
    state = with_hand(state, 1, [card(state, 1, "BS"), card(state, 1, "WDIP")])
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "BS")))
    assert state.current == 1 and state.exposed == (1,)
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "WDIP"), color="red"))
    assert pend(state).type == "give" and codes(state, 1) == ["G6"]
    assert state.exposed == ()
    assert engine.legal_moves(state, 0) == []
    assert rules_error(state, mv("catch", 0, target=1)) == "cannot_catch"
    state, _ = engine.apply(state, mv("give", 1, card=card(state, 1, "G6")))
    assert state.phase is Phase.ROUND_OVER and state.hands[1] == ()


def test_wild_dip_on_an_empty_draw_pile_reshuffles_and_draws() -> None:
    state = game([HAND0, ["WDIP", *HAND1[1:]]], "B9")
    # Every other card is in seat 0's hand: only the Blue 9 under the Wild Dip is left.
    state = state._replace(draw_pile=(), hands=(state.hands[0] + state.draw_pile, state.hands[1]))
    engine.check_invariants(state)
    b9 = state.top
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "WDIP"), color="red"))
    assert [e["type"] for e in events] == ["played", "reshuffled", "drew"]
    assert state.hands[1][-1] == b9 and pend(state).type == "give"
    assert CAT.code[0][state.top] == "WDIP" and state.discard == (state.top,)


def test_wild_draw_two_challenge_rule_any_playable_counts_number_matches() -> None:
    state = game(
        [HAND0, ["WD2", "Y9", *HAND1[2:]], HAND2],
        "B9",
        draw=("G6", "G7", "G8", "G9"),
        challenge_rule="any_playable",
    )
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "WD2"), color="red"))
    state, events = engine.apply(state, mv("challenge", 2))
    assert next(e for e in events if e["type"] == "challenged")["guilty"] is True
    assert len(state.hands[1]) == 4 + 2 and state.current == 2


def test_wild_draw_two_challenge_ignores_wild_cards_in_the_hand() -> None:
    state, events = engine.apply(wd2_game("W"), mv("challenge", 2))
    assert next(e for e in events if e["type"] == "challenged")["guilty"] is False


def test_catch_during_a_pending_challenge_keeps_the_decision() -> None:
    state = game([HAND0, ["WD2", "Y9", *HAND1[2:]], HAND2], "B9", draw=("G6", "G7"))
    state = with_hand(state, 1, [card(state, 1, "WD2"), card(state, 1, "Y9")])
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "WD2"), color="red"))
    assert state.exposed == (1,)
    state, _ = engine.apply(state, mv("catch", 2, target=1))
    assert len(state.hands[1]) == 3 and pend(state).type == "challenge"
    assert pend(state).player == 2


def test_next_round_the_deal_passes_left() -> None:
    state = game([HAND0, ["B1", *HAND1[1:]], HAND2], "B9", dealer=2)
    state = with_hand(state, 1, [card(state, 1, "B1")])
    assert state.current == 0
    state, _ = engine.apply(state, mv("draw", 0))
    if state.pending:
        state, _ = engine.apply(state, mv("pass", 0))
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    assert state.phase is Phase.ROUND_OVER
    nxt, events = engine.apply(state, mv("next_round", 1))
    assert nxt.dealer == 0 and nxt.round == 2
    assert events[0] == {"type": "round_started", "round": 2, "dealer": 0}
    assert all(len(h) == 5 for h in nxt.hands)
    if nxt.pending is None and CAT.kind[0][nxt.top].value == "number":
        assert nxt.current == 1  # the player left of the new dealer goes first


def test_game_ends_when_a_total_reaches_exactly_250() -> None:
    state = game([HAND0, ["B1", *HAND1[1:]]], "B9")
    state = with_hand(state, 1, [card(state, 1, "B1")])
    state = state._replace(scores=(0, 235))
    over, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    assert over.scores == (0, 250) and over.phase is Phase.GAME_OVER and over.winners == (1,)
    state = state._replace(scores=(0, 234))
    on, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    assert on.scores == (0, 249) and on.phase is Phase.ROUND_OVER


def test_tied_totals_at_the_target_are_shared_wins() -> None:
    v = engine.find_variant(V)
    assert v.game_winners((250, 250, 10), 250) == (0, 1)
    assert v.game_winners((249, 10), 250) == ()
