"""Rule tests for UNO Flip (``uno-flip.md``) and the README rules it uses.

Each test is named after the rule line it checks. Deals are stacked with
``tests.support.stacked_deck``; mid-round tables (short hands, a given top card, a given
side) are laid out with ``table`` (a loaded state, checked like any caller's state).
Cards are written by their full code (``"R3/WDC"``: light face / dark face); moves name
cards by their round label, as a client does.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, cast

import pytest

import engine
from engine import Color, Kind, Phase, RulesError, State
from engine.events import redact, redact_all
from engine.variants.flip import Flip
from tests.support import DeckBuilder, mv, play, random_game, stacked_deck

V = "uno_flip"
VAR = cast(Flip, engine.find_variant(V))
CAT = VAR.catalog

# Filler hands. Light faces: one colour each; dark faces: mixed.
REDS = ["R1/P3", "R2/OR", "R3/P7", "R4/OF", "R5/P2", "R6/O9", "R7/O1"]
YELLOWS = ["Y1/PSE", "Y2/T1", "Y3/V1", "Y4/VF", "Y5/T8", "Y6/OSE", "Y7/O2"]
GREENS = ["G1/O5", "G2/TD5", "G3/V2", "G4/P8", "G5/O7", "G6/P5", "G7/O6"]
BLUES = ["B1/VSE", "B2/O8", "B3/T2", "B4/TD5", "B5/OR", "B6/TSE", "B7/O3"]
# Dark faces: one colour each.
PINKS = ["R1/P3", "R3/P7", "R5/P2", "Y8/P1", "G4/P8", "G6/P5", "B2/P6"]
TEALS = ["Y2/T1", "Y5/T8", "R5/T5", "R8/T7", "G5/T4", "B3/T2", "G7/T2"]
PURPLES = ["R1/V2", "R7/V5", "Y3/V1", "Y9/V4", "G3/V2", "B4/V1", "B3/V8"]

POINTS = {"D1": 10, "D5": 20, "R": 20, "S": 20, "SE": 30, "F": 20, "W": 40, "WD2": 50, "WDC": 60}


def rule_points(face: str) -> int:
    """A face's points as the rule file lists them (independent of the catalog)."""
    if face in POINTS:
        return POINTS[face]
    symbol = face[1:]
    return int(symbol) if symbol.isdigit() else POINTS[symbol]


def game(
    hands: list[list[str]],
    turned: str,
    draw: tuple[str, ...] = (),
    dealer: int = 0,
    **options: Any,
) -> State:
    deck = stacked_deck(V, hands, turned, draw, dealer)
    return engine.new_game(V, len(hands), seed=7, dealer=dealer, deck=deck, options=options or None)


def dark_game(
    hands: list[list[str]], turned: str, draw_after_flip: tuple[str, ...] = (), dealer: int = 0
) -> State:
    """A deal whose turned-up card is a Flip: ``draw_after_flip`` is on top of the draw
    pile once it has been turned over (so it lies at the bottom of the dealt deck)."""
    deck = stacked_deck(V, hands, turned, draw_after_flip, dealer)
    start = len(hands) * 7 + 1
    k = len(draw_after_flip)
    deck = deck[:start] + deck[start + k :] + deck[start : start + k][::-1]
    return engine.new_game(V, len(hands), seed=7, dealer=dealer, deck=deck)


def table(
    hands: list[list[str]],
    top: str,
    side: int = 0,
    current: int = 0,
    color: str | None = None,
    draw: tuple[str, ...] = (),
    discard: tuple[str, ...] = (),
    dealer: int = 0,
    direction: int = 1,
    scores: list[int] | None = None,
    empty_pile: bool = False,
    options: dict[str, Any] | None = None,
) -> State:
    """A round in progress on ``side``: these hands, ``top`` in play over ``discard``,
    ``draw`` on top of the draw pile and every other card under it; with ``empty_pile``
    the draw pile is empty and the last hand also holds every other card."""
    b = DeckBuilder(V)
    hand_ids = [[b.take(c) for c in h] for h in hands]
    below = [b.take(c) for c in discard]
    top_id = b.take(top)
    pile = [b.take(c) for c in draw]
    if empty_pile:
        hand_ids[-1].extend(b.rest())
    else:
        pile.extend(b.rest())
    fresh = engine.new_game(V, len(hands), seed=3, deck=list(CAT.ids), options=options)
    raw = engine.to_dict(fresh)
    active = color if color is not None else CAT.color[side][top_id]
    raw.update(
        hands=hand_ids,
        draw_pile=pile,
        discard=[*below, top_id],
        side=side,
        active_color=active,
        current=current,
        dealer=dealer,
        direction=direction,
        pending=None,
        exposed=[],
    )
    if scores is not None:
        raw["scores"] = scores
    return engine.from_dict(raw)


def card(state: State, seat: int, code: str) -> int:
    """The catalog id of the first card in ``seat``'s hand with this full code or this
    face in play."""
    for c in state.hands[seat]:
        if CAT.cards[c].code == code or CAT.code[state.side][c] == code:
            return c
    raise AssertionError(f"{code} not in hand {seat}")


def label(state: State, c: int) -> int:
    return state.ext.labels[c]  # type: ignore[no-any-return]


def faces(state: State, seat: int) -> list[str]:
    """The faces in play of a hand."""
    return [CAT.code[state.side][c] for c in state.hands[seat]]


def full(state: State, seat: int) -> list[str]:
    return [CAT.cards[c].code for c in state.hands[seat]]


def pl(state: State, seat: int, code: str, **fields: Any) -> dict[str, Any]:
    """A play of the card ``code`` from ``seat``'s hand, named by its label."""
    return mv("play", seat, card=label(state, card(state, seat, code)), **fields)


def rules_error(state: State, move: dict[str, Any]) -> RulesError:
    with pytest.raises(RulesError) as err:
        engine.apply(state, move)
    return err.value


def code_of(state: State, move: dict[str, Any]) -> str:
    return rules_error(state, move).code


def ids(*codes: str) -> list[int]:
    b = DeckBuilder(V)
    return [b.take(c) for c in codes]


def hand_points(state: State, seat: int) -> int:
    return sum(rule_points(f) for f in faces(state, seat))


# ---------------------------------------------------------------- the leak check
VIEW_KEYS = {
    "variant", "phase", "round", "dealer", "direction", "current_player", "pending",
    "player", "hand", "hand_sizes", "draw_pile_size", "discard_size", "discard_top",
    "active_color", "uno_exposed", "scores", "round_scores", "round_winner", "winners",
    "target", "move_count", "side", "backs", "draw_top_back", "winner_rule",
}  # fmt: skip


