"""The immutable game state, its pending decisions, and the mutable scratch copy
(`Work`) that a move is applied to.

A ``State`` is a ``NamedTuple`` of immutable values (ints, strings, enums, tuples), so
states compare by value, are safe to share, and ``apply`` never changes its input:
it copies the state into a ``Work`` (a shallow copy, field by field), changes that,
and freezes it into a new ``State``. Unchanged tuples are shared, not copied.

``State`` is the one declaration of the fields (names, order, types, defaults): the
``Work`` class is made from it (``dataclasses.make_dataclass``), and the JSON form
(``engine.serialize``) maps each of its fields. Seat arithmetic is ``seat_after``.
"""

from __future__ import annotations

from dataclasses import field, make_dataclass
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


def seat_after(seat: int, players: int, steps: int = 1, direction: int = 1) -> int:
    """The seat ``steps`` places after ``seat`` at a table of ``players``, going
    ``direction`` (1 clockwise, -1 counterclockwise). The one place seats are counted."""
    return (seat + direction * steps) % players


class _SeatsAfter(dict[int, tuple[int, ...]]):
    """``seat_after`` compiled for one direction of play: players -> seat -> the next
    seat, made on the first read of each table size (at most ``max_players`` of a
    variant: a state's ``num_players`` is checked against it)."""

    def __init__(self, direction: int):
        super().__init__()
        self.direction = direction

    def __missing__(self, players: int) -> tuple[int, ...]:
        made = tuple(seat_after(seat, players, 1, self.direction) for seat in range(players))
        self[players] = made
        return made


#: direction -> players -> seat -> the next seat in that direction (``seat_after``
#: compiled): where a move passes the turn, ``NEXT_SEAT[w.direction][w.num_players][seat]``
#: is three reads and no call.
NEXT_SEAT = {1: _SeatsAfter(1), -1: _SeatsAfter(-1)}


def _option(self: Any, name: str, default: Any = None) -> Any:
    """The value of game option ``name``."""
    for k, v in self.options:
        if k == name:
            return v
    return default


def _top(self: Any) -> int:
    """The id of the card in play (top of the discard pile)."""
    return self.discard[-1]  # type: ignore[no-any-return]


def _next_seat(self: Any, seat: int, steps: int = 1) -> int:
    """The seat ``steps`` places after ``seat`` in the current direction of play:
    ``seat_after(seat, num_players, steps, direction)``, written out (it runs for most
    moves; tests/engine/rules/test_state.py checks that the two agree)."""
    return (seat + self.direction * steps) % self.num_players  # type: ignore[no-any-return]


class State(NamedTuple):
    """A complete game: everything needed to continue, including the generator.

    The one declaration of the state's fields (see the module docstring)."""

    variant: str
    num_players: int
    options: tuple[tuple[str, Any], ...]
    seed: int
    rng: Rng
    phase: Phase = Phase.PLAY
    round: int = 1
    dealer: int = 0
    direction: int = 1
    current: int = 0
    side: int = 0
    hands: tuple[tuple[int, ...], ...] = ()
    draw_pile: tuple[int, ...] = ()
    discard: tuple[int, ...] = ()
    active_color: Color | None = None
    pending: Pending | None = None
    exposed: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    round_scores: tuple[int, ...] | None = None
    round_winner: int | None = None
    winners: tuple[int, ...] = ()
    move_count: int = 0
    ext: Any = None

    def option(self, name: str, default: Any = None) -> Any:
        return _option(self, name, default)

    @property
    def top(self) -> int:
        return _top(self)

    def next_seat(self, seat: int, steps: int = 1) -> int:
        return _next_seat(self, seat, steps)


FIELDS = State._fields
_new = tuple.__new__


def work_of(state: State) -> Work:
    """The ``Work`` copy of ``state`` (``hands`` a list): one store per field, no call
    into a generated ``__init__``. ``_check_copies`` (at import) proves it copies every
    field of ``State``."""
    w = _new_work(Work)
    (
        w.variant, w.num_players, w.options, w.seed, w.rng, w.phase, w.round, w.dealer,
        w.direction, w.current, w.side, hands, w.draw_pile, w.discard, w.active_color,
        w.pending, w.exposed, w.scores, w.round_scores, w.round_winner, w.winners,
        w.move_count, w.ext,
    ) = state  # fmt: skip
    w.hands = [*hands]  # a display, not ``list(hands)``: no call
    w.prev_color = None
    w.answered = w.pending
    return w


def freeze(w: Work) -> State:
    """The new ``State`` of a ``Work`` (``hands`` back into a tuple)."""
    hands = w.hands
    if type(hands) is list:
        hands = w.hands = tuple(hands)
    return _new(  # type: ignore[no-any-return]
        State,
        (
            w.variant, w.num_players, w.options, w.seed, w.rng, w.phase, w.round, w.dealer,
            w.direction, w.current, w.side, hands, w.draw_pile, w.discard, w.active_color,
            w.pending, w.exposed, w.scores, w.round_scores, w.round_winner, w.winners,
            w.move_count, w.ext,
        ),
    )  # fmt: skip


class _WorkMethods:
    """What a ``Work`` does beyond holding the fields."""

    __slots__ = ()

    option = _option
    top = property(_top)
    next_seat = _next_seat

    @classmethod
    def of(cls: Any, state: State) -> Work:
        return work_of(state)

    def freeze(self: Any) -> State:
        """The new ``State`` (hands back into a tuple)."""
        return freeze(self)


if TYPE_CHECKING:  # pragma: no cover - the same fields, as the type checker sees them

    class Work(_WorkMethods):
        """A mutable copy of a ``State`` for the duration of one ``apply``.

        For the type checker only: at run time ``Work`` is made from ``State``'s
        fields (below). tests/engine/rules/test_state.py checks that these agree with ``State``."""

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
        hands: Any  # a list of tuples while a move is applied, one per seat
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
        answered: Pending | None

        def __init__(self, *values: Any) -> None: ...

else:
    #: A mutable copy of a ``State`` for the duration of one ``apply``: ``State``'s
    #: fields (``w.hands`` a list of tuples, one per seat, so one hand can be replaced),
    #: plus two transient fields, never part of a State: ``prev_color``, the colour in
    #: play before the card just played (set by a play, read by challengeable cards),
    #: and ``answered``, the decision pending when the move began (the one it answers,
    #: if any; read by the stacking house rule's penalty).
    Work = make_dataclass(
        "Work",
        [
            *State.__annotations__.items(),
            ("prev_color", "Color | None", field(default=None)),
            ("answered", "Pending | None", field(default=None)),
        ],
        bases=(_WorkMethods,),
        slots=True,
        eq=False,
        namespace={"__module__": __name__},
    )

_new_work = object.__new__


def _check_copies() -> None:
    """``work_of`` and ``freeze`` name the fields one by one (the fast way): prove at
    import that they carry every field of ``State``, in order, so a field added to
    ``State`` and not to them fails here."""
    marks = [object() for _ in FIELDS]
    hands = marks[FIELDS.index("hands")] = ((1,), (2,))
    state = _new(State, marks)
    w = work_of(state)
    if w.hands != list(hands) or tuple(freeze(w)) != tuple(marks):
        raise RuntimeError("engine.state.work_of/freeze disagree with State's fields")


_check_copies()
