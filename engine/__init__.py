"""A pure rules engine for the UNO family of card games.

Verbs (all pure; states are immutable values):

- ``new_game(variant, players, seed, dealer=None, options=None, deck=None) -> State``
  and ``start(...) -> (State, events)``
- ``legal_moves(state, player) -> list[Move]``
- ``validate(state, move) -> None`` (raises ``RulesError``)
- ``apply(state, move) -> (State, events)`` (always validates)
- ``view(state, player) -> dict``; ``score(state) -> dict``
- ``to_dict(state)`` / ``from_dict(raw)`` (``"schema": 1``)
- ``record(variant, players, seed, moves, ...) -> dict`` (a game record, ``"record": 1``)
  and ``replay(record) -> Replayed`` (raises ``RecordError`` / ``InvalidRecord``)
- ``forced_move(state, player) -> Move | None`` (the default a seat's time-out plays)
  and ``waiting_for(state) -> int | None`` (the seat whose move the game waits for)
"""

from __future__ import annotations

from typing import Any

from .cards import Card, Catalog, Color, Face, Kind, load_catalog
from .errors import EngineError, InvalidMove, InvalidState, RulesError, SetupError, UnknownVariant
from .events import Event, redact, redact_all, reveal_all
from .moves import MatchPart, Move, MoveType
from .records import InvalidRecord, RecordError, Replayed, record, replay
from .registry import all_variants, find_variant
from .serialize import check_invariants, from_dict, to_dict
from .state import Pending, Phase, State
from .variant import Variant

__all__ = [
    "Card", "Catalog", "Color", "EngineError", "Event", "Face", "InvalidMove", "InvalidRecord",
    "InvalidState", "Kind", "MatchPart", "Move", "MoveType", "Pending", "Phase", "RecordError",
    "Replayed", "RulesError", "SetupError", "State", "UnknownVariant", "Variant",
    "all_variants", "apply", "check_invariants", "find_variant", "forced_move", "from_dict",
    "legal_moves", "load_catalog", "new_game", "record", "redact", "redact_all",
    "replay", "reveal_all", "score", "start", "to_dict", "validate", "view", "waiting_for",
]  # fmt: skip


def start(
    variant: str,
    players: int,
    seed: int,
    dealer: int | None = None,
    options: dict[str, Any] | None = None,
    deck: list[int] | None = None,
) -> tuple[State, list[Event]]:
    """A new game and the events of its setup (cut, deal, turned-up card)."""
    return find_variant(variant).new_game(players, seed, dealer, options, deck)


def new_game(
    variant: str,
    players: int,
    seed: int,
    dealer: int | None = None,
    options: dict[str, Any] | None = None,
    deck: list[int] | None = None,
) -> State:
    return start(variant, players, seed, dealer, options, deck)[0]


def _move(move: Move | dict[str, Any]) -> Move:
    return move if isinstance(move, Move) else Move.from_dict(move)


def apply(state: State, move: Move | dict[str, Any]) -> tuple[State, list[Event]]:
    return find_variant(state.variant).apply(state, _move(move))


def validate(state: State, move: Move | dict[str, Any]) -> None:
    """Raise ``RulesError`` (or ``InvalidMove``) if ``move`` is not legal in ``state``."""
    find_variant(state.variant).apply(state, _move(move))


def legal_moves(state: State, player: int) -> list[Move]:
    variant = find_variant(state.variant)
    return [variant.encode_move(state, m) for m in variant.legal_moves(state, player)]


def view(state: State, player: int | None) -> dict[str, Any]:
    return find_variant(state.variant).view(state, player)


def score(state: State) -> dict[str, Any]:
    return find_variant(state.variant).score(state)


def waiting_for(state: State) -> int | None:
    """The seat whose move the game waits for (``None`` once it is over): the pending
    decision's player, else the player to move; between rounds the round's winner."""
    return find_variant(state.variant).waiting_for(state)


def forced_move(state: State, player: int) -> Move | None:
    """The documented default move of ``player`` (its time ran out), or ``None`` when
    that seat owes nothing now. Never an UNO call or a catch; never says UNO."""
    return find_variant(state.variant).forced_move(state, player)
