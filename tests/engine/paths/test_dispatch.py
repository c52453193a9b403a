"""Explicit dispatch: the tables from move type to handler and from decision to its
legal moves are built when a variant class is created, and a gap fails right there."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

import engine
from engine import MoveType
from engine.state import PendingType
from engine.uno import UnoPending, UnoRules
from engine.variant import Variant, defaults, handles, lists

T = MoveType


class Spare(PendingType):
    WAIT = "wait"


def test_a_move_type_without_a_handler_fails_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match=r"no @handles method for move type\(s\) \['give'\]"):

        class NoGive(UnoRules):
            move_types: ClassVar[frozenset[MoveType]] = UnoRules.move_types | {T.GIVE}


def test_a_decision_without_its_legal_moves_fails_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="no @lists method for decision"):

        class NoLister(UnoRules):
            pending_moves: ClassVar[dict[PendingType, Any]] = {
                **UnoRules.pending_moves,
                Spare.WAIT: (frozenset({T.PASS}), "must_wait"),
            }


def test_a_decision_without_its_forced_default_fails_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="no @defaults method for decision"):

        class NoDefault(UnoRules):
            pending_moves: ClassVar[dict[PendingType, Any]] = {
                **UnoRules.pending_moves,
                Spare.WAIT: (frozenset({T.PASS}), "must_wait"),
            }

            @lists(Spare.WAIT)
            def legal_wait(self, state: Any, player: int) -> list[Any]:
                return []


def test_a_decision_with_its_legal_moves_and_default_is_accepted() -> None:
    class Waits(UnoRules):
        pending_moves: ClassVar[dict[PendingType, Any]] = {
            **UnoRules.pending_moves,
            Spare.WAIT: (frozenset({T.PASS}), "must_wait"),
        }

        @lists(Spare.WAIT)
        def legal_wait(self, state: Any, player: int) -> list[Any]:
            return []

        @defaults(Spare.WAIT)
        def default_wait(self, state: Any, player: int) -> Any:
            """Wait."""
            return engine.Move(T.PASS, player)

    assert Waits.decision_defaults[Spare.WAIT] is Waits.__dict__["default_wait"]


def test_a_game_without_a_default_for_its_plain_turn_fails_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="no @defaults method for 'turn'"):

        class NoTurnDefault(Variant):
            move_types: ClassVar[frozenset[MoveType]] = frozenset({T.DRAW, T.NEXT_ROUND})
            bot_rank: ClassVar[dict[MoveType, int]] = {T.DRAW: 3, T.NEXT_ROUND: 0}

            @handles(T.DRAW)
            def on_draw(self, w: Any, move: Any, events: list[Any]) -> None:
                raise AssertionError("draw")


def test_a_decision_named_by_a_bare_string_fails_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="is not a PendingType"):

        class BareString(Variant):
            pending_moves: ClassVar[dict[Any, Any]] = {"wait": (frozenset(), "must_wait")}


def test_a_decision_answered_by_a_move_the_variant_lacks_fails() -> None:
    with pytest.raises(TypeError, match="answered by unknown moves"):

        class Unanswerable(UnoRules):
            pending_moves: ClassVar[dict[PendingType, Any]] = {
                **UnoRules.pending_moves,
                Spare.WAIT: (frozenset({T.GIVE}), "must_wait"),
            }

            @lists(Spare.WAIT)
            def legal_wait(self, state: Any, player: int) -> list[Any]:
                return []


def test_an_override_replaces_the_handler_without_marking_it_again() -> None:
    class Loud(UnoRules):
        def on_pass(self, w: Any, move: Any, events: list[Any]) -> None:
            raise AssertionError("override")

        @handles(T.GIVE)
        def on_give(self, w: Any, move: Any, events: list[Any]) -> None:
            raise AssertionError("give")

    assert Loud.move_handlers[T.PASS] is Loud.__dict__["on_pass"]
    assert Loud.move_handlers[T.GIVE] is Loud.__dict__["on_give"]
    assert Loud.move_handlers[T.PLAY] is UnoRules.__dict__["on_play"]
    assert Loud.decision_listers[UnoPending.CHALLENGE] is UnoRules.__dict__["legal_challenge"]


@pytest.mark.parametrize("variant", engine.all_variants(), ids=lambda v: v.id)
def test_every_variant_has_a_handler_per_move_and_a_lister_per_decision(variant: Variant) -> None:
    assert variant.move_types <= set(variant.move_handlers)
    assert set(variant.pending_moves) <= set(variant.decision_listers)
    assert all(isinstance(d, PendingType) for d in variant.pending_moves)
    assert {*variant.pending_moves, "turn", "round_over"} <= set(variant.decision_defaults)
    effects = getattr(variant, "effects", {})
    assert all(callable(fn) for fn in effects.values())
