"""A seat's move: checked in the contract's order, applied with the bots' replies, and
committed with one compare-and-set, idempotently.

One store round trip per move in the steady state: when the client's ``If-Match``
equals the version of this process's cached copy the move is applied to it and
committed with one compare-and-set over the copy's version and commit id; only when it
does not match is the session read first (one extra round trip). The copy decides no
refusal: another process may have committed since (a join that dealt, a seat told of
the deal, a move). A move the copy refuses (401, 403, 409, 412, 422) and a
compare-and-set lost are judged again on the session read, so every answer is what one
process would answer: 412 only when the version read shows another game than the
one ``If-Match`` names (a quiet commit in between leaves it good).
All bot moves of a request are committed with the person's move, at most
``max_bot_moves`` of them. A session takes at most ``max_moves`` moves and stores at most
``max_bytes`` of events and moves: past either a move is 409 ``move_limit_reached`` or
``session_too_large``, so a session's storage stays bounded.

An ``Idempotency-Key`` is kept per seat with the answer it got and the fingerprint of
the move and version it came with: a retry with the same key gets that answer again
(``Idempotent-Replayed``), a different move under it is 422.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import orjson

from engine import Move

from . import access, problems, records
from .bots import BotPlayer
from .config import Env
from .models import MoveRequest, Reply, Snapshot, VersionTag
from .presence import Presence
from .records import logged
from .repo import Repository
from .store import Idem, Loaded
from .timekeeper import Timekeeper, clock_moved
from .views import Views

#: Reads and judgements of one move at most: its first on this process's copy (or a
#: read), then one more after each refusal judged on a copy or each lost
#: compare-and-set (another process committed first, perhaps quietly).
MOVE_TRIES = 5


@dataclass(frozen=True)
class Reread:
    """The session read again because the copy a move was judged on is not the stored
    state: the move is judged anew, from its token on, on ``c`` (``loaded``)."""

    c: Snapshot
    loaded: Loaded


class Judged(Exception):
    """A move's refusal decided on the session as read (no copy of this process)."""

    def __init__(self, problem: problems.SessionError) -> None:
        super().__init__(problem)
        self.problem = problem


@dataclass(frozen=True)
class Ask:
    """A move request, checked: the seat, the version it answers (If-Match), the move,
    and the seat-scoped Idempotency-Key with the fingerprint of what it was sent with."""

    seat: int
    expected: VersionTag
    move: Move
    idem_key: str | None
    fingerprint: bytes


