"""A table of classic UNO with house rules, dealt from a stacked deck and played through
the engine. The house-rule tests take the ``table`` fixture; tests/service/house_http.py
plays the same tables statelessly through the HTTP routes, and
tests/service/test_house_rules_over_http.py runs those tests there too.

A refused move must leave the state as it was: the engine's input state is compared
before and after, and over HTTP no new state comes back (the client keeps its own)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import pytest

import engine
from engine import Move, State
from tests.support import CardSpec, rules_error, stacked_game

V = "uno_classic"
Event = dict[str, Any]

#: Every house rule on (the last choice of each, a penalty of 4).
ALL_ON: dict[str, Any] = {
    "stacking": "up",
    "seven_zero": True,
    "jump_in": True,
    "draw_to_match": True,
    "forced_play": True,
    "uno_penalty": 4,
}


class Table(Protocol):
    """One game and the moves made on it."""

    state: State

    def move(self, move: dict[str, Any]) -> list[Event]:
        """Apply ``move``; the events as its player sees them."""

    def refused(self, move: dict[str, Any]) -> str:
        """The rules code ``move`` is refused with (422); the state stays as it was."""

    def view(self, seat: int | None) -> dict[str, Any]: ...

    def legal(self, seat: int) -> list[dict[str, Any]]: ...


class EngineTable:
    def __init__(self, state: State) -> None:
        self.state = state

    def move(self, move: dict[str, Any]) -> list[Event]:
        self.state, events = engine.apply(self.state, move)
        return engine.redact_all(events, move["player"])

    def refused(self, move: dict[str, Any]) -> str:
        before = engine.to_dict(self.state)
        code = rules_error(self.state, move)  # apply and validate agree
        assert engine.to_dict(self.state) == before
        return code

    def view(self, seat: int | None) -> dict[str, Any]:
        return engine.view(self.state, seat)

    def legal(self, seat: int) -> list[dict[str, Any]]:
        return [m.to_dict() for m in engine.legal_moves(self.state, seat)]


#: (hands, turned, draw=(), dealer=0, **options) -> a table dealt from that deck.
Deal = Callable[..., Table]


def deal_on_engine(
    hands: Sequence[Sequence[CardSpec]],
    turned: CardSpec,
    draw: Sequence[CardSpec] = (),
    dealer: int = 0,
    **options: Any,
) -> Table:
    """A table dealt from this stacked deck, played through the engine."""
    return EngineTable(stacked_game(V, hands, turned, draw, dealer, **options))


@pytest.fixture
def table() -> Deal:
    """A table factory, through the engine (tests/service/test_house_rules_over_http.py
    runs the same tests through the HTTP routes)."""
    return deal_on_engine


# ---------------------------------------------------------------- reading a table
def card(t: Table, seat: int, code: str, nth: int = 0) -> int:
    """The catalog id of the ``nth`` card ``code`` in ``seat``'s hand."""
    names = engine.find_variant(V).catalog.code[0]
    found = [c for c in t.state.hands[seat] if names[c] == code]
    assert len(found) > nth, f"{code} not in hand {seat}: {codes(t, seat)}"
    return found[nth]


def codes(t: Table, seat: int) -> list[str]:
    names = engine.find_variant(V).catalog.code[0]
    return [names[c] for c in t.state.hands[seat]]


def play(t: Table, seat: int, code: str, **fields: Any) -> dict[str, Any]:
    """A play of the first ``code`` in ``seat``'s hand."""
    return {"type": "play", "player": seat, "card": card(t, seat, code), **fields}


def mv(type_: str, player: int, **fields: Any) -> dict[str, Any]:
    return {"type": type_, "player": player, **fields}


def types(events: list[Event]) -> list[str]:
    return [e["type"] for e in events]


def as_moves(moves: list[dict[str, Any]]) -> set[Move]:
    return {Move.from_dict(m) for m in moves}


def keep(t: Table, seat: int, *names: str) -> None:
    """``seat`` keeps only the first card of each of ``names``; the rest of its hand goes
    under the draw pile."""
    kept = [card(t, seat, n, names[:i].count(n)) for i, n in enumerate(names)]
    state = t.state
    gone = tuple(c for c in state.hands[seat] if c not in kept)
    hands = tuple(tuple(kept) if s == seat else h for s, h in enumerate(state.hands))
    t.state = state._replace(hands=hands, draw_pile=state.draw_pile + gone)
    engine.check_invariants(t.state)


FOUR_FILL = (
    ["G1", "G2", "G3", "G4", "G6", "G7", "G8"],
    ["B1", "B2", "B3", "B4", "B6", "B7", "B8"],
    ["Y1", "Y2", "Y3", "Y4", "Y6", "Y7", "Y8"],
    ["G9", "B9", "Y9", "G5", "B5", "Y5", "G0"],
)


def four_hands(*named: list[str]) -> list[list[str]]:
    """Seat 0's to 3's hands for four players: the named cards first, filled up to 7
    from ``FOUR_FILL`` (green, blue and yellow numbers, no red card)."""
    named = named + ([],) * (4 - len(named))
    return [[*n, *f][:7] for n, f in zip(named, FOUR_FILL, strict=True)]
