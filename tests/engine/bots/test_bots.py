"""The bot levels (engine.bots): a legal move for every decision of every variant at
every level, no peeking at hidden information, determinism, and one entry of bot
knowledge per variant. Strength is measured in benchmarks/bots_bench.py, not here."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest

import engine
from engine import Event, Phase, State, bots
from engine.bots import LEVELS, choose, sample_state
from tests.support import random_game

VARIANTS = engine.all_variants()
#: The hard level's playouts in these tests (behaviour, not strength: a small budget).
BUDGET = 8


def actor(state: State) -> int:
    return state.pending.player if state.pending is not None else state.current


@cache
def decisions(variant_id: str) -> tuple[tuple[State, tuple[Event, ...]], ...]:
    """Seeded random games' states at each decision of the variant (a few each) and at
    plain turns, with the events before them."""
    variant = engine.find_variant(variant_id)
    wanted = {d.value for d in variant.pending_moves} | {"turn"}
    found: dict[str, list[tuple[State, tuple[Event, ...]]]] = {}
    rnd = random.Random(5)
    # Every other game with classic UNO's house rules on (the options left out of states
    # while off, at their last choice): their decisions come only with them.
    house = {
        name: spec.choices[-1]
        for name, spec in variant.options.items()
        if not spec.stored_at_default and spec.choices
    }
    for seed in range(60):
        players = (variant.min_players, variant.max_players, 3)[seed % 3]
        players = min(max(players, variant.min_players), variant.max_players)
        options = house if house and seed % 2 else None
        history: list[Event] = []
        for _before, _move, after, evs in random_game(variant_id, players, seed, rnd, options):
            history.extend(evs)
            if after.phase is Phase.ROUND_OVER:
                history = []  # the history a bot gets is its round's
            if after.phase not in (Phase.PLAY, Phase.DRAFT):
                continue
            key = after.pending.type.value if after.pending is not None else "turn"
            if len(found.setdefault(key, [])) < 4:
                found[key].append((after, tuple(history)))
            if all(len(found.get(k, ())) >= 4 for k in wanted):
                break
        if all(len(found.get(k, ())) >= 4 for k in wanted):
            break
    for key, state in set_up(variant_id):
        found.setdefault(key, []).append((state, ()))
    assert sorted(wanted - set(found)) == [], "decisions the random games never reached"
    return tuple(x for k in sorted(found) for x in found[k])


def set_up(variant_id: str) -> list[tuple[str, State]]:
    """Decisions random games reach too rarely, set up as the variant's tests do."""
    if variant_id != "uno_all_wild":
        return []
    from tests.engine.rules.test_all_wild import HAND, table

    state = table([["W", "W"], ["WS"], HAND], draw=("WD2",))
    drew, _ = engine.apply(state, engine.Move(engine.MoveType.DRAW, 0))
    return [("play_drawn", drew)]


def bot_move(level: str, state: State, history: tuple[Event, ...], seed: int = 1) -> Any:
    seat = actor(state)
    legal = engine.legal_moves(state, seat)
    return choose(
        level,
        engine.view(state, seat),
        engine.redact_all(history, seat),
        legal,
        random.Random(seed),
        BUDGET,
    )


def test_every_variant_has_its_bot_knowledge() -> None:
    """A new variant needs its entry in engine/bots/variants.py (docs/ADDING-A-VARIANT.md)."""
    assert sorted(v.id for v in VARIANTS if v.id not in bots.BOTS) == []
    for v in VARIANTS:
        assert bots.knowledge_for(v.id).variant is v


def test_an_unknown_level_or_no_move_is_refused() -> None:
    state, _ = engine.start("uno_classic", 2, 1)
    view = engine.view(state, state.current)
    with pytest.raises(ValueError, match="unknown bot level"):
        choose("expert", view, [], engine.legal_moves(state, state.current), random.Random(1))
    with pytest.raises(ValueError, match="at least one legal move"):
        choose("easy", view, [], [], random.Random(1))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.id)
def test_each_level_makes_a_legal_move_at_every_decision(variant: Any, level: str) -> None:
    for state, history in decisions(variant.id):
        move = bot_move(level, state, history)
        assert move in engine.legal_moves(state, actor(state))
        engine.apply(state, move)  # the engine agrees


