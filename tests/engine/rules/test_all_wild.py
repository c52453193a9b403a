"""Rule tests for UNO All Wild (``uno-all-wild.md``) and the README rules it uses.

Each test is named after the rule line it checks. Deals are stacked with
``tests.support.stacked_deck``; mid-round tables (short hands, a given top card) are
laid out with ``table`` (a loaded state, checked like any state from a caller).
"""

from __future__ import annotations

from collections import Counter
from functools import partial

import pytest

import engine
from engine import Move, MoveType, Phase, State
from tests.support import (
    DeckBuilder,
    card,
    codes,
    mv,
    pend,
    pl,
    play,
    rules_error,
    stacked_deck,
    stacked_game,
)

V = "uno_all_wild"

#: A game of this variant dealt from a stacked deck (seed 7).
game = partial(stacked_game, V)
T = MoveType
CAT = engine.find_variant(V).catalog

HAND = ["W"] * 7
ACTIONS = ["WR", "WS", "WD2", "WD4", "WT2", "WS2", "WX"]


def table(
    hands: list[list[str]],
    current: int = 0,
    top: str = "W",
    draw: tuple[str, ...] = (),
    dealer: int = 0,
    direction: int = 1,
    scores: list[int] | None = None,
    discard: tuple[str, ...] = (),
    empty_pile: bool = False,
) -> State:
    """A round in progress: these hands, ``top`` in play (over ``discard``), ``draw`` on
    top of the draw pile and every other card under it; with ``empty_pile`` the draw
    pile is empty and the last hand holds every other card."""
    b = DeckBuilder(V)
    hand_ids = [[b.take(c) for c in h] for h in hands]
    below = [b.take(c) for c in discard]
    top_id = b.take(top)
    pile = [b.take(c) for c in draw]
    if empty_pile:
        hand_ids[-1].extend(b.rest())
    else:
        pile.extend(b.rest())
    raw = engine.to_dict(engine.new_game(V, len(hands), seed=3, deck=list(range(CAT.size))))
    raw.update(
        hands=hand_ids,
        draw_pile=pile,
        discard=[*below, top_id],
        current=current,
        dealer=dealer,
        direction=direction,
        pending=None,
        exposed=[],
    )
    if scores is not None:
        raw["scores"] = scores
    return engine.from_dict(raw)


def scored(state: State) -> tuple[int, ...]:
    """The round scores of a finished round."""
    assert state.round_scores is not None
    return state.round_scores


# ---------------------------------------------------------------- the deck
def test_deck_has_112_cards_every_one_wild_and_colourless() -> None:
    assert CAT.size == 112
    assert all(CAT.wild[0]) and all(c is None for c in CAT.color[0])
    assert all(v is None for v in CAT.value[0])
    assert {c.to_dict()["color"] for c in CAT.cards} == {None}


def test_deck_counts_are_the_published_ones_kept_in_the_catalog() -> None:
    counts = Counter(CAT.code[0])
    assert counts == {
        "W": 54, "WR": 14, "WS": 14, "WD2": 10, "WD4": 6, "WS2": 6, "WT2": 4, "WX": 4,
    }  # fmt: skip
    kinds = {CAT.code[0][c]: CAT.kind[0][c].value for c in CAT.ids}
    assert kinds == {
        "W": "wild",
        "WR": "wild_reverse",
        "WS": "wild_skip",
        "WD2": "wild_draw_two",
        "WD4": "wild_draw_four",
        "WT2": "wild_targeted_draw_two",
        "WS2": "wild_skip_two",
        "WX": "wild_forced_swap",
    }


def test_metadata_says_the_counts_come_from_a_published_list_not_the_box() -> None:
    meta = engine.find_variant(V).metadata(with_catalog=True)
    assert meta["players"] == {"min": 2, "max": 10} and meta["target"] == 500
    assert meta["deck_size"] == 112 and len(meta["catalog"]) == 112
    assert any("published card list, not from the box" in n for n in meta["notes"])
    assert set(meta["move_types"]) == {
        "play",
        "draw",
        "choose_target",
        "uno",
        "catch",
        "next_round",
    }


def test_variant_is_registered_and_joins_the_conformance_test() -> None:
    from tests.engine.rules import test_conformance

    assert V in test_conformance.VARIANTS
    assert V in {v.id for v in engine.all_variants()}


def test_two_to_ten_players() -> None:
    for n in (2, 10):
        assert engine.new_game(V, n, seed=1).num_players == n
    for n in (1, 11):
        with pytest.raises(engine.SetupError) as err:
            engine.new_game(V, n, seed=1)
        assert err.value.code == "invalid_player_count"


