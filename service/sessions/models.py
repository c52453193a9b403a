"""A session's data: its seats, its meta (everything but the game's state) and the
snapshot a process works on; the enums for a seat's bot, who may watch, what becomes of
a seat that leaves, and where the session stands; the reply a part hands the API.

The meta is stored as JSON (``Meta.to_json``); its shape does not change with the enums:
a seat's ``bot`` is ``false`` (a person), ``true`` (the simple bot) or a level's name,
as in every answer, so sessions stored by earlier versions read as they were written.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any

import orjson

import engine
from engine import Phase, State

from . import problems
from .clock import Clock
from .problems import SessionError

if TYPE_CHECKING:
    from .config import SessionConfig


class BotLevel(StrEnum):
    """Who plays a bot seat: the simple bot (``"bot": true`` in requests and answers) or
    a level of ``engine.bots`` (its name)."""

    SIMPLE = "simple"
    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"

    @classmethod
    def from_wire(cls, value: bool | str) -> BotLevel | None:
        """A seat's ``bot`` as requests and the stored meta spell it (``false``: a person)."""
        if value is False:
            return None
        if value is True:
            return cls.SIMPLE
        return cls(value)

    @property
    def wire(self) -> bool | str:
        """``true`` for the simple bot, else the level's name."""
        return True if self is BotLevel.SIMPLE else self.value

    @property
    def reads_history(self) -> bool:
        """The level's choice reads the round's events ("easy" plays a random legal move):
        a session keeps and reads them only for these."""
        return self in (BotLevel.NORMAL, BotLevel.HARD)


def wire_bot(level: BotLevel | None) -> bool | str:
    """A seat's ``bot`` in an answer or the stored meta (``false``: a person)."""
    return False if level is None else level.wire


class SpectatorAccess(StrEnum):
    """Who may read a session without a seat token."""

    #: Anyone with the session id.
    ANYONE = "anyone"
    #: The holders of the spectator code (sent as ``Authorization: Bearer <code>``).
    CODE = "code"
    #: Nobody: the seats only.
    SEATS = "seats"


class OnLeave(StrEnum):
    """What becomes of a seat that leaves after the start."""

    #: A bot plays it (the only mode: see README).
    BOT = "bot"


class LostReason(StrEnum):
    """Why a seat token stopped working (its own problem code: ``problems.seat_lost``)."""

    #: The seat left (``leave``): open again before the start, a bot's after it.
    LEFT = "left"
    #: A bot took the seat after ``max_timeouts`` timeouts in a row.
    TIMEOUTS = "timeouts"

    @property
    def code(self) -> str:
        """The problem code a token lost this way answers from then on
        (``problems.seat_lost``: ``seat_left``, ``seat_taken_by_bot``), which is also the
        reason the seat's event stream ends with (``stream_end``)."""
        return problems.seat_lost(0, "", self.value, "bot").code


#: The most former tokens a seat keeps (the newest): the person who held one is told
#: what became of the seat, for the session's life.
LOST_TOKENS = 4


@dataclass(frozen=True)
class LostToken:
    """A seat token that stopped working: its SHA-256, when (epoch seconds), why, and
    what holds the seat since (``"open"`` or ``"bot"``)."""

    token_sha256: str
    at: float
    reason: LostReason
    replaced_by: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "token_sha256": self.token_sha256, "at": self.at, "reason": self.reason.value,
            "replaced_by": self.replaced_by,
        }  # fmt: skip

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LostToken:
        return cls(d["token_sha256"], d["at"], LostReason(d["reason"]), d["replaced_by"])