def check_view_hides_faces(state: State, seat: int | None, view: dict[str, Any]) -> None:
    """A seat's view shows its own hand by active face only, every other hand by
    inactive face only, the draw pile's top by inactive face, and names no card by
    catalog id: every ``{id, code}`` in it is a round label of a card the seat may see
    (its own hand or the discard pile) with that card's face in play.

    Used by the all-variant conformance test (``LEAK_CHECKS["uno_flip"]``)."""
    side = state.side
    front, back = CAT.code[side], CAT.code[1 - side]
    labels, by_label = state.ext.labels, state.ext.by_label
    assert set(view) == VIEW_KEYS, f"unexpected view fields {set(view) ^ VIEW_KEYS}"
    own = state.hands[seat] if seat is not None else ()
    assert view["hand"] == [{"id": labels[c], "code": front[c]} for c in own]
    assert view["backs"] == [
        [] if s == seat else [back[c] for c in hand] for s, hand in enumerate(state.hands)
    ], "backs must be the other hands' inactive faces, never the viewer's own"
    pile = state.draw_pile
    assert view["draw_top_back"] == (back[pile[0]] if pile else None)
    assert view["side"] == ("light", "dark")[side]
    top = state.discard[-1] if state.discard else None
    if top is not None:
        assert view["discard_top"] == {"id": labels[top], "code": front[top]}
    allowed = set(own) | set(state.discard)
    for node in card_refs(view):
        c = by_label[node["id"]]
        assert c in allowed, f"view of seat {seat} names a hidden card"
        assert node == {"id": node["id"], "code": front[c]}, "only the face in play"
    pend = view["pending"]
    if pend is not None:
        assert set(pend) <= {"type", "player", "card"}
        if "card" in pend:
            assert pend["player"] == seat


def card_refs(node: Any) -> Iterator[dict[str, Any]]:
    """Every ``{id, ...}`` object in a JSON tree, inside lists too."""
    if isinstance(node, dict):
        if "id" in node:
            yield node
        for v in node.values():
            yield from card_refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from card_refs(v)


#: Events shown at the start of a round, before anything can flip: light faces.
ROUND_START_EVENTS = {"turned_up", "returned_to_deck"}


def check_events_hide_faces(before: State, after: State, events: list[dict[str, Any]]) -> None:
    """Events name cards by label, never by catalog id, each with its face in play (on
    the side before or after the move); a drawn card's faces in play go to the drawer
    only, a challenged hand to the challenger only."""
    for seat in [None, *range(after.num_players)]:
        for ev in redact_all(events, seat):
            for node in card_refs(ev):
                sides = {0} if ev["type"] in ROUND_START_EVENTS else {before.side, after.side}
                assert any(
                    s.ext.labels
                    and node["code"] in {CAT.code[d][s.ext.by_label[node["id"]]] for d in sides}
                    for s in (before, after)
                ), f"event {ev['type']} names a card by something other than its label: {node}"
            if ev["type"] == "drew" and ev["player"] != seat:
                assert set(ev) == {"type", "player", "count", "reason", "backs"}
                assert len(ev["backs"]) == ev["count"]
            if ev["type"] == "challenged" and ev["player"] != seat:
                assert "hand" not in ev


# ---------------------------------------------------------------- the deck
def test_deck_has_112_double_sided_cards_as_listed() -> None:
    assert CAT.size == 112 and CAT.sides == 2
    light = [c.faces[0] for c in CAT.cards]
    dark = [c.faces[1] for c in CAT.cards]
    for faces_, colors, actions in (
        (light, ("red", "yellow", "green", "blue"), ("draw_one", "reverse", "skip", "flip")),
        (dark, ("pink", "teal", "orange", "purple"), ("draw_five", "reverse", "skip_everyone", "flip")),
    ):  # fmt: skip
        for color in colors:
            of = [f for f in faces_ if f.color == color]
            numbers = [f.value or 0 for f in of if f.kind is Kind.NUMBER]
            assert sorted(numbers) == sorted(list(range(1, 10)) * 2)
            for kind in actions:
                assert [f.kind.value for f in of].count(kind) == 2
        assert [f.kind for f in faces_].count(Kind.WILD) == 4
    assert [f.kind for f in light].count(Kind.WILD_DRAW_TWO) == 4
    assert [f.kind for f in dark].count(Kind.WILD_DRAW_COLOR) == 4
    assert all(c.code == f"{c.faces[0].code}/{c.faces[1].code}" for c in CAT.cards)


def test_the_catalog_pairs_faces_and_is_published() -> None:
    meta = VAR.metadata(with_catalog=True)
    assert meta["double_sided"] is True and meta["deck_size"] == 112
    assert meta["players"] == {"min": 2, "max": 10} and meta["target"] == 500
    assert meta["catalog"][5] == {
        "id": 5,
        "code": "R3/WDC",
        "light": {"code": "R3", "color": "red", "kind": "number", "value": 3, "points": 3},
        "dark": {"code": "WDC", "color": None, "kind": "wild_draw_color", "points": 60},
    }
    assert meta["options"]["scoring"]["choices"] == ["standard", "alternative"]
    assert meta["winner_rule_by_option"] == {
        "option": "scoring",
        "standard": "highest",
        "alternative": "lowest",
    }
    assert any("label" in n for n in meta["notes"])


def test_variant_joins_the_conformance_test() -> None:
    from tests.engine.rules import test_conformance

    assert V in test_conformance.VARIANTS
    assert V in test_conformance.LEAK_CHECKS


def test_two_to_ten_players() -> None:
    for n in (2, 10):
        assert len(engine.new_game(V, n, seed=1).hands) == n
    for n in (1, 11):
        with pytest.raises(engine.SetupError) as err:
            engine.new_game(V, n, seed=1)
        assert err.value.code == "invalid_player_count"


# ---------------------------------------------------------------- which side is up
def test_a_view_shows_the_own_hand_by_active_face_and_others_by_inactive_face() -> None:
    state = game([REDS, YELLOWS, GREENS], "B9/O5")
    view = engine.view(state, 1)
    assert [c["code"] for c in view["hand"]] == [f.split("/")[0] for f in YELLOWS]
    assert view["backs"] == [[f.split("/")[1] for f in REDS], [], [f.split("/")[1] for f in GREENS]]
    assert view["side"] == "light"
    assert view["discard_top"]["code"] == "B9"
    check_view_hides_faces(state, 1, view)


def test_after_a_flip_the_holder_sees_the_other_face_and_the_others_the_first() -> None:
    state = dark_game([REDS, YELLOWS, GREENS], "RF/P8")
    view = engine.view(state, 0)
    assert view["side"] == "dark"
    assert [c["code"] for c in view["hand"]] == [f.split("/")[1] for f in REDS]
    assert view["backs"][1] == [f.split("/")[0] for f in YELLOWS]
    assert view["discard_top"]["code"] == "P8"
    check_view_hides_faces(state, 0, view)


def test_everybody_sees_the_inactive_face_of_the_draw_pile_top() -> None:
    state = game([REDS, YELLOWS, GREENS], "B9/O5", draw=("G8/PR",))
    for seat in (None, 0, 1, 2):
        assert engine.view(state, seat)["draw_top_back"] == "PR"
    dark = dark_game([REDS, YELLOWS, GREENS], "RF/P8", draw_after_flip=("G8/PR",))
    assert engine.view(dark, 2)["draw_top_back"] == "G8"


def test_a_spectator_sees_every_hand_by_its_inactive_face_only() -> None:
    state = game([REDS, YELLOWS, GREENS], "B9/O5")
    view = engine.view(state, None)
    assert view["hand"] == []
    assert view["backs"][0] == [f.split("/")[1] for f in REDS]
    check_view_hides_faces(state, None, view)


def test_a_view_names_cards_by_round_label_not_catalog_id() -> None:
    state = game([REDS, YELLOWS, GREENS], "B9/O5")
    view = engine.view(state, 0)
    assert [c["id"] for c in view["hand"]] == [label(state, c) for c in state.hands[0]]
    assert sorted(state.ext.labels) == list(range(112))
    # The labelling is a secret shuffle, not the catalog order.
    assert list(state.ext.labels) != list(range(112))