# ---------------------------------------------------------------- dealer and deal
def test_cut_for_dealer_always_ties_and_the_generator_picks() -> None:
    dealers = set()
    for seed in range(30):
        state, events = engine.start(V, 4, seed)
        cut = events[0]
        assert cut["type"] == "dealer_cut" and cut["winner"] == state.dealer
        # No card has a number: the seats draw until the deck cannot serve all four.
        assert len(cut["cards"]) == 112
        dealers.add(state.dealer)
        again = engine.new_game(V, 4, seed)
        assert again.dealer == state.dealer  # reproducible from the seed
    assert dealers == {0, 1, 2, 3}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_cut_that_always_ties_deals_what_the_round_by_round_cut_deals(players: int) -> None:
    """The cut knows from its values that every round ties (``_cut_always_ties``) and
    skips the comparisons: the same dealer, events and game as comparing every round."""
    variant = engine.find_variant(V)
    assert variant._cut_always_ties
    for seed in range(10):
        shortcut, shortcut_events = engine.start(V, players, seed)
        variant._cut_always_ties = False
        try:
            walked, walked_events = engine.start(V, players, seed)
        finally:
            variant._cut_always_ties = True
        assert shortcut == walked and shortcut_events == walked_events
        assert len(walked_events[0]["cards"]) == 112 - 112 % players


def test_deal_seven_each_one_at_a_time_from_the_dealers_left_top_card_turned() -> None:
    deck = list(range(112))
    state = engine.new_game(V, 3, seed=1, dealer=1, deck=deck)
    assert state.hands[2] == tuple(range(0, 21, 3))
    assert state.hands[0] == tuple(range(1, 21, 3))
    assert state.hands[1] == tuple(range(2, 21, 3))
    assert state.discard == (21,) and state.draw_pile == tuple(range(22, 112))


def test_turned_plain_wild_player_left_of_dealer_plays_first_no_colour() -> None:
    state = game([HAND, HAND, HAND], "W", dealer=1)
    assert state.current == 2 and state.pending is None and state.active_color is None
    view = engine.view(state, 2)
    assert view["active_color"] is None and view["discard_top"]["code"] == "W"


def test_turned_wild_skip_skips_the_player_left_of_the_dealer() -> None:
    state, events = engine.start(V, 3, 1, dealer=0, deck=stacked_deck(V, [HAND] * 3, "WS"))
    assert state.current == 2
    assert {"type": "skipped", "player": 1} in events


def test_turned_targeted_draw_two_dealer_picks_who_draws_and_they_keep_their_turn() -> None:
    state = game([HAND, HAND, HAND], "WT2", draw=("WD2", "WD4"), dealer=0)
    assert pend(state).type == "choose_target" and pend(state).player == 0
    legal = engine.legal_moves(state, 0)
    assert Move(T.CHOOSE_TARGET, 0, target=1) in legal
    assert Move(T.CHOOSE_TARGET, 0, target=2) in legal
    assert Move(T.CHOOSE_TARGET, 0, target=0) not in legal
    assert engine.legal_moves(state, 1) == []
    # The player left of the dealer is chosen: draws 2 and still plays first.
    after, events = engine.apply(state, mv("choose_target", 0, target=1))
    assert codes(after, 1)[-2:] == ["WD2", "WD4"] and len(after.hands[1]) == 9
    assert after.current == 1 and after.pending is None
    assert events[0] == {"type": "target_chosen", "player": 0, "target": 1}
    assert not any(e["type"] == "skipped" for e in events)
    # Another seat is chosen: it draws, and the player left of the dealer plays first.
    after, _ = engine.apply(state, mv("choose_target", 0, target=2))
    assert len(after.hands[2]) == 9 and after.current == 1


def test_turned_wild_reverse_dealer_plays_first_and_play_goes_right() -> None:
    state, events = engine.start(
        V, 4, 1, dealer=1, deck=stacked_deck(V, [HAND] * 4, "WR", dealer=1)
    )
    assert state.current == 1 and state.direction == -1
    assert {"type": "reversed", "direction": "counterclockwise"} in events
    state, _ = engine.apply(state, pl(state, 1, "W"))
    assert state.current == 0  # to the dealer's right


def test_turned_wild_reverse_two_players_acts_as_skip_dealer_plays_first() -> None:
    state, events = engine.start(V, 2, 1, dealer=0, deck=stacked_deck(V, [HAND] * 2, "WR"))
    assert state.current == 0 and state.direction == 1
    assert {"type": "skipped", "player": 1} in events


@pytest.mark.parametrize(("turned", "amount"), [("WD2", 2), ("WD4", 4)])
def test_turned_wild_draw_two_and_four_left_of_dealer_draws_and_is_skipped(
    turned: str, amount: int
) -> None:
    state, events = engine.start(
        V, 3, 1, dealer=2, deck=stacked_deck(V, [HAND] * 3, turned, ("WS",) * amount, dealer=2)
    )
    assert len(state.hands[0]) == 7 + amount and codes(state, 0)[7:] == ["WS"] * amount
    assert state.current == 1 and state.pending is None
    assert {"type": "skipped", "player": 0} in events