def hidden_changed(state: State, seat: int, rnd: random.Random) -> State:
    """``state`` with what ``seat`` cannot see changed: the other hands and the draw
    pile dealt again from their own cards (cards with the same visible back swapped,
    where backs show: UNO Flip), the discard pile under its top shuffled, and another
    seed and generator. The seat's view stays the same (checked by the caller)."""
    variant = engine.find_variant(state.variant)
    back = variant.catalog.code[1 - state.side] if variant.catalog.sides > 1 else None
    places: list[tuple[Any, int]] = [
        (s, i) for s, h in enumerate(state.hands) if s != seat for i in range(len(h))
    ]
    places += [("draw", i) for i in range(len(state.draw_pile))]
    places += [("discard", i) for i in range(len(state.discard) - 1)]

    def get(p: tuple[Any, int]) -> int:
        where, i = p
        if where == "draw":
            return state.draw_pile[i]
        if where == "discard":
            return state.discard[i]
        return state.hands[where][i]

    groups: dict[Any, list[tuple[Any, int]]] = {}
    for p in places:
        groups.setdefault(back[get(p)] if back is not None else None, []).append(p)
    new: dict[tuple[Any, int], int] = {}
    for members in groups.values():
        cards = [get(p) for p in members]
        rnd.shuffle(cards)
        new.update(zip(members, cards, strict=True))
    hands = [
        h if s == seat else tuple(new[(s, i)] for i in range(len(h)))
        for s, h in enumerate(state.hands)
    ]
    draw = tuple(new[("draw", i)] for i in range(len(state.draw_pile)))
    discard = tuple(new[("discard", i)] for i in range(len(state.discard) - 1)) + state.discard[-1:]
    return state._replace(
        hands=tuple(hands),
        draw_pile=draw,
        discard=discard,
        seed=rnd.getrandbits(64),
        rng=engine.rng.seed(rnd.getrandbits(64)),
    )


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.id)
def test_a_bot_chooses_the_same_move_whatever_it_cannot_see(variant: Any, level: str) -> None:
    """Other hands, the draw pile order and the seed changed: the same move. (The
    pending decision's private data is left alone: it is part of the rules' state.)"""
    rnd = random.Random(9)
    checked = 0
    for state, history in decisions(variant.id):
        seat = actor(state)
        other = hidden_changed(state, seat, rnd)
        if other.pending is not None and other.pending.data:
            # a decision's private data (a challenged hand) names the real cards
            other = other._replace(pending=state.pending)
        assert engine.view(other, seat) == engine.view(state, seat)
        assert engine.legal_moves(other, seat) == engine.legal_moves(state, seat)
        assert other != state or len(state.draw_pile) < 2
        assert bot_move(level, other, history, seed=3) == bot_move(level, state, history, seed=3)
        checked += 1
    assert checked


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.id)
def test_a_determinization_is_a_whole_state_the_seat_cannot_tell_apart(variant: Any) -> None:
    """The hard level's samples pass the engine's checks and show the seat its own view."""
    rnd = random.Random(4)
    checked = 0
    for state, history in decisions(variant.id):
        seat = actor(state)
        view = engine.view(state, seat)
        if not bots.searchable(bots.Ctx(seat, view, [], [], variant)):
            continue
        for _ in range(3):
            sample = sample_state(view, engine.redact_all(history, seat), rnd)
            engine.check_invariants(sample)
            assert engine.view(sample, seat) == view
            assert sample.hands[seat] == state.hands[seat] or variant.id == "uno_flip"
            checked += 1
    assert checked


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_is_deterministic_given_its_generator(level: str) -> None:
    for variant in VARIANTS:
        for state, history in decisions(variant.id)[:6]:
            first = [bot_move(level, state, history, seed=s) for s in range(3)]
            assert [bot_move(level, state, history, seed=s) for s in range(3)] == first


def test_the_levels_play_differently() -> None:
    """Easy (random) and normal (heuristic) disagree somewhere: the level is used."""
    state, history = next(
        (s, h) for s, h in decisions("uno_classic") if len(engine.legal_moves(s, actor(s))) > 3
    )
    easy = {bot_move("easy", state, history, seed=s) for s in range(20)}
    normal = {bot_move("normal", state, history, seed=s) for s in range(20)}
    assert len(easy) > len(normal)


def test_normal_names_the_colour_it_holds_most() -> None:
    from tests.support import stacked_game

    state = stacked_game(
        "uno_classic",
        [["R1", "R2", "R3", "R4", "R5", "R6", "R8"], ["W", "G1", "G2", "G5", "B3", "R7", "Y9"]],
        "Y1",
    )
    seat = actor(state)
    assert seat == 1
    view = engine.view(state, seat)
    wild = view["hand"][0]["id"]
    legal = [m for m in engine.legal_moves(state, seat) if m.card == wild]
    move = choose("normal", view, [], legal, random.Random(1))
    assert move.color is not None and move.color.value == "green"


def test_normal_keeps_a_wild_when_another_card_plays() -> None:
    from tests.support import stacked_game

    state = stacked_game(
        "uno_classic",
        [["R1", "R2", "R3", "R4", "R5", "R6", "R8"], ["W", "G1", "G2", "G5", "B3", "R7", "Y9"]],
        "Y1",
    )
    view = engine.view(state, 1)
    move = choose("normal", view, [], engine.legal_moves(state, 1), random.Random(1))
    wild = view["hand"][0]["id"]
    assert move.card is not None and move.card != wild
    # G1 (on Y1 by number) moves to green, the colour the hand holds most; Y9 would not
    assert next(r["code"] for r in view["hand"] if r["id"] == move.card) == "G1"


def test_normal_challenges_a_big_hand_and_accepts_from_a_small_one() -> None:
    know = bots.knowledge_for("uno_classic")
    variant = engine.find_variant("uno_classic")
    wd4 = next(c for c in variant.catalog.ids if variant.catalog.code[0][c] == "WD4")
    for sizes, expected in (([6, 7], "challenge"), ([6, 1], "accept")):
        view = {
            "variant": "uno_classic", "player": 0, "hand_sizes": sizes, "direction": "clockwise",
            "pending": {"type": "challenge", "player": 0}, "hand": [],
            "discard_top": {"id": wd4, "code": "WD4"},
        }  # fmt: skip
        legal = [engine.Move(engine.MoveType.CHALLENGE, 0), engine.Move(engine.MoveType.ACCEPT, 0)]
        ctx = bots.Ctx(0, view, [], legal, variant)
        best = max(legal, key=lambda m: know.score(ctx, m))
        assert best.type.value == expected, sizes