class Status(StrEnum):
    """Where a session stands."""

    #: Open seats wait for people; nothing is dealt.
    WAITING = "waiting"
    PLAYING = "playing"
    OVER = "over"


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    #: None: a person plays the seat.
    bot: BotLevel | None
    token_sha256: str | None
    #: Nobody has the seat yet (a person takes it with ``join``).
    open: bool = False
    #: The seat's former tokens (the newest ``LOST_TOKENS``), oldest first.
    lost: tuple[LostToken, ...] = ()
    #: The app's reference of the person (``external_id``): the webhooks echo it, no
    #: answer shows it (kept in the stored meta only when set).
    external_id: str | None = None

    @property
    def person(self) -> bool:
        """A person holds the seat (not a bot, not open)."""
        return self.bot is None and not self.open

    def losing_token(
        self, at: float, reason: LostReason, replaced_by: str
    ) -> tuple[LostToken, ...]:
        """``lost`` with the seat's token added (as lost at ``at`` for ``reason``)."""
        if self.token_sha256 is None:
            return self.lost
        gone = LostToken(self.token_sha256, at, reason, replaced_by)
        return (*self.lost, gone)[-LOST_TOKENS:]

    def to_dict(self) -> dict[str, Any]:
        d = {
            "seat": self.seat, "name": self.name, "bot": wire_bot(self.bot),
            "token_sha256": self.token_sha256, "open": self.open,
        }  # fmt: skip
        if self.lost:
            d["lost"] = [t.to_dict() for t in self.lost]
        if self.external_id is not None:
            d["external_id"] = self.external_id
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Seat:
        return cls(
            d["seat"], d["name"], BotLevel.from_wire(d["bot"]), d["token_sha256"],
            d.get("open", False), tuple(LostToken.from_dict(t) for t in d.get("lost", ())),
            d.get("external_id"),
        )  # fmt: skip


@dataclass(frozen=True)
class Meta:
    variant: str
    seats: tuple[Seat, ...]
    created: float
    #: The creator chose the seed: every seat's answer says so (``client_seeded``).
    client_seeded: bool = False
    #: The game's setup, kept to deal when the last open seat is taken and for a rematch
    #: (the seed is hidden information: no answer shows the meta).
    seed: int | None = None
    dealer: int | None = None
    options: dict[str, Any] | None = None
    #: Listed in the public lobby while it waits (and joined without a code).
    public: bool = False
    #: The SHA-256 of the invitation code (sessions created with open seats).
    invite_sha256: str | None = None
    spectators: SpectatorAccess = SpectatorAccess.ANYONE
    spectator_sha256: str | None = None
    on_leave: OnLeave = OnLeave.BOT
    #: The session of the next game (``rematch``), once made.
    rematch: str | None = None
    #: The turn clock and its state (None: no clock).
    clock: Clock | None = None
    #: The host: the creator's seat (None: a session stored before hosts, or one whose
    #: creator took no seat). Only the host deletes the session.
    host: int | None = None
    #: Who created it, as the quotas name a client (``quotas.client_key``: a digest,
    #: never the address), so its place in the creator's quotas is given back when it
    #: starts or goes, and the lobby can rank a creator's entries.
    creator: str | None = None
    #: The first version that shows the same game as this one: since it, only quiet
    #: changes were committed (a seat told of the deal, a rematch seat claimed), so a
    #: move that answers any version from it on is judged on this one (None: this
    #: version changed the game).
    quiet_from: int | None = None
    #: The session's notifications go to the deployment's webhook (``notify``).
    notify: bool = False
    #: The secret nonce of the seed commitment (``service.fairness``; hidden like the
    #: seed until the game is over). None: a session stored before nonces.
    seed_nonce: str | None = None
    #: Until when the session's place in its creator's sessions quota is held (epoch
    #: ms; ``quotas.Quotas.holding``). None: no place (no creator, or stored before).
    claim_until_ms: int | None = None

    @cached_property
    def bots(self) -> frozenset[int]:
        return frozenset(s.seat for s in self.seats if s.bot is not None)

    @cached_property
    def bot_levels(self) -> dict[int, BotLevel]:
        """Bot seat -> its level."""
        return {s.seat: s.bot for s in self.seats if s.bot is not None}

    @cached_property
    def levelled(self) -> bool:
        """Some seat is a bot of a level that reads the history."""
        return any(level.reads_history for level in self.bot_levels.values())

    @cached_property
    def hashes(self) -> list[str | None]:
        return [s.token_sha256 for s in self.seats]

    @cached_property
    def open_seats(self) -> list[int]:
        return [s.seat for s in self.seats if s.open]

    @cached_property
    def persons(self) -> tuple[int, ...]:
        """The seats people hold."""
        return tuple(s.seat for s in self.seats if s.person)

    def with_seat(self, seat: Seat) -> Meta:
        """This meta with ``seat`` in its place."""
        seats = list(self.seats)
        seats[seat.seat] = seat
        return replace(self, seats=tuple(seats))

    def handed_to_bot(self, seat: int, at: float, reason: LostReason) -> Meta:
        """This meta with ``seat`` played by the simple bot from ``at`` on (a seat that
        left the game or ran out of time too often): its token no longer works, and is
        kept as lost for ``reason``."""
        old = self.seats[seat]
        lost = old.losing_token(at, reason, "bot")
        return self.with_seat(
            replace(old, bot=BotLevel.SIMPLE, token_sha256=None, open=False, lost=lost)
        )

    def taken_back(self, seat: int, lost: LostToken) -> Meta:
        """This meta with ``seat`` played by its person again, with the token it lost to a
        bot (``lost``, no longer kept as lost)."""
        old = self.seats[seat]
        rest = tuple(t for t in old.lost if t != lost)
        return self.with_seat(replace(old, bot=None, token_sha256=lost.token_sha256, lost=rest))

    def to_json(self) -> bytes:
        return orjson.dumps({
            "variant": self.variant,
            "seats": [s.to_dict() for s in self.seats],
            "created": self.created,
            "client_seeded": self.client_seeded,
            "seed": self.seed,
            "dealer": self.dealer,
            "options": self.options,
            "public": self.public,
            "invite_sha256": self.invite_sha256,
            "spectators": self.spectators.value,
            "spectator_sha256": self.spectator_sha256,
            "on_leave": self.on_leave.value,
            "rematch": self.rematch,
            "clock": self.clock.to_json() if self.clock is not None else None,
            "host": self.host,
            "creator": self.creator,
            "quiet_from": self.quiet_from,
            **({"notify": True} if self.notify else {}),
            **({"seed_nonce": self.seed_nonce} if self.seed_nonce is not None else {}),
            **({"claim_until_ms": self.claim_until_ms} if self.claim_until_ms else {}),
        })  # fmt: skip

    @classmethod
    def from_json(cls, raw: bytes) -> Meta:
        d = orjson.loads(raw)
        clock = d.get("clock")
        return cls(
            d["variant"],
            tuple(Seat.from_dict(s) for s in d["seats"]),
            d["created"],
            d.get("client_seeded", False),
            d.get("seed"),
            d.get("dealer"),
            d.get("options"),
            d.get("public", False),
            d.get("invite_sha256"),
            SpectatorAccess(d.get("spectators", "anyone")),
            d.get("spectator_sha256"),
            OnLeave(d.get("on_leave", "bot")),
            d.get("rematch"),
            Clock.from_json(clock) if clock else None,
            d.get("host"),
            d.get("creator"),
            d.get("quiet_from"),
            d.get("notify", False),
            d.get("seed_nonce"),
            d.get("claim_until_ms"),
        )