@pytest.mark.parametrize(("players", "first"), [(2, 0), (3, 0), (4, 3), (5, 3)])
def test_turned_wild_skip_two_skips_the_two_players_left_of_the_dealer(
    players: int, first: int
) -> None:
    state, events = engine.start(
        V, players, 1, dealer=0, deck=stacked_deck(V, [HAND] * players, "WS2")
    )
    assert state.current == first
    skipped = [e["player"] for e in events if e["type"] == "skipped"]
    assert skipped == ([1] if players == 2 else [1, 2])


def test_turned_forced_swap_dealer_swaps_with_a_player_of_their_choice() -> None:
    hands = [["WX", "W", "W", "W", "W", "W", "W"], ACTIONS, ["WS"] * 7]
    state = game(hands, "WX", dealer=0)
    assert pend(state).type == "choose_target" and pend(state).player == 0
    assert state.current == 0  # the dealer acts first
    dealer_hand, chosen_hand = state.hands[0], state.hands[2]
    after, events = engine.apply(state, mv("choose_target", 0, target=2))
    assert after.hands[0] == chosen_hand and after.hands[2] == dealer_hand
    assert after.hands[1] == state.hands[1]
    # Then the player left of the dealer plays first.
    assert after.current == 1 and after.pending is None
    assert {"type": "swapped", "player": 0, "target": 2, "hand_sizes": [7, 7]} in events


def test_turned_card_choice_errors() -> None:
    state = game([HAND, HAND, HAND], "WT2", dealer=0)
    assert rules_error(state, pl(state, 1, "W")) == "not_your_turn"
    assert rules_error(state, pl(state, 0, "W")) == "must_choose_target"
    assert rules_error(state, mv("draw", 0)) == "must_choose_target"
    assert rules_error(state, mv("choose_target", 0)) == "target_required"
    assert rules_error(state, mv("choose_target", 0, target=0)) == "invalid_target"
    assert rules_error(state, mv("choose_target", 0, target=3)) == "invalid_target"
    assert rules_error(state, mv("choose_target", 1, target=2)) == "not_your_turn"
    assert rules_error(state, mv("choose_target", 0, target=1, card=5)) == "unexpected_field"


# ---------------------------------------------------------------- a turn
def test_player_left_of_the_dealer_goes_first() -> None:
    state = game([HAND] * 4, "W", dealer=2)
    assert state.current == 3


def test_every_card_is_playable_on_every_card() -> None:
    for top in ("W", *ACTIONS):
        state = table([ACTIONS, HAND, HAND], top=top)
        legal = engine.legal_moves(state, 0)
        assert {m.card for m in legal if m.type is T.PLAY} == set(state.hands[0])
        for code in ACTIONS:
            target = {"target": 1} if code in ("WT2", "WX") else {}
            engine.validate(state, pl(state, 0, code, **target))


def test_a_play_takes_no_colour_and_no_colour_is_in_play() -> None:
    state = table([HAND, HAND, HAND])
    assert rules_error(state, pl(state, 0, "W", color="red")) == "color_not_allowed"
    after, events = engine.apply(state, pl(state, 0, "W"))
    assert after.active_color is None and events[0]["color"] is None
    assert all(m.color is None for m in engine.legal_moves(state, 0))


def test_plain_wild_does_nothing_play_passes_on() -> None:
    state = table([HAND, HAND, HAND])
    after, events = engine.apply(state, pl(state, 0, "W"))
    assert after.current == 1 and after.direction == 1
    assert [e["type"] for e in events] == ["played"]
    assert after.hands[1] == state.hands[1] and after.hands[2] == state.hands[2]


def test_legal_moves_one_play_per_card_and_per_target() -> None:
    state = table([["W", "WS", "WT2", "WX", "W"], HAND, HAND, HAND])
    legal = engine.legal_moves(state, 0)
    assert len(legal) == 2 + 3 + 3 + 1  # two Wilds, WT2 and WX for each of 3 opponents, WS
    wt2 = card(state, 0, "WT2")
    assert {m.target for m in legal if m.card == wt2} == {1, 2, 3}
    assert Move(T.DRAW, 0) not in legal


# ---------------------------------------------------------------- the action cards
def test_wild_reverse_reverses_the_direction() -> None:
    state = table([HAND, ["WR", "W", "W"], HAND, HAND], current=1)
    after, events = engine.apply(state, pl(state, 1, "WR"))
    assert after.direction == -1 and after.current == 0
    assert {"type": "reversed", "direction": "counterclockwise"} in events
    again, _ = engine.apply(after, pl(after, 0, "W"))
    assert again.current == 3


def test_wild_reverse_with_two_players_acts_as_skip() -> None:
    state = table([["WR", "W", "W"], HAND])
    after, events = engine.apply(state, pl(state, 0, "WR"))
    assert after.current == 0 and after.direction == 1
    assert {"type": "skipped", "player": 1} in events