def test_views_never_reveal_another_seats_active_faces_or_the_own_inactive_faces() -> None:
    rnd = random.Random(3)
    for players, seed in ((2, 1), (4, 2)):
        for before, _move, after, events in random_game(V, players, seed, rnd, {"target": 60}):
            for seat in (None, *range(players)):
                check_view_hides_faces(after, seat, engine.view(after, seat))
            check_events_hide_faces(before, after, events)
            for seat in range(players):  # legal moves name only the seat's own cards
                for m in engine.legal_moves(after, seat):
                    assert m.card is None or after.ext.by_label[m.card] in after.hands[seat]


def test_drew_event_backs_for_everybody_faces_in_play_for_the_drawer_only() -> None:
    state = game([REDS, YELLOWS, GREENS], "B9/O5", draw=("G8/PR",))
    after, events = engine.apply(state, mv("draw", 1))
    drew = next(e for e in events if e["type"] == "drew")
    g8 = card(after, 1, "G8/PR")
    assert redact(drew, 1)["cards"] == [{"id": label(after, g8), "code": "G8"}]
    for seat in (None, 0, 2):
        assert redact(drew, seat) == {
            "type": "drew", "player": 1, "count": 1, "reason": "draw", "backs": ["PR"],
        }  # fmt: skip


def test_labels_are_drawn_again_every_round_from_the_seed() -> None:
    state = table([["Y9/T5"], YELLOWS, GREENS], "B9/O5")
    over, _ = engine.apply(state, pl(state, 0, "Y9"))
    assert over.phase is Phase.ROUND_OVER
    nxt, _ = engine.apply(over, mv("next_round", 0))
    again, _ = engine.apply(over, mv("next_round", 2))
    assert nxt.ext.labels != over.ext.labels
    assert nxt.ext == again.ext  # deterministic from the generator


def test_moves_name_cards_by_label() -> None:
    state = game([REDS, YELLOWS, GREENS], "Y9/T5")
    y2 = card(state, 1, "Y2/T1")
    moves = engine.legal_moves(state, 1)
    plays = [m for m in moves if m.type == "play"]
    assert {m.card for m in plays} == {label(state, c) for c in state.hands[1]}
    after, events = engine.apply(state, mv("play", 1, card=label(state, y2)))
    assert after.discard[-1] == y2
    assert events[0]["card"] == {"id": label(state, y2), "code": "Y2"}
    # Every listed move applies.
    for m in moves:
        engine.apply(state, m)


# ---------------------------------------------------------------- deal
def test_cut_for_dealer_action_cards_count_zero_light_numbers_count() -> None:
    assert VAR.cut_value(ids("RS/OD5")[0]) == 0
    assert VAR.cut_value(ids("W/P5")[0]) == 0
    assert VAR.cut_value(ids("R9/TR")[0]) == 9
    assert VAR.cut_value(ids("Y1/PSE")[0]) == 1  # the light face, not the dark one
    assert VAR.cut_value(ids("R2/OR")[0]) == 2
    for seed in range(20):
        state, events = engine.start(V, 4, seed)
        cut = events[0]
        assert cut["type"] == "dealer_cut" and cut["winner"] == state.dealer
        # Each cut card by its light face only: no card id, no dark face.
        assert all(set(c["card"]) == {"code"} for c in cut["cards"])
        assert all("/" not in c["card"]["code"] for c in cut["cards"])


def test_deal_seven_each_from_the_dealers_left_rest_light_side_down_top_turned() -> None:
    state = game([REDS, YELLOWS, GREENS], "B9/O5", dealer=2)
    assert full(state, 0) == REDS and full(state, 1) == YELLOWS and full(state, 2) == GREENS
    assert CAT.cards[state.discard[-1]].code == "B9/O5"
    assert state.side == 0 and len(state.draw_pile) == 112 - 22
    assert engine.view(state, 0)["side"] == "light"


def test_every_round_starts_on_the_light_side_and_the_deal_passes_left() -> None:
    state = table([["P3"], PINKS[1:], TEALS], "B5/P9", side=1, dealer=1)
    over, _ = engine.apply(state, pl(state, 0, "P3"))
    nxt, _ = engine.apply(over, mv("next_round", 0))
    assert nxt.side == 0 and nxt.dealer == 2 and nxt.round == 2
    assert all(len(h) == 7 for h in nxt.hands)


# ---------------------------------------------------------------- first turn
def test_first_turn_player_left_of_the_dealer_goes_first() -> None:
    state = game([REDS, YELLOWS, GREENS], "B9/O5", dealer=1)
    assert state.current == 2 and state.pending is None


def test_first_card_skip_that_player_is_skipped() -> None:
    state = game([REDS, YELLOWS, GREENS], "BS/P9")
    assert state.current == 2


def test_first_card_reverse_dealer_plays_first_and_play_goes_right() -> None:
    state = game([REDS, YELLOWS, GREENS], "BR/O4")
    assert state.current == 0 and state.direction == -1


def test_first_card_draw_one_that_player_draws_one_and_is_skipped() -> None:
    state = game([REDS, YELLOWS, GREENS], "BD1/P6", draw=("G8/PR",))
    assert full(state, 1) == [*YELLOWS, "G8/PR"] and state.current == 2


def test_first_card_wild_the_dealer_names_the_colour() -> None:
    state = game([REDS, YELLOWS, GREENS], "W/P5", dealer=0)
    assert state.pending is not None
    assert (state.pending.type, state.pending.player) == ("choose_color", 0)
    assert engine.view(state, 1)["pending"] == {"type": "choose_color", "player": 0}
    assert code_of(state, mv("choose_color", 1, color="red")) == "not_your_turn"
    assert code_of(state, mv("choose_color", 0, color="pink")) == "invalid_color"
    assert code_of(state, mv("draw", 0)) == "must_choose_color"
    after, _ = engine.apply(state, mv("choose_color", 0, color="green"))
    assert after.active_color is Color.GREEN and after.current == 1 and after.pending is None


def test_first_card_wild_draw_two_goes_back_into_the_draw_pile_and_another_is_turned() -> None:
    state, events = engine.start(
        V, 3, seed=7, dealer=0, deck=stacked_deck(V, [REDS, YELLOWS, GREENS], "WD2/O4", ("B9/O5",))
    )
    wd2 = ids("WD2/O4")[0]
    assert wd2 in state.draw_pile and wd2 not in state.discard
    assert CAT.kind[0][state.discard[-1]] is not Kind.WILD_DRAW_TWO
    assert [e["type"] for e in events].count("returned_to_deck") >= 1
    assert all(len(h) == 7 for h in state.hands)


def test_first_card_flip_everything_flips_and_the_round_starts_dark() -> None:
    hands = [REDS, YELLOWS, GREENS]
    deck = stacked_deck(V, hands, "RF/P8")
    state, events = engine.start(V, 3, seed=7, dealer=0, deck=deck)
    assert state.side == 1
    assert state.draw_pile == tuple(reversed(deck[22:]))
    assert CAT.cards[state.discard[-1]].code == "RF/P8"
    assert state.active_color is Color.PINK and state.current == 1 and state.pending is None
    assert [e["type"] for e in events][-2:] == ["turned_up", "flipped"]
    assert events[-1]["top"]["code"] == "P8" and events[-1]["side"] == "dark"


