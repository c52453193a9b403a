"""Server-held sessions: the logic behind ``/v1/sessions``, independent of Flask.

A session is an engine state kept by the service, a version that grows by one per
commit, and an event log numbered from 1. Each seat holds a bearer token; the service
keeps only its SHA-256. Answers are always redacted for the caller's seat (or for a
spectator), so a client never sees a hidden card it may not see.

One store round trip per move in the steady state: each process caches the last
``(version, state)`` it read or wrote per session. When the client's ``If-Match``
equals the cached version the move is applied to the cached state and committed
with one compare-and-set (which fails, 412, if another process moved first); only
when it does not match is the session read again first (one extra round trip).

Bot seats move by themselves after each human move (and at creation when a bot
starts); all bot moves of a request are committed with the human move in the same
compare-and-set, at most ``max_bot_moves`` of them. A game whose seats all went to
bots (timeouts, leaves) goes on at the next request that touches it (``_settle``: the
bots' next chain), so a game nobody plays any more still ends. A levelled bot
("normal", "hard") sees the game's events of the current round redacted for its seat
(``bots.BotHistory``): the cached copy keeps that round's events with its state
(``Cached.history``, the newest ``HISTORY_EVENTS``), and a read of the session brings
them in the same round trip when the copy lacks them
(the store keeps where the round starts: ``history_from``). A session without a
levelled bot keeps and reads none.

Every move made (a person's or a bot's) is appended to the session's move log with who
made it and when (``Logged``): the game's record, which replays to the session's state.
A session takes at most ``max_moves`` moves (``SESSION_MAX_MOVES``): past it a move is
409 ``move_limit_reached``, so a session's storage stays bounded. Time is read from
``SessionManager.clock`` (``time.time`` unless a test sets another).

Turn clocks (``service.sessions.clock``): a session created with ``clock`` gives the seat
the game waits for a deadline. Every request that touches the session first plays
what the clock owes (``_settle``): each passed deadline's forced default moves
(``engine.forced_move``, logged ``"by": "clock"`` at the deadline), a ``timeout`` event,
the bots' replies, in a chain while deadlines have passed, committed with one
compare-and-set over the version read (a racing replica loses, re-reads and finds the
timeout played: one timeout, never two).

Multiplayer: a session created with open seats is ``waiting`` (its state is null:
nothing is dealt; the meta keeps the seed and setup) until ``join`` takes the last one
and deals. Seat changes (``join``, ``leave``, ``rematch``'s link and token claims) are
compare-and-set commits that replace the meta, retried after a lost race, so a race for
the last seat or for the rematch has one winner. The public lobby is an index in a slot
of its own, kept by separate calls and checked against each session's meta when listed.
Presence (``connected``) rides on the read or the move's commit: a seat's time is
written at most once per half ``presence_seconds`` per process.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import random
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields, replace
from functools import cached_property
from typing import Any, Literal, NamedTuple, ParamSpec, TypeVar

import orjson
from werkzeug.http import parse_etags

import engine
import engine.records
from engine import EngineError, Event, Move, Phase, State
from service.fairness import commitment, seed_commitment
from service.observability import count_moves

from . import events as session_events
from . import tokens
from .bots import READS_HISTORY, play_bots, round_start
from .clock import Clock
from .config import SessionConfig
from .events import session_event
from .problems import (
    SessionProblem,
    client_seed_refused,
    invalid_request,
    not_found,
    unavailable,
)
from .store import HISTORY_EVENTS, Idem, Loaded, SessionStore, StoreUnavailable, Subscription

SID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
CURSOR = re.compile(r"^([0-9]{1,15})\.([A-Za-z0-9_-]{8,64})$")
#: Compare-and-set tries of a seat change before it answers 412 (each lost try means
#: another change of the same session went first).
CHANGE_TRIES = 20
IDEM_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
MAX_EVENTS_PAGE = 1000
#: Finished games' records each process keeps (``SessionManager.record``).
RECORD_CACHE = 32

log = logging.getLogger("service.sessions")

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    #: False: a person; True: the simple bot; "easy", "normal" or "hard": a bot level.
    bot: bool | str
    token_sha256: str | None
    #: Nobody has the seat yet (a person takes it with ``join``).
    open: bool = False


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
    #: Who may read without a seat token: ``anyone``, ``code`` holders, ``seats`` only.
    spectators: str = "anyone"
    spectator_sha256: str | None = None
    on_leave: str = "bot"
    #: The session of the next game (``rematch``), once made.
    rematch: str | None = None
    #: The turn clock and its state (None: no clock).
    clock: Clock | None = None

    @cached_property
    def bots(self) -> frozenset[int]:
        return frozenset(s.seat for s in self.seats if s.bot)

    @cached_property
    def bot_levels(self) -> dict[int, bool | str]:
        """Bot seat -> its level (``True``: the simple bot)."""
        return {s.seat: s.bot for s in self.seats if s.bot}

    @cached_property
    def levelled(self) -> bool:
        """Some seat is a bot of a level that reads the history (``READS_HISTORY``)."""
        return any(level in READS_HISTORY for level in self.bot_levels.values())

    @cached_property
    def hashes(self) -> list[str | None]:
        return [s.token_sha256 for s in self.seats]

    @cached_property
    def open_seats(self) -> list[int]:
        return [s.seat for s in self.seats if s.open]

    def to_json(self) -> bytes:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["seats"] = [s.__dict__ for s in self.seats]
        d["clock"] = self.clock.to_json() if self.clock is not None else None
        return orjson.dumps(d)

    @classmethod
    def from_json(cls, raw: bytes) -> Meta:
        d = orjson.loads(raw)
        known = {f.name for f in fields(cls)}
        d = {k: v for k, v in d.items() if k in known}
        d["seats"] = tuple(Seat(**s) for s in d["seats"])
        d["clock"] = Clock.from_json(d["clock"]) if d.get("clock") else None
        return cls(**d)


@dataclass(frozen=True)
class Cached:
    version: int
    seq: int
    #: None while the session waits for its open seats (nothing is dealt yet).
    state: State | None
    meta: Meta
    #: The number of the first event the levelled bots need (the current round's
    #: first; 0: none) and those events as stored (the newest ``HISTORY_EVENTS``);
    #: None: not known here (a read brings them).
    history_from: int = 0
    history: tuple[bytes, ...] | None = None

    def needs_history(self) -> bool:
        """A levelled bot may move and this copy lacks the round's events."""
        return self.history is None and self.state is not None and self.meta.levelled


def _history_size(entry: Cached) -> int:
    """The bytes of the bots' history an entry holds."""
    return sum(map(len, entry.history)) if entry.history else 0


def _with_history(
    prev: Cached | None, new: Cached, events: list[Event], dumped: list[bytes]
) -> Cached:
    """``new`` (``prev`` and ``events``, ``dumped`` their JSON; ``prev`` None: a new
    session) with the round's events the levelled bots need next."""
    if new.state is None or not new.meta.levelled:
        return replace(new, history_from=0, history=())
    start = round_start(events)
    if start is not None:
        first = new.seq - len(events) + 1
        return replace(
            new, history_from=first + start, history=tuple(dumped[start:][-HISTORY_EVENTS:])
        )
    if prev is None or prev.history_from == 0:
        # a session stored before its round's start was kept: its bots see this request's
        return replace(new, history_from=0, history=())
    if prev.history is None:
        return replace(new, history_from=prev.history_from, history=None)
    return replace(
        new,
        history_from=prev.history_from,
        history=(*prev.history, *dumped)[-HISTORY_EVENTS:],
    )