def test_wild_skip_the_next_player_loses_their_turn() -> None:
    state = table([["WS", "W", "W"], HAND, HAND])
    after, events = engine.apply(state, pl(state, 0, "WS"))
    assert after.current == 2 and {"type": "skipped", "player": 1} in events


def test_wild_draw_two_next_player_draws_two_and_loses_their_turn() -> None:
    state = table([["WD2", "W", "W"], HAND, HAND], draw=("WS", "WR"))
    after, events = engine.apply(state, pl(state, 0, "WD2"))
    assert codes(after, 1)[-2:] == ["WS", "WR"] and len(after.hands[1]) == 9
    assert after.current == 2
    assert [e["type"] for e in events] == ["played", "drew", "skipped"]


def test_wild_draw_four_next_player_draws_four_and_loses_their_turn_no_challenge() -> None:
    state = table([["WD4", "W", "W"], HAND, HAND])
    after, events = engine.apply(state, pl(state, 0, "WD4"))
    assert len(after.hands[1]) == 11 and after.current == 2 and after.pending is None
    assert [e["type"] for e in events] == ["played", "drew", "skipped"]


def test_no_card_is_challengeable() -> None:
    variant = engine.find_variant(V)
    assert (
        getattr(variant, "challenge_cards", None) == {} and "challenge_rule" not in variant.options
    )
    state = table([["WD4", "W", "W"], HAND, HAND])
    after, _ = engine.apply(state, pl(state, 0, "WD4"))
    assert rules_error(after, mv("challenge", 1)) == "unknown_move"
    assert rules_error(after, mv("accept", 1)) == "unknown_move"


def test_wild_targeted_draw_two_chosen_opponent_draws_two_and_keeps_their_turn() -> None:
    state = table([["WT2", "W", "W"], HAND, HAND], draw=("WS", "WR"))
    # The next player is chosen: draws 2 and still plays next.
    after, events = engine.apply(state, pl(state, 0, "WT2", target=1))
    assert codes(after, 1)[-2:] == ["WS", "WR"] and after.current == 1
    assert events[0]["target"] == 1
    assert not any(e["type"] == "skipped" for e in events)
    # A player further on is chosen: draws 2, play passes to the next player as usual.
    after, _ = engine.apply(state, pl(state, 0, "WT2", target=2))
    assert len(after.hands[2]) == 9 and len(after.hands[1]) == 7 and after.current == 1


def test_wild_targeted_draw_two_needs_an_opponent_as_target() -> None:
    state = table([["WT2", "W", "W"], HAND, HAND])
    assert rules_error(state, pl(state, 0, "WT2")) == "target_required"
    assert rules_error(state, pl(state, 0, "WT2", target=0)) == "invalid_target"
    assert rules_error(state, pl(state, 0, "WT2", target=3)) == "invalid_target"
    with pytest.raises(engine.InvalidMove):  # a negative seat is not even a move
        engine.apply(state, pl(state, 0, "WT2", target=-1))


@pytest.mark.parametrize(
    ("players", "nxt", "skipped"), [(2, 0, [1]), (3, 0, [1, 2]), (4, 3, [1, 2]), (6, 3, [1, 2])]
)
def test_wild_skip_two_the_next_two_players_lose_their_turn(
    players: int, nxt: int, skipped: list[int]
) -> None:
    state = table([["WS2", "W", "W"], *[HAND] * (players - 1)])
    after, events = engine.apply(state, pl(state, 0, "WS2"))
    assert after.current == nxt
    assert [e["player"] for e in events if e["type"] == "skipped"] == skipped


def test_wild_skip_two_counts_in_the_direction_of_play() -> None:
    state = table([["WS2", "W", "W"], HAND, HAND, HAND, HAND], direction=-1)
    after, events = engine.apply(state, pl(state, 0, "WS2"))
    assert [e["player"] for e in events if e["type"] == "skipped"] == [4, 3]
    assert after.current == 2


def test_wild_forced_swap_the_two_hands_are_swapped() -> None:
    state = table([["WX", "WS", "WR"], HAND, ["WD2"] * 5])
    after, events = engine.apply(state, pl(state, 0, "WX", target=2))
    assert codes(after, 0) == ["WD2"] * 5 and codes(after, 2) == ["WS", "WR"]
    assert after.hands[1] == state.hands[1]
    assert after.current == 1  # play passes on as usual
    assert events[0]["target"] == 2
    assert events[-1] == {"type": "swapped", "player": 0, "target": 2, "hand_sizes": [5, 2]}


def test_wild_forced_swap_needs_an_opponent_as_target() -> None:
    state = table([["WX", "W", "W"], HAND])
    assert rules_error(state, pl(state, 0, "WX")) == "target_required"
    assert rules_error(state, pl(state, 0, "WX", target=0)) == "invalid_target"
    assert rules_error(state, pl(state, 0, "WX", target=2)) == "invalid_target"