def test_first_card_flip_to_a_wild_face_the_dealer_names_a_dark_colour_no_action() -> None:
    state = dark_game([REDS, YELLOWS, GREENS], "GF/WDC", dealer=2)
    assert state.side == 1 and state.pending is not None
    assert (state.pending.type, state.pending.player) == ("choose_color", 2)
    assert [len(h) for h in state.hands] == [7, 7, 7]  # the Wild Draw Color does not act
    assert code_of(state, mv("choose_color", 2, color="red")) == "invalid_color"
    after, _ = engine.apply(state, mv("choose_color", 2, color="teal"))
    assert after.active_color is Color.TEAL and after.current == 0


# ---------------------------------------------------------------- a turn
def test_match_by_colour_number_or_symbol_or_play_a_wild() -> None:
    state = table([["Y2/T1", "B9/VF", "RS/OD5", "W/P5", "G8/T9"], BLUES, GREENS], "R9/TR")
    legal = {m.card for m in engine.legal_moves(state, 0) if m.type == "play"}
    want = {label(state, card(state, 0, c)) for c in ("B9/VF", "RS/OD5", "W/P5")}
    assert legal == want
    assert code_of(state, pl(state, 0, "Y2/T1")) == "does_not_match"
    symbol = table([["YS/O3", "G1/O5"], BLUES, PURPLES], "RS/OD5")
    after, _ = engine.apply(symbol, pl(symbol, 0, "YS/O3"))
    assert after.active_color is Color.YELLOW


def test_play_is_optional_draw_one_and_a_playable_drawn_card_may_be_played_or_kept() -> None:
    state = table([["R1/P3", "Y2/T1"], BLUES, GREENS], "R9/TR", draw=("R8/T7",))
    drawn, _ = engine.apply(state, mv("draw", 0))
    assert drawn.pending is not None and drawn.pending.type == "play_drawn"
    assert code_of(drawn, pl(drawn, 0, "R1/P3")) == "not_drawn_card"
    kept, _ = engine.apply(drawn, mv("pass", 0))
    assert kept.current == 1 and "R8/T7" in full(kept, 0)
    played, _ = engine.apply(drawn, pl(drawn, 0, "R8/T7"))
    assert CAT.cards[played.discard[-1]].code == "R8/T7" and played.current == 1


def test_an_unplayable_drawn_card_ends_the_turn() -> None:
    state = table([["R1/P3", "Y2/T1"], BLUES, GREENS], "R9/TR", draw=("G8/PR",))
    after, _ = engine.apply(state, mv("draw", 0))
    assert after.pending is None and after.current == 1


# ---------------------------------------------------------------- light side cards
def test_draw_one_next_player_draws_one_and_loses_the_turn() -> None:
    state = game([REDS, ["YD1/P1", *YELLOWS[1:]], GREENS], "Y9/T5", draw=("B9/O5",))
    after, _ = engine.apply(state, pl(state, 1, "YD1"))
    assert full(after, 2) == [*GREENS, "B9/O5"] and after.current == 0


def test_light_reverse_direction_reverses() -> None:
    state = game([REDS, ["YR/W", *YELLOWS[1:]], GREENS], "Y9/T5")
    after, _ = engine.apply(state, pl(state, 1, "YR"))
    assert after.direction == -1 and after.current == 0


def test_reverse_with_two_players_acts_as_skip() -> None:
    state = game([REDS, ["YR/W", *YELLOWS[1:]]], "Y9/T5")
    after, _ = engine.apply(state, pl(state, 1, "YR"))
    assert after.current == 1


def test_skip_next_player_loses_the_turn() -> None:
    state = game([REDS, ["YS/O3", *YELLOWS[1:]], GREENS], "Y9/T5")
    after, events = engine.apply(state, pl(state, 1, "YS"))
    assert after.current == 0 and {"type": "skipped", "player": 2} in events


def test_flip_turns_every_hand_the_draw_pile_and_the_discard_pile_over() -> None:
    state = table([REDS, ["YF/O8", *YELLOWS[1:]], GREENS], "Y9/T5", current=1, discard=("B2/O8",))
    after, events = engine.apply(state, pl(state, 1, "YF"))
    assert after.side == 1
    assert after.hands[0] == state.hands[0] and faces(after, 0)[0] == "P3"
    assert after.draw_pile == state.draw_pile[::-1]
    # The discard pile turned over: its old bottom (B2/O8) is the new top, dark face up.
    assert [CAT.cards[c].code for c in after.discard] == ["YF/O8", "Y9/T5", "B2/O8"]
    assert after.active_color is Color.ORANGE and after.current == 2 and after.pending is None
    flipped = next(e for e in events if e["type"] == "flipped")
    assert flipped["side"] == "dark" and flipped["top"]["code"] == "O8"
    assert engine.view(after, 2)["discard_top"]["code"] == "O8"


def test_flip_the_new_tops_action_does_not_take_effect() -> None:
    # The old bottom shows a dark Skip Everyone: nobody is skipped.
    state = table([REDS, ["YF/O8", *YELLOWS[1:]], GREENS], "Y9/T5", current=1, discard=("Y1/PSE",))
    after, events = engine.apply(state, pl(state, 1, "YF"))
    assert CAT.code[1][after.discard[-1]] == "PSE" and after.current == 2
    assert not [e for e in events if e["type"] == "skipped"]


def test_flip_to_a_wild_face_the_player_of_the_flip_names_the_colour() -> None:
    state = table([REDS, ["YF/O8", *YELLOWS[1:]], GREENS], "Y6/WDC", current=1)
    after, _ = engine.apply(state, pl(state, 1, "YF"))
    assert after.side == 1 and after.active_color is None
    assert after.pending is not None and after.pending.type == "choose_color"
    assert after.pending.player == 1
    assert [len(h) for h in after.hands] == [7, 6, 7]  # no Wild Draw Color draw
    assert code_of(after, mv("choose_color", 1, color="red")) == "invalid_color"
    assert code_of(after, mv("draw", 2)) == "not_your_turn"
    chosen, _ = engine.apply(after, mv("choose_color", 1, color="purple"))
    assert chosen.active_color is Color.PURPLE and chosen.current == 2


def test_light_wild_names_a_light_colour() -> None:
    state = game([REDS, ["W/P5", *YELLOWS[1:]], GREENS], "B9/O5")
    assert code_of(state, pl(state, 1, "W")) == "color_required"
    assert code_of(state, pl(state, 1, "W", color="pink")) == "invalid_color"
    after, events = engine.apply(state, pl(state, 1, "W", color="red"))
    assert after.active_color is Color.RED and after.current == 2
    assert events[0]["color"] == "red"


def test_wild_draw_two_accepted_next_player_draws_two_and_loses_the_turn() -> None:
    state = table([["WD2/O4", *BLUES[1:]], REDS, GREENS], "Y9/T5", draw=("R8/T7", "G8/PR"))
    waiting, _ = engine.apply(state, pl(state, 0, "WD2", color="green"))
    assert waiting.pending is not None and waiting.pending.type == "challenge"
    assert waiting.pending.player == 1
    assert code_of(waiting, pl(waiting, 1, "R1")) == "must_answer_challenge"
    after, _ = engine.apply(waiting, mv("accept", 1))
    assert full(after, 1)[-2:] == ["R8/T7", "G8/PR"] and after.current == 2


