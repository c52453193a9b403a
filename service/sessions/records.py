"""The move log and the game's record.

Every move made (a person's, a bot's, or a forced one at a deadline) is appended to the
session's move log with who made it and when (``logged``): the game's record, which
replays to the session's state (``engine.record_builder.Builder``). The whole record is anyone's
once the game is over; while it runs only a seat's, without the seed and the move
fields that seat may not see.

A record is kept as its pieces (each move's entry as JSON, a seat's apart where it
hides a field, each round's result). The commit that appends moves to the log appends
their pieces beside them, in the same write (``record_pieces``: made from the steps
the writer applied, each move applied through ``apply``; the new moves played once more
from the state the commit read only when this thread did not apply them all; never the
whole log), so a read fetches the
pieces from the first move this process has not joined yet and joins them: it plays
no move, and reading a long game costs what reading a short one does, a worker's first
read included. Each process keeps the records of the most recently read sessions,
``RECORD_CACHE_BYTES`` of pieces in all. A session whose pieces do not match its log
(stored before them) has its record played from its log, as before: once a process.
A record that does not reach the session's state is built again from the start; when
that fails too the read is a loud error.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import orjson

import engine
from engine import Event, Move, Phase, State
from engine.record_builder import Builder, pieces
from engine.records import Step

from . import access
from .models import Reply, Snapshot, wire_bot
from .store import SessionStore

#: The bytes of kept record pieces each process holds (the least recently read go first).
RECORD_CACHE_BYTES = 32 * 2**20
#: What one kept piece costs beside its characters (a Python string's own bytes).
PIECE_OVERHEAD = 64

log = logging.getLogger("service.sessions")


def logged(moves: list[Move], by: str, at: float) -> list[bytes]:
    """Move-log entries: ``{"by": "player" | "bot" | "clock", "at": <epoch ms>, "move":
    {...}}`` (the seat is the move's ``player``; ``clock``: a forced move at a deadline)."""
    ms = int(at * 1000)
    return [orjson.dumps({"by": by, "at": ms, "move": m.to_dict()}) for m in moves]


class _Played(threading.local):
    """The moves this thread (this request's greenlet, under gevent) applied for the
    session write it is making (``apply``), each with the states before and after it and
    its events, by its state after, until the write's ``record_pieces`` takes them."""

    def __init__(self) -> None:
        self.by_after: dict[int, Step] = {}


_played = _Played()
#: The most moves kept for one write: more than one write plays (a person's move and
#: the bots' replies; ``SESSION_MAX_BOT_MOVES`` is 500); past it they are dropped (the
#: write's moves are then played once more).
MAX_PLAYED = 1024


def apply(state: State, move: Move) -> tuple[State, list[Event]]:
    """``engine.apply``, the step kept for the record's pieces of the write to come: a
    session writer applies every move it logs through this (a person's, a bot's, a
    forced one), so ``record_pieces`` need not play them again."""
    after, events = engine.apply(state, move)
    kept = _played.by_after
    if len(kept) >= MAX_PLAYED:
        kept.clear()
    kept[id(after)] = Step(state.move_count, state, move, after, events)  # holds ``after``
    return after, events


def _taken(start: State, end: State, n: int) -> list[Step] | None:
    """The ``n`` steps this thread applied from ``start`` (or a state equal to it: the
    deal) to ``end``, in order, or None when it did not apply them all; every kept step
    is let go either way."""
    kept, _played.by_after = _played.by_after, {}
    steps: list[Step] = []
    state = end
    for _ in range(n):
        step = kept.get(id(state))
        if step is None or step.after is not state:
            return None
        steps.append(step)
        state = step.before
    if state is not start and state != start:
        return None
    steps.reverse()
    return steps


def record_pieces(base: State | None, new: Snapshot, moves: list[bytes]) -> list[bytes]:
    """The record's pieces of ``moves`` (move-log entries), which lead from ``base``
    (None: the deal) to ``new``'s state, for the commit that appends them
    (``SessionStore.pieces``): made from the steps the writer applied (``apply``), or,
    when it did not apply them all in this thread, the moves played once more from the
    state the commit read, not the session's whole log. None of them (the session's
    pieces stop, its record is played from its log) when they do not reach ``new``'s
    state, loudly."""
    if not moves or new.state is None:
        _played.by_after = {}
        return []
    start = Records.new_builder(new, new.state).state if base is None else base
    played = _taken(start, new.state, len(moves))
    try:
        out, reached = pieces(
            start, map(orjson.loads, moves), len(new.meta.seats), start.move_count, played
        )
    except (engine.EngineError, ValueError, KeyError, TypeError):  # not moves it can play
        reached = None
    if reached != new.state:
        log.error("session %s: its new moves do not replay to its new state", new.sid)
        return []
    return out


class _Differs(Exception):
    """A record built from the log does not reach the session's state."""


@dataclass
class Kept:
    """A session's record being built, and the bytes its pieces hold."""

    builder: Builder
    size: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class Records:
    def __init__(self, store: SessionStore) -> None:
        self.store = store
        #: Each read session's record, least recently read first, and their bytes in all.
        self._kept: OrderedDict[str, Kept] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @staticmethod
    def reader(c: Snapshot, token: str | None) -> int | None:
        """Who may read ``c``'s record: anyone the session admits once the game is over,
        a seat while it runs or waits (401 otherwise); the seat, or None."""
        over = c.state is not None and c.state.phase is Phase.GAME_OVER
        return access.reader_seat(c.meta, token) if over else access.holder_seat(c.meta, token)

    def record(self, c: Snapshot, token: str | None) -> Reply:
        """The record of the session ``c`` (settled) for the bearer of ``token`` (see
        ``reader``; 409 ``session_waiting`` before the deal)."""
        seat = self.reader(c, token)
        dealt = c.dealt()
        with self._lock:
            kept = self._kept.get(c.sid)
            if kept is not None:
                self._kept.move_to_end(c.sid)
        if kept is not None:
            try:
                return Reply.of(self._text(c.sid, kept, dealt, seat).encode(), c)
            except (engine.RecordError, _Differs):
                # Not the log this process built from (a failover lost moves it had
                # read): built again from the start.
                self._forget(c.sid, kept)
        kept = Kept(self.new_builder(c, dealt))
        try:
            text = self._text(c.sid, kept, dealt, seat)
        except (engine.RecordError, _Differs) as e:
            log.error("session %s: its move log does not replay to its state", c.sid)
            raise RuntimeError(f"session {c.sid}: the move log does not replay to the state") from e
        self._keep(c.sid, kept)
        return Reply.of(text.encode(), c)

    @staticmethod
    def new_builder(c: Snapshot, dealt: State) -> Builder:
        """A builder of ``c``'s record at the deal (no move played)."""
        players = [{"name": s.name, "bot": wire_bot(s.bot)} for s in c.meta.seats]
        return Builder(
            c.meta.variant,
            players,
            dealt.seed,
            c.meta.dealer,
            dict(dealt.options),
            game_id=c.sid,
            nonce=c.meta.seed_nonce,
        )

    def _text(self, sid: str, kept: Kept, dealt: State, seat: int | None) -> str:
        """The record of ``dealt``'s moves for ``seat``, from ``kept``'s builder with
        the stored pieces of the moves it lacks joined (or, for a session stored before
        pieces, those moves read from the log and played). A
        builder a few moves past ``dealt`` (another request read a later version
        meanwhile) serves it from the state it kept; ``_Differs`` when the log does not
        reach ``dealt``."""
        with kept.lock:
            b = kept.builder
            had = len(b.moves)
            if had > dealt.move_count:
                if b.state_after(dealt.move_count) != dealt:
                    raise _Differs
                return b.dumps(seat, dealt.move_count)
            if had < dealt.move_count:
                # A commit after the load appends moves the loaded state has not made yet.
                want = dealt.move_count - had
                # From the builder's last move on: that move's stored entry must be the one
                # it holds, or the log is no longer the one it was built from (a failover
                # replaced moves) and the pieces after it would follow another game's.
                back = 1 if had else 0
                stored = self.store.pieces(sid, had - back)
                if stored is not None and len(stored) >= want + back:
                    if back and stored[0].partition(b"\n")[0] != b.moves[-1].encode():
                        raise _Differs
                    b.adopt(stored[back : back + want], dealt)  # written with the moves
                else:
                    rows = self.store.moves(sid, had)[:want]
                    b.extend(orjson.loads(raw) for raw in rows)
                self._grow(sid, kept, sum(len(m) + PIECE_OVERHEAD for m in b.moves[had:]))
            if b.state != dealt:
                raise _Differs
            return b.dumps(seat)

    def _grow(self, sid: str, kept: Kept, size: int) -> None:
        """``kept`` holds ``size`` bytes more (counted when it is the one kept)."""
        with self._lock:
            kept.size += size
            if self._kept.get(sid) is kept:
                self._bytes += size
                self._evict()

    def _keep(self, sid: str, kept: Kept) -> None:
        with self._lock:
            old = self._kept.pop(sid, None)
            if old is not None:
                self._bytes -= old.size
            self._kept[sid] = kept
            self._bytes += kept.size
            self._evict()

    def _forget(self, sid: str, kept: Kept) -> None:
        with self._lock:
            if self._kept.get(sid) is kept:
                self._bytes -= self._kept.pop(sid).size

    def _evict(self) -> None:
        """Drop the least recently read until the pieces fit (the lock held; the one
        just read stays, however large)."""
        while self._bytes > RECORD_CACHE_BYTES and len(self._kept) > 1:
            self._bytes -= self._kept.popitem(last=False)[1].size