def test_wild_forced_swap_reveals_no_card_to_others() -> None:
    state = table([["WX", "WS", "WR"], HAND, ["WD2"] * 5])
    after, events = engine.apply(state, pl(state, 0, "WX", target=2))
    for ev in events:
        assert "secret" not in ev or ev["type"] == "drew"
    view = engine.view(after, 1)
    assert view["hand_sizes"] == [5, 7, 2]
    shown = {c["id"] for c in view["hand"]}
    assert shown == set(after.hands[1])


def test_a_player_left_with_one_card_by_the_swap_says_uno_with_the_play() -> None:
    # The mover gets a one-card hand: uno: true on the swap is allowed and safe.
    state = table([["WX", "W", "W"], ["WS"], HAND])
    legal = engine.legal_moves(state, 0)
    wx = card(state, 0, "WX")
    assert Move(T.PLAY, 0, wx, target=1, uno=True) in legal
    assert Move(T.PLAY, 0, wx, target=2, uno=True) not in legal
    after, events = engine.apply(state, pl(state, 0, "WX", target=1, uno=True))
    assert codes(after, 0) == ["WS"] and len(after.hands[1]) == 2
    assert {"type": "uno", "player": 0} in events and after.exposed == ()


def test_a_player_left_with_one_card_by_the_swap_who_says_nothing_can_be_caught() -> None:
    state = table([["WX", "W", "W"], ["WS"], HAND], draw=("WR", "WD2"))
    after, _ = engine.apply(state, pl(state, 0, "WX", target=1))
    assert after.exposed == (0,)
    assert Move(T.CATCH, 2, target=0) in engine.legal_moves(after, 2)
    caught, events = engine.apply(after, mv("catch", 2, target=0))
    assert codes(caught, 0) == ["WS", "WR", "WD2"] and caught.exposed == ()
    assert events[0] == {"type": "caught", "player": 2, "target": 0}


def test_the_swapped_opponent_left_with_one_card_must_say_uno() -> None:
    # The mover plays their second-to-last card, a swap: the target gets the one card.
    state = table([["WX", "WS"], HAND, HAND])
    wx = card(state, 0, "WX")
    assert Move(T.PLAY, 0, wx, target=2, uno=True) not in engine.legal_moves(state, 0)
    assert rules_error(state, pl(state, 0, "WX", target=2, uno=True)) == "uno_not_applicable"
    after, _ = engine.apply(state, pl(state, 0, "WX", target=2))
    assert codes(after, 2) == ["WS"] and len(after.hands[0]) == 7
    assert after.exposed == (2,)
    # The target says it with a later uno move (before anybody calls it) ...
    said, events = engine.apply(after, mv("uno", 2))
    assert events == [{"type": "uno", "player": 2}] and said.exposed == ()
    assert rules_error(said, mv("catch", 1, target=2)) == "cannot_catch"
    # ... or another player calls it first, and the target draws 2.
    caught, _ = engine.apply(after, mv("catch", 0, target=2))
    assert len(caught.hands[2]) == 3


def test_swap_between_two_single_card_hands_both_players_must_say_uno() -> None:
    # Seat 0 plays a swap from two cards with seat 1, who holds one card: the swap leaves
    # both with one card, so both must say UNO (rule book: "A player left with one card
    # by the swap must say UNO"), seat 1 too although it held one card before.
    state = table([["WX", "W"], ["WS"], HAND], draw=("WR", "WD2", "WS2", "WD4"))
    after, _ = engine.apply(state, pl(state, 0, "WX", target=1))
    assert codes(after, 0) == ["WS"] and codes(after, 1) == ["W"]
    assert after.exposed == (0, 1)
    assert Move(T.UNO, 1) in engine.legal_moves(after, 1)
    assert Move(T.CATCH, 2, target=1) in engine.legal_moves(after, 2)
    caught, _ = engine.apply(after, mv("catch", 2, target=1))
    assert len(caught.hands[1]) == 3 and caught.exposed == (0,)
    safe, events = engine.apply(state, pl(state, 0, "WX", target=1, uno=True))
    assert safe.exposed == (1,) and {"type": "uno", "player": 0} in events
    said, _ = engine.apply(safe, mv("uno", 1))
    assert said.exposed == ()


def test_a_single_card_target_who_was_exposed_gets_a_new_duty_from_the_swap() -> None:
    # Seat 2 played down to one card without saying UNO; seat 0 (next) swaps with it:
    # seat 2's old window closes with seat 0's move, and the swap opens a new one.
    state = table([["WX", "W"], HAND, ["WS"]])
    state = state._replace(exposed=(2,))
    after, _ = engine.apply(state, pl(state, 0, "WX", target=2, uno=True))
    assert codes(after, 2) == ["W"] and after.exposed == (2,)
    moved, _ = engine.apply(after, pl(after, 1, "W"))
    assert moved.exposed == ()


def test_the_swapped_opponent_is_safe_once_the_next_player_has_moved() -> None:
    state = table([["WX", "WS"], HAND, HAND])
    after, _ = engine.apply(state, pl(state, 0, "WX", target=2))
    moved, _ = engine.apply(after, pl(after, 1, "W"))
    assert moved.exposed == ()
    assert rules_error(moved, mv("catch", 0, target=2)) == "cannot_catch"


