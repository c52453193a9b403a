"""The immutable game state, its pending decisions, and the mutable scratch copy
(`Work`) that a move is applied to.

A ``State`` is a ``NamedTuple`` of immutable values (ints, strings, enums, tuples), so
states compare by value, are safe to share, and ``apply`` never changes its input:
it copies the state into a ``Work`` (a shallow copy, field by field), changes that,
and freezes it into a new ``State``. Unchanged tuples are shared, not copied.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

from .cards import Color
from .rng import Rng


class Phase(StrEnum):
    DRAFT = "draft"
    PLAY = "play"
    ROUND_OVER = "round_over"
    GAME_OVER = "game_over"


class PendingType(StrEnum):
    """The base of the decision enums. Each rules module declares its own decisions as
    a subclass (``engine.uno.UnoPending``, ``engine.variants.duo.DuoPending``, ...) and
    a variant lists the ones it uses in ``Variant.pending_moves``."""


class Pending(NamedTuple):
    """A decision the game waits for: its ``type``, the ``player`` who must make it,
    an optional ``card`` it concerns, and private ``data`` (key/value pairs) that only
    the engine reads. Views show ``type`` and ``player``; ``card`` only to that player
    where the variant allows."""

    type: PendingType
    player: int
    card: int | None = None
    data: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        for k, v in self.data:
            if k == key:
                return v
        return default


def pending(type_: PendingType, player: int, card: int | None = None, **data: Any) -> Pending:
    """Build a ``Pending`` with its data sorted by key (one canonical form)."""
    return Pending(type_, player, card, tuple(sorted(data.items())))


class State(NamedTuple):
    """A complete game: everything needed to continue, including the generator."""

    variant: str
    num_players: int
    options: tuple[tuple[str, Any], ...]
    seed: int
    rng: Rng
    phase: Phase
    round: int
    dealer: int
    direction: int
    current: int
    side: int
    hands: tuple[tuple[int, ...], ...]
    draw_pile: tuple[int, ...]
    discard: tuple[int, ...]
    active_color: Color | None
    pending: Pending | None
    exposed: tuple[int, ...]
    scores: tuple[int, ...]
    round_scores: tuple[int, ...] | None
    round_winner: int | None
    winners: tuple[int, ...]
    move_count: int
    ext: Any

    def option(self, name: str, default: Any = None) -> Any:
        for k, v in self.options:
            if k == name:
                return v
        return default

    @property
    def top(self) -> int:
        """The id of the card in play (top of the discard pile)."""
        return self.discard[-1]


FIELDS = State._fields

# Work mirrors State field by field. Its __init__ and freeze() are generated so that
# copying a state costs one call, not a loop of setattr (apply's hot path).
_init_src = "def __init__(self, {args}):\n{body}".format(
    args=", ".join(FIELDS), body="\n".join(f"    self.{f} = {f}" for f in FIELDS)
)
_freeze_src = "def freeze(self):\n    return _new(State, ({vals},))".format(
    vals=", ".join(f"self.{f}" for f in FIELDS)
)


class Work:
    """A mutable copy of a ``State`` for the duration of one ``apply``.

    Fields hold the same immutable values as the state; rules replace them
    (``w.hands`` is a list of tuples, one per seat, so one hand can be replaced).
    """

    # prev_color: the colour in play before the card just played (set by a play, read
    # by challengeable cards); transient, never part of a State.
    __slots__ = (*FIELDS, "prev_color")

    if TYPE_CHECKING:  # pragma: no cover - for type checkers only
        variant: str
        num_players: int
        options: tuple[tuple[str, Any], ...]
        seed: int
        rng: Rng
        phase: Phase
        round: int
        dealer: int
        direction: int
        current: int
        side: int
        hands: Any
        draw_pile: tuple[int, ...]
        discard: tuple[int, ...]
        active_color: Color | None
        pending: Pending | None
        exposed: tuple[int, ...]
        scores: tuple[int, ...]
        round_scores: tuple[int, ...] | None
        round_winner: int | None
        winners: tuple[int, ...]
        move_count: int
        ext: Any
        prev_color: Color | None

        # The real __init__ is generated below from FIELDS (same order as State).
        def __init__(
            self,
            variant: str,
            num_players: int,
            options: tuple[tuple[str, Any], ...],
            seed: int,
            rng: Rng,
            phase: Phase,
            round: int,
            dealer: int,
            direction: int,
            current: int,
            side: int,
            hands: Any,
            draw_pile: tuple[int, ...],
            discard: tuple[int, ...],
            active_color: Color | None,
            pending: Pending | None,
            exposed: tuple[int, ...],
            scores: tuple[int, ...],
            round_scores: tuple[int, ...] | None,
            round_winner: int | None,
            winners: tuple[int, ...],
            move_count: int,
            ext: Any,
        ) -> None: ...

    def freeze(self) -> State:  # replaced below by the generated version
        raise NotImplementedError

    @classmethod
    def of(cls, state: State) -> Work:
        work = cls(*state)
        work.hands = list(state.hands)
        return work

    def option(self, name: str, default: Any = None) -> Any:
        for k, v in self.options:
            if k == name:
                return v
        return default

    @property
    def top(self) -> int:
        return self.discard[-1]

    def next_seat(self, seat: int, steps: int = 1) -> int:
        """The seat ``steps`` places after ``seat`` in the current direction."""
        return (seat + self.direction * steps) % self.num_players


_namespace: dict[str, Any] = {"_new": tuple.__new__, "State": State}
exec(_init_src, _namespace)  # noqa: S102 - generated from the field list above
exec(_freeze_src, _namespace)  # noqa: S102
Work.__init__ = _namespace["__init__"]  # type: ignore[method-assign]
_freeze = _namespace["freeze"]


def _freeze_work(self: Work) -> State:
    hands = self.hands
    if type(hands) is list:
        self.hands = tuple(hands)
    return _freeze(self)  # type: ignore[no-any-return]


Work.freeze = _freeze_work  # type: ignore[method-assign]
