"""Explicit dispatch: which method handles a move type, which lists the legal answers to a
decision, which plays its forced default move (a seat's time ran out). A method says so
with ``@handles(MoveType.X)``, ``@lists(SomePending.Y)`` or ``@defaults(SomePending.Y)``;
``tables(cls)`` collects the marks of a class and its bases when the class is created
(``VariantFacts.__init_subclass__``), so a gap is a ``TypeError`` at import."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from .events import Event
from .moves import Move, MoveType
from .state import PendingType, State, Work

F = TypeVar("F", bound=Callable[..., Any])


#: A move handler: (variant, work, move, events) -> None.
Handler = Callable[[Any, Work, Move, list[Event]], None]


#: The legal answers to a decision: (variant, state, player) -> moves.
Lister = Callable[[Any, State, int], list[Move]]


#: The forced default move of a decision: (variant, state, player) -> move.
Default = Callable[[Any, State, int], Move]

#: The two situations with a forced default that are not a pending decision: a turn with
#: nothing pending, and the end of a round (before ``next_round``).
TURN = "turn"
ROUND_OVER = "round_over"


def handles(*types: MoveType) -> Callable[[F], F]:
    """Mark a method as the handler of moves of ``types``."""

    def mark(fn: F) -> F:
        fn._handles = types  # type: ignore[attr-defined]
        return fn

    return mark


def lists(*decisions: PendingType) -> Callable[[F], F]:
    """Mark a method as listing the legal answers to the ``decisions``."""

    def mark(fn: F) -> F:
        fn._lists = decisions  # type: ignore[attr-defined]
        return fn

    return mark


def defaults(*decisions: PendingType | str) -> Callable[[F], F]:
    """Mark a method as the forced default move of the ``decisions`` (or ``TURN``,
    ``ROUND_OVER``): the move the engine makes for a seat whose time ran out. Its
    docstring's first paragraph is the default as the rules documents state it."""

    def mark(fn: F) -> F:
        fn._defaults = decisions  # type: ignore[attr-defined]
        return fn

    return mark


def _marked(cls: type, mark: str) -> dict[Any, Any]:
    """Type -> the class's method for it: each type goes to the method marked for it in
    the most derived class that marks one, resolved through the class (so an override
    of that method, marked again or not, is the one taken)."""
    names: dict[Any, str] = {}
    for klass in reversed(cls.__mro__):
        for name, fn in vars(klass).items():
            for t in getattr(fn, mark, ()):
                names[t] = name
    return {t: inspect.getattr_static(cls, name) for t, name in names.items()}


def check_tables(cls: Any) -> None:
    """Build ``cls.move_handlers``, ``cls.decision_listers`` and ``cls.decision_defaults``;
    raise ``TypeError`` for a move type without a handler, or a decision (or the plain
    turn, or the end of a round) without its legal moves or its forced default."""
    cls.move_handlers = _marked(cls, "_handles")
    cls.decision_listers = _marked(cls, "_lists")
    cls.decision_defaults = _marked(cls, "_defaults")
    missing = sorted(t.value for t in cls.move_types if t not in cls.move_handlers)
    if missing:
        raise TypeError(f"{cls.__name__}: no @handles method for move type(s) {missing}")
    unranked = sorted(t.value for t in cls.move_types if t not in cls.bot_rank)
    if unranked:
        raise TypeError(f"{cls.__name__}: no bot_rank for move type(s) {unranked}")
    for decision, (answers, _code) in cls.pending_moves.items():
        if not isinstance(decision, PendingType):
            raise TypeError(f"{cls.__name__}: decision {decision!r} is not a PendingType")
        if decision not in cls.decision_listers:
            raise TypeError(f"{cls.__name__}: no @lists method for decision {decision!r}")
        if not answers <= cls.move_types:
            raise TypeError(f"{cls.__name__}: {decision!r} is answered by unknown moves")
        if decision not in cls.decision_defaults:
            raise TypeError(f"{cls.__name__}: no @defaults method for decision {decision!r}")
    if cls.move_types:  # a concrete game (the bare base declares no moves)
        for situation in (TURN, ROUND_OVER):
            if situation not in cls.decision_defaults:
                raise TypeError(f"{cls.__name__}: no @defaults method for {situation!r}")