def test_wild_draw_two_challenge_guilty_the_player_draws_two_instead() -> None:
    # Seat 0 held a yellow card: the colour in play before the wild.
    state = table(
        [["WD2/O4", "Y1/PSE", *BLUES[2:]], REDS, GREENS], "Y9/T5", draw=("R8/T7", "G8/PR")
    )
    waiting, _ = engine.apply(state, pl(state, 0, "WD2", color="green"))
    after, events = engine.apply(waiting, mv("challenge", 1))
    assert full(after, 0)[-2:] == ["R8/T7", "G8/PR"] and len(after.hands[1]) == 7
    assert after.current == 1 and after.pending is None
    ch = next(e for e in events if e["type"] == "challenged")
    assert redact(ch, 1)["guilty"] is True and "hand" in redact(ch, 1)
    assert "hand" not in redact(ch, 2) and "hand" not in redact(ch, None)
    assert all(set(c) == {"id", "code"} for c in redact(ch, 1)["hand"])


def test_wild_draw_two_challenge_not_guilty_the_challenger_draws_four_and_loses_the_turn() -> None:
    draw = ("R8/T7", "G8/PR", "B8/T4", "B9/O5")
    state = table([["WD2/O4", *BLUES[1:]], REDS, GREENS], "Y9/T5", draw=draw)
    waiting, _ = engine.apply(state, pl(state, 0, "WD2", color="green"))
    after, _ = engine.apply(waiting, mv("challenge", 1))
    assert full(after, 1)[-4:] == list(draw) and after.current == 2


def test_challenge_option_any_playable_counts_a_number_match() -> None:
    hand = ["WD2/O4", "B9/VF", *BLUES[2:]]
    for rule, guilty in (("active_color", False), ("any_playable", True)):
        state = table([hand, REDS, GREENS], "Y9/T5", options={"challenge_rule": rule})
        waiting, _ = engine.apply(state, pl(state, 0, "WD2", color="green"))
        assert waiting.pending is not None and waiting.pending.get("guilty") is guilty


# ---------------------------------------------------------------- dark side cards
def test_draw_five_next_player_draws_five_and_loses_the_turn() -> None:
    draw = ("B9/O5", "B8/T4", "G8/PR", "R8/T7", "Y8/O2")
    state = dark_game([REDS, ["Y3/PD5", *YELLOWS[1:]], GREENS], "RF/P8", draw)
    after, _ = engine.apply(state, pl(state, 1, "PD5"))
    assert full(after, 2) == [*GREENS, *draw] and after.current == 0


def test_dark_reverse_direction_reverses() -> None:
    state = dark_game([REDS, ["G8/PR", *YELLOWS[1:]], GREENS], "RF/P8")
    after, _ = engine.apply(state, pl(state, 1, "PR"))
    assert after.direction == -1 and after.current == 0


def test_skip_everyone_every_other_player_is_skipped_the_same_player_plays_again() -> None:
    state = dark_game([REDS, ["Y1/PSE", *YELLOWS[1:]], GREENS, BLUES], "RF/P8")
    after, events = engine.apply(state, pl(state, 1, "PSE"))
    assert after.current == 1 and after.pending is None
    assert {"type": "skipped", "players": [2, 3, 0]} in events


def test_dark_flip_turns_everything_back_to_light() -> None:
    state = dark_game([REDS, ["G3/PF", *YELLOWS[1:]], GREENS], "RF/P8")
    after, _ = engine.apply(state, pl(state, 1, "PF"))
    assert after.side == 0
    assert [CAT.cards[c].code for c in after.discard] == ["G3/PF", "RF/P8"]
    # The new top shows a light Flip; its action does not take effect.
    assert after.active_color is Color.RED and after.current == 2


def test_dark_wild_names_a_dark_colour() -> None:
    state = dark_game([REDS, ["RS/W", *YELLOWS[1:]], GREENS], "RF/P8")
    assert code_of(state, pl(state, 1, "RS/W", color="red")) == "invalid_color"
    after, _ = engine.apply(state, pl(state, 1, "RS/W", color="teal"))
    assert after.active_color is Color.TEAL and after.current == 2


WDC_DRAW = ("R1/P3", "RS/W", "B5/OR", "BS/T1", "B8/T4", "B9/O5", "G8/PR")


def wdc_table(offender_hand: list[str], **kw: Any) -> State:
    """Dark side, pink in play; seat 0 holds a Wild Draw Color."""
    return table([["R3/WDC", *offender_hand], TEALS, PURPLES], "G4/P8", side=1, draw=WDC_DRAW, **kw)


def test_wild_draw_color_accepted_next_player_draws_until_that_colour_and_loses_the_turn() -> None:
    state = wdc_table(["B9/VF", "B1/VSE"])
    waiting, _ = engine.apply(state, pl(state, 0, "WDC", color="teal"))
    assert waiting.pending is not None and waiting.pending.player == 1
    after, events = engine.apply(waiting, mv("accept", 1))
    # P3, then a drawn wild (it does not count, it stays), O-reverse, then T1: stop.
    assert full(after, 1) == [*TEALS, "R1/P3", "RS/W", "B5/OR", "BS/T1"]
    assert after.current == 2 and after.active_color is Color.TEAL
    drew = next(e for e in events if e["type"] == "drew")
    assert drew["count"] == 4 and drew["backs"] == ["R1", "RS", "B5", "BS"]


def test_wild_draw_color_challenge_guilty_the_player_draws_until_that_colour_instead() -> None:
    state = wdc_table(["Y8/P1", "B1/VSE"])  # a pink card: the colour in play before
    waiting, _ = engine.apply(state, pl(state, 0, "WDC", color="teal"))
    after, _ = engine.apply(waiting, mv("challenge", 1))
    assert full(after, 0)[-4:] == ["R1/P3", "RS/W", "B5/OR", "BS/T1"]
    assert len(after.hands[1]) == 7 and after.current == 1


def test_wild_draw_color_challenge_not_guilty_challenger_draws_until_then_two_more() -> None:
    state = wdc_table(["B9/VF", "B1/VSE"])
    waiting, _ = engine.apply(state, pl(state, 0, "WDC", color="teal"))
    after, _ = engine.apply(waiting, mv("challenge", 1))
    assert full(after, 1) == [*TEALS, *WDC_DRAW[:6]] and after.current == 2


def test_wild_draw_color_drawing_stops_when_nothing_is_left_to_draw() -> None:
    # Empty draw pile; the discard pile below the Wild Draw Color holds one pink card.
    state = table([["R3/WDC", "B9/VF"], TEALS, PURPLES], "G4/P8", side=1, empty_pile=True)
    waiting, _ = engine.apply(state, pl(state, 0, "WDC", color="teal"))
    after, events = engine.apply(waiting, mv("accept", 1))
    assert full(after, 1) == [*TEALS, "G4/P8"]  # reshuffled, drawn, then nothing left
    assert after.draw_pile == () and after.discard == (ids("R3/WDC")[0],)
    assert after.current == 2 and "reshuffled" in [e["type"] for e in events]


def test_wild_draw_color_draws_across_a_reshuffle() -> None:
    state = table(
        [["R3/WDC", "B9/VF"], TEALS, PURPLES], "G4/P8", side=1, discard=("BS/T1",), empty_pile=True
    )
    waiting, _ = engine.apply(state, pl(state, 0, "WDC", color="teal"))
    after, _ = engine.apply(waiting, mv("accept", 1))
    drawn = full(after, 1)[7:]
    assert drawn[-1] == "BS/T1" and set(drawn) <= {"G4/P8", "BS/T1"}


