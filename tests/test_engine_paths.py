"""The lean paths of the engine agree with the plain ones they replaced, move for move.

``apply`` copies a ``State`` into a ``Work`` with ``work_of`` / ``freeze`` (one store per
field), calls ``update_exposed`` only while someone is exposed or holds one card, and
``legal_turn`` keeps each card's play moves per (seat, side, two-card hand). The
references below are the plain versions (a ``Work`` built through its dataclass
``__init__``, ``update_exposed`` after every move, ``play_moves`` asked for every
card): on many random games of every variant, both give the same states, events,
legal moves and error codes."""

from __future__ import annotations

import dataclasses
import random
from operator import attrgetter
from typing import Any

import pytest

import engine
from engine import Move, MoveType, Phase, RulesError, State
from engine.errors import EngineError
from engine.state import FIELDS, Work
from engine.uno import UnoRules

VARIANTS = [v.id for v in engine.all_variants()]
_values = attrgetter(*FIELDS)


def plain_work(state: State) -> Any:
    """A ``Work`` made through the dataclass ``__init__``, as before ``work_of``."""
    made: Any = Work
    w = made(*state)
    w.hands = list(state.hands)
    return w


def plain_freeze(w: Any) -> State:
    if type(w.hands) is list:
        w.hands = tuple(w.hands)
    return State(*_values(w))


def plain_apply(v: Any, state: State, move: Move) -> tuple[State, list[Any]]:
    move = v.decode_move(state, move)
    v.check_move(state, move)
    w = plain_work(state)
    events: list[Any] = []
    v._handlers[move.type](w, move, events)
    if v.uno_rule and move.type is not MoveType.NEXT_ROUND:
        v.update_exposed(state, w, move, events)
    w.move_count += 1
    return plain_freeze(w), events


def plain_legal_turn(v: Any, state: State, player: int) -> list[Move]:
    """``UnoRules.legal_turn`` without its table: ``play_moves`` for every matching card."""
    cat, side = v.catalog, state.side
    moves: list[Move] = []
    for card in state.hands[player]:
        if v.matches(side, card, state.active_color, state.discard[-1]):
            moves.extend(v.play_moves(state, player, card))
    moves.append(Move(MoveType.DRAW, player))
    assert cat.size > 0
    return moves


