"""The static facts of a variant: its id, players, target, options, catalog, the move
types and decisions it knows, and its metadata (``GET /v1/variants``)."""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar

from .cards import Catalog, load_catalog
from .dispatch import Default, Handler, Lister, check_tables
from .moves import MoveType
from .options import OptionSpec
from .state import PendingType

T = MoveType


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
        check_tables(cls)

    def extra_options(self) -> list[OptionSpec]:
        """Variant options beyond the common ``target``."""
        return []

    @cached_property
    def options(self) -> dict[str, OptionSpec]:
        specs = [
            OptionSpec(
                "target",
                self.target,
                "points that end the game (the rule book's target by default)",
                minimum=1,
                maximum=100_000,
            ),
            *self.extra_options(),
        ]
        return {s.name: s for s in specs}

    @cached_property
    def catalog(self) -> Catalog:
        return load_catalog(self.catalog_name)

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