# ---------------------------------------------------------------- UNO
def test_not_saying_uno_another_player_catches_and_you_draw_two() -> None:
    state = table([["Y2/T1", "Y3/V1"], REDS, GREENS], "Y9/T5", draw=("R8/T7", "G8/PR"))
    after, _ = engine.apply(state, pl(state, 0, "Y2"))
    assert after.exposed == (0,)
    caught, _ = engine.apply(after, mv("catch", 2, target=0))
    assert full(caught, 0) == ["Y3/V1", "R8/T7", "G8/PR"]
    safe, _ = engine.apply(after, mv("draw", 1))
    assert code_of(safe, mv("catch", 2, target=0)) == "cannot_catch"
    said, events = engine.apply(state, pl(state, 0, "Y2", uno=True))
    assert said.exposed == () and {"type": "uno", "player": 0} in events


# ---------------------------------------------------------------- scoring
def test_card_points_by_the_face_on_the_side_in_play() -> None:
    for c in CAT.cards:
        for side in (0, 1):
            assert CAT.points[side][c.id] == rule_points(c.faces[side].code), c.code


def test_the_winner_scores_the_other_hands_by_the_light_faces() -> None:
    state = table([["Y2/T1"], ["R1/P3", "RS/OD5", "W/P5"], ["WD2/O4", "YF/O8"]], "Y9/T5")
    after, _ = engine.apply(state, pl(state, 0, "Y2"))
    assert after.phase is Phase.ROUND_OVER
    assert after.round_scores == (1 + 20 + 40 + 50 + 20, 0, 0)


def test_the_winner_scores_the_other_hands_by_the_dark_faces() -> None:
    state = table([["Y2/T1"], ["R1/P3", "RS/OD5", "W/P5"], ["R3/WDC", "Y1/PSE"]], "G5/T4", side=1)
    after, _ = engine.apply(state, pl(state, 0, "T1"))
    assert after.round_scores == (3 + 20 + 5 + 60 + 30, 0, 0)
    assert after.round_scores[0] == hand_points(after, 1) + hand_points(after, 2)


def test_going_out_with_a_draw_card_the_next_player_draws_first_and_it_counts() -> None:
    state = table([["YD1/P1"], ["R1/P3"], ["G1/O5"]], "Y9/T5", draw=("W/P5",))
    after, _ = engine.apply(state, pl(state, 0, "YD1"))
    assert full(after, 1) == ["R1/P3", "W/P5"]
    assert after.round_scores == (1 + 40 + 1, 0, 0)


def test_going_out_with_wild_draw_two_the_next_player_draws_two_no_challenge() -> None:
    state = table([["WD2/O4"], ["R1/P3"], ["G1/O5"]], "Y9/T5", draw=("W/P5", "R2/OR"))
    after, _ = engine.apply(state, pl(state, 0, "WD2", color="red"))
    assert full(after, 1) == ["R1/P3", "W/P5", "R2/OR"] and after.phase is Phase.ROUND_OVER
    assert after.round_scores == (1 + 40 + 2 + 1, 0, 0)


def test_going_out_with_wild_draw_color_the_next_player_draws_until_the_colour() -> None:
    state = table([["R3/WDC"], ["R2/OR"], ["G1/O5"]], "G4/P8", side=1, draw=WDC_DRAW)
    after, _ = engine.apply(state, pl(state, 0, "WDC", color="teal"))
    assert full(after, 1) == ["R2/OR", *WDC_DRAW[:4]]
    assert after.round_scores == (20 + 3 + 40 + 20 + 1 + 5, 0, 0)


def test_going_out_with_a_flip_everything_flips_and_hands_score_on_the_new_side() -> None:
    state = table([["YF/O8"], ["R1/P3"], ["Y1/PSE"]], "Y9/T5")
    after, events = engine.apply(state, pl(state, 0, "YF"))
    assert after.side == 1 and after.phase is Phase.ROUND_OVER
    assert after.round_scores == (3 + 30, 0, 0)
    assert [e["type"] for e in events][-2:] == ["flipped", "round_over"]


def test_first_to_500_wins_the_game() -> None:
    state = table([["Y2/T1"], ["R1/P3"], ["G1/O5"]], "Y9/T5", scores=[498, 0, 0])
    after, events = engine.apply(state, pl(state, 0, "Y2"))
    assert after.phase is Phase.GAME_OVER and after.winners == (0,)
    assert after.scores == (500, 0, 0)
    assert events[-1] == {"type": "game_over", "winners": [0], "scores": [500, 0, 0]}
    short = table([["Y2/T1"], ["R1/P3"], ["G1/O5"]], "Y9/T5", scores=[497, 0, 0])
    assert engine.apply(short, pl(short, 0, "Y2"))[0].phase is Phase.ROUND_OVER


def test_ties_at_the_end_are_shared_wins() -> None:
    assert VAR.game_winners((500, 500, 20), 500) == (0, 1)
    assert VAR.game_winners((499, 20), 500) == ()
    assert VAR.game_winners((520, 500, 20), 500, "lowest") == (2,)


def test_alternative_scoring_the_winner_scores_zero_others_their_own_hand() -> None:
    state = table(
        [["Y2/T1"], ["R1/P3", "W/P5"], ["G1/O5"]], "Y9/T5", options={"scoring": "alternative"}
    )
    after, _ = engine.apply(state, pl(state, 0, "Y2"))
    assert after.round_scores == (0, 41, 1)
    assert engine.score(after)["winner_rule"] == "lowest"
    assert engine.view(after, 0)["winner_rule"] == "lowest"
    assert (
        engine.score(state._replace(options=(("challenge_rule", "active_color"),)))["winner_rule"]
        == "highest"
    )


def test_alternative_scoring_when_a_total_reaches_500_the_lowest_total_wins() -> None:
    state = table(
        [["Y2/T1"], ["R1/P3", "W/P5"], ["G1/O5"]],
        "Y9/T5",
        scores=[30, 470, 100],
        options={"scoring": "alternative"},
    )
    after, events = engine.apply(state, pl(state, 0, "Y2"))
    assert after.scores == (30, 511, 101)
    assert after.phase is Phase.GAME_OVER and after.winners == (0,)
    assert events[-1]["winners"] == [0]


# ---------------------------------------------------------------- bad input
def test_bad_input_gets_specific_codes() -> None:
    state = game([REDS, ["W/P5", "YS/O3", *YELLOWS[2:]], GREENS], "Y9/T5")
    other = card(state, 0, "R1/P3")
    assert code_of(state, mv("play", 1, card=label(state, other))) == "card_not_in_hand"
    assert code_of(state, mv("play", 1, card=112)) == "card_not_in_hand"
    with pytest.raises(engine.InvalidMove):  # a negative card name is not even a move
        engine.apply(state, mv("play", 1, card=-1))
    assert code_of(state, mv("play", 1)) == "card_required"
    assert code_of(state, mv("play", 0, card=label(state, other))) == "not_your_turn"
    assert code_of(state, mv("play", 0, card=999)) == "not_your_turn"  # guards first
    assert code_of(state, mv("draw", 1, card=999)) == "unexpected_field"
    assert code_of(state, pl(state, 1, "YS", color="red")) == "color_not_allowed"
    assert code_of(state, pl(state, 1, "W", color="teal")) == "invalid_color"
    assert code_of(state, pl(state, 1, "YS", target=0)) == "unexpected_field"
    assert code_of(state, pl(state, 1, "YS", uno=True)) == "uno_not_applicable"
    assert code_of(state, mv("challenge", 1)) == "nothing_to_challenge"
    assert code_of(state, mv("accept", 1)) == "nothing_to_accept"
    assert code_of(state, mv("pass", 1)) == "nothing_to_pass"
    assert code_of(state, mv("choose_color", 1, color="red")) == "no_color_to_choose"
    assert code_of(state, mv("choose_target", 1, target=0)) == "unknown_move"
    assert code_of(state, mv("next_round", 0)) == "round_not_over"
    assert code_of(state, mv("uno", 1)) == "nothing_to_declare"
    assert code_of(state, mv("catch", 0, target=1)) == "cannot_catch"
    assert code_of(state, mv("draw", 5)) == "invalid_player"