def outcome(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except EngineError as exc:
        return ("error", type(exc).__name__, exc.code)


def test_work_of_and_freeze_match_the_dataclass_copy() -> None:
    state, _ = engine.start("uno_flip", 4, 12)
    fast, plain = engine.state.work_of(state), plain_work(state)
    assert [getattr(fast, f.name) for f in dataclasses.fields(plain)] == [
        getattr(plain, f.name) for f in dataclasses.fields(plain)
    ]
    assert engine.state.freeze(fast) == plain_freeze(plain) == state


@pytest.mark.parametrize("variant", VARIANTS)
def test_lean_paths_agree_with_the_plain_ones_on_random_games(variant: str) -> None:
    v = engine.find_variant(variant)
    rnd = random.Random(f"paths-{variant}")
    compared = illegal = 0
    base_turn = type(v).legal_turn is UnoRules.legal_turn
    for _ in range(12):
        players = rnd.randint(v.min_players, min(v.max_players, 5))
        state, _ = v.new_game(players, rnd.randrange(2**64))
        for _ in range(400):
            if state.phase is Phase.GAME_OVER:
                break
            for seat in range(players):
                legal = v.legal_moves(state, seat)
                # The table serves the variants that list a turn with UnoRules' own
                # (UNO All Wild and DOS list theirs, with moves that depend on more).
                if (
                    base_turn
                    and state.phase is Phase.PLAY
                    and (state.pending is None and state.current == seat)
                ):
                    assert legal[: len(legal) - len(v.legal_side(state, seat))] == (
                        plain_legal_turn(v, state, seat)
                    )
            seat = (
                0
                if state.phase is Phase.ROUND_OVER
                else (state.pending.player if state.pending is not None else state.current)
            )
            legal = v.legal_moves(state, seat)
            # Now and then a move that may be illegal: the same error either way.
            if rnd.random() < 0.2:
                odd = Move(rnd.choice(list(MoveType)), rnd.randrange(players), rnd.randrange(120))
                fast, plain = outcome(v.apply, state, odd), outcome(plain_apply, v, state, odd)
                assert (fast if fast[0] == "error" else fast[0]) == (
                    plain if plain[0] == "error" else plain[0]
                )
                illegal += fast[0] == "error"
            move = v.encode_move(state, legal[rnd.randrange(len(legal))])
            fast_state, fast_events = v.apply(state, move)
            plain_state, plain_events = plain_apply(v, state, move)
            assert fast_state == plain_state and fast_events == plain_events
            state = fast_state
            compared += 1
    assert compared > 300 and illegal > 0


def test_an_illegal_move_raises_the_same_code_and_leaves_the_state_alone() -> None:
    state, _ = engine.start("uno_classic", 2, 3)
    before = engine.to_dict(state)
    other = 1 - state.current if state.pending is None else 1 - state.pending.player
    with pytest.raises(RulesError) as fast:
        engine.apply(state, Move(MoveType.DRAW, other))
    with pytest.raises(RulesError) as plain:
        plain_apply(engine.find_variant("uno_classic"), state, Move(MoveType.DRAW, other))
    assert fast.value.code == plain.value.code == "not_your_turn"
    assert engine.to_dict(state) == before


def near_misses(v: Any, state: State, move: Move, players: int) -> list[Move]:
    """Moves one field away from a legal ``move``: what the lean path must refuse (or
    take exactly as the general path does)."""
    colors = list(v.colors_for(state))
    hand = state.hands[move.player]
    others = [c for c in range(v.catalog.size) if c not in hand][:2]
    out = [
        move._replace(uno=not move.uno),
        move._replace(player=(move.player + 1) % players),
        move._replace(target=0),
        move._replace(chain=()),
        move._replace(cards=()),
        move._replace(color=None if move.color is not None else colors[0]),
        move._replace(card=None if move.card is not None else (*hand, 0)[0]),
    ]
    out += [move._replace(card=c) for c in (*hand[:3], *others)]
    out += [move._replace(color=c) for c in colors[1:]]
    out += [Move(t, move.player) for t in (MoveType.DRAW, MoveType.PASS, MoveType.PLAY)]
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_lean_apply_agrees_with_the_general_path_on_near_misses(variant: str) -> None:
    """UnoRules' ``lean_apply`` (classic UNO: the variants whose hooks are UnoRules' own)
    builds the next state without a ``Work`` for a draw, a pass and a number card's play;
    on random games, every legal move and every move one field away from one gives the
    same state and events, or the same error code, as the general path."""
    v = engine.find_variant(variant)
    rnd = random.Random(f"lean-{variant}")
    compared = refused = 0
    for _ in range(6):
        players = rnd.randint(v.min_players, min(v.max_players, 4))
        state, _ = v.new_game(players, rnd.randrange(2**64))
        for _ in range(300):
            if state.phase is Phase.GAME_OVER:
                break
            seat = v.waiting_for(state)
            assert seat is not None
            legal = v.legal_moves(state, seat)
            move = v.encode_move(state, legal[rnd.randrange(len(legal))])
            for odd in (move, *near_misses(v, state, move, players)):
                fast, plain = outcome(v.apply, state, odd), outcome(plain_apply, v, state, odd)
                assert fast == plain, (odd, fast, plain)
                refused += fast[0] == "error"
                compared += 1
            state = v.apply(state, move)[0]
    assert compared > 2000 and refused > 1000


def count_fallbacks(monkeypatch: pytest.MonkeyPatch, variant: str, moves: int = 2000) -> int:
    """How many of ``moves`` random moves of ``variant`` reach ``Variant.apply``."""
    from engine.variant import Variant

    general = Variant.apply
    fallbacks = 0

    def counted(self: Any, state: State, move: Move) -> Any:
        nonlocal fallbacks
        fallbacks += 1
        return general(self, state, move)

    monkeypatch.setattr(Variant, "apply", counted)
    v = engine.find_variant(variant)
    rnd = random.Random(11)
    state, _ = v.new_game(2, 5)
    for _ in range(moves):
        if state.phase is Phase.GAME_OVER:
            state, _ = v.new_game(2, rnd.randrange(2**64))
        seat = v.waiting_for(state)
        assert seat is not None
        legal = v.legal_moves(state, seat)
        state = v.apply(state, v.encode_move(state, legal[rnd.randrange(len(legal))]))[0]
    return fallbacks


@pytest.mark.parametrize("variant", ["uno_classic", "uno_duo", "uno_flip"])
def test_the_lean_path_serves_most_moves(monkeypatch: pytest.MonkeyPatch, variant: str) -> None:
    """The lean path is classic UNO's, UNO Duo's and UNO Flip's ``apply`` and serves most of their
    moves (the rest, and every variant that changes one of its hooks without saying it
    agrees, go through ``Variant.apply``)."""
    lean = {v.id for v in engine.all_variants() if type(v).apply is UnoRules.lean_apply}
    assert lean == {"uno_classic", "uno_duo", "uno_flip"}
    assert 0 < count_fallbacks(monkeypatch, variant) < 1000


def test_uno_all_wild_has_a_lean_path_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """UNO All Wild's own ``apply`` (its cards are all actions: UnoRules' lean path does not
    fit) serves most plays; the targeted cards, the last two cards, ``uno``, a play of
    the drawn card and everything else go through ``Variant.apply``."""
    from engine.variants.all_wild import AllWild

    assert engine.find_variant("uno_all_wild").apply.__func__ is AllWild.apply  # type: ignore[attr-defined]
    assert 0 < count_fallbacks(monkeypatch, "uno_all_wild") < 800


def test_a_variant_that_changes_a_hook_of_the_lean_path_leaves_it() -> None:
    from engine.variants.classic import Classic

    class Louder(Classic):
        def said_uno(self, *args: Any) -> Any:
            return True

    assert Classic.takes_lean_path() and not Louder.takes_lean_path()
    assert Louder.apply is not UnoRules.lean_apply


def test_the_lean_draw_calls_a_variants_own_drew_event() -> None:
    """``drew_event`` is one of the hooks the lean path calls rather than leaves for."""
    from engine.variants.classic import Classic

    class Quiet(Classic):
        def drew_event(self, w: Work, seat: int, cards: list[int], reason: str) -> Any:
            return {"type": "drew", "player": seat, "count": len(cards), "reason": reason}

    v = Quiet()
    assert type(v).apply is UnoRules.lean_apply
    state, _ = v.new_game(2, 3)
    _, events = v.apply(state, Move(MoveType.DRAW, state.current))
    assert events[0] == {"type": "drew", "player": state.current, "count": 1, "reason": "draw"}