@dataclass(frozen=True)
class Snapshot:
    """A session as this process knows it at one version: what the parts work on and
    the cache keeps."""

    sid: str
    version: int
    #: The number of the last event.
    seq: int
    #: None while the session waits for its open seats (nothing is dealt yet).
    state: State | None
    meta: Meta
    #: The number of the first event the levelled bots need (the current round's
    #: first; 0: none) and those events as stored (the newest ``HISTORY_EVENTS``);
    #: None: not known here (a read brings them). The repository keeps them up.
    history_from: int = 0
    history: tuple[bytes, ...] | None = None
    #: The bytes of the events and move-log entries stored so far (``store.Loaded``).
    stored: int = 0
    #: The commit id of ``version`` (``store.new_commit_id``): with it, the state's
    #: identity; "" until committed (``then``) or for a session stored before ids.
    commit: str = ""

    @property
    def status(self) -> Status:
        if self.state is None:
            return Status.WAITING
        return Status.OVER if self.state.phase is Phase.GAME_OVER else Status.PLAYING

    def needs_history(self) -> bool:
        """A levelled bot may move and this copy lacks the round's events."""
        return self.history is None and self.state is not None and self.meta.levelled

    def history_size(self) -> int:
        """The bytes of the bots' history this copy holds."""
        return sum(map(len, self.history)) if self.history else 0

    def then(self, state: State | None, meta: Meta, events: int, quiet: bool = False) -> Snapshot:
        """The next version: ``state`` and ``meta`` after ``events`` more events (its
        history is the repository's to fill in when it commits). ``quiet``: the game is
        the same (``Meta.quiet_from``)."""
        if quiet:
            first = self.meta.quiet_from if self.meta.quiet_from is not None else self.version
            meta = replace(meta, quiet_from=first)
        elif meta.quiet_from is not None:
            meta = replace(meta, quiet_from=None)
        return Snapshot(self.sid, self.version + 1, self.seq + events, state, meta)

    def answers(self, version: int) -> bool:
        """A move that answers ``version`` is judged on this copy: it is this version,
        or one since which only quiet changes were made (``Meta.quiet_from``)."""
        quiet = self.meta.quiet_from
        return version == self.version or (quiet is not None and quiet <= version < self.version)

    def dealt(self) -> State:
        """The game's state (409 ``session_waiting`` while seats are open)."""
        if self.state is None:
            raise problems.session_waiting(len(self.meta.open_seats))
        return self.state

    def waiting_person(self) -> int | None:
        """``waiting_person`` of this copy (None before the deal)."""
        return None if self.state is None else waiting_person(self.state, self.meta)

    def bot_to_move(self) -> bool:
        """``bot_to_move`` of this copy (False before the deal)."""
        return self.state is not None and bot_to_move(self.state, self.meta)

    def full(self, caps: SessionConfig) -> bool:
        """This session can move no more: its moves or its stored bytes at their cap
        (``caps.max_moves``, ``caps.max_bytes``; nothing the clock or the bots owe can
        be played)."""
        return self.stored >= caps.max_bytes or self.dealt().move_count >= caps.max_moves

    def next_deadline(self, caps: SessionConfig) -> float | None:
        """When the clock will next owe a move (epoch seconds), or None (no clock, a
        bot's move, the game over or the session at a cap: ``full``)."""
        clock = self.meta.clock
        if clock is None or self.state is None or self.full(caps):
            return None
        seat = self.waiting_person()
        return clock.deadline(seat) if seat is not None else None

    def sweep_at(self, caps: SessionConfig, now: float) -> float | None:
        """When the clock sweeper should next settle this session (epoch seconds): its
        clock's next deadline; or at once (when the game began to wait for them, else
        ``now``) while the bots owe moves a request's ``SESSION_BOT_CPU_MS`` left undone
        and a person still holds a seat, so that person hears of the next turn with
        nobody reading; None: nothing to sweep (a game of bots only is played on by its
        readers alone, a session at a cap can move no more)."""
        meta = self.meta
        people = len(meta.seats) > len(meta.bots)
        if self.bot_to_move() and people and not self.full(caps):
            return meta.clock.started if meta.clock is not None else now
        return self.next_deadline(caps)