def test_error_details_name_cards_by_label_never_by_catalog_id() -> None:
    state = game([REDS, YELLOWS, GREENS], "B9/O5")
    # A card id and a label that differ, so the detail tells which one it names.
    c = next(c for c in state.hands[1] if label(state, c) != c)
    err = rules_error(state, mv("play", 1, card=label(state, c)))
    assert err.code == "does_not_match"
    assert f"card {label(state, c)} " in err.detail and f"card {c} " not in err.detail
    d = next(c for c in state.hands[0] if label(state, c) != c)
    err = rules_error(state, mv("play", 1, card=label(state, d)))
    assert err.code == "card_not_in_hand" and f"card {label(state, d)} " in err.detail


def test_bad_options_are_rejected() -> None:
    for options, code in (
        ({"scoring": "golf"}, "invalid_option"),
        ({"challenge_rule": "never"}, "invalid_option"),
        ({"house": 1}, "unknown_option"),
    ):
        with pytest.raises(engine.SetupError) as err:
            engine.new_game(V, 3, seed=1, options=options)
        assert err.value.code == code


def test_broken_states_are_invalid_state() -> None:
    state = game([REDS, YELLOWS, GREENS], "W/P5")
    raw = engine.to_dict(state)
    assert engine.from_dict(raw) == state
    broken = (
        {**raw, "ext": None},
        {**raw, "ext": {"labels": list(range(111))}},
        {**raw, "ext": {"labels": [0] * 112}},
        {**raw, "ext": {"labels": list(range(112)), "extra": 1}},
        {**raw, "active_color": "pink"},
        {**raw, "pending": None},  # a wild in play and no colour named
        {**raw, "pending": {**raw["pending"], "data": {}}},
        {**raw, "pending": {**raw["pending"], "data": {"then": 9}}},
    )
    for bad in broken:
        with pytest.raises(engine.InvalidState):
            engine.from_dict(bad)
    dark = engine.to_dict(dark_game([REDS, YELLOWS, GREENS], "RF/P8"))
    with pytest.raises(engine.InvalidState):
        engine.from_dict({**dark, "active_color": "red"})
    waiting, _ = engine.apply(
        wdc_table(["B9/VF"]), pl(wdc_table(["B9/VF"]), 0, "WDC", color="teal")
    )
    wraw = engine.to_dict(waiting)
    assert engine.from_dict(wraw) == waiting
    for data in (
        {},
        {"offender": 0},
        {"offender": 7, "guilty": True},
        {"offender": 0, "guilty": 1},
        {"offender": 0, "guilty": False, "hand": [ids("G4/P8")[0]]},  # not the offender's
        {"offender": 0, "guilty": False, "hand": [{"card": 1}]},
    ):
        with pytest.raises(engine.InvalidState):
            engine.from_dict({**wraw, "pending": {**wraw["pending"], "data": data}})
    with pytest.raises(engine.InvalidState):
        engine.from_dict({**wraw, "pending": {**wraw["pending"], "card": 0}})


def test_bad_decks_are_rejected() -> None:
    with pytest.raises(engine.SetupError) as err:
        engine.new_game(V, 3, seed=1, deck=list(range(111)))
    assert err.value.code == "invalid_deck"


# ---------------------------------------------------------------- whole games
def test_random_games_end_with_a_winner_and_replay_exactly() -> None:
    rnd = random.Random(9)
    for players, options in ((2, {"target": 100}), (5, {"target": 100, "scoring": "alternative"})):
        history = []
        final = None
        for _b, m, after, _e in random_game(V, players, 40 + players, rnd, options):
            if m is not None:
                history.append(m)
            final = after
        assert final is not None and final.phase is Phase.GAME_OVER and final.winners
        replay = engine.new_game(V, players, 40 + players, options=options)
        replay, _ = play(replay, *history)
        assert replay == final
        totals = final.scores
        best = min(totals) if options.get("scoring") == "alternative" else max(totals)
        assert all(totals[w] == best for w in final.winners)


# ---------------------------------------------------------------- edge cases
def test_first_card_wild_draw_two_goes_back_at_a_seeded_position() -> None:
    deck = stacked_deck(V, [REDS, YELLOWS, GREENS], "WD2/O4", ("B9/O5",))
    wd2 = ids("WD2/O4")[0]
    positions = set()
    for seed in range(8):
        state = engine.new_game(V, 3, seed=seed, dealer=0, deck=deck)
        assert engine.new_game(V, 3, seed=seed, dealer=0, deck=deck) == state
        if wd2 in state.draw_pile:  # not turned again after going back on top
            positions.add(state.draw_pile.index(wd2))
    assert len(positions) > 1  # a random position, not the top or the bottom


def test_dark_reverse_with_two_players_acts_as_skip() -> None:
    state = dark_game([REDS, ["G8/PR", *YELLOWS[1:]]], "RF/P8")
    after, events = engine.apply(state, pl(state, 1, "PR"))
    assert after.current == 1 and {"type": "skipped", "player": 0} in events


def test_skip_everyone_with_two_players_the_same_player_plays_again() -> None:
    state = dark_game([REDS, ["Y1/PSE", *YELLOWS[1:]]], "RF/P8")
    after, _ = engine.apply(state, pl(state, 1, "PSE"))
    assert after.current == 1


def test_flip_with_an_empty_draw_pile_then_the_reshuffle_keeps_the_side_in_play() -> None:
    state = table([["YF/O8", "Y2/T1"], REDS, GREENS], "Y9/T5", discard=("B2/O8",), empty_pile=True)
    after, _ = engine.apply(state, pl(state, 0, "YF"))
    assert after.side == 1 and after.draw_pile == ()
    assert [CAT.cards[c].code for c in after.discard] == ["YF/O8", "Y9/T5", "B2/O8"]
    assert after.active_color is Color.ORANGE and after.current == 1
    for seat in (None, 0, 1, 2):
        view = engine.view(after, seat)
        assert view["draw_top_back"] is None
        check_view_hides_faces(after, seat, view)
    # Seat 1 draws: the discard pile below the card in play becomes the draw pile, on
    # the side in play (dark faces to the holder, light faces on the back).
    drew, events = engine.apply(after, mv("draw", 1))
    assert drew.side == 1 and [CAT.cards[c].code for c in drew.discard] == ["B2/O8"]
    got = drew.hands[1][-1]
    rest = drew.draw_pile[0]
    assert {CAT.cards[got].code, CAT.cards[rest].code} == {"YF/O8", "Y9/T5"}
    ev = next(e for e in events if e["type"] == "drew")
    assert redact(ev, 1)["cards"] == [{"id": label(drew, got), "code": CAT.code[1][got]}]
    assert redact(ev, 0)["backs"] == [CAT.code[0][got]] and "cards" not in redact(ev, 0)
    assert engine.view(drew, 2)["draw_top_back"] == CAT.code[0][rest]
    check_events_hide_faces(after, drew, events)


