"""Rule tests for UNO Duo (``uno-duo.md``) and the README rules it uses.

Each test is named after the rule line it checks. Decks are stacked for the draft:
``drafted`` builds a deck where every draft turn draws the wanted card and keeps it
(the second card of each turn is burned), then turns ``turned`` and leaves ``draw`` on
top of the draw pile. Player 1 is seat 0 unless a test says otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine import Color, InvalidState, Move, MoveType, Phase, State
from engine.events import redact_all
from tests.support import (
    DeckBuilder,
    card,
    codes,
    mv,
    pend,
    play,
    rules_error,
    top_deck,
    with_hand,
)

V = "uno_duo"
T = MoveType
CAT = engine.find_variant(V).catalog

# Filler hands that do not match each other by accident.
HAND0 = ["R1", "R2", "R3", "R4", "R5", "R6", "R7"]
HAND1 = ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"]


def draft_deck(
    hand1: list[str], hand2: list[str], turned: str, draw: tuple[str, ...] = ()
) -> list[int]:
    """A deck for a draft where Player 1 keeps ``hand1`` and Player 2 ``hand2`` (each
    keeping the card drawn), then ``turned`` is turned up and ``draw`` lies on top."""
    b = DeckBuilder(V)
    h1 = [b.take(c) for c in hand1]
    h2 = [b.take(c) for c in hand2]
    top = b.take(turned)
    rest_top = [b.take(c) for c in draw]
    rest = b.rest()
    burns, rest = rest[-14:], rest[:-14]  # the wild end of the catalog: no accidental matches
    deck: list[int] = []
    for i in range(7):
        deck += [h1[i], burns[2 * i], h2[i], burns[2 * i + 1]]
    return deck + [top, *rest_top, *rest]


def game(
    hand1: list[str] = HAND0,
    hand2: list[str] = HAND1,
    turned: str = "B9",
    draw: tuple[str, ...] = (),
    dealer: int = 0,
    **options: Any,
) -> State:
    """The state after a draft in which both players kept every card drawn."""
    deck = draft_deck(hand1, hand2, turned, draw)
    state = engine.new_game(V, 2, seed=5, dealer=dealer, deck=deck, options=options or None)
    for _ in range(14):
        state, _ = engine.apply(state, mv("draft_keep", pend(state).player))
    return state


# ---------------------------------------------------------------- deck
def test_deck_is_the_classic_108_plus_four_wilds() -> None:
    kinds = [c.faces[0].kind.value for c in CAT.cards]
    assert CAT.size == 112
    assert kinds.count("wild") == 8 and kinds.count("wild_draw_four") == 4
    for k in ("skip", "reverse", "draw_two"):
        assert kinds.count(k) == 8
    meta = engine.find_variant(V).metadata()
    assert meta["deck_size"] == 112 and meta["players"] == {"min": 2, "max": 2}
    assert meta["target"] == 200 and meta["winner_rule"] == "lowest"


def test_card_values_numbers_face_actions_10_wild_15_wild_draw_four_20() -> None:
    for c in CAT.cards:
        f = c.faces[0]
        expected = {"number": f.value, "wild": 15, "wild_draw_four": 20}.get(f.kind.value, 10)
        assert f.points == expected, c


# ---------------------------------------------------------------- who is Player 1
def test_cut_for_high_card_makes_player_1_who_drafts_first() -> None:
    for seed in range(10):
        state, events = engine.start(V, 2, seed)
        cut = events[0]
        assert cut["type"] == "dealer_cut"
        assert state.dealer == cut["winner"]
        assert state.phase is Phase.DRAFT and pend(state).type == "draft"
        assert pend(state).player == state.dealer
        assert engine.view(state, 0)["player1"] == state.dealer


def test_given_deck_dealer_names_player_1() -> None:
    state = engine.new_game(V, 2, seed=1, dealer=1, deck=list(range(112)))
    assert pend(state).player == 1 and pend(state).card == 0
    state = engine.new_game(V, 2, seed=1, deck=list(range(112)))
    assert pend(state).player == 0


def test_player_1_alternates_every_round() -> None:
    state = game(["R1", *HAND0[1:]], turned="R9")
    state = with_hand(state, 1, [card(state, 1, "Y1")])
    state = with_hand(state, 0, [card(state, 0, "R1")])
    state, _ = engine.apply(state, mv("draw", 1))  # Y? or anything: P2 draws
    if state.pending is not None:
        state, _ = engine.apply(state, mv("pass", 1))
    state, _ = engine.apply(state, mv("play", 0, card=card(state, 0, "R1")))
    assert state.phase is Phase.ROUND_OVER
    state, _ = engine.apply(state, mv("next_round", 1))
    assert state.phase is Phase.DRAFT and state.dealer == 1 and pend(state).player == 1
    assert state.round == 2


# ---------------------------------------------------------------- drafting
def test_draft_player_1_draws_the_top_card_only_they_see_it() -> None:
    deck = top_deck(V, ["B5", "G7"])
    state, events = engine.start(V, 2, 3, deck=deck)
    b5 = deck[0]
    assert pend(state).type == "draft" and pend(state).card == b5
    assert engine.view(state, 0)["pending"]["card"] == {"id": b5, "code": "B5"}
    assert "card" not in engine.view(state, 1)["pending"]
    assert "card" not in engine.view(state, None)["pending"]
    drew = [e for e in events if e["type"] == "draft_drew"]
    assert redact_all(drew, 0)[0]["card"]["id"] == b5
    assert "card" not in redact_all(drew, 1)[0]
    assert engine.view(state, 1)["hand_sizes"] == [0, 0]
    assert engine.legal_moves(state, 0) == [Move(T.DRAFT_KEEP, 0), Move(T.DRAFT_DISCARD, 0)]
    assert engine.legal_moves(state, 1) == []


def test_draft_keep_takes_the_card_and_burns_the_next_face_up() -> None:
    deck = top_deck(V, ["B5", "G7", "Y3"])
    state = engine.new_game(V, 2, 3, deck=deck)
    state, events = engine.apply(state, mv("draft_keep", 0))
    assert state.hands[0] == (deck[0],)
    assert state.ext.draft_discard == (deck[1],)
    assert {"type": "draft_burned", "player": 0, "card": {"id": deck[1], "code": "G7"}} in events
    assert pend(state).player == 1 and pend(state).card == deck[2]  # Player 2 drafts


def test_draft_discard_puts_the_card_face_up_and_the_next_must_be_kept() -> None:
    deck = top_deck(V, ["B5", "G7", "Y3"])
    state = engine.new_game(V, 2, 3, deck=deck)
    state, events = engine.apply(state, mv("draft_discard", 0))
    assert state.ext.draft_discard == (deck[0],)
    assert state.hands[0] == (deck[1],)
    assert {"type": "draft_discarded", "player": 0, "card": {"id": deck[0], "code": "B5"}} in events
    kept = next(e for e in events if e["type"] == "drew")
    assert redact_all([kept], 0)[0]["cards"] == [{"id": deck[1], "code": "G7"}]
    assert "cards" not in redact_all([kept], 1)[0]
    assert pend(state).player == 1


def test_draft_discard_pile_is_public_during_the_draft() -> None:
    deck = top_deck(V, ["B5", "G7", "Y3"])
    state = engine.new_game(V, 2, 3, deck=deck)
    state, _ = engine.apply(state, mv("draft_discard", 0))
    for seat in (0, 1, None):
        assert engine.view(state, seat)["draft_discard"] == [{"id": deck[0], "code": "B5"}]
    assert engine.view(state, 1)["phase"] == "draft"


def test_draft_alternates_until_each_holds_seven_and_14_are_discarded() -> None:
    deck = list(range(112))
    state = engine.new_game(V, 2, 3, deck=deck)
    order = []
    for i in range(14):
        order.append(pend(state).player)
        state, _ = engine.apply(
            state, mv("draft_keep" if i % 3 else "draft_discard", pend(state).player)
        )
        if i < 13:
            assert state.phase is Phase.DRAFT
            assert len(state.ext.draft_discard) == sum(map(len, state.hands))
    assert order == [0, 1] * 7
    assert [len(h) for h in state.hands] == [7, 7]
    assert state.phase is Phase.PLAY


def test_draft_discards_go_face_down_under_the_draw_pile_unshuffled() -> None:
    state = engine.new_game(V, 2, 3, deck=list(range(112)))
    expected = []
    for i in range(14):
        # Turn i uses deck cards 2i and 2i+1: a discard puts 2i down, a keep burns 2i+1.
        discard = i % 3 == 0
        expected.append(2 * i if discard else 2 * i + 1)
        move = "draft_discard" if discard else "draft_keep"
        state, events = engine.apply(state, mv(move, pend(state).player))
    assert {"type": "draft_over", "under_draw_pile": 14} in events
    # Card 28 is turned up; the rest of the deck follows, then the 14 discards: the first
    # discarded on top of them, the last at the very bottom.
    assert state.discard == (28,)
    assert state.draw_pile == tuple(range(29, 112)) + tuple(expected)
    assert state.ext.draft_discard == ()
    assert sorted(set().union(*state.hands) | set(expected)) == list(range(28))


def test_top_card_of_the_draw_pile_starts_the_discard_pile() -> None:
    state = game(turned="G5")
    assert CAT.code[0][state.top] == "G5" and state.active_color is Color.GREEN
    assert len(state.draw_pile) == 112 - 14 - 1


def test_draft_moves_only_by_the_drafter_and_only_while_drafting() -> None:
    state = engine.new_game(V, 2, 3, deck=list(range(112)))
    assert rules_error(state, mv("draft_keep", 1)) == "not_your_turn"
    assert rules_error(state, mv("draw", 0)) == "must_draft"
    assert rules_error(state, mv("play", 0, card=0)) == "must_draft"
    assert rules_error(state, mv("catch", 0, target=1)) == "cannot_catch"
    played = game()
    assert rules_error(played, mv("draft_keep", 1)) == "not_drafting"
    assert rules_error(played, mv("draft_discard", 1)) == "not_drafting"


# ---------------------------------------------------------------- the turned-up card
def test_turned_number_player_2_takes_a_normal_first_turn() -> None:
    state = game(turned="B9")
    assert state.current == 1 and state.pending is None


def test_turned_draw_two_player_2_draws_two_and_the_turn_ends() -> None:
    state = game(["RD2", *HAND0[1:]], ["YD2", *HAND1[1:]], turned="BD2", draw=("G8", "G9"))
    assert codes(state, 1)[-2:] == ["G8", "G9"] and len(state.hands[1]) == 9
    assert state.current == 0 and state.pending is None  # no stacking
    assert engine.view(state, 0)["draw_stack"] == 0


def test_turned_wild_draw_four_player_1_names_the_colour_then_player_2_draws_four() -> None:
    state = game(turned="WD4", draw=("G1", "G2", "G3", "G4"))
    assert pend(state).type == "choose_color" and pend(state).player == 0
    assert rules_error(state, mv("choose_color", 1, color="red")) == "not_your_turn"
    state, events = engine.apply(state, mv("choose_color", 0, color="blue"))
    assert state.active_color is Color.BLUE
    assert codes(state, 1)[-4:] == ["G1", "G2", "G3", "G4"]
    assert state.current == 0 and state.pending is None  # no challenge; Player 1 plays


def test_turned_wild_player_1_names_the_colour_then_player_2_plays() -> None:
    state = game(turned="W", dealer=1)  # seat 1 is Player 1
    assert pend(state).type == "choose_color" and pend(state).player == 1
    state, _ = engine.apply(state, mv("choose_color", 1, color="yellow"))
    assert state.current == 0 and state.pending is None and state.active_color is Color.YELLOW


def test_turned_skip_player_1_plays_first() -> None:
    state = game(turned="BS")
    assert state.current == 0 and state.pending is None


def test_turned_reverse_player_2_must_play_every_card_of_its_colour() -> None:
    hand2 = ["B1", "BS", "B7", "Y4", "Y5", "W", "Y7"]
    state = game(hand2=hand2, turned="BR")
    assert pend(state).type == "forced_run" and pend(state).player == 1
    assert engine.view(state, 1)["pending"]["color"] == "blue"
    b1, bs, b7 = card(state, 1, "B1"), card(state, 1, "BS"), card(state, 1, "B7")
    assert rules_error(state, mv("draw", 1)) == "must_play_run"
    assert rules_error(state, mv("play", 1, card=b1, chain=[b7])) == "run_incomplete"
    wild = card(state, 1, "W")
    assert rules_error(state, mv("play", 1, card=b1, chain=[b7, bs, wild])) == "run_wrong_color"
    assert rules_error(state, mv("play", 1, card=b1, chain=[b7, b7, bs])) == "chain_duplicate"
    # One listed move per distinct last card; any order is accepted.
    listed = engine.legal_moves(state, 1)
    assert sorted((m.chain or ())[-1] for m in listed) == sorted([b1, bs, b7])
    after, events = engine.apply(state, mv("play", 1, card=b7, chain=[bs, b1]))
    assert [e["card"]["code"] for e in events if e["type"] == "played"] == ["B7", "BS", "B1"]
    assert after.current == 0 and after.top == b1  # a last number passes the turn
    # Ending with the Skip: Player 2 plays again.
    after, _ = engine.apply(state, mv("play", 1, card=b1, chain=[b7, bs]))
    assert after.current == 1 and after.pending is None


def test_turned_reverse_with_no_card_of_its_colour_player_2_takes_a_normal_turn() -> None:
    state = game(turned="BR")
    assert state.pending is None and state.current == 1


def test_turned_reverse_single_card_of_its_colour_is_played_alone() -> None:
    state = game(hand2=["BD2", *HAND1[1:]], turned="BR")
    listed = engine.legal_moves(state, 1)
    assert listed == [Move(T.PLAY, 1, card(state, 1, "BD2"))]
    state, _ = engine.apply(state, listed[0])
    assert pend(state).type == "volley" and pend(state).player == 0


# ---------------------------------------------------------------- a turn
def test_play_matches_by_colour_number_or_action_or_any_wild() -> None:
    state = game(hand2=["B1", "G9", "W", "WD4", "Y5", "Y6", "Y7"], turned="B9")
    for code in ("B1", "G9"):
        after, _ = engine.apply(state, mv("play", 1, card=card(state, 1, code)))
        assert after.current == 0
    after, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "W"), color="red"))
    assert after.active_color is Color.RED and after.current == 0
    assert rules_error(state, mv("play", 1, card=card(state, 1, "Y5"))) == "does_not_match"
    assert rules_error(state, mv("play", 1, card=card(state, 1, "W"))) == "color_required"
    assert rules_error(state, mv("play", 0, card=card(state, 0, "R1"))) == "not_your_turn"


def test_play_is_optional_draw_one_and_a_playable_drawn_card_may_be_kept() -> None:
    state = game(hand2=["B1", *HAND1[1:]], turned="B9", draw=("B4",))
    state, _ = engine.apply(state, mv("draw", 1))
    assert pend(state).type == "play_drawn" and codes(state, 1)[-1] == "B4"
    kept, _ = engine.apply(state, mv("pass", 1))
    assert kept.current == 0 and len(kept.hands[1]) == 8
    played, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B4")))
    assert played.current == 0 and len(played.hands[1]) == 7


def test_an_unplayable_drawn_card_ends_the_turn() -> None:
    state = game(turned="B9", draw=("G4",))
    state, _ = engine.apply(state, mv("draw", 1))
    assert state.pending is None and state.current == 0


# ---------------------------------------------------------------- Draw Two volley
def test_draw_two_starts_a_volley_with_draw_stack_in_the_view() -> None:
    state = game(hand2=["BD2", *HAND1[1:]], turned="B9")
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "BD2")))
    assert pend(state).type == "volley" and pend(state).player == 0
    for seat in (0, 1, None):
        assert engine.view(state, seat)["draw_stack"] == 2
    assert engine.view(state, 0)["pending"]["draw_stack"] == 2


def test_volley_example_each_draw_two_adds_two_and_the_first_who_stops_draws_all() -> None:
    hand1 = ["RD2", "GD2", *HAND0[2:]]
    hand2 = ["BD2", "YD2", "Y3", "Y4", "Y5", "Y6", "Y7"]
    state = game(hand1, hand2, turned="B9", draw=tuple(f"G{n}" for n in range(1, 7)))
    state, _ = play(
        state,
        mv("play", 1, card=card(state, 1, "BD2")),  # 2
        mv("play", 0, card=card(state, 0, "RD2")),  # 4 (any colour)
        mv("play", 1, card=card(state, 1, "YD2")),  # 6
    )
    assert pend(state).player == 0 and state.ext.draw_stack == 6
    state, events = engine.apply(state, mv("draw", 0))  # declines with a Draw Two in hand
    drew = next(e for e in events if e["type"] == "drew")
    assert drew["player"] == 0 and drew["count"] == 6
    assert len(state.hands[0]) == 6 + 6 and state.pending is None
    assert state.current == 1 and engine.view(state, 1)["draw_stack"] == 0


def test_only_draw_two_cards_continue_a_volley() -> None:
    hand1 = ["RD2", "WD4", "BS", *HAND0[3:]]
    state = game(hand1, ["BD2", *HAND1[1:]], turned="B9")
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "BD2")))
    for code, extra in (("BS", {}), ("WD4", {"color": "red"}), ("R4", {})):
        move = mv("play", 0, card=card(state, 0, code), **extra)
        assert rules_error(state, move) == "must_continue_or_draw"
    assert rules_error(state, mv("pass", 0)) == "must_continue_or_draw"
    listed = engine.legal_moves(state, 0)
    assert listed == [Move(T.PLAY, 0, card(state, 0, "RD2")), Move(T.DRAW, 0)]


# ---------------------------------------------------------------- Skip
def test_skip_the_player_plays_again_at_once() -> None:
    state = game(hand2=["BS", *HAND1[1:]], turned="B9")
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "BS")))
    assert state.current == 1 and state.pending is None
    assert {"type": "skipped", "player": 0} in events


# ---------------------------------------------------------------- Reverse
REV_HAND = ["BR", "B3", "BS", "BD2", "Y5", "W", "Y7"]


def test_reverse_played_alone_passes_the_turn() -> None:
    state = game(hand2=REV_HAND, turned="B9")
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "BR")))
    assert state.current == 0 and state.direction == 1 and state.pending is None


def test_reverse_run_all_of_the_colour_or_none() -> None:
    state = game(hand2=REV_HAND, turned="B9")
    br, b3, bs, bd2 = (card(state, 1, c) for c in ("BR", "B3", "BS", "BD2"))
    assert rules_error(state, mv("play", 1, card=br, chain=[b3, bs])) == "run_incomplete"
    after, events = engine.apply(state, mv("play", 1, card=br, chain=[bd2, bs, b3]))
    assert [e["card"]["code"] for e in events if e["type"] == "played"] == ["BR", "BD2", "BS", "B3"]
    assert codes(after, 1) == ["Y5", "W", "Y7"]


def test_reverse_run_only_the_last_cards_effect_applies() -> None:
    state = game(hand2=REV_HAND, turned="B9")
    br, b3, bs, bd2 = (card(state, 1, c) for c in ("BR", "B3", "BS", "BD2"))
    last_number, _ = engine.apply(state, mv("play", 1, card=br, chain=[bd2, bs, b3]))
    assert last_number.current == 0 and last_number.pending is None  # middle D2 / Skip ignored
    last_skip, _ = engine.apply(state, mv("play", 1, card=br, chain=[bd2, b3, bs]))
    assert last_skip.current == 1 and last_skip.pending is None
    last_d2, _ = engine.apply(state, mv("play", 1, card=br, chain=[bs, b3, bd2]))
    assert pend(last_d2).type == "volley" and last_d2.ext.draw_stack == 2


def test_reverse_run_last_reverse_passes_the_turn() -> None:
    state = game(hand2=["BR", "BR", "BS", *HAND1[3:]], turned="B9")
    r1, r2, bs = card(state, 1, "BR"), card(state, 1, "BR", 1), card(state, 1, "BS")
    after, _ = engine.apply(state, mv("play", 1, card=r1, chain=[bs, r2]))
    assert after.current == 0 and after.top == r2


def test_reverse_run_legal_moves_one_per_distinct_last_card_and_any_order_accepted() -> None:
    state = game(hand2=REV_HAND, turned="B9")
    br, b3, bs, bd2 = (card(state, 1, c) for c in ("BR", "B3", "BS", "BD2"))
    runs = [m for m in engine.legal_moves(state, 1) if m.chain]
    assert sorted((m.chain or ())[-1] for m in runs) == sorted([b3, bs, bd2])
    assert all(m.card == br and sorted(m.chain or ()) == sorted([b3, bs, bd2]) for m in runs)
    assert Move(T.PLAY, 1, br) in engine.legal_moves(state, 1)  # the Reverse alone
    for order in ([b3, bs, bd2], [bs, b3, bd2]):
        after, _ = engine.apply(state, mv("play", 1, card=br, chain=order))
        assert after.top == bd2


def test_wild_cards_are_never_part_of_a_run() -> None:
    state = game(hand2=REV_HAND, turned="B9")
    br, b3, bs, bd2, w = (card(state, 1, c) for c in ("BR", "B3", "BS", "BD2", "W"))
    move = mv("play", 1, card=br, chain=[b3, bs, bd2, w])
    assert rules_error(state, move) == "run_wrong_color"
    assert not any(w in (m.chain or ()) for m in engine.legal_moves(state, 1))


def test_a_run_needs_a_reverse_first_and_its_own_cards() -> None:
    state = game(hand2=REV_HAND, turned="B9")
    br, b3, bs, bd2 = (card(state, 1, c) for c in ("BR", "B3", "BS", "BD2"))
    assert rules_error(state, mv("play", 1, card=b3, chain=[br, bs, bd2])) == "chain_not_allowed"
    assert rules_error(state, mv("play", 1, card=br, chain=[b3, bs, bd2, 0])) == "card_not_in_hand"
    assert rules_error(state, mv("play", 1, card=br, chain=[b3, bs, bd2, br])) == "chain_duplicate"


def test_reverse_run_from_another_colours_reverse_takes_the_played_reverses_colour() -> None:
    state = game(hand2=["GR", "G3", *HAND1[2:]], turned="BR", dealer=0)
    # Player 2 holds no blue: a normal turn; the green Reverse matches by symbol.
    gr, g3 = card(state, 1, "GR"), card(state, 1, "G3")
    after, _ = engine.apply(state, mv("play", 1, card=gr, chain=[g3]))
    assert after.top == g3 and after.active_color is Color.GREEN and after.current == 0


def test_a_drawn_reverse_may_lead_a_run() -> None:
    state = game(hand2=["B3", *HAND1[1:]], turned="B9", draw=("BR",))
    state, _ = engine.apply(state, mv("draw", 1))
    br, b3 = card(state, 1, "BR"), card(state, 1, "B3")
    assert Move(T.PLAY, 1, br, chain=(b3,)) in engine.legal_moves(state, 1)
    after, _ = engine.apply(state, mv("play", 1, card=br, chain=[b3]))
    assert after.top == b3 and after.current == 0


# ---------------------------------------------------------------- Wild, Wild Draw Four
def test_wild_names_the_colour_the_opponent_must_play() -> None:
    state = game(hand2=["W", *HAND1[1:]], turned="B9")
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "W"), color="red"))
    assert state.active_color is Color.RED and state.current == 0
    assert events[0]["color"] == "red"


def wd4_game() -> State:
    # Player 2 holds a blue card (the colour in play): playing WD4 is guilty.
    state = game(hand2=["WD4", "B1", *HAND1[2:]], turned="B9")
    return engine.apply(state, mv("play", 1, card=card(state, 1, "WD4"), color="red"))[0]


def test_wild_draw_four_opponent_draws_four_and_the_player_takes_another_turn() -> None:
    state = wd4_game()
    assert pend(state).type == "challenge" and pend(state).player == 0
    state, events = engine.apply(state, mv("accept", 0))
    assert len(state.hands[0]) == 11 and state.current == 1 and state.pending is None


def test_wild_draw_four_challenge_guilty_player_draws_four_opponent_plays() -> None:
    state, events = engine.apply(wd4_game(), mv("challenge", 0))
    ch = next(e for e in events if e["type"] == "challenged")
    assert ch["guilty"] is True
    assert len(state.hands[1]) == 6 + 4 and len(state.hands[0]) == 7
    assert state.current == 0


def test_wild_draw_four_challenge_not_guilty_challenger_draws_six_player_plays_again() -> None:
    state = game(hand2=["WD4", "G1", *HAND1[2:]], turned="B9")
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "WD4"), color="red"))
    state, events = engine.apply(state, mv("challenge", 0))
    ch = next(e for e in events if e["type"] == "challenged")
    assert ch["guilty"] is False
    assert "hand" in redact_all([ch], 0)[0] and "hand" not in redact_all([ch], 1)[0]
    assert len(state.hands[0]) == 13 and state.current == 1


# ---------------------------------------------------------------- UNO
def test_uno_not_said_opponent_catches_and_player_draws_two() -> None:
    state = game(hand2=["B1", "B2", *HAND1[2:]], turned="B9")
    state = with_hand(state, 1, [card(state, 1, "B1"), card(state, 1, "B2")])
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    assert state.exposed == (1,)
    state, events = engine.apply(state, mv("catch", 0, target=1))
    assert len(state.hands[1]) == 3 and {"type": "caught", "player": 0, "target": 1} in events


def test_uno_said_with_a_run_that_leaves_one_card() -> None:
    state = game(hand2=REV_HAND, turned="B9")
    keep = [card(state, 1, c) for c in ("BR", "B3", "Y5")]
    state = with_hand(state, 1, keep)
    br, b3 = keep[0], keep[1]
    assert Move(T.PLAY, 1, br, chain=(b3,), uno=True) in engine.legal_moves(state, 1)
    assert rules_error(state, mv("play", 1, card=br, uno=True)) == "uno_not_applicable"
    after, events = engine.apply(state, mv("play", 1, card=br, chain=[b3], uno=True))
    assert after.exposed == () and {"type": "uno", "player": 1} in events


# ---------------------------------------------------------------- scoring
def test_player_who_goes_out_scores_zero_the_other_scores_their_own_hand() -> None:
    state = game(hand2=["B1", *HAND1[1:]], turned="B9")
    state = with_hand(state, 1, [card(state, 1, "B1")])
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    assert state.phase is Phase.ROUND_OVER and state.round_winner == 1
    assert state.round_scores == (1 + 2 + 3 + 4 + 5 + 6 + 7, 0)
    assert state.scores == (28, 0)


def test_going_out_with_draw_two_opponent_draws_before_scoring() -> None:
    state = game(hand2=["BD2", *HAND1[1:]], turned="B9", draw=("G8", "G9"))
    state = with_hand(state, 1, [card(state, 1, "BD2")])
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "BD2")))
    assert state.phase is Phase.ROUND_OVER and codes(state, 0)[-2:] == ["G8", "G9"]
    assert state.round_scores == (28 + 17, 0)


def test_going_out_with_draw_two_in_a_volley_opponent_draws_the_whole_total() -> None:
    hand1 = ["RD2", *HAND0[1:]]
    state = game(hand1, ["BD2", "YD2", *HAND1[2:]], turned="B9", draw=("G1", "G2"))
    state = with_hand(state, 1, [card(state, 1, "BD2"), card(state, 1, "YD2")])
    state, _ = play(
        state,
        mv("play", 1, card=card(state, 1, "BD2"), uno=True),
        mv("play", 0, card=card(state, 0, "RD2")),
        mv("play", 1, card=card(state, 1, "YD2")),
    )
    assert state.phase is Phase.ROUND_OVER and len(state.hands[0]) == 6 + 6


def test_game_ends_when_a_total_reaches_200_and_the_lowest_total_wins() -> None:
    state = game(hand2=["B1", *HAND1[1:]], turned="B9")
    state = with_hand(state, 1, [card(state, 1, "B1")])
    state = state._replace(scores=(180, 150))
    state, events = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    assert state.phase is Phase.GAME_OVER and state.scores == (208, 150)
    assert state.winners == (1,)
    assert events[-1] == {"type": "game_over", "winners": [1], "scores": [208, 150]}


def test_game_goes_on_below_200() -> None:
    state = game(hand2=["B1", *HAND1[1:]], turned="B9")
    state = with_hand(state, 1, [card(state, 1, "B1")])
    state = state._replace(scores=(150, 190))
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "B1")))
    assert state.phase is Phase.ROUND_OVER and state.scores == (178, 190)


# ---------------------------------------------------------------- state
def test_state_round_trips_during_the_draft_and_a_volley() -> None:
    state = engine.new_game(V, 2, 3, deck=list(range(112)))
    state, _ = engine.apply(state, mv("draft_discard", 0))
    assert engine.from_dict(engine.to_dict(state)) == state
    volley = game(hand2=["BD2", *HAND1[1:]], turned="B9")
    volley, _ = engine.apply(volley, mv("play", 1, card=card(volley, 1, "BD2")))
    assert engine.from_dict(engine.to_dict(volley)) == volley
    forced = game(hand2=["B1", "B2", *HAND1[2:]], turned="BR")
    assert engine.from_dict(engine.to_dict(forced)) == forced


@pytest.mark.parametrize(
    "ext",
    [None, {"draft_discard": [], "draw_stack": 3}, {"draft_discard": [999], "draw_stack": 0},
     {"draft_discard": [], "draw_stack": 2}, {"draw_stack": 0}],
)  # fmt: skip
def test_bad_ext_is_an_invalid_state(ext: Any) -> None:
    raw = engine.to_dict(game())
    raw["ext"] = ext
    with pytest.raises(InvalidState):
        engine.from_dict(raw)


def test_draft_card_is_counted_once() -> None:
    state = engine.new_game(V, 2, 3, deck=list(range(112)))
    raw = engine.to_dict(state)
    raw["draw_pile"].append(raw["pending"]["card"])
    with pytest.raises(InvalidState):
        engine.from_dict(raw)


# ---------------------------------------------------------------- audit: edge cases
def test_volley_when_the_draw_pile_runs_out_reshuffles_and_draws_what_there_is() -> None:
    state = game(["RD2", *HAND0[1:]], ["BD2", "YD2", *HAND1[2:]], turned="B9")
    state, _ = play(
        state,
        mv("play", 1, card=card(state, 1, "BD2")),
        mv("play", 0, card=card(state, 0, "RD2")),
        mv("play", 1, card=card(state, 1, "YD2")),
    )
    # One card left to draw; everything else is in Player 1's hand.
    pile = state.draw_pile
    state = state._replace(draw_pile=pile[:1], hands=(state.hands[0] + pile[1:], state.hands[1]))
    engine.check_invariants(state)
    assert state.ext.draw_stack == 6 and len(state.discard) == 4
    before = len(state.hands[0])
    state, events = engine.apply(state, mv("draw", 0))
    assert [e["type"] for e in events] == ["reshuffled", "drew"]
    drew = events[1]
    # 1 from the pile, then the 3 discards under the top: 4 of the 6.
    assert drew["count"] == 4 and len(state.hands[0]) == before + 4
    assert len(state.discard) == 1 and CAT.code[0][state.top] == "YD2"
    assert state.pending is None and state.ext.draw_stack == 0 and state.current == 1


def test_turned_reverse_forced_run_that_empties_the_hand_ends_the_round() -> None:
    hand2 = ["B1", "B2", "B3", "B4", "B5", "B6", "BD2"]
    state = game(hand2=hand2, turned="BR", draw=("G1", "G2"))
    listed = engine.legal_moves(state, 1)
    assert len(listed) == 7 and not any(m.uno for m in listed)  # one per last card
    bd2 = card(state, 1, "BD2")
    run = next(m for m in listed if (m.chain or ())[-1] == bd2)
    state, events = engine.apply(state, run)
    assert state.phase is Phase.ROUND_OVER and state.round_winner == 1
    assert codes(state, 0)[-2:] == ["G1", "G2"]  # the last Draw Two is drawn first
    assert state.round_scores == (28 + 3, 0) and state.ext.draw_stack == 0


def test_turned_reverse_forced_run_leaving_one_card_may_say_uno() -> None:
    hand2 = ["B1", "B2", "B3", "B4", "B5", "B6", "Y7"]
    state = game(hand2=hand2, turned="BR")
    listed = engine.legal_moves(state, 1)
    assert {m.uno for m in listed} == {False, True}
    silent = next(m for m in listed if not m.uno)
    after, _ = engine.apply(state, silent)
    assert after.exposed == (1,) and after.current == 0
    caught, _ = engine.apply(after, mv("catch", 0, target=1))
    assert len(caught.hands[1]) == 3


def test_catch_during_a_pending_volley_keeps_the_volley() -> None:
    state = game(["RD2", *HAND0[1:]], ["BD2", "Y2", *HAND1[2:]], turned="B9")
    state = with_hand(state, 1, [card(state, 1, "BD2"), card(state, 1, "Y2")])
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "BD2")))
    assert state.exposed == (1,) and pend(state).type == "volley"
    assert Move(T.CATCH, 0, target=1) in engine.legal_moves(state, 0)
    state, _ = engine.apply(state, mv("catch", 0, target=1))
    assert len(state.hands[1]) == 3 and state.exposed == ()
    assert pend(state).type == "volley" and pend(state).player == 0
    assert state.ext.draw_stack == 2


def test_uno_after_a_skip_stays_catchable_until_the_opponent_moves() -> None:
    state = game(hand2=["BS", "B2", "Y3", *HAND1[3:]], turned="B9", draw=("G5",))
    state = with_hand(state, 1, [card(state, 1, "BS"), card(state, 1, "Y3")])
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "BS")))
    assert state.current == 1 and state.exposed == (1,)
    assert Move(T.UNO, 1) in engine.legal_moves(state, 1)
    assert Move(T.CATCH, 0, target=1) in engine.legal_moves(state, 0)
    # Player 2 draws (two cards again): no longer catchable.
    drawn, _ = engine.apply(state, mv("draw", 1))
    assert drawn.exposed == () and drawn.current == 0


def test_wild_draw_four_guilt_is_the_hand_when_played_even_after_a_catch() -> None:
    state = game(hand2=["WD4", "Y2", *HAND1[2:]], turned="B9", draw=("B1", "B2"))
    state = with_hand(state, 1, [card(state, 1, "WD4"), card(state, 1, "Y2")])
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "WD4"), color="red"))
    state, _ = engine.apply(state, mv("catch", 0, target=1))
    assert codes(state, 1) == ["Y2", "B1", "B2"]
    state, events = engine.apply(state, mv("challenge", 0))
    assert next(e for e in events if e["type"] == "challenged")["guilty"] is False
    assert len(state.hands[0]) == 7 + 6 and state.current == 1


def test_challenge_rule_any_playable_counts_number_matches() -> None:
    state = game(hand2=["WD4", "G9", *HAND1[2:]], turned="B9", challenge_rule="any_playable")
    state, _ = engine.apply(state, mv("play", 1, card=card(state, 1, "WD4"), color="red"))
    state, events = engine.apply(state, mv("challenge", 0))
    assert next(e for e in events if e["type"] == "challenged")["guilty"] is True
    assert len(state.hands[1]) == 6 + 4 and state.current == 0
    default = game(hand2=["WD4", "G9", *HAND1[2:]], turned="B9")
    default, _ = engine.apply(default, mv("play", 1, card=card(default, 1, "WD4"), color="red"))
    default, events = engine.apply(default, mv("challenge", 0))
    assert next(e for e in events if e["type"] == "challenged")["guilty"] is False


def test_player_1_alternates_back_from_seat_1_to_seat_0() -> None:
    state = game(hand2=["R1", *HAND1[1:]], turned="R9", dealer=1)  # seat 1 is Player 1
    assert state.current == 0  # Player 2 plays first
    state = with_hand(state, 0, [card(state, 0, "R1")])
    state, _ = engine.apply(state, mv("play", 0, card=card(state, 0, "R1")))
    assert state.phase is Phase.ROUND_OVER
    state, events = engine.apply(state, mv("next_round", 0))
    assert state.dealer == 0 and pend(state).type == "draft" and pend(state).player == 0
    assert events[0] == {"type": "round_started", "round": 2, "dealer": 0}


def test_game_ends_when_a_total_reaches_exactly_200() -> None:
    state = game(hand2=["B1", *HAND1[1:]], turned="B9")
    state = with_hand(state, 1, [card(state, 1, "B1")])
    b1 = card(state, 1, "B1")
    over, _ = engine.apply(state._replace(scores=(172, 100)), mv("play", 1, card=b1))
    assert over.scores == (200, 100) and over.phase is Phase.GAME_OVER and over.winners == (1,)
    on, _ = engine.apply(state._replace(scores=(171, 100)), mv("play", 1, card=b1))
    assert on.scores == (199, 100) and on.phase is Phase.ROUND_OVER


def test_tied_lowest_totals_are_shared_wins() -> None:
    v = engine.find_variant(V)
    assert v.game_winners((200, 200), 200) == (0, 1)
    assert v.game_winners((250, 120), 200) == (1,)
    assert v.game_winners((199, 120), 200) == ()
