"""Test helpers: stacked decks, games dealt from them, card lookup, move builders,
rules errors, random play, tree walks over views, and the served spec as data."""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import Move, MoveType, Pending, Phase, RulesError, State, find_variant

CardSpec = int | str
#: The served API description (``make spec`` bundles it).
SPEC_PATH = Path(__file__).resolve().parents[1] / "openapi.yaml"


@functools.cache
def spec_document() -> dict[str, Any]:
    """openapi.yaml as plain data (one load a run: do not change it). PyYAML is
    imported here, not at the top: the engine's tests run where only pytest is lent
    (``tests/engine/paths/test_interpreters.py``)."""
    import yaml

    # libyaml's loader where PyYAML was built with it: the same data in a sixth of the time.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(SPEC_PATH.read_text(), Loader=loader)  # type: ignore[no-any-return]


@functools.cache
def schema_validator(name: str) -> Any:
    """A validator (formats checked) of the spec's schema ``name``, with the document's
    components for its $refs. jsonschema is imported here, not at the top: it builds its
    IRI grammars on import (seconds), which every test module's collection would pay."""
    from openapi_schema_validator import OAS31Validator

    schema = {"components": spec_document()["components"], "$ref": f"#/components/schemas/{name}"}
    return OAS31Validator(schema, format_checker=OAS31Validator.FORMAT_CHECKER)


class DeckBuilder:
    """Resolve card codes to unused catalog ids, then complete a deck permutation."""

    def __init__(self, variant_id: str) -> None:
        self.variant = find_variant(variant_id)
        self.catalog = self.variant.catalog
        self.used: set[int] = set()

    def take(self, spec: CardSpec) -> int:
        """The first unused card whose code (or one face's code) is ``spec``; ints are ids."""
        if isinstance(spec, int):
            if spec in self.used:
                raise ValueError(f"card {spec} used twice")
            self.used.add(spec)
            return spec
        for card in self.catalog.cards:
            if card.id in self.used:
                continue
            if card.code == spec or any(f.code == spec for f in card.faces):
                self.used.add(card.id)
                return card.id
        raise ValueError(f"no unused card with code {spec!r} in {self.catalog.name}")

    def rest(self) -> list[int]:
        return [c for c in self.catalog.ids if c not in self.used]


def stacked_deck(
    variant_id: str,
    hands: Sequence[Sequence[CardSpec]],
    turned: CardSpec | Sequence[CardSpec] | None,
    draw: Sequence[CardSpec] = (),
    dealer: int = 0,
) -> list[int]:
    """A whole deck (top first) that deals ``hands[seat]`` to each seat (dealing one at a
    time from the seat left of ``dealer``), then turns ``turned`` (a list for DOS's
    center row), then leaves ``draw`` on top of the draw pile; the rest in id order.
    Every hand must have the same length (the variant's hand size)."""
    b = DeckBuilder(variant_id)
    n = len(hands)
    size = len(hands[0])
    if any(len(h) != size for h in hands):
        raise ValueError("all hands must have the same size")
    ids = [[b.take(c) for c in h] for h in hands]
    deck: list[int] = []
    for i in range(size):
        for k in range(1, n + 1):
            deck.append(ids[(dealer + k) % n][i])
    if turned is not None:
        for c in [turned] if isinstance(turned, (int, str)) else turned:
            deck.append(b.take(c))
    deck.extend(b.take(c) for c in draw)
    deck.extend(b.rest())
    return deck


def top_deck(variant_id: str, top: Sequence[CardSpec]) -> list[int]:
    """A whole deck whose first cards are ``top`` in order; the rest in id order."""
    b = DeckBuilder(variant_id)
    deck = [b.take(c) for c in top]
    return deck + b.rest()


def ids(variant_id: str, *codes: str) -> list[int]:
    """Distinct card ids for codes, as ``DeckBuilder.take`` resolves them."""
    b = DeckBuilder(variant_id)
    return [b.take(c) for c in codes]


def actor(state: State) -> int:
    """The seat whose move the game waits for (seat 0 between rounds)."""
    if state.phase is not Phase.PLAY and state.phase is not Phase.DRAFT:
        return 0
    return state.pending.player if state.pending is not None else state.current


def play(state: State, *moves: dict[str, Any] | Move) -> tuple[State, list[dict[str, Any]]]:
    """Apply moves in order; return the final state and all events."""
    events: list[dict[str, Any]] = []
    for m in moves:
        state, ev = engine.apply(state, m)
        events.extend(ev)
    return state, events