def no_teal_left(offender: list[str]) -> State:
    """Dark side, pink in play, every teal card in a hand: seat 0 holds the Wild Draw
    Color, ``offender`` and the teal cards the other hands do not."""
    teal = [c.code for c in CAT.cards if CAT.color[1][c.id] is Color.TEAL]
    return table([["R3/WDC", *offender, *teal[14:]], teal[:7], teal[7:14]], "G4/P8", side=1)


@pytest.mark.parametrize("answer", ["accept", "challenge"])
def test_wild_draw_color_with_no_card_of_the_colour_left_the_victim_draws_everything(
    answer: str,
) -> None:
    state = no_teal_left(["B9/VF"])
    waiting, _ = engine.apply(state, pl(state, 0, "WDC", color="teal"))
    left = len(waiting.draw_pile) + len(waiting.discard) - 1
    after, events = engine.apply(waiting, mv(answer, 1))
    assert len(after.hands[1]) == 7 + left and after.draw_pile == ()
    assert after.discard == (ids("R3/WDC")[0],)
    assert after.current == 2 and after.pending is None and after.phase is Phase.PLAY
    assert sum(e["count"] for e in events if e["type"] == "drew") == left
    assert {"type": "skipped", "player": 1} in events
    check_events_hide_faces(waiting, after, events)
    # Nothing is left to draw: a draw yields nothing and ends the turn.
    drew, _ = engine.apply(after, mv("draw", 2))
    assert len(drew.hands[2]) == 7 and drew.current == 0


def test_wild_draw_color_guilty_with_no_card_of_the_colour_left_the_offender_draws_everything() -> (
    None
):
    state = no_teal_left(["Y8/P1"])  # a pink card: guilty
    waiting, _ = engine.apply(state, pl(state, 0, "WDC", color="teal"))
    left = len(waiting.draw_pile) + len(waiting.discard) - 1
    after, _ = engine.apply(waiting, mv("challenge", 1))
    assert len(after.hands[0]) == len(waiting.hands[0]) + left and after.draw_pile == ()
    assert len(after.hands[1]) == 7 and after.current == 1 and after.pending is None


def test_wild_draw_color_reshuffles_mid_draw_and_stops_at_the_colour() -> None:
    state = table(
        [["R3/WDC", "B9/VF"], TEALS, PURPLES],
        "G4/P8",
        side=1,
        draw=("R1/P3", "B5/OR"),
        discard=("BS/T1", "B2/O8"),
        empty_pile=True,
    )
    waiting, _ = engine.apply(state, pl(state, 0, "WDC", color="teal"))
    after, events = engine.apply(waiting, mv("accept", 1))
    drawn = full(after, 1)[7:]
    # The two cards on the pile, then the reshuffled discards (not the card in play)
    # until the teal card, which stays in the hand.
    assert drawn[:2] == ["R1/P3", "B5/OR"] and drawn[-1] == "BS/T1"
    assert set(drawn[2:]) <= {"BS/T1", "B2/O8", "G4/P8"}
    assert after.side == 1 and after.discard == (ids("R3/WDC")[0],)
    assert len(after.draw_pile) == 3 - len(drawn[2:])
    assert [e["type"] for e in events] == ["accepted", "reshuffled", "drew", "skipped"]
    assert after.current == 2


@pytest.mark.parametrize(
    ("top", "held", "official", "any_playable"),
    [
        ("G4/P8", "Y8/P1", True, True),  # a pink card: the colour in play
        ("G4/P8", "Y2/T8", False, True),  # a dark 8 of another colour
        ("G9/PR", "R2/OR", False, True),  # a dark Reverse on a dark Reverse
        ("G3/PF", "G1/OF", False, True),  # a dark Flip on a dark Flip
        ("G4/P8", "B9/VF", False, False),  # nothing playable
        ("G4/P8", "Y1/W", False, False),  # a dark wild does not count
    ],
)
def test_a_challenge_on_the_dark_side_by_the_dark_faces(
    top: str, held: str, official: bool, any_playable: bool
) -> None:
    for rule, guilty in (("active_color", official), ("any_playable", any_playable)):
        state = table(
            [["R3/WDC", held, "B7/O3"], TEALS, PURPLES],
            top,
            side=1,
            draw=WDC_DRAW,
            options={"challenge_rule": rule},
        )
        waiting, _ = engine.apply(state, pl(state, 0, "WDC", color="teal"))
        assert waiting.pending is not None and waiting.pending.get("guilty") is guilty, rule
        after, events = engine.apply(waiting, mv("challenge", 1))
        if guilty:  # the offender draws until teal: R1/P3, RS/W, B5/OR, BS/T1
            assert full(after, 0)[2:] == list(WDC_DRAW[:4]) and after.current == 1
        else:  # until teal, then two more, and the challenger loses the turn
            assert full(after, 1)[7:] == list(WDC_DRAW[:6]) and after.current == 2
        ch = next(e for e in events if e["type"] == "challenged")
        assert [c["code"] for c in redact(ch, 1)["hand"]] == [held.split("/")[1], "O3"]


def test_a_spectator_sees_the_dark_side_a_challenge_and_draws_by_back_faces_only() -> None:
    state = wdc_table(["Y8/P1", "B1/VSE"])
    waiting, played = engine.apply(state, pl(state, 0, "WDC", color="teal"))
    view = engine.view(waiting, None)
    assert view["hand"] == [] and view["side"] == "dark"
    assert view["pending"] == {"type": "challenge", "player": 1}
    assert view["backs"] == [[CAT.code[0][c] for c in h] for h in waiting.hands]
    assert view["draw_top_back"] == "R1"
    check_view_hides_faces(waiting, None, view)
    check_events_hide_faces(state, waiting, played)
    after, events = engine.apply(waiting, mv("challenge", 1))
    seen = redact_all(events, None)
    assert seen[0] == {"type": "challenged", "player": 1, "target": 0, "guilty": True}
    drew = next(e for e in seen if e["type"] == "drew")
    assert drew == {
        "type": "drew", "player": 0, "count": 4, "reason": "penalty",
        "backs": ["R1", "RS", "B5", "BS"],
    }  # fmt: skip
    check_view_hides_faces(after, None, engine.view(after, None))
    check_events_hide_faces(waiting, after, events)


def test_going_out_with_draw_five_the_next_player_draws_five_first_scored_dark() -> None:
    draw = ("B9/O5", "B8/T4", "G8/PR", "R8/T7", "Y8/O2")
    state = table([["Y3/PD5"], ["R1/P3"], ["G1/O5"]], "G4/P8", side=1, draw=draw)
    after, _ = engine.apply(state, pl(state, 0, "PD5"))
    assert full(after, 1) == ["R1/P3", *draw] and after.phase is Phase.ROUND_OVER
    assert after.round_scores == (3 + 5 + 4 + 20 + 7 + 2 + 5, 0, 0)


def test_going_out_with_a_flip_onto_a_wild_face_names_no_colour() -> None:
    state = table([["YF/O8"], ["R1/P3"], ["Y1/PSE"]], "Y6/WDC")
    after, events = engine.apply(state, pl(state, 0, "YF"))
    assert after.phase is Phase.ROUND_OVER and after.pending is None and after.side == 1
    assert after.round_scores == (3 + 30, 0, 0)
    for seat in (None, 0, 1, 2):
        check_view_hides_faces(after, seat, engine.view(after, seat))
    check_events_hide_faces(state, after, events)
    nxt, _ = engine.apply(after, mv("next_round", 1))
    assert nxt.side == 0 and nxt.ext.labels != after.ext.labels