class Moves:
    def __init__(
        self,
        env: Env,
        repo: Repository,
        bots: BotPlayer,
        timekeeper: Timekeeper,
        presence: Presence,
        views: Views,
    ) -> None:
        self.env = env
        self.repo = repo
        self.bots = bots
        self.timekeeper = timekeeper
        self.presence = presence
        self.views = views

    def move(self, sid: str, req: MoveRequest) -> Reply:
        """One seat's move, the bots' replies, one compare-and-set (see the module)."""
        now = self.env.now()  # a person's move is judged at the time of the request
        c, loaded = self.repo.current(sid)
        for _ in range(MOVE_TRIES):
            done = self._judged(c, loaded, req, now)
            if isinstance(done, Reply):
                return done
            c, loaded = (done.c, done.loaded) if done else self.repo.load(sid)
        raise problems.version_mismatch(c.version, c.etag)

    def _judged(
        self, c: Snapshot, loaded: Loaded | None, req: MoveRequest, now: float
    ) -> Reply | Reread | None:
        """The move judged on ``c`` (read from the store when ``loaded`` is given, else
        this process's copy) and committed over it; None when that is not the answer:
        the copy refused the move (it may be behind), or the compare-and-set was lost
        (another process committed first, perhaps only quietly). The caller reads the
        session again (or takes the ``Reread`` it was given) and judges once more."""
        fresh = loaded is not None
        try:
            seat = access.holder_seat(c.meta, req.token)
            c.dealt()
            settled = self.timekeeper.settle(c, now, caller=seat)
            if settled is not c:  # the clock moved first: the move is judged on the new state
                c, loaded, fresh = settled, None, True
                seat = access.holder_seat(c.meta, req.token)
            ask = checked(c, seat, req)
            found = self._at_version(c, loaded, ask)
            if isinstance(found, Reply | Reread):
                return found
            at, read = found
            fresh = fresh or read
            return self._made(at, ask, now)
        except Judged as judged:
            raise judged.problem from None
        except problems.SessionError:
            if fresh:
                raise
            return None  # judged on a copy: read the session and judge again

    def _made(self, at: Snapshot, ask: Ask, now: float) -> Reply | None:
        """``ask`` applied to ``at`` with the bots' replies and committed over it (None:
        the compare-and-set was lost)."""
        sid = at.sid
        current = at.dealt()
        if current.move_count >= self.env.config.max_moves:
            raise problems.move_limit_reached(current.move_count)
        if at.stored >= self.env.config.max_bytes:
            raise problems.session_too_large(at.stored)
        state, events = problems.judged(records.apply, current, ask.move)
        state, bot_events, made = self.bots.play(
            sid, at.version, state, at.meta, events, before=at.history,
            cpu_until=self.bots.cpu_deadline(),  # the rest is owed to the next request
        )  # fmt: skip
        events += bot_events
        moves = logged([ask.move], "player", now) + logged(made, "bot", now)
        meta = clock_moved(at.meta, ask.seat, current, state, now, ask.move)
        new = at.then(state, meta, len(events))
        seen = self.presence.due(sid, ask.seat)
        out = self.views.moved(new, ask.seat, events, at.seq + 1)
        idem = Idem(ask.idem_key, ask.fingerprint + b"\n" + out) if ask.idem_key else None
        done = self.repo.commit(at, new, events, moves, idem, seen)
        if isinstance(done, Snapshot):
            return Reply.of(out, done)
        if done.status == "replayed" and done.answer is not None:
            return replay(done.answer, ask.fingerprint)
        return None

    def _at_version(
        self, c: Snapshot, loaded: Loaded | None, ask: Ask
    ) -> tuple[Snapshot, bool] | Reply | Reread:
        """The session at the version the move answers (or a later one that shows the
        same game: ``Snapshot.answers``) and whether it was read here, or the stored
        answer of an earlier try with the same Idempotency-Key (its replay), or 412.

        When the cached copy is at that version nothing is read (the commit's
        compare-and-set judges it, and finds a stored answer itself). Otherwise the cache
        is behind (or the client is): the session, and the answer stored under the key,
        are read before the version is judged (412 only on the session read). A read
        that finds another state than ``c`` is a ``Reread``: the token, the seat and
        the move are judged on it first (a seat that left is 401 ``seat_left`` on every
        replica, not 412 because the copy it was checked on still seated it)."""
        if c.answers(ask.expected):
            return c, False
        if loaded is None or ask.idem_key is not None:
            read, loaded = self.repo.load(c.sid, ask.idem_key)
            if (read.version, read.commit) != (c.version, c.commit):
                return Reread(read, loaded)
            c = read
        try:
            if loaded.idem is not None:
                return replay(loaded.idem, ask.fingerprint)
        except problems.SessionError as e:
            raise Judged(e) from None
        if not c.answers(ask.expected):
            raise Judged(problems.version_mismatch(c.version, c.etag))
        return c, True


def checked(c: Snapshot, seat: int, req: MoveRequest) -> Ask:
    """The request checked in the order the contract answers: If-Match (400, 428), the
    move (400, 403), the Idempotency-Key (400)."""
    if isinstance(req.if_match, problems.SessionError):
        raise req.if_match
    if req.if_match is None:
        raise problems.if_match_required(c.version, c.etag)
    expected = req.if_match
    if isinstance(expected, int):  # a bare number
        expected = VersionTag(expected)
    move = seat_move(seat, req.move)
    if isinstance(req.idempotency_key, problems.SessionError):
        raise req.idempotency_key
    if req.idempotency_key is None:
        return Ask(seat, expected, move, None, b"")
    scoped = f"{seat}:{hashlib.sha256(req.idempotency_key.encode()).hexdigest()[:40]}"
    return Ask(seat, expected, move, scoped, fingerprint(seat, expected, move.to_dict()))


def seat_move(seat: int, wire: dict[str, Any]) -> Move:
    """The move as sent (``player`` defaults to the token's seat; 403 when it names
    another seat). An ``InvalidMove`` is the service's 400 with the engine's code."""
    raw = dict(wire)
    raw.setdefault("player", seat)
    move = Move.from_dict(raw)
    if move.player != seat:
        raise problems.not_your_seat(seat, move.player)
    return move


def fingerprint(seat: int, tag: VersionTag | int, move: dict[str, Any]) -> bytes:
    """What an idempotent retry must match: the seat, the version (with the commit
    id If-Match named, when it named one) and the move."""
    if isinstance(tag, int):
        tag = VersionTag(tag)
    named = [tag.version] if tag.commit is None else [tag.version, tag.commit]
    raw = orjson.dumps([seat, *named, move], option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(raw).hexdigest().encode()


def replay(stored: bytes, fingerprint: bytes) -> Reply:
    """An answer stored under an Idempotency-Key, for a retry with the same fingerprint
    (422 ``idempotency_key_reused`` for another move or version)."""
    fp, _, body = stored.partition(b"\n")
    if fp != fingerprint:
        raise problems.idempotency_key_reused()
    answer = orjson.loads(body)
    tag = answer.get("etag", "")  # absent in answers stored before ETags named commits
    return Reply(body, answer["version"], replayed=True, game=tag.partition(".")[2])