# ---------------------------------------------------------------- the draw rule
def test_drawing_by_choice_is_not_allowed() -> None:
    state = table([HAND, HAND, HAND])
    assert Move(T.DRAW, 0) not in engine.legal_moves(state, 0)
    assert rules_error(state, mv("draw", 0)) == "draw_not_allowed"


def test_draw_exception_not_with_an_action_card_in_hand() -> None:
    state = table([["W", "W", "WS"], ["W"], HAND])
    assert Move(T.DRAW, 0) not in engine.legal_moves(state, 0)
    assert rules_error(state, mv("draw", 0)) == "draw_not_allowed"


def test_draw_exception_only_when_the_next_player_has_a_single_card() -> None:
    # Seat 2 (not the next player) has one card: no draw.
    state = table([["W", "W"], HAND, ["W"]])
    assert rules_error(state, mv("draw", 0)) == "draw_not_allowed"
    # Counterclockwise, seat 2 is next: the draw is allowed.
    state = table([["W", "W"], HAND, ["W"]], direction=-1)
    assert Move(T.DRAW, 0) in engine.legal_moves(state, 0)


def test_draw_exception_the_drawn_card_must_be_played_at_once() -> None:
    state = table([["W", "W"], ["WS"], HAND], draw=("WD2",))
    assert Move(T.DRAW, 0) in engine.legal_moves(state, 0)
    drew, events = engine.apply(state, mv("draw", 0))
    drawn = card(drew, 0, "WD2")
    assert pend(drew).type == "play_drawn" and pend(drew).card == drawn
    assert drew.current == 0 and events[0]["count"] == 1
    assert engine.legal_moves(drew, 0) == [Move(T.PLAY, 0, drawn)]
    assert rules_error(drew, pl(drew, 0, "W")) == "must_play_drawn_card"
    assert rules_error(drew, mv("draw", 0)) == "must_play_drawn_card"
    assert rules_error(drew, mv("pass", 0)) == "must_play_drawn_card"
    assert rules_error(drew, mv("play", 1, card=card(drew, 1, "WS"))) == "not_your_turn"
    # Its action takes effect: the next player draws 2 and is skipped.
    after, events = engine.apply(drew, mv("play", 0, card=drawn))
    assert len(after.hands[1]) == 3 and after.current == 2 and after.pending is None
    assert codes(after, 0) == ["W", "W"]


def test_draw_exception_a_drawn_targeted_card_names_its_target() -> None:
    state = table([["W", "W"], ["WS"], HAND], draw=("WX",))
    drew, _ = engine.apply(state, mv("draw", 0))
    wx = pend(drew).card
    assert rules_error(drew, mv("play", 0, card=wx)) == "target_required"
    legal = engine.legal_moves(drew, 0)
    # Swapping with seat 1 leaves seat 0 one card: with and without UNO.
    assert legal == [
        Move(T.PLAY, 0, wx, target=1),
        Move(T.PLAY, 0, wx, target=1, uno=True),
        Move(T.PLAY, 0, wx, target=2),
    ]
    after, _ = engine.apply(drew, mv("play", 0, card=wx, target=1, uno=True))
    assert codes(after, 0) == ["WS"] and codes(after, 1) == ["W", "W"]


def test_draw_exception_a_drawn_plain_wild_is_played_and_nothing_happens() -> None:
    state = table([["W"], ["WS"], HAND], draw=("W",))
    drew, _ = engine.apply(state, mv("draw", 0))
    assert len(drew.hands[0]) == 2
    after, events = engine.apply(drew, mv("play", 0, card=pend(drew).card, uno=True))
    assert len(after.hands[0]) == 1 and after.current == 1 and after.exposed == ()
    assert {"type": "uno", "player": 0} in events


def test_draw_exception_with_nothing_left_to_draw_ends_the_turn() -> None:
    state = table([["W", "W"], ["WS"], HAND], empty_pile=True)
    assert state.draw_pile == () and len(state.discard) == 1
    after, events = engine.apply(state, mv("draw", 0))
    assert events[0]["count"] == 0 and after.pending is None and after.current == 1


def test_draw_exception_reshuffles_the_discard_pile() -> None:
    state = table([["W", "W"], ["WS"], HAND], discard=("WD4", "WR"), empty_pile=True)
    after, events = engine.apply(state, mv("draw", 0))
    assert [e["type"] for e in events] == ["reshuffled", "drew"]
    drawn = pend(after).card
    assert drawn is not None and CAT.code[0][drawn] in ("WD4", "WR")
    assert after.discard == state.discard[-1:] and len(after.draw_pile) == 1


# ---------------------------------------------------------------- UNO
def test_say_uno_when_playing_the_second_to_last_card() -> None:
    state = table([["WS", "W"], HAND, HAND])
    after, events = engine.apply(state, pl(state, 0, "W", uno=True))
    assert {"type": "uno", "player": 0} in events and after.exposed == ()


