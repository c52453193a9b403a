"""The sessions' repository: how every part reads a session and writes its next version.

- ``load`` reads a session in one round trip (the idempotent answer asked for, presence
  recorded, and the bots' history unless the cached copy holds it); ``current`` is the
  cached copy when it will do, else a load.
- ``create`` stores a new session at version 1.
- ``commit`` is the one write of a next version: one compare-and-set
  (``store.CommitRequest``) over the version and commit id the snapshot was read at,
  with the round's events the levelled bots need carried on (``with_history``); an
  applied commit is cached and its moves counted. Every change of a session goes through it.
- ``change`` is the one retry loop: a step (the session as read -> its next version,
  and what to answer) applied with ``commit``, read again and tried again after each
  lost race.

A store that cannot be reached raises ``StoreUnavailable`` through all of these; the API
answers it in one place (``api.py``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Generic, TypeVar

import orjson

import engine
from engine import Event, State

from . import problems
from .bots import round_start
from .cache import SnapshotCache
from .models import Meta, Snapshot
from .records import record_pieces
from .store import (
    HISTORY_EVENTS,
    Commit,
    CommitRequest,
    Idem,
    Loaded,
    Notices,
    SessionStore,
    StoreUnavailable,
    new_commit_id,
)

if TYPE_CHECKING:
    from .outbox import Outbox
    from .quotas import Quotas

R = TypeVar("R")

log = logging.getLogger("service.sessions")

#: A session id as this service makes them (anything else is 404 without a read).
SID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
#: Compare-and-set tries of a change before it gives up (each lost try means another
#: change of the same session went first).
CHANGE_TRIES = 20


@dataclass(frozen=True)
class Change(Generic[R]):
    """What a step of ``Repository.change`` makes of the session it read: the ``new``
    snapshot (None: nothing to write), the ``events`` and move-log entries (``moves``)
    that lead to it, and the ``result`` to answer."""

    result: R
    new: Snapshot | None = None
    events: list[Event] = field(default_factory=list)
    moves: list[bytes] = field(default_factory=list)
    #: Presence to record with the commit: ``(seat, epoch ms)``.
    seen: tuple[int, int] | None = None


class Repository:
    def __init__(
        self,
        store: SessionStore,
        cache: SnapshotCache,
        outbox: Outbox | None = None,
        on_seen: Callable[[str, dict[int, int]], None] | None = None,
        count_moves: Callable[[str, int], None] | None = None,
        quotas: Quotas | None = None,
    ) -> None:
        self.store = store
        self.cache = cache
        #: What each write adds for the notifier and its TTL (``outbox.py``; None:
        #: nothing, the store's TTL).
        self.outbox = outbox
        #: Told the moves each applied commit made, by variant (the service's metrics:
        #: ``observability.count_moves``; None: not counted).
        self.count_moves = count_moves
        #: Told the presence each load reads (``Presence.learn``).
        self.on_seen = on_seen
        #: Holds each session's place in its creator's quota while it lives (None: no
        #: quotas).
        self.quotas = quotas

    def _wake(self, sid: str, notices: Notices | None) -> None:
        """Tell the notifier of the work a write left (a failure is logged: the
        notifier's full scan finds that work anyway, later)."""
        at = None if notices is None else notices.wake_ms
        if at is None:
            return
        try:
            self.store.wake(sid, at)
        except StoreUnavailable as e:
            log.warning("session %s: the notifier was not told of its work: %s", sid, e)

    def _extras(
        self, base: Snapshot | None, new: Snapshot, events: list[Event], moves: list[bytes]
    ) -> tuple[Notices | None, float | None]:
        """The notices and the TTL of a write of ``new`` (``outbox.py``)."""
        if self.outbox is None:
            return None, None
        return self.outbox.notices(base, new, events, moves), self.outbox.ttl(new)

    def _held(self, new: Snapshot, ttl: float | None) -> Meta | None:
        """``new``'s meta with its creator's place held on, when a write that keeps it
        for ``ttl`` (None: the store's TTL) needs it to be (``Quotas.holding``)."""
        if self.quotas is None:
            return None
        return self.quotas.holding(new.meta, self.store.ttl if ttl is None else ttl)

    def _hold_on(self, new: Snapshot, held: Meta | None) -> None:
        if held is not None and self.quotas is not None:
            self.quotas.hold_on(new.sid, held)

    # ------------------------------------------------------------------ reading
    def load(
        self, sid: str, idem_key: str | None = None, seen: tuple[int, int] | None = None
    ) -> tuple[Snapshot, Loaded]:
        """The session as stored (404 when there is none), and what the store read
        (``idem_key``: the answer stored under it; ``seen``: record that seat as seen)."""
        if not SID.match(sid):
            raise problems.not_found(sid)
        hit = self.cache.get(sid)
        # The round's events come with the state unless this copy holds them (and is current).
        known = hit.version if hit is not None and hit.history is not None else 0
        loaded = self.store.load(sid, idem_key, seen, known)
        if loaded is not None and hit is not None and stale_history(hit, loaded, known):
            loaded = self.store.load(sid, idem_key, None, 0)
        if loaded is None:
            self.cache.forget(sid)
            raise problems.not_found(sid)
        if self.on_seen is not None and loaded.seen:
            self.on_seen(sid, loaded.seen)
        hit = self.cache.get(sid)
        history = loaded.history if loaded.history_from else ()
        if hit is not None and (hit.version, hit.commit) == (loaded.version, loaded.commit):
            if hit.history is not None or history is None:
                return hit, loaded
            entry = replace(hit, history_from=loaded.history_from, history=history)
        else:
            entry = Snapshot(
                sid,
                loaded.version,
                loaded.seq,
                state_of(loaded.state),
                # A commit may have replaced the meta (a seat joined, left, ...).
                Meta.from_json(loaded.meta),
                loaded.history_from,
                history,
                loaded.stored,
                loaded.commit,
            )
        self.cache.put(entry, read=True)
        return entry, loaded

    def current(self, sid: str) -> tuple[Snapshot, Loaded | None]:
        """This process's cached copy when it has one its bots can move from (no read),
        else the session loaded (then ``Loaded`` too). The copy may be behind (see
        ``cache.py``): only a compare-and-set over it proves it current, and a refusal
        judged on it is judged again on the session read (``Moves``)."""
        if not SID.match(sid):
            raise problems.not_found(sid)
        hit = self.cache.get(sid)
        if hit is None or hit.needs_history():
            return self.load(sid)
        return hit, None

    # ------------------------------------------------------------------ writing
    def create(self, new: Snapshot, events: list[Event], moves: list[bytes]) -> Snapshot:
        """Store ``new`` (version 1) with its ``events`` and move-log entries; the
        snapshot now cached (with the bots' history)."""
        dumped = dump(events)
        new = replace(
            with_history(None, new, events, dumped), stored=size(dumped, moves),
            commit=new.commit or new_commit_id(),
        )  # fmt: skip
        notices, ttl = self._extras(None, new, events, moves)
        new = replace(new, stored=new.stored + written(notices))
        held = self._held(new, ttl)
        new = new if held is None else replace(new, meta=held)
        pieces = record_pieces(None, new, moves)
        new = replace(new, stored=new.stored + sum(map(len, pieces)))
        self.store.create(
            new.sid, new.meta.to_json(), state_json(new.state), dumped, moves, new.history_from,
            notices, ttl, new.commit, pieces,
        )  # fmt: skip
        self._wake(new.sid, notices)
        self._hold_on(new, held)
        self.cache.put(new)
        return new

    def commit(
        self,
        base: Snapshot,
        new: Snapshot,
        events: list[Event],
        moves: list[bytes],
        idem: Idem | None = None,
        seen: tuple[int, int] | None = None,
    ) -> Snapshot | Commit:
        """Compare-and-set ``new`` over ``base``'s version and commit id with ``events``,
        the move-log entries ``moves`` and the meta when it changed (``idem``: the answer
        to keep under an idempotency key; ``seen``: presence). Applied: the snapshot now cached
        (``new`` with the bots' history). Else the store's outcome: ``replayed`` (the
        stored answer) or ``conflict`` (the cached copy forgotten); a session gone is 404."""
        dumped = dump(events)
        new = replace(
            with_history(base, new, events, dumped), stored=base.stored + size(dumped, moves),
            commit=new.commit or new_commit_id(),
        )  # fmt: skip
        notices, ttl = self._extras(base, new, events, moves)
        pieces = record_pieces(base.state, new, moves)
        new = replace(new, stored=new.stored + written(notices) + sum(map(len, pieces)))
        held = self._held(new, ttl)
        new = new if held is None else replace(new, meta=held)
        request = CommitRequest(
            new.sid, base.version, state_json(new.state), dumped, idem, moves,
            meta=new.meta.to_json() if new.meta is not base.meta else None,
            seen=seen, history_from=new.history_from, notices=notices, ttl=ttl,
            expected_commit=base.commit, commit_id=new.commit, pieces=pieces,
        )  # fmt: skip
        res = self.store.commit(request)
        if res.status == "ok":
            new = replace(new, commit=request.commit_id)
            self._wake(new.sid, notices)
            self._hold_on(new, held)
            self.cache.put(new)
            if moves and self.count_moves is not None:
                self.count_moves(new.meta.variant, len(moves))
            return new
        if res.status == "replayed":
            return res
        self.cache.forget(new.sid)
        if res.status == "missing":
            raise problems.not_found(new.sid)
        return res

    def change(
        self,
        sid: str,
        step: Callable[[Snapshot], Change[R]],
        start: Snapshot | None = None,
        tries: int = CHANGE_TRIES,
        give_up: Callable[[Snapshot], R] | None = None,
    ) -> tuple[Snapshot, R]:
        """Apply ``step`` to the session (``start``, else as read) with ``commit``,
        reading it again after each lost race: the session after the step (committed,
        or as read when the step wrote nothing) and its result. After ``tries`` lost
        races the session is read once more and handed to ``give_up`` (by default: 412)."""
        c = start
        for _ in range(tries):
            if c is None:
                c, _ = self.load(sid)
            change = step(c)
            if change.new is None:
                return c, change.result
            done = self.commit(c, change.new, change.events, change.moves, seen=change.seen)
            if isinstance(done, Snapshot):
                return done, change.result
            c = None
        last, _ = self.load(sid)
        if give_up is None:
            raise problems.version_mismatch(last.version, last.etag)
        return last, give_up(last)

    def delete(self, sid: str) -> None:
        self.store.delete(sid)
        self.cache.forget(sid)


def stale_history(hit: Snapshot, loaded: Loaded, known: int) -> bool:
    """``loaded`` came without the bots' history because ``hit`` (the copy) is at its
    version, but with another commit id: another state (a failover lost the copy's),
    whose history must be read too."""
    return bool(
        known and loaded.version == known and loaded.commit != hit.commit
        and loaded.history is None and loaded.history_from
    )  # fmt: skip


def with_history(
    prev: Snapshot | None, new: Snapshot, events: list[Event], dumped: list[bytes]
) -> Snapshot:
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


def state_json(state: State | None) -> bytes:
    return orjson.dumps(None if state is None else engine.to_dict(state))


def state_of(raw: bytes) -> State | None:
    d = orjson.loads(raw)
    return None if d is None else engine.from_dict(d)


def dump(events: list[Event]) -> list[bytes]:
    return [orjson.dumps(e) for e in events]


def size(events: list[bytes], moves: list[bytes]) -> int:
    """The bytes a commit adds to a session's logs (``Snapshot.stored``)."""
    return sum(map(len, events)) + sum(map(len, moves))


def written(notices: Notices | None) -> int:
    """The bytes of the webhooks a commit writes, counted in ``Snapshot.stored`` as the
    store counts them (``store.Notices``)."""
    return 0 if notices is None or not notices.keep_ms else sum(map(len, notices.entries))