def waiting_person(state: State, meta: Meta) -> int | None:
    """The seat the game waits for when a person holds it (else None: a bot's move, or
    the game is over)."""
    seat = engine.waiting_for(state)
    return seat if seat is not None and seat not in meta.bots else None


def bot_to_move(state: State, meta: Meta) -> bool:
    """The game waits for a bot: between requests only when the bots' last chain stopped
    at its budget (``max_bot_moves``: every seat a bot, or a request's timeouts and their
    replies used it up)."""
    return bool(meta.bots) and engine.waiting_for(state) in meta.bots


@dataclass(frozen=True)
class Reply:
    """What a part answers: the JSON body, and the version it shows (the ETag) and
    whether it is the stored answer of an earlier try (an idempotent replay)."""

    body: bytes
    version: int | None = None
    replayed: bool = False


@dataclass(frozen=True)
class MoveRequest:
    """A move as the API hands it over. A header the API could not read is its problem,
    answered when the move checks that header (the order of the contract: the session,
    the token, If-Match, the move, the Idempotency-Key)."""

    #: The bearer token (None: no Authorization header; "": not a bearer token).
    token: str | None
    #: The version If-Match names (None: absent or ``*``; -1: a tag that names none).
    if_match: int | None | SessionError
    #: The Idempotency-Key as sent (None: absent).
    idempotency_key: str | None | SessionError
    #: The move as sent (``{"type": ..., ...}``).
    move: dict[str, Any] = field(default_factory=dict)