def test_not_saying_uno_another_player_calls_it_and_you_draw_two() -> None:
    state = table([["WS", "W"], HAND, HAND])
    after, _ = engine.apply(state, pl(state, 0, "W"))
    assert after.exposed == (0,)
    caught, events = engine.apply(after, mv("catch", 1, target=0))
    assert len(caught.hands[0]) == 3 and caught.current == 1
    assert events[0] == {"type": "caught", "player": 1, "target": 0}


def test_uno_flag_only_with_a_play_that_leaves_one_card() -> None:
    state = table([["WS", "W", "W"], ["W", "W"], HAND])
    assert rules_error(state, pl(state, 0, "W", uno=True)) == "uno_not_applicable"
    # A targeted play from two cards leaves one: UNO fits.
    two = table([["WT2", "W"], HAND, HAND])
    legal = engine.legal_moves(two, 0)
    assert Move(T.PLAY, 0, card(two, 0, "WT2"), target=2, uno=True) in legal
    assert rules_error(table([["W", "W"], ["W"], HAND]), mv("draw", 0, uno=True)) == (
        "uno_not_applicable"
    )


# ---------------------------------------------------------------- the end of a round
def test_the_player_who_plays_their_last_card_wins_and_scores_20_and_50() -> None:
    state = table([["W"], ["W", "W", "WS"], ["WX", "WD4", "W"]])
    after, events = engine.apply(state, pl(state, 0, "W"))
    assert after.phase is Phase.ROUND_OVER and after.round_winner == 0
    assert after.round_scores == (20 + 20 + 50 + 50 + 50 + 20, 0, 0)
    assert after.scores == after.round_scores
    over = next(e for e in events if e["type"] == "round_over")
    assert over["winner"] == 0


def test_going_out_with_a_draw_card_the_victim_draws_before_scoring() -> None:
    for code, amount in (("WD2", 2), ("WD4", 4)):
        state = table([[code], ["W"], ["W"]], draw=("WS",) * 4)
        after, events = engine.apply(state, pl(state, 0, code))
        assert len(after.hands[1]) == 1 + amount
        assert scored(after)[0] == 20 + 50 * amount + 20
        assert [e["type"] for e in events][:2] == ["played", "drew"]


def test_going_out_with_a_targeted_draw_two_the_target_draws_before_scoring() -> None:
    state = table([["WT2"], ["W"], ["W"]], draw=("WS", "WS"))
    assert rules_error(state, pl(state, 0, "WT2")) == "target_required"
    after, _ = engine.apply(state, pl(state, 0, "WT2", target=2))
    assert codes(after, 2) == ["W", "WS", "WS"]
    assert scored(after)[0] == 20 + 20 + 100


def test_going_out_with_a_forced_swap_ends_the_round_without_a_swap() -> None:
    state = table([["WX"], ["W", "WS"], ["W"]])
    legal = engine.legal_moves(state, 0)
    assert all(not m.uno for m in legal)
    after, events = engine.apply(state, pl(state, 0, "WX", target=1))
    assert after.phase is Phase.ROUND_OVER and after.round_winner == 0
    assert after.hands[0] == () and codes(after, 1) == ["W", "WS"]
    assert not any(e["type"] == "swapped" for e in events)
    assert scored(after)[0] == 20 + 50 + 20


def test_the_deal_passes_left() -> None:
    state = table([["W"], HAND, HAND], dealer=1)
    after, _ = engine.apply(state, pl(state, 0, "W"))
    nxt, _ = engine.apply(after, mv("next_round", 2))
    assert nxt.dealer == 2 and nxt.round == 2 and nxt.phase is Phase.PLAY
    assert nxt.scores == after.scores
    engine.check_invariants(nxt)


def test_first_to_500_wins_the_game() -> None:
    state = table([["W"], ["W"], ["W"]], scores=[480, 490, 0])
    after, events = engine.apply(state, pl(state, 0, "W"))
    assert after.round_scores == (40, 0, 0) and after.scores == (520, 490, 0)
    assert after.phase is Phase.GAME_OVER and after.winners == (0,)
    assert events[-1] == {"type": "game_over", "winners": [0], "scores": [520, 490, 0]}
    assert rules_error(after, mv("next_round", 1)) == "game_over"


def test_reaching_exactly_500_wins() -> None:
    state = table([["W"], ["W"], ["W"]], scores=[460, 0, 0])
    after, _ = engine.apply(state, pl(state, 0, "W"))
    assert after.scores[0] == 500 and after.phase is Phase.GAME_OVER


def test_below_500_the_game_goes_on() -> None:
    state = table([["W"], ["W"], ["W"]], scores=[440, 0, 0])
    after, _ = engine.apply(state, pl(state, 0, "W"))
    assert after.scores[0] == 480 and after.phase is Phase.ROUND_OVER
    assert after.winners == ()