def random_game(
    variant_id: str,
    players: int,
    seed: int,
    rnd: random.Random,
    options: dict[str, Any] | None = None,
    max_moves: int = 200_000,
) -> Iterator[tuple[State, Move | None, State, list[dict[str, Any]]]]:
    """Play a random legal game to its end; yield (before, move, after, events)."""
    state, events = engine.start(variant_id, players, seed, options=options)
    yield state, None, state, events
    for _ in range(max_moves):
        if state.phase is Phase.GAME_OVER:
            return
        moves = [m for p in range(players) for m in engine.legal_moves(state, p)]
        assert moves, f"no legal move in a live game: {engine.to_dict(state)}"
        # Mostly the actor's moves; side moves (catch/uno) only now and then.
        main = [m for m in moves if m.player == actor(state)]
        pool = main if main and rnd.random() < 0.9 else moves
        # Drawing while a play is possible is legal but makes games very long: do it
        # only now and then, so thousands of games reach their end quickly.
        plays = [m for m in pool if m.type is not MoveType.DRAW]
        if plays and len(plays) < len(pool) and rnd.random() < 0.8:
            pool = plays
        move = rnd.choice(pool)
        after, events = engine.apply(state, move)
        yield state, move, after, events
        state = after
    raise AssertionError(f"{variant_id} game {seed} did not end in {max_moves} moves")


def walk(node: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) pair in a JSON tree."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield k, v
            yield from walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from walk(v)


def ids_in(node: Any) -> set[int]:
    """Card ids named anywhere in a JSON tree (``id`` and ``card`` keys holding ints)."""
    out: set[int] = set()
    for k, v in walk(node):
        if k in ("id", "card") and isinstance(v, int) and not isinstance(v, bool):
            out.add(v)
    return out


# ---------------------------------------------------------------- rule-test helpers
def stacked_game(
    variant_id: str,
    hands: Sequence[Sequence[CardSpec]],
    turned: CardSpec | Sequence[CardSpec] | None,
    draw: Sequence[CardSpec] = (),
    dealer: int = 0,
    **options: Any,
) -> State:
    """A new game (seed 7) dealt from ``stacked_deck(variant_id, hands, turned, draw,
    dealer)``, with ``options`` (none: the defaults)."""
    deck = stacked_deck(variant_id, hands, turned, draw, dealer)
    return engine.new_game(
        variant_id, len(hands), seed=7, dealer=dealer, deck=deck, options=options or None
    )


def card(state: State, seat: int, code: str, nth: int = 0) -> int:
    """The catalog id of the ``nth`` card (first: 0) with ``code`` in ``seat``'s hand,
    on the side in play."""
    names = find_variant(state.variant).catalog.code[state.side]
    found = [c for c in state.hands[seat] if names[c] == code]
    if len(found) <= nth:
        raise AssertionError(f"{code} not in hand {seat}")
    return found[nth]


def codes(state: State, seat: int) -> list[str]:
    """The codes of ``seat``'s hand, in hand order, on the side in play."""
    names = find_variant(state.variant).catalog.code[state.side]
    return [names[c] for c in state.hands[seat]]


def mv(type_: str, player: int, **fields: Any) -> dict[str, Any]:
    """A move in its JSON form."""
    return {"type": type_, "player": player, **fields}


def pl(state: State, seat: int, code: str, **fields: Any) -> dict[str, Any]:
    """A play of the first card ``code`` in ``seat``'s hand (by catalog id)."""
    return mv("play", seat, card=card(state, seat, code), **fields)


def rules_error(state: State, move: dict[str, Any]) -> str:
    """The code of the ``RulesError`` that ``move`` raises; ``validate`` must agree."""
    with pytest.raises(RulesError) as applied:
        engine.apply(state, move)
    with pytest.raises(RulesError) as validated:
        engine.validate(state, move)
    assert validated.value.code == applied.value.code
    return applied.value.code


def with_hand(state: State, seat: int, keep: list[int]) -> State:
    """``seat`` keeps only ``keep``; the rest of their hand goes under the draw pile."""
    gone = tuple(c for c in state.hands[seat] if c not in keep)
    hands = tuple(tuple(keep) if s == seat else h for s, h in enumerate(state.hands))
    out = state._replace(hands=hands, draw_pile=state.draw_pile + gone)
    engine.check_invariants(out)
    return out


def pend(state: State) -> Pending:
    """The decision the state waits for (there must be one)."""
    assert state.pending is not None, "no decision is pending"
    return state.pending


def round_scores(state: State) -> tuple[int, ...]:
    """The last round's scores (a round must have been scored)."""
    assert state.round_scores is not None, "no round has been scored"
    return state.round_scores


def long_random_record(
    variant: str, seats: int, moves: int, seed: int, game_id: str | None = None
) -> dict[str, Any]:
    """The record of a random game of at most ``moves`` moves to a target no one
    reaches (many rounds end and the game goes on): plays four times in five, else any
    legal move; with a seed commitment when ``game_id`` is given."""
    rnd = random.Random(seed)
    options = {"target": 100_000}
    state, _ = engine.start(variant, seats, seed, options=options)
    played: list[Move] = []
    while len(played) < moves and state.phase is not Phase.GAME_OVER:
        legal = [m for p in range(seats) for m in engine.legal_moves(state, p)]
        plays = [m for m in legal if m.type is not MoveType.DRAW]
        move = rnd.choice(plays if plays and rnd.random() < 0.8 else legal)
        played.append(move)
        state, _ = engine.apply(state, move)
    return engine.record(variant, seats, seed, played, options=options, game_id=game_id)
