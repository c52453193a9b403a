"""The static facts of a variant: its id, players, target, options, catalog, the move
types and decisions it knows, and its metadata (``GET /v1/variants``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar, overload

from .cards import Catalog, load_catalog
from .dispatch import Default, Handler, Lister, check_tables
from .moves import MoveType
from .options import OptionSpec
from .state import PendingType

T = MoveType
R = TypeVar("R")


class cached(Generic[R]):  # noqa: N801 - used like functools.cached_property
    """``functools.cached_property`` without its lock (Python 3.11's takes one on every
    first read): the value is made on the first read and stored on the instance with
    ``setattr``. Variant classes get their ``functools.cached_property`` attributes
    turned into this at class creation (``VariantFacts.__init_subclass__``)."""

    def __init__(self, func: Callable[[Any], R]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> cached[R]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> R: ...

    def __get__(self, obj: object, owner: type | None = None) -> R | cached[R]:
        if obj is None:
            return self
        value = self.func(obj)
        setattr(obj, self.name, value)
        return value


class VariantFacts:
    """Static facts of one game. Instances are stateless singletons."""

    id: ClassVar[str]
    title: ClassVar[str]
    catalog_name: ClassVar[str]
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 10
    target: ClassVar[int] = 500
    #: "highest" (first to the target wins) or "lowest" (lowest total wins at the end).
    winner_rule: ClassVar[str] = "highest"
    hand_size: ClassVar[int] = 7
    uno_rule: ClassVar[bool] = True
    #: Free-text facts for integrators (where the data comes from, deviations).
    notes: ClassVar[tuple[str, ...]] = ()
    #: Move types this variant knows.
    move_types: ClassVar[frozenset[MoveType]] = frozenset()
    #: decision -> (move types that answer it, code when another move is sent)
    pending_moves: ClassVar[dict[PendingType, tuple[frozenset[MoveType], str]]] = {}
    #: Move types taken by any seat at any time during play (UNO declarations, catches).
    side_moves: ClassVar[frozenset[MoveType]] = frozenset({T.UNO, T.CATCH})
    #: Event types this variant's moves may cause (``event["type"]``).
    event_types: ClassVar[frozenset[str]] = frozenset(
        {"dealer_cut", "round_started", "drew", "reshuffled", "uno", "caught"}
        | {"round_over", "game_over"}
    )
    #: The bots' preference per move type, lower first (``service.sessions.bots``):
    #: getting rid of cards (0) before accepting (1), passing or ending a turn (2), and
    #: drawing (3). Every move type in ``move_types`` needs one (checked at import).
    bot_rank: ClassVar[dict[MoveType, int]] = {T.UNO: 0, T.CATCH: 0, T.NEXT_ROUND: 0}
    #: Built at class creation: move type -> handler, decision -> its legal moves.
    move_handlers: ClassVar[dict[MoveType, Handler]] = {}
    decision_listers: ClassVar[dict[PendingType, Lister]] = {}
    #: Decision (or ``dispatch.TURN`` / ``dispatch.ROUND_OVER``) -> its forced default.
    decision_defaults: ClassVar[dict[PendingType | str, Default]] = {}

    @classmethod
    def players_text(cls) -> str:
        """The player range in words: ``2 to 10 players``, or ``2 players`` for one count."""
        if cls.min_players == cls.max_players:
            return f"{cls.min_players} players"
        return f"{cls.min_players} to {cls.max_players} players"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, value in list(vars(cls).items()):
            if isinstance(value, functools.cached_property):
                lazy: cached[Any] = cached(value.func)
                lazy.__set_name__(cls, name)
                setattr(cls, name, lazy)
        check_tables(cls)

    def __init__(self) -> None:
        self.catalog: Catalog = load_catalog(self.catalog_name)
        self.options: dict[str, OptionSpec] = self._option_specs()

    def extra_options(self) -> list[OptionSpec]:
        """Variant options beyond the common ``target``."""
        return []

    def _option_specs(self) -> dict[str, OptionSpec]:
        specs = [
            OptionSpec(
                "target",
                self.target,
                "points that end the game (the rule book's target by default)",
                minimum=1,
                maximum=100_000,
                label="Points to win",
            ),
            *self.extra_options(),
        ]
        return {s.name: s for s in specs}

    def metadata(self, with_catalog: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "players": {"min": self.min_players, "max": self.max_players},
            "target": self.target,
            "winner_rule": self.winner_rule,
            "deck_size": self.catalog.size,
            "hand_size": self.hand_size,
            "double_sided": self.catalog.sides == 2,
            "options": {name: spec.to_dict() for name, spec in self.options.items()},
            "move_types": sorted(t.value for t in self.move_types),
            "notes": list(self.notes),
        }
        if with_catalog:
            out["catalog"] = self.catalog.to_list()
        return out