# ---------------------------------------------------------------- bad input
def test_bad_input_gets_specific_codes() -> None:
    state = table([["W", "WS", "WT2", "WX"], HAND, HAND])
    other = card(state, 1, "W")
    assert rules_error(state, mv("play", 0, card=other)) == "card_not_in_hand"
    assert rules_error(state, mv("play", 0)) == "card_required"
    assert rules_error(state, pl(state, 1, "W")) == "not_your_turn"
    assert rules_error(state, pl(state, 0, "W", color="blue")) == "color_not_allowed"
    assert rules_error(state, pl(state, 0, "WT2", target=1, color="blue")) == "color_not_allowed"
    assert rules_error(state, pl(state, 0, "WS", target=1)) == "unexpected_field"
    assert rules_error(state, pl(state, 0, "W", chain=[1])) == "unexpected_field"
    assert rules_error(state, pl(state, 0, "WT2")) == "target_required"
    assert rules_error(state, pl(state, 0, "WX", target=0)) == "invalid_target"
    assert rules_error(state, mv("draw", 0)) == "draw_not_allowed"
    assert rules_error(state, mv("choose_target", 0, target=1)) == "no_target_to_choose"
    assert rules_error(state, mv("choose_color", 0, color="red")) == "unknown_move"
    assert rules_error(state, mv("pass", 0)) == "unknown_move"
    assert rules_error(state, mv("uno", 0)) == "nothing_to_declare"
    assert rules_error(state, mv("catch", 1, target=0)) == "cannot_catch"
    assert rules_error(state, mv("next_round", 0)) == "round_not_over"
    assert rules_error(state, mv("play", 7, card=other)) == "invalid_player"


def test_bad_input_through_the_json_form() -> None:
    state = table([["W", "WX"], HAND])
    with pytest.raises(engine.InvalidMove):
        engine.apply(state, {"type": "play", "player": 0, "card": "W"})
    with pytest.raises(engine.InvalidMove):
        engine.apply(state, {"type": "play", "player": 0, "card": 0, "color": "mauve"})
    wx = card(state, 0, "WX")
    code = rules_error(state, {"type": "play", "player": 0, "card": wx, "target": {"card": 1}})
    assert code == "invalid_target"


def test_broken_states_are_invalid_state() -> None:
    state = game([HAND, HAND, HAND], "WT2", dealer=0)
    raw = engine.to_dict(state)
    bad = {**raw, "active_color": "red"}
    with pytest.raises(engine.InvalidState):
        engine.from_dict(bad)
    bad = {**raw, "pending": {**raw["pending"], "player": 1}}
    with pytest.raises(engine.InvalidState):
        engine.from_dict(bad)
    bad = {**raw, "pending": {**raw["pending"], "data": {}}}
    with pytest.raises(engine.InvalidState):
        engine.from_dict(bad)
    assert engine.from_dict(raw) == state


# ---------------------------------------------------------------- a whole game
def test_random_games_end_with_a_winner() -> None:
    import random

    from tests.support import random_game

    rnd = random.Random(5)
    for players in (2, 3, 7):
        final = None
        for _b, _m, after, _e in random_game(V, players, 11 + players, rnd, {"target": 200}):
            final = after
        assert final is not None and final.phase is Phase.GAME_OVER and final.winners
        assert max(final.scores) >= 200


def test_play_helper_sequence() -> None:
    state = table([["WS", "W", "W"], HAND, HAND])
    after, events = play(state, pl(state, 0, "WS"), mv("play", 2, card=card(state, 2, "W")))
    assert after.current == 0
    assert [e["type"] for e in events] == ["played", "skipped", "played"]


# ---------------------------------------------------------------- audit: edge cases
def test_going_out_with_a_draw_four_reshuffles_under_the_last_card_and_the_victim_draws_four() -> (
    None
):
    state = table([["WD4"], ["W"], ["W"]], discard=("WS", "WS", "WR", "W", "W"), empty_pile=True)
    wd4 = card(state, 0, "WD4")
    after, events = engine.apply(state, pl(state, 0, "WD4"))
    # Seat 2 holds every other card, so the round also ends the game.
    assert [e["type"] for e in events][:4] == ["played", "reshuffled", "drew", "round_over"]
    assert after.discard == (wd4,) and len(after.hands[1]) == 5 and len(after.draw_pile) == 2
    assert scored(after)[0] == sum(CAT.points[0][c] for c in after.hands[1] + after.hands[2])


def test_turned_targeted_draw_two_two_players_the_opponent_draws_and_plays_first() -> None:
    state = game([HAND, HAND], "WT2", dealer=0)
    assert engine.legal_moves(state, 0) == [Move(T.CHOOSE_TARGET, 0, target=1)]
    after, _ = engine.apply(state, mv("choose_target", 0, target=1))
    assert len(after.hands[1]) == 9 and after.current == 1 and after.pending is None