def status_of(c: Cached) -> str:
    """``waiting`` (open seats, nothing dealt), ``playing`` or ``over``."""
    if c.state is None:
        return "waiting"
    return "over" if c.state.phase is Phase.GAME_OVER else "playing"


@dataclass(frozen=True)
class Answer:
    """A JSON answer: status, the serialized body, the version for the ETag."""

    status: int
    body: bytes
    version: int | None = None
    replayed: bool = False


def server_seed() -> int:
    """A seed nobody but the service knows (revealed when the game is over)."""
    return secrets.randbits(64)


def _fingerprint(seat: int, version: int, move: dict[str, Any]) -> bytes:
    raw = orjson.dumps([seat, version, move], option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(raw).hexdigest().encode()


#: The longest If-Match read (longer is a 400), and the most digits a version has.
MAX_IF_MATCH_CHARS = 256
MAX_VERSION_DIGITS = 19


def parse_if_match(header: str | None) -> int | None:
    """The version named by ``If-Match`` (``"7"``, ``W/"7"`` or ``7``, parsed by werkzeug's
    ``parse_etags``): ``None`` when absent or ``*``, -1 for a tag that names no version
    (it matches nothing: 412). Malformed, oversized or several tags: 400."""
    if header is None:
        return None
    if len(header) > MAX_IF_MATCH_CHARS:
        raise _bad_if_match(f"If-Match is longer than {MAX_IF_MATCH_CHARS} characters")
    etags = parse_etags(header)
    if etags.star_tag:
        return None
    tags = [*etags.as_set(include_weak=True)]
    if not tags:
        raise _bad_if_match('If-Match is not an entity tag (send "<version>")')
    if len(tags) > 1:
        raise _bad_if_match("If-Match names several versions; send the one the move answers")
    tag = tags[0] or ""
    if not (tag.isascii() and tag.isdigit()) or len(tag) > MAX_VERSION_DIGITS:
        return -1  # no version is spelled so
    return int(tag)


def _bad_if_match(detail: str) -> SessionProblem:
    return invalid_request(detail, {"If-Match": ["invalid"]})


#: What the bots' turn yields: the new state, the bots' events, the moves they made.
Played = tuple[State, list[Event], list[Move]]


def logged(moves: list[Move], by: str, at: float) -> list[bytes]:
    """Move-log entries: ``{"by": "player" | "bot" | "clock", "at": <epoch ms>, "move":
    {...}}`` (the seat is the move's ``player``; ``clock``: a forced move at a deadline)."""
    ms = int(at * 1000)
    return [orjson.dumps({"by": by, "at": ms, "move": m.to_dict()}) for m in moves]


class Ask(NamedTuple):
    """A move request, checked: the seat, the version it answers (If-Match), the move,
    and the seat-scoped Idempotency-Key with the fingerprint of what it was sent with."""

    seat: int
    expected: int
    move: Move
    idem_key: str | None
    fingerprint: bytes


def _engine_call(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(...)`` of the engine, its ``EngineError`` (a rules error) answered as 422."""
    try:
        return fn(*args, **kwargs)
    except EngineError as e:
        raise SessionProblem(422, e.code, e.detail) from None


def _require_a_person(players: list[dict[str, Any]]) -> None:
    if all(s.get("bot") for s in players):
        raise invalid_request(
            "at least one seat must be a person", {"players": ["every seat is a bot"]}
        )


def _new_meta(
    variant: str,
    players: list[dict[str, Any]],
    toks: list[str | None],
    client_seeded: bool,
    created: float,
    **settings: Any,
) -> Meta:
    """The seats as requested (a default name, the hash of each person's token; an open
    seat has neither), with the session's ``settings`` (``Meta`` fields)."""
    seats = tuple(
        Seat(
            i,
            s.get("name") or f"Player {i + 1}",
            s["bot"],
            t and tokens.digest(t),
            bool(s.get("open")),
        )
        for i, (s, t) in enumerate(zip(players, toks, strict=True))
    )
    return Meta(variant, seats, created, client_seeded, **settings)


def _hand_to_bot(meta: Meta, seat: int) -> Meta:
    """``meta`` with ``seat`` played by a bot from now on (its token no longer works)."""
    seats = list(meta.seats)
    seats[seat] = replace(seats[seat], bot=True, token_sha256=None, open=False)
    return replace(meta, seats=tuple(seats))


def _bot_to_move(state: State, meta: Meta) -> bool:
    """The game waits for a bot: between requests only when the bots' last chain stopped
    at its budget (``max_bot_moves``: every seat a bot, or a request's timeouts and
    their replies used it up)."""
    return bool(meta.bots) and engine.waiting_for(state) in meta.bots


def _bots_owed(c: Cached) -> bool:
    """The session waits for a bot's move (``_bot_to_move``; False before the deal)."""
    return c.state is not None and _bot_to_move(c.state, c.meta)


def _waiting_person(state: State | None, meta: Meta) -> int | None:
    """The seat the game waits for when a person holds it (else None: a bot's move,
    or the game is over, or nothing is dealt yet)."""
    if state is None:
        return None
    seat = engine.waiting_for(state)
    return seat if seat is not None and seat not in meta.bots else None


def _clock_moved(meta: Meta, seat: int, before: State, after: State, at: float) -> Meta:
    """The meta after ``seat``'s move at ``at`` (and the bots' replies): the clock
    charged and, when the game now waits for another move, restarted at ``at``."""
    clock = meta.clock
    if clock is None:
        return meta
    waited = engine.waiting_for(before)
    clock = clock.moved(seat, waited, at)
    if waited == seat or engine.waiting_for(after) != waited:
        clock = clock.restart(at)
    return replace(meta, clock=clock)


def _state_json(state: State | None) -> bytes:
    return orjson.dumps(None if state is None else engine.to_dict(state))


def _dealt(c: Cached) -> State:
    """The session's state (409 ``session_waiting`` while seats are open)."""
    if c.state is None:
        raise SessionProblem(
            409,
            "session_waiting",
            f"this session waits for {len(c.meta.open_seats)} more seat(s) to be taken; "
            "nothing is dealt yet",
        )
    return c.state


def _waiting_commitment(sid: str, meta: Meta) -> dict[str, Any]:
    """The seed commitment of a session not dealt yet (its seed is chosen already)."""
    assert meta.seed is not None
    return {"game_id": sid, "sha256": commitment(sid, meta.seed), "seed": None}


def _expected_version(current: int, if_match: str | None) -> int:
    """The version a move answers: its ``If-Match`` (400 when malformed, 428 when
    absent or ``*``, naming the ``current`` version)."""
    expected = parse_if_match(if_match)
    if expected is None:
        raise SessionProblem(
            428,
            "if_match_required",
            'a move needs If-Match: "<version>" (the ETag of the state it answers)',
            current_version=current,
            headers={"ETag": f'"{current}"'},
        )
    return expected


def _seat_move(seat: int, wire: dict[str, Any]) -> Move:
    """The move as sent (``player`` defaults to the token's seat; 403 when it names
    another seat). An ``InvalidMove`` is the service's 400 with the engine's code."""
    raw = dict(wire)
    raw.setdefault("player", seat)
    move = Move.from_dict(raw)
    if move.player != seat:
        raise SessionProblem(
            403, "not_your_seat", f"your token is seat {seat}'s; the move names {move.player}"
        )
    return move


def _idempotency(seat: int, expected: int, move: Move, key: str | None) -> tuple[str | None, bytes]:
    """The Idempotency-Key scoped to the seat (400 when malformed) and the fingerprint
    of the move and version it came with (a retry must match it); ``(None, b"")``
    without a key."""
    if key is None:
        return None, b""
    if not IDEM_KEY.match(key):
        raise invalid_request(
            "Idempotency-Key must be 1 to 255 visible ASCII characters",
            {"Idempotency-Key": ["invalid"]},
        )
    scoped = f"{seat}:{hashlib.sha256(key.encode()).hexdigest()[:40]}"
    return scoped, _fingerprint(seat, expected, move.to_dict())


class SessionManager:
    """Sessions on a ``SessionStore``; every method raises ``SessionProblem``."""

    def __init__(self, store: SessionStore, config: SessionConfig) -> None:
        self.store = store
        self.config = config
        #: Wall-clock seconds (the move log's times); tests replace it.
        self.clock: Callable[[], float] = time.time
        self._cache: OrderedDict[str, Cached] = OrderedDict()
        #: The cached sessions that hold the bots' history -> its bytes, least recently
        #: cached first; their sum (``cache_history_bytes`` at most).
        self._histories: OrderedDict[str, int] = OrderedDict()
        self._history_bytes = 0
        self._lock = threading.Lock()
        #: Finished games' records by session (a replay of the whole log builds one).
        self._records: OrderedDict[str, bytes] = OrderedDict()
        #: Presence: when this process last recorded each (session, seat) as seen.
        self._touched: OrderedDict[tuple[str, int], float] = OrderedDict()

    # ------------------------------------------------------------------ the cache
    def _cached(self, sid: str) -> Cached | None:
        with self._lock:
            hit = self._cache.get(sid)
            if hit is not None:
                self._cache.move_to_end(sid)
            return hit

    def _remember(self, sid: str, entry: Cached) -> None:
        with self._lock:
            old = self._cache.get(sid)
            if old is not None and old.version > entry.version:
                return
            self._drop_history(sid)
            self._cache[sid] = entry
            self._cache.move_to_end(sid)
            size = _history_size(entry)
            if size:
                self._histories[sid] = size
                self._history_bytes += size
            while len(self._cache) > self.config.cache_size:
                self._drop_history(self._cache.popitem(last=False)[0])
            # Past the budget, the least recently cached sessions keep their state but not
            # their history: their next load reads it again, in the same round trip.
            while self._history_bytes > self.config.cache_history_bytes and self._histories:
                key = next(iter(self._histories))
                self._drop_history(key)
                hit = self._cache.get(key)
                if hit is not None:
                    self._cache[key] = replace(hit, history=None)

    def _drop_history(self, sid: str) -> None:
        """Stop counting ``sid``'s history (the lock held)."""
        self._history_bytes -= self._histories.pop(sid, 0)

    # ------------------------------------------------------------------ presence
    def _seen(self, sid: str, seat: int | None) -> tuple[int, int] | None:
        """``(seat, epoch ms)`` to record with the next store call, when this process has
        not recorded that seat in the last half of ``presence_seconds``; else None."""
        if seat is None:
            return None
        now = self.clock()
        key = (sid, seat)
        with self._lock:
            last = self._touched.get(key)
            if last is not None and now - last < self.config.presence_seconds / 2:
                return None
            self._touched[key] = now
            self._touched.move_to_end(key)
            while len(self._touched) > self.config.cache_size:
                self._touched.popitem(last=False)
        return seat, int(now * 1000)

    def _known_seat(self, sid: str, authorization: str | None) -> int | None:
        """The token's seat by this process's cached meta (no read; None if unknown)."""
        hit = self._cached(sid)
        token = tokens.bearer(authorization)
        if hit is None or not token:
            return None
        return tokens.seat_of(token, hit.meta.hashes)

    def _presence(self, meta: Meta, seen: dict[int, int]) -> list[dict[str, Any]]:
        """The seats, each with ``connected``: seen in the last ``presence_seconds``."""
        since = (self.clock() - self.config.presence_seconds) * 1000
        return [
            {**s, "connected": not s["bot"] and seen.get(s["seat"], -1) >= since}
            for s in self._seats(meta)
        ]

    def _forget(self, sid: str) -> None:
        with self._lock:
            self._cache.pop(sid, None)
            self._drop_history(sid)

    # ------------------------------------------------------------------ reading
    def _load(
        self, sid: str, idem_key: str | None = None, seen: tuple[int, int] | None = None
    ) -> tuple[Cached, Loaded]:
        if not SID.match(sid):
            raise not_found(sid)
        hit = self._cached(sid)
        # The round's events come with the state unless this copy holds them (and is current).
        known = hit.version if hit is not None and hit.history is not None else 0
        loaded = self._store(lambda: self.store.load(sid, idem_key, seen, known))
        if loaded is None:
            self._forget(sid)
            raise not_found(sid)
        hit = self._cached(sid)
        history = loaded.history if loaded.history_from else ()
        if hit is not None and hit.version == loaded.version:
            if hit.history is not None or history is None:
                return hit, loaded
            entry = replace(hit, history_from=loaded.history_from, history=history)
        else:
            entry = Cached(
                loaded.version,
                loaded.seq,
                _state_of(loaded.state),
                # A commit may have replaced the meta (a seat joined, left, ...).
                Meta.from_json(loaded.meta),
                loaded.history_from,
                history,
            )
        self._remember(sid, entry)
        return entry, loaded

    def _store(self, fn: Any) -> Any:
        try:
            return fn()
        except StoreUnavailable as e:
            log.error("session store unavailable: %s", e)
            raise unavailable(self.config.retry_after) from None

    @staticmethod
    def _seat(meta: Meta, authorization: str | None, required: bool) -> int | None:
        """The seat the bearer token names; None for a spectator the session admits
        (``spectators``: anyone; with ``code``, the bearer of the spectator code).
        ``required``: a seat token only."""
        token = tokens.bearer(authorization)
        if token is None:
            if required or meta.spectators != "anyone":
                detail = (
                    "this needs a seat token: Authorization: Bearer <token>"
                    if required or meta.spectators == "seats"
                    else "this session is watched with its spectator code: "
                    "Authorization: Bearer <code>"
                )
                raise SessionProblem(
                    401,
                    "missing_token",
                    detail,
                    headers={"WWW-Authenticate": 'Bearer realm="sessions"'},
                )
            return None
        seat = tokens.seat_of(token, meta.hashes) if token else None
        if seat is None:
            if (
                token
                and not required
                and meta.spectators == "code"
                and meta.spectator_sha256 is not None
                and hmac.compare_digest(tokens.digest(token), meta.spectator_sha256)
            ):
                return None
            raise SessionProblem(
                401,
                "invalid_token",
                "the token is not a seat token of this session",
                headers={"WWW-Authenticate": 'Bearer realm="sessions", error="invalid_token"'},
            )
        return seat

    def _redacted(self, events: list[Event], first_seq: int, seat: int | None) -> list[Event]:
        return [{"seq": first_seq + i, **engine.redact(e, seat)} for i, e in enumerate(events)]

    def _moves(self, state: State | None, seat: int | None) -> list[dict[str, Any]]:
        if seat is None or state is None:
            return []
        return [m.to_dict() for m in engine.legal_moves(state, seat)]

    def _seat_body(self, sid: str, c: Cached, seat: int | None) -> dict[str, Any]:
        state = c.state
        return {
            "session_id": sid,
            "variant": c.meta.variant,
            "status": status_of(c),
            "version": c.version,
            "last_event": c.seq,
            "seat": seat,
            "client_seeded": c.meta.client_seeded,
            "seed_commitment": (
                seed_commitment(sid, state) if state else _waiting_commitment(sid, c.meta)
            ),
            "view": engine.view(state, seat) if state else None,
            "legal_moves": self._moves(state, seat),
            "clock": self._clock_view(c),
        }

    @staticmethod
    def _seats(meta: Meta) -> list[dict[str, Any]]:
        """The seats as everyone may see them (no token, no hash)."""
        return [{"seat": s.seat, "name": s.name, "bot": s.bot, "open": s.open} for s in meta.seats]

    def _clock_view(self, c: Cached) -> dict[str, Any] | None:
        clock = c.meta.clock
        if clock is None:
            return None
        return clock.view(_waiting_person(c.state, c.meta), self.clock())

    # ------------------------------------------------------------------ shared steps
    def _play_bots(
        self,
        sid: str,
        version: int,
        state: State,
        meta: Meta,
        history: list[Event],
        tag: str = "",
        before: tuple[bytes, ...] | None = (),
        budget: int | None = None,
    ) -> Played:
        """The bots' moves until a person must move (at most ``budget``, by default
        ``max_bot_moves``), for the commit over ``version`` (0: the creation), their ties
        broken by a generator seeded with the session and that version (and ``tag``: the
        timeout of a chain), so a session replays alike. ``history``: this request's events so far, after
        ``before`` (the session's events of the round as stored, ``Cached.history``):
        each levelled bot sees the round's game events redacted for its seat."""
        limit = min(
            self.config.max_bot_moves if budget is None else budget,
            self.config.max_moves - state.move_count,
        )
        bots = meta.bot_levels
        if not bots or limit <= 0:
            return state, [], []
        rnd = random.Random(f"{sid}:{version}{tag}")
        if before and meta.levelled:
            history = [*map(orjson.loads, before), *history]
        return play_bots(state, bots, rnd, limit, history)

    # ------------------------------------------------------------------ create
    def create(self, req: dict[str, Any]) -> Answer:
        players: list[dict[str, Any]] = req["players"]
        _require_a_person(players)
        seed, client_seeded = self._seed(req.get("seed"))
        variant, dealer, options = req["variant"], req.get("dealer"), req.get("options")
        state, setup = _engine_call(engine.start, variant, len(players), seed, dealer, options)
        sid = secrets.token_urlsafe(16)
        toks = [None if s["bot"] or s.get("open") else tokens.new_token() for s in players]
        waiting = any(s.get("open") for s in players)
        codes = {
            "invitation_code": tokens.new_token() if waiting else None,
            "spectator_code": tokens.new_token() if req.get("spectators") == "code" else None,
        }
        now = self.clock()
        meta = _new_meta(
            state.variant, players, toks, client_seeded, now,
            seed=seed, dealer=dealer, options=options, public=bool(req.get("public")),
            invite_sha256=_hashed(codes["invitation_code"]),
            spectators=req.get("spectators", "anyone"),
            spectator_sha256=_hashed(codes["spectator_code"]),
            on_leave=req.get("on_leave", "bot"),
        )  # fmt: skip
        if req.get("clock") is not None:
            meta = replace(meta, clock=Clock.new(req["clock"], len(players), now))
        held: State | None = None
        events: list[Event] = []
        moves: list[bytes] = []
        if not waiting:
            held, bot_events, made = self._play_bots(sid, 0, state, meta, setup)
            events = setup + bot_events
            moves = logged(made, "bot", now)
        dumped = _dump(events)
        entry = _with_history(None, Cached(1, len(events), held, meta), events, dumped)
        self._store(
            lambda: self.store.create(
                sid, meta.to_json(), _state_json(held), dumped, moves, entry.history_from
            )
        )
        self._remember(sid, entry)
        if waiting and meta.public:
            self._store(lambda: self.store.lobby_add(sid, meta.variant, int(now * 1000)))
        body = self._created_body(sid, entry, toks, events)
        body.update(codes)
        return Answer(201, orjson.dumps(body), 1)

    def _seed(self, seed: int | None) -> tuple[int, bool]:
        """The game's seed and whether the creator chose it (refused unless allowed)."""
        if seed is None:
            return server_seed(), False
        if not self.config.allow_client_seed:
            raise client_seed_refused()
        return seed, True

    def _created_body(
        self, sid: str, entry: Cached, toks: list[str | None], events: list[Event]
    ) -> dict[str, Any]:
        """The creator's answer: the first named person's seat, with every named person's
        token (an open seat has none yet)."""
        first = next((s.seat for s in entry.meta.seats if not s.bot and not s.open), None)
        body = self._seat_body(sid, entry, first)
        body["seats"] = [
            {**seat, "token": t} for seat, t in zip(self._seats(entry.meta), toks, strict=True)
        ]
        body["events"] = self._redacted(events, 1, first)
        return body

    # ------------------------------------------------------------------ seat changes
    def _change(
        self, sid: str, c: Cached, new: Cached, events: list[Event], moves: list[bytes]
    ) -> Cached | None:
        """Compare-and-set ``new`` (state, meta, ``events``, ``moves``) over ``c``: the entry
        now cached (``new`` with the bots' history) when applied; None when another commit
        came first (then look again); 404 when gone."""
        dumped = _dump(events)
        new = _with_history(c, new, events, dumped)
        res = self._store(
            lambda: self.store.commit(
                sid, c.version, _state_json(new.state), dumped, moves=moves,
                meta=new.meta.to_json(), history_from=new.history_from,
            )
        )  # fmt: skip
        if res.status == "ok":
            self._remember(sid, new)
            if moves:
                count_moves(new.meta.variant, len(moves))
            return new
        self._forget(sid)
        if res.status == "missing":
            raise not_found(sid)
        return None

    def _changed(
        self, sid: str, step: Callable[[Cached], tuple[Cached, list[Event], list[bytes], R]]
    ) -> R:
        """Apply ``step`` (the session as read -> the new one, its events, its moves and
        what to answer) with a compare-and-set, reading again after each lost race."""
        for _ in range(CHANGE_TRIES):
            c, _ = self._load(sid)
            new, events, moves, out = step(c)
            if self._change(sid, c, new, events, moves) is not None:
                return out
        raise self._stale(c.version)

    def join(self, sid: str, req: dict[str, Any]) -> Answer:
        """Take an open seat (with the invitation code, or none for a public session):
        the seat's token, once. The last open seat deals the cards."""
        token = tokens.new_token()
        name: str = req["name"]

        def step(c: Cached) -> tuple[Cached, list[Event], list[bytes], int]:
            meta = c.meta
            _check_invitation(meta, req.get("code"))
            if c.state is not None:
                raise SessionProblem(
                    409, "session_started", "this session has started: its seats are taken"
                )
            seat = _open_seat(meta, req.get("seat"))
            seats = list(meta.seats)
            seats[seat] = Seat(seat, name, False, tokens.digest(token))
            meta = replace(meta, seats=tuple(seats))
            events = [session_event("joined", player=seat, name=name)]
            state: State | None = None
            moves: list[bytes] = []
            if not meta.open_seats:
                state, dealt, moves = self._deal(sid, c.version, meta)
                if meta.clock is not None:  # the clock starts with the game
                    meta = replace(meta, clock=meta.clock.restart(self.clock()))
                events += dealt
            return Cached(c.version + 1, c.seq + len(events), state, meta), events, moves, seat

        seat = self._changed(sid, step)
        c = self._cached(sid)
        assert c is not None
        if c.state is not None and c.meta.public:
            self._unlist([(sid, c.meta.variant)])
        return self._seat_changed(sid, c, seat, token=token)

    def _seat_changed(self, sid: str, c: Cached, seat: int, **extra: Any) -> Answer:
        """A seat change's answer (join, leave, rematch): the seat, ``extra`` (a token,
        the previous session) and the session's seats as everyone may see them."""
        body = {
            "session_id": sid,
            "seat": seat,
            **extra,
            "status": status_of(c),
            "version": c.version,
            "last_event": c.seq,
            "seats": self._seats(c.meta),
        }
        return Answer(200, orjson.dumps(body), c.version)

    def _deal(self, sid: str, version: int, meta: Meta) -> tuple[State, list[Event], list[bytes]]:
        """The game dealt from the setup kept in ``meta`` (a ``started`` event, the deal's
        events, the bots' first moves), for the commit over ``version``."""
        assert meta.seed is not None  # every session keeps its seed
        state, setup = _engine_call(
            engine.start, meta.variant, len(meta.seats), meta.seed, meta.dealer, meta.options
        )
        state, bot_events, made = self._play_bots(sid, version, state, meta, setup)
        events = [session_event("started"), *setup, *bot_events]
        return state, events, logged(made, "bot", self.clock())

    def _unlist(self, sids: list[tuple[str, str]]) -> None:
        """Take sessions off the lobby index (a failure is logged: the listing forgets
        them later anyway)."""
        try:
            self.store.lobby_remove(sids)
        except StoreUnavailable as e:
            log.error("session store unavailable, the lobby keeps %d entries: %s", len(sids), e)

    def leave(self, sid: str, authorization: str | None) -> Answer:
        """The token's seat leaves: before the start the seat is open again, after it a
        bot plays it (``on_leave: bot``). Its token no longer works."""

        def step(c: Cached) -> tuple[Cached, list[Event], list[bytes], int]:
            seat = self._seat(c.meta, authorization, required=True)
            assert seat is not None
            name = c.meta.seats[seat].name
            state, moves = c.state, []
            if state is None:
                seats = list(c.meta.seats)
                seats[seat] = Seat(seat, f"Player {seat + 1}", False, None, open=True)
                meta = replace(c.meta, seats=tuple(seats))
                events = [session_event("left", player=seat, name=name, replaced_by="open")]
            else:
                meta = _hand_to_bot(c.meta, seat)
                events = [session_event("left", player=seat, name=name, replaced_by="bot")]
                state, bot_events, made = self._play_bots(
                    sid, c.version, state, meta, events, before=c.history
                )
                events += bot_events
                now = self.clock()
                moves = logged(made, "bot", now)
                if made and meta.clock is not None:  # the game waits for a move from now
                    meta = replace(meta, clock=meta.clock.restart(now))
            return Cached(c.version + 1, c.seq + len(events), state, meta), events, moves, seat

        seat = self._changed(sid, step)
        c = self._cached(sid)
        assert c is not None
        return self._seat_changed(sid, c, seat)

    # ------------------------------------------------------------------ rematch
    def rematch(self, sid: str, authorization: str | None) -> Answer:
        """After the game: the next game with the same seats (made by the first call,
        found by the others), and a new token for the caller's seat in it."""
        c, _ = self._load(sid)
        seat = self._seat(c.meta, authorization, required=True)
        assert seat is not None
        if status_of(c) != "over":
            raise SessionProblem(409, "game_not_over", "a rematch is made when the game is over")
        new_sid = c.meta.rematch or self._make_rematch(sid, c)
        token = tokens.new_token()

        def claim(n: Cached) -> tuple[Cached, list[Event], list[bytes], None]:
            seats = list(n.meta.seats)
            seats[seat] = replace(seats[seat], token_sha256=tokens.digest(token))
            meta = replace(n.meta, seats=tuple(seats))
            return Cached(n.version + 1, n.seq, n.state, meta), [], [], None

        self._changed(new_sid, claim)
        n = self._cached(new_sid)
        assert n is not None
        return self._seat_changed(new_sid, n, seat, previous_session_id=sid, token=token)

    def _make_rematch(self, sid: str, c: Cached) -> str:
        """Make the next game (new server seed, the next dealer, the same seats, variant
        and options; no seat has a token yet) and link it from ``sid`` with a
        compare-and-set: when another call linked one first, this one is deleted and
        that one is the answer."""
        old = _dealt(c)
        n = len(c.meta.seats)
        seed, dealer = server_seed(), (old.dealer + 1) % n
        state, setup = _engine_call(engine.start, c.meta.variant, n, seed, dealer, c.meta.options)
        new_sid = secrets.token_urlsafe(16)
        now = self.clock()
        meta = replace(
            c.meta,
            seats=tuple(replace(s, token_sha256=None) for s in c.meta.seats),
            created=now, client_seeded=False, seed=seed, dealer=dealer, public=False,
            invite_sha256=None, rematch=None,
            clock=c.meta.clock and c.meta.clock.fresh(n, now),
        )  # fmt: skip
        state, bot_events, made = self._play_bots(new_sid, 0, state, meta, setup)
        events = setup + bot_events
        dumped = _dump(events)
        entry = _with_history(None, Cached(1, len(events), state, meta), events, dumped)
        self._store(
            lambda: self.store.create(
                new_sid, meta.to_json(), _state_json(state), dumped,
                logged(made, "bot", now), entry.history_from,
            )
        )  # fmt: skip
        self._remember(new_sid, entry)
        for _ in range(CHANGE_TRIES):
            if c.meta.rematch is not None:
                break
            link = replace(c.meta, rematch=new_sid)
            event = [session_event("rematch", session_id=new_sid)]
            linked = Cached(c.version + 1, c.seq + 1, c.state, link)
            if self._change(sid, c, linked, event, []) is not None:
                return new_sid
            c, _ = self._load(sid)
        self._store(lambda: self.store.delete(new_sid))
        self._forget(new_sid)
        if c.meta.rematch is None:
            raise self._stale(c.version)
        return c.meta.rematch

    # ------------------------------------------------------------------ the lobby
    def lobby(self, variant: str | None, cursor: str | None, limit: int) -> Answer:
        """Public sessions waiting for seats, newest first, ``limit`` a page; entries of
        sessions that started, expired or were deleted are dropped on the way."""
        before = _parse_cursor(cursor)
        found: list[dict[str, Any]] = []
        more = False
        while True:
            ask = limit - len(found) + 1  # one more tells whether a next page exists
            rows = self._store(lambda b=before, n=ask: self.store.lobby_page(variant, b, n))
            metas = self._store(lambda r=rows: self.store.metas([sid for _, sid in r]))
            gone: list[tuple[str, str]] = []
            for (ms, sid), raw in zip(rows, metas, strict=True):
                meta = None if raw is None else Meta.from_json(raw)
                if meta is None or not meta.public or not meta.open_seats:
                    gone.append((sid, variant or (meta.variant if meta else "")))
                    before = (ms, sid)
                    continue
                if len(found) == limit:
                    more = True
                    break
                found.append(_listed(sid, meta))
                before = (ms, sid)
            if gone:
                # A session gone without a trace has no variant: its entry in its
                # variant's index goes when that index is listed.
                self._unlist(gone)
            if more or len(rows) < ask:
                break
        body = {
            "sessions": found,
            "next_cursor": f"{before[0]}.{before[1]}" if more and before else None,
        }
        return Answer(200, orjson.dumps(body))

    # ------------------------------------------------------------------ reads
    def get(self, sid: str, authorization: str | None) -> Answer:
        seen = self._seen(sid, self._known_seat(sid, authorization))
        c, loaded = self._load(sid, seen=seen)
        c = self._settle(sid, c)
        seat = self._seat(c.meta, authorization, required=False)
        body = self._seat_body(sid, c, seat)
        body["seats"] = self._presence(c.meta, loaded.seen)
        return Answer(200, orjson.dumps(body), c.version)

    def legal_moves(self, sid: str, authorization: str | None) -> Answer:
        c = self._settle(sid, self._load(sid)[0])
        seat = self._seat(c.meta, authorization, required=True)
        body = {"session_id": sid, "version": c.version, "seat": seat}
        body["moves"] = self._moves(c.state, seat)
        return Answer(200, orjson.dumps(body), c.version)

    def record(self, sid: str, authorization: str | None) -> Answer:
        """The game's record (``engine.record`` over the move log): the whole record for
        anyone once the game is over; while it runs only for a seat (401 otherwise),
        without the seed and the move fields that seat may not see. A finished game's
        record never changes: each process keeps the last ``RECORD_CACHE`` of them."""
        c = self._settle(sid, self._load(sid)[0])
        dealt = _dealt(c)
        over = dealt.phase is Phase.GAME_OVER
        seat = self._seat(c.meta, authorization, required=not over)
        if over:
            with self._lock:
                kept = self._records.get(sid)
                if kept is not None:
                    self._records.move_to_end(sid)
                    return Answer(200, kept, c.version)
        rows = self._store(lambda: self.store.moves(sid))
        # A commit after the load appends moves the loaded state has not made yet.
        entries = [orjson.loads(raw) for raw in rows[: dealt.move_count]]
        players = [{"name": s.name, "bot": s.bot} for s in c.meta.seats]
        rec, final = engine.records.build(
            c.meta.variant,
            players,
            dealt.seed,
            entries,
            c.meta.dealer,
            dict(dealt.options),
            game_id=sid,
            seat=seat,
        )
        if final != dealt:
            log.error("session %s: its move log does not replay to its state", sid)
            raise RuntimeError(f"session {sid}: the move log does not replay to the state")
        body = engine.records.dumps(rec).encode()
        if over:
            with self._lock:
                self._records[sid] = body
                while len(self._records) > RECORD_CACHE:
                    self._records.popitem(last=False)
        return Answer(200, body, c.version)

    # ------------------------------------------------------------------ moves
    def move(
        self,
        sid: str,
        authorization: str | None,
        if_match: str | None,
        idempotency_key: str | None,
        req: dict[str, Any],
    ) -> Answer:
        """One seat's move, the bots' replies, one compare-and-set (see the module)."""
        now = self.clock()  # a person's move is judged at the time of the request
        c, loaded, seat = self._load_seat(sid, authorization)
        _dealt(c)
        settled = self._settle(sid, c, now)
        if settled is not c:  # the clock moved first: the move is judged on the new state
            c, loaded = settled, None
            seat = self._seat(c.meta, authorization, required=True)  # type: ignore[assignment]
        ask = self._ask(c, seat, if_match, idempotency_key, req)
        at = self._at_version(sid, c, loaded, ask)
        if isinstance(at, Answer):
            return at
        current = _dealt(at)
        if current.move_count >= self.config.max_moves:
            raise SessionProblem(
                409,
                "move_limit_reached",
                f"this session has made {current.move_count} moves, its limit; start a new one",
            )
        state, events = _engine_call(engine.apply, current, ask.move)
        state, bot_events, made = self._play_bots(
            sid, ask.expected, state, at.meta, events, before=at.history
        )
        events += bot_events
        moves = logged([ask.move], "player", now) + logged(made, "bot", now)
        meta = _clock_moved(at.meta, ask.seat, current, state, now)
        new = Cached(ask.expected + 1, at.seq + len(events), state, meta)
        out = self._moved_body(sid, new, ask.seat, events, at.seq + 1)
        return self._commit(
            sid, ask, _with_history(at, new, events, dumped := _dump(events)), dumped, out,
            moves, meta_changed=meta is not at.meta, seen=self._seen(sid, ask.seat),
        )  # fmt: skip

    def _load_seat(self, sid: str, authorization: str | None) -> tuple[Cached, Loaded | None, int]:
        """The session (this process's cached copy when it has one, else one read: then
        ``Loaded`` too) and the seat the token authorises (401 without one)."""
        if not SID.match(sid):
            raise not_found(sid)
        c = self._cached(sid)
        loaded: Loaded | None = None
        if c is None or c.needs_history():
            c, loaded = self._load(sid)
        seat = self._seat(c.meta, authorization, required=True)
        assert seat is not None
        return c, loaded, seat

    def _ask(
        self,
        c: Cached,
        seat: int,
        if_match: str | None,
        idempotency_key: str | None,
        req: dict[str, Any],
    ) -> Ask:
        """The request checked in the order the contract answers: If-Match (400, 428),
        the move (400, 403), the Idempotency-Key (400)."""
        expected = _expected_version(c.version, if_match)
        move = _seat_move(seat, req["move"])
        idem_key, fingerprint = _idempotency(seat, expected, move, idempotency_key)
        return Ask(seat, expected, move, idem_key, fingerprint)

    def _at_version(self, sid: str, c: Cached, loaded: Loaded | None, ask: Ask) -> Cached | Answer:
        """The session at the version the move answers, or the stored answer of an
        earlier try with the same Idempotency-Key (its replay), or 412.

        When the cached copy is at that version nothing is read (the commit's
        compare-and-set judges it, and finds a stored answer itself). Otherwise the cache
        is behind (or the client is): the session, and the answer stored under the key,
        are read before the version is judged."""
        if c.version == ask.expected:
            return c
        if loaded is None or ask.idem_key is not None:
            c, loaded = self._load(sid, ask.idem_key)
        if loaded.idem is not None:
            return self._replay(loaded.idem, ask.fingerprint)
        if c.version != ask.expected:
            raise self._stale(c.version)
        return c

    def _moved_body(
        self, sid: str, new: Cached, seat: int, events: list[Event], first_seq: int
    ) -> bytes:
        """The mover's answer: the new state seen by its seat, and the move's events."""
        body = self._seat_body(sid, new, seat)
        body["events"] = self._redacted(events, first_seq, seat)
        return orjson.dumps(body)

    def _commit(
        self,
        sid: str,
        ask: Ask,
        new: Cached,
        events: list[bytes],
        out: bytes,
        moves: list[bytes],
        meta_changed: bool = False,
        seen: tuple[int, int] | None = None,
    ) -> Answer:
        """Compare-and-set ``new`` over ``ask.expected`` with its ``events`` (JSON) and the ``moves`` to log (and
        ``new.meta`` when ``meta_changed``), storing ``out`` under the Idempotency-Key. A
        stored answer (a retry that raced) is replayed; a conflict is 412 and a vanished
        session 404, both forgetting the cached copy."""
        idem = Idem(ask.idem_key, ask.fingerprint + b"\n" + out) if ask.idem_key else None
        state = _state_json(new.state)
        meta = new.meta.to_json() if meta_changed else None
        res = self._store(
            lambda: self.store.commit(
                sid, ask.expected, state, events, idem, moves=moves, meta=meta, seen=seen,
                history_from=new.history_from,
            )
        )  # fmt: skip
        if res.status == "ok":
            self._remember(sid, new)
            count_moves(new.meta.variant, len(moves))
            return Answer(200, out, new.version)
        if res.status == "replayed":
            assert res.answer is not None
            return self._replay(res.answer, ask.fingerprint)
        self._forget(sid)
        if res.status == "missing":
            raise not_found(sid)
        raise self._stale(res.version)

    @staticmethod
    def _stale(current: int) -> SessionProblem:
        return SessionProblem(
            412,
            "version_mismatch",
            f"the session is at version {current}; reload it and try again",
            current_version=current,
            headers={"ETag": f'"{current}"'},
        )

    @staticmethod
    def _replay(stored: bytes, fingerprint: bytes) -> Answer:
        fp, _, body = stored.partition(b"\n")
        if fp != fingerprint:
            raise SessionProblem(
                422,
                "idempotency_key_reused",
                "this Idempotency-Key was used for another move or version",
            )
        return Answer(200, body, orjson.loads(body)["version"], replayed=True)

    # ------------------------------------------------------------------ the clock
    def _owed(self, sid: str, c: Cached, now: float) -> tuple[Cached, list[Event], list[bytes]]:
        """What the clock owes at ``now``: for each passed deadline in turn, the forced
        moves of the seat that ran out (while it still owes a decision, its default
        too), a ``timeout`` event, the hand-over to a bot after ``max_timeouts`` in a
        row, and the bots' replies; all at the deadline. A bot to move (its last chain
        stopped at ``max_bot_moves``; with or without a clock) plays the next chain where
        it stopped: at the clock's start (it waited for the bots from then), or at
        ``now`` without a clock. The forced moves and the bots' moves together stay within
        ``max_bot_moves`` (a timeout is begun only while some is left, and its forced
        moves, at most one turn's, always end that turn; the bots stop at what is left);
        the next request goes on. Returns the session after them (its version unchanged:
        the caller commits), their events and move-log entries."""
        assert c.state is not None  # _settle: nothing is owed before the deal
        state, meta = c.state, c.meta
        events: list[Event] = []
        moves: list[bytes] = []
        budget = self.config.max_bot_moves
        chain = 0
        while budget > 0:
            if state.move_count >= self.config.max_moves:
                break  # the session is full
            seat = _waiting_person(state, meta)
            if seat is None and _bot_to_move(state, meta):
                # A bot's move at a request: the bots' last chain stopped at its budget.
                # They go on where it stopped: with a clock, at the time the game began
                # to wait for them (a budget splits the work, it does not move the
                # clock); without one, at ``now``.
                chain += 1
                state, bot_events, made = self._play_bots(
                    sid, c.version, state, meta, events, f":bots:{chain}", c.history, budget
                )
                if not made:
                    break
                events += bot_events
                moves += logged(made, "bot", now if meta.clock is None else meta.clock.started)
                budget -= len(made)
                continue
            clock = meta.clock
            if seat is None or clock is None:
                break  # the game is over, or no clock runs
            deadline = clock.deadline(seat)
            if deadline > now:
                break
            forced: list[Move] = []
            played: list[Event] = []
            while state.move_count < self.config.max_moves:
                move = engine.forced_move(state, seat)
                if move is None:
                    break
                state, evs = engine.apply(state, move)
                forced.append(move)
                played += evs
                pend = state.pending
                if pend is None or pend.player != seat:
                    break  # the seat owes nothing more of this turn
            events.append(session_events.timeout(seat, deadline, len(forced)))
            events += played
            moves += logged(forced, "clock", deadline)
            clock = clock.timed_out(seat)
            meta = replace(meta, clock=clock)
            if clock.hand_over(seat):
                meta = _hand_to_bot(meta, seat)
                events.append(session_events.bot_took_seat(seat, "timeouts"))
            chain += 1
            budget -= len(forced)
            state, bot_events, made = self._play_bots(
                sid, c.version, state, meta, events, f":clock:{chain}", c.history, budget
            )
            events += bot_events
            moves += logged(made, "bot", deadline)
            meta = replace(meta, clock=clock.restart(deadline))
            budget -= len(made)
        return Cached(c.version, c.seq, state, meta), events, moves

    def _settle(self, sid: str, c: Cached, now: float | None = None) -> Cached:
        """The session after what its clock owes at ``now`` (default: the clock's time)
        and the bots' next chain when a bot is to move (``_owed``), committed over
        ``c.version``; ``c`` itself when nothing is owed. A replica that loses the
        compare-and-set reads the session again (the winner played the timeout) and
        settles that."""
        if c.state is None or (c.meta.clock is None and not _bot_to_move(c.state, c.meta)):
            return c
        at = self.clock() if now is None else now
        for _ in range(3):
            owed, events, moves = self._owed(sid, c, at)
            if not moves and owed.meta == c.meta:
                return c
            new = Cached(c.version + 1, c.seq + len(events), owed.state, owed.meta)
            done = self._change(sid, c, new, events, moves)
            if done is not None:
                return done
            c, _ = self._load(sid)  # another replica moved first: settle what it wrote
        return c

    def next_deadline(self, c: Cached) -> float | None:
        """When the clock will next owe a move (epoch seconds), or None (no clock, a
        bot's move, the game over or the move limit reached)."""
        clock = c.meta.clock
        if clock is None or c.state is None or c.state.move_count >= self.config.max_moves:
            return None
        seat = _waiting_person(c.state, c.meta)
        return clock.deadline(seat) if seat is not None else None

    def events(self, sid: str, authorization: str | None, after: int, limit: int) -> Answer:
        c, _ = self._load(sid, seen=self._seen(sid, self._known_seat(sid, authorization)))
        c = self._settle(sid, c)
        seat = self._seat(c.meta, authorization, required=False)
        rows = self._store(lambda: self.store.events(sid, after, min(limit, MAX_EVENTS_PAGE)))
        body = {
            "session_id": sid,
            "seat": seat,
            "status": status_of(c),
            "version": c.version,
            "last_event": c.seq,
            "events": [_row(seq, ev, seat) for seq, ev in rows],
        }
        return Answer(200, orjson.dumps(body), c.version)

    def delete(self, sid: str, authorization: str | None) -> None:
        c, _ = self._load(sid)
        self._seat(c.meta, authorization, required=True)
        self._store(lambda: self.store.delete(sid))
        self._forget(sid)
        if c.meta.public and c.state is None:
            self._unlist([(sid, c.meta.variant)])

    # ------------------------------------------------------------------ streams
    def open_stream(
        self, sid: str, authorization: str | None, after: int, until: float
    ) -> tuple[int | None, Iterator[tuple[int, Event] | None]]:
        """The caller's seat and an iterator of ``(seq, redacted event)`` from ``after``
        on, yielding ``None`` after each idle heartbeat interval. It ends at ``until``
        (``time.monotonic()``), when the session is gone or when the store fails."""
        c = self._settle(sid, self._load(sid)[0])
        seat = self._seat(c.meta, authorization, required=False)
        sub = self._store(lambda: self.store.subscribe(sid))
        clocked = c.meta.clock is not None
        return seat, self._follow(
            sid, seat, sub, after, until, clocked, self.next_deadline(c), _bots_owed(c)
        )

    def _stream_seen(self, sid: str, seat: int | None) -> None:
        """An open stream keeps its seat connected (recorded at most every half period)."""
        seen = self._seen(sid, seat)
        if seen is not None:
            self.store.touch(sid, *seen)

    def _follow(
        self,
        sid: str,
        seat: int | None,
        sub: Subscription,
        after: int,
        until: float,
        clocked: bool = False,
        deadline: float | None = None,
        owed: bool = False,
    ) -> Iterator[tuple[int, Event] | None]:
        """``open_stream``'s iterator: the events above ``after`` page by page, a wait on
        ``sub`` when the log is read to its end, ``None`` after each idle wait. A clocked
        session's wait also ends at the next ``deadline``; then (and after each commit)
        the session is settled, so the stream sees the timeout when it falls due. While
        bots are ``owed`` a move (their last chain stopped at ``max_bot_moves``: every
        seat a bot) each idle wait settles it too, one chain a heartbeat, so a stream
        sees such a game go on to its end. ``sub`` is closed when it ends."""
        last = after
        try:
            with sub:
                while True:
                    self._stream_seen(sid, seat)
                    rows = self.store.events(sid, last, MAX_EVENTS_PAGE)
                    for seq, ev in rows:
                        last = seq
                        yield seq, _row(seq, ev, seat)
                    if len(rows) == MAX_EVENTS_PAGE:
                        continue  # more are waiting
                    woke = self._wait(sid, sub, until, deadline)
                    if woke == "end":
                        return
                    if woke == "idle":
                        yield None
                    if (woke != "idle" and clocked) or (woke == "idle" and owed):
                        # A commit or a deadline: play what the clock owes; an idle
                        # wait while bots are owed a move: their next chain.
                        c = self._settle(sid, self._load(sid)[0])
                        deadline, owed = self.next_deadline(c), _bots_owed(c)
        except StoreUnavailable as e:
            log.error("session store unavailable, ending the stream: %s", e)
            return
        except SessionProblem:  # the session is gone (settling it found it missing)
            return

    def _wait(
        self, sid: str, sub: Subscription, until: float, deadline: float | None = None
    ) -> Literal["changed", "idle", "deadline", "end"]:
        """Wait for a commit up to one heartbeat interval or the clock's ``deadline``:
        ``changed``; ``deadline`` when that came first; ``idle`` when nothing came (a
        heartbeat is due); ``end`` at ``until`` or when the session is gone."""
        left = until - time.monotonic()
        if left <= 0:
            return "end"
        wait = min(self.config.heartbeat_seconds, left)
        due = deadline - self.clock() if deadline is not None else None
        if due is not None and due <= wait:
            if due <= 0 or not sub.wait(due):
                return "deadline"
            return "changed"
        if sub.wait(wait):
            return "changed"
        if self.store.load(sid) is None:
            return "end"
        return "idle"

    def ready(self) -> dict[str, Any]:
        try:
            self.store.ping()
            ok = True
        except StoreUnavailable as e:
            log.warning("not ready: the session store cannot take a write: %s", e)
            ok = False
        return {"store": self.store.kind, "ok": ok}


def _state_of(raw: bytes) -> State | None:
    d = orjson.loads(raw)
    return None if d is None else engine.from_dict(d)


def _check_invitation(meta: Meta, code: str | None) -> None:
    """A join needs the invitation code, unless the session is public (403 otherwise)."""
    if code is None and meta.public:
        return
    if (
        code is None
        or meta.invite_sha256 is None
        or not hmac.compare_digest(tokens.digest(code), meta.invite_sha256)
    ):
        raise SessionProblem(
            403, "invalid_invitation", "this is not the invitation code of this session"
        )


def _open_seat(meta: Meta, wanted: int | None) -> int:
    """The seat a join takes: ``wanted``, else the lowest open one (409 when none is)."""
    if wanted is None:
        if meta.open_seats:
            return meta.open_seats[0]
    elif wanted < len(meta.seats) and meta.seats[wanted].open:
        return wanted
    raise SessionProblem(
        409, "session_full", "no open seat here" + ("" if wanted is None else f" (seat {wanted})")
    )


def _parse_cursor(cursor: str | None) -> tuple[int, str] | None:
    if cursor is None:
        return None
    m = CURSOR.match(cursor)
    if m is None:
        raise invalid_request("cursor is not one this service gave", {"cursor": ["invalid"]})
    return int(m.group(1)), m.group(2)


def _listed(sid: str, meta: Meta) -> dict[str, Any]:
    """A lobby entry: nothing hidden (no token, no code, no seed)."""
    return {
        "session_id": sid,
        "variant": meta.variant,
        "created": int(meta.created * 1000),
        "seats": [{"seat": s.seat, "name": None if s.open else s.name, "bot": s.bot,
                   "open": s.open} for s in meta.seats],
        "open_seats": len(meta.open_seats),
    }  # fmt: skip


def _hashed(code: str | None) -> str | None:
    return None if code is None else tokens.digest(code)


def _dump(events: list[Event]) -> list[bytes]:
    return [orjson.dumps(e) for e in events]


def _row(seq: int, raw: bytes, seat: int | None) -> Event:
    return {"seq": seq, **engine.redact(orjson.loads(raw), seat)}
