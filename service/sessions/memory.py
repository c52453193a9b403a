"""The embedded session store: in-process, thread-safe, with TTL on a monotonic clock.

Used when no ``REDIS_URL`` is configured, so the service runs on a fresh machine.
Sessions live in this process only: they vanish on restart and are not shared
between gunicorn workers (run one worker, or configure Redis).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .store import (
    HISTORY_EVENTS,
    IDEMPOTENCY_KEYS,
    LOBBY_SIZE,
    Commit,
    CommitRequest,
    Loaded,
    Notices,
    SessionStore,
    Subscription,
    lobby_order,
    new_commit_id,
)


@dataclass
class _Session:
    version: int
    seq: int
    state: bytes
    meta: bytes
    events: deque[tuple[int, bytes]]
    expires: float
    # The most recent idempotent answers, oldest first (they expire with the session).
    idem: OrderedDict[str, bytes] = field(default_factory=OrderedDict)
    moves: list[bytes] = field(default_factory=list)
    #: The record's pieces of ``moves`` (``store.SessionStore.pieces``).
    pieces: list[bytes] = field(default_factory=list)
    seen: dict[int, int] = field(default_factory=dict)
    history_from: int = 0
    #: The notifier's outbox (``store.Notices``): entries, and the pending clock warning
    #: (entry, due ms, the version it holds for).
    outbox: list[bytes] = field(default_factory=list)
    warning: tuple[bytes, int, int, str] | None = None
    #: Outbox entries dropped at the outbox's cap (the outq's ``dropped`` in Redis).
    dropped: int = 0
    #: The bytes of the events, move-log and outbox entries written so far.
    stored: int = 0
    #: The commit id of ``version`` (``store.new_commit_id``).
    commit: str = ""

    def history(self) -> tuple[bytes, ...]:
        """The events numbered ``history_from`` and after, the newest ``HISTORY_EVENTS``."""
        out: list[bytes] = []
        for seq, e in reversed(self.events):
            if seq < self.history_from or len(out) == HISTORY_EVENTS:
                break
            out.append(e)
        return tuple(reversed(out))


class MemoryStore(SessionStore):
    kind = "memory"

    def __init__(
        self,
        ttl: float,
        max_events: int,
        clock: Callable[[], float] = time.monotonic,
        max_idem: int = IDEMPOTENCY_KEYS,
        lobby_size: int = LOBBY_SIZE,
    ) -> None:
        super().__init__(ttl, max_events, max_idem, lobby_size)
        # The lobby index: variant (or "*": all) -> sid -> created ms.
        self._lobby: dict[str, dict[str, int]] = {}
        # Claims: key -> member -> until (epoch ms); every key's expired members are
        # dropped at most once a minute (``claim``).
        self._claims: dict[str, dict[str, int]] = {}
        self._next_claims_sweep = 0
        self._clock = clock
        self._sessions: dict[str, _Session] = {}
        self._lock = threading.Lock()
        # One condition for every session: a commit wakes all waiters, each re-checks.
        self._changed = threading.Condition(self._lock)
        self._generation: dict[str, int] = {}
        self._next_sweep = 0.0
        #: The sweeper's index: sid -> the clock's next deadline (ms). (No worker reads
        #: this store: its outbox is kept for the tests and the agreement with Redis.)
        self._deadlines: dict[str, int] = {}

    # ------------------------------------------------------------------ helpers
    def _get(self, sid: str) -> _Session | None:
        """The live session (the lock is held); expired ones are dropped on sight."""
        s = self._sessions.get(sid)
        if s is not None and s.expires <= self._clock():
            del self._sessions[sid]
            return None
        return s

    def _sweep(self) -> None:
        now = self._clock()
        if now < self._next_sweep:
            return
        self._next_sweep = now + min(self.ttl, 60.0)
        for sid in [k for k, s in self._sessions.items() if s.expires <= now]:
            del self._sessions[sid]
        for sid in [k for k in self._generation if k not in self._sessions]:
            del self._generation[sid]

    def _notices(self, sid: str, s: _Session, notices: Notices | None) -> None:
        """Write ``notices`` for ``s`` (at its new version), as NOTICES does in Redis."""
        if notices is None:
            return
        if notices.deadline_ms is None:
            self._deadlines.pop(sid, None)
        else:
            self._deadlines[sid] = notices.deadline_ms
        if not notices.keep_ms:
            return
        s.outbox.extend(notices.entries)
        s.stored += sum(map(len, notices.entries))
        over = len(s.outbox) - notices.outbox_max
        if notices.outbox_max and over > 0:  # the oldest after the head go
            del s.outbox[1 : 1 + over]
            s.dropped += over
        if notices.warning is not None:
            s.warning = (notices.warning, notices.warning_due_ms, s.version, s.commit)
        else:
            s.warning = None

    @staticmethod
    def _append_moves(s: _Session, moves: Sequence[bytes], pieces: Sequence[bytes]) -> None:
        """Append ``moves`` to ``s``'s log and their ``pieces`` beside them while its
        pieces match its log, as COMMIT does in Redis; their bytes counted."""
        if moves and len(pieces) == len(moves) and len(s.pieces) == len(s.moves):
            s.pieces.extend(pieces)
            s.stored += sum(map(len, pieces))
        s.moves.extend(moves)
        s.stored += sum(map(len, moves))

    def _ttl(self, ttl: float | None) -> float:
        return self.ttl if ttl is None else max(self.ttl, ttl)

    def _notify(self, sid: str) -> None:
        self._generation[sid] = self._generation.get(sid, 0) + 1
        self._changed.notify_all()

    # ------------------------------------------------------------------ the API
    def create(
        self,
        sid: str,
        meta: bytes,
        state: bytes,
        events: list[bytes],
        moves: Sequence[bytes] = (),
        history_from: int = 0,
        notices: Notices | None = None,
        ttl: float | None = None,
        commit_id: str | None = None,
        pieces: Sequence[bytes] = (),
    ) -> Commit:
        with self._lock:
            self._sweep()
            log: deque[tuple[int, bytes]] = deque(maxlen=self.max_events)
            log.extend((i, e) for i, e in enumerate(events, 1))
            expires = self._clock() + self._ttl(ttl)
            s = self._sessions[sid] = _Session(
                1, len(events), state, meta, log, expires,
                history_from=history_from, stored=sum(map(len, events)),
                commit=new_commit_id() if commit_id is None else commit_id,
            )  # fmt: skip
            self._append_moves(s, moves, pieces)
            self._notices(sid, s, notices)
            self._notify(sid)
            return Commit("ok", 1, len(events))

    def load(
        self,
        sid: str,
        idem_key: str | None = None,
        seen: tuple[int, int] | None = None,
        history_known: int = 0,
    ) -> Loaded | None:
        with self._lock:
            s = self._get(sid)
            if s is None:
                return None
            if seen is not None:
                s.seen[seen[0]] = seen[1]
            answer = s.idem.get(idem_key) if idem_key else None
            wanted = s.history_from > 0 and s.version != history_known
            return Loaded(
                s.version, s.seq, s.state, s.meta, answer, dict(s.seen),
                s.history_from, s.history() if wanted else None, s.stored, s.commit,
            )  # fmt: skip

    def version(self, sid: str) -> int | None:
        with self._lock:
            s = self._get(sid)
            return None if s is None else s.version

    def touch(self, sid: str, seat: int, at_ms: int) -> None:
        with self._lock:
            s = self._get(sid)
            if s is not None:
                s.seen[seat] = at_ms

    def commit(self, request: CommitRequest) -> Commit:
        idem, expected_version = request.idem, request.expected_version
        with self._lock:
            s = self._get(request.sid)
            if s is None:
                return Commit("missing")
            if idem is not None:
                answer = s.idem.get(idem.key)
                if answer is not None:
                    return Commit("replayed", s.version, s.seq, answer)
            expected_commit = request.expected_commit
            if s.version != expected_version or expected_commit not in (None, s.commit):
                return Commit("conflict", s.version, s.seq)
            for e in request.events:
                s.seq += 1
                s.events.append((s.seq, e))
            s.stored += sum(map(len, request.events))
            self._append_moves(s, request.moves, request.pieces)
            if request.meta is not None:
                s.meta = request.meta
            if request.seen is not None:
                s.seen[request.seen[0]] = request.seen[1]
            s.version += 1
            s.commit = request.commit_id
            s.state = request.state
            s.history_from = request.history_from
            s.expires = self._clock() + self._ttl(request.ttl)
            self._notices(request.sid, s, request.notices)
            if idem is not None:
                s.idem[idem.key] = idem.answer
                while len(s.idem) > self.max_idem:
                    s.idem.popitem(last=False)
            self._notify(request.sid)
            return Commit("ok", s.version, s.seq)

    def events(self, sid: str, after: int, limit: int) -> list[tuple[int, bytes]]:
        with self._lock:
            s = self._get(sid)
            if s is None:
                return []
            if not s.events or after >= s.seq:
                return []
            first = s.events[0][0]
            start = max(0, after + 1 - first)
            return [s.events[i] for i in range(start, min(len(s.events), start + limit))]

    def moves(self, sid: str, start: int = 0) -> list[bytes]:
        with self._lock:
            s = self._get(sid)
            return [] if s is None else list(s.moves[start:])

    def pieces(self, sid: str, start: int = 0) -> list[bytes] | None:
        with self._lock:
            s = self._get(sid)
            if s is None or not s.pieces or len(s.pieces) != len(s.moves):
                return None
            return s.pieces[start:]

    def delete(self, sid: str) -> bool:
        with self._lock:
            found = self._get(sid) is not None
            self._sessions.pop(sid, None)
            if found:
                self._notify(sid)
            return found

    def subscribe(self, sid: str) -> Subscription:
        return _MemorySubscription(self, sid)

    def lobby_add(self, sid: str, variant: str, created_ms: int) -> None:
        with self._lock:
            for key in ("*", variant):
                index = self._lobby.setdefault(key, {})
                index[sid] = created_ms
                if len(index) > self.lobby_size:
                    rows = ((ms, s) for s, ms in index.items())
                    self._lobby[key] = {s: ms for ms, s in lobby_order(rows, None, self.lobby_size)}

    def lobby_remove(self, sids: Sequence[tuple[str, str]]) -> None:
        with self._lock:
            for sid, variant in sids:
                for key in ("*", variant):
                    self._lobby.get(key, {}).pop(sid, None)

    def lobby_page(
        self, variant: str | None, before: tuple[int, str] | None, count: int
    ) -> list[tuple[int, str]]:
        with self._lock:
            index = self._lobby.get(variant or "*", {})
            return lobby_order(((ms, sid) for sid, ms in index.items()), before, count)

    def metas(self, sids: Sequence[str]) -> list[bytes | None]:
        with self._lock:
            found = [self._get(sid) for sid in sids]
            return [None if s is None else s.meta for s in found]

    def outbox(self, sid: str) -> list[bytes]:
        with self._lock:
            s = self._get(sid)
            return [] if s is None else list(s.outbox)

    def deadline_index(self, sid: str) -> int | None:
        with self._lock:
            return self._deadlines.get(sid)

    def claim(self, key: str, member: str, limit: int, until_ms: int, now_ms: int) -> bool:
        with self._lock:
            if now_ms >= self._next_claims_sweep:
                self._next_claims_sweep = now_ms + 60_000
                for k, members in list(self._claims.items()):
                    if all(until <= now_ms for until in members.values()):
                        del self._claims[k]
            held = self._claims.setdefault(key, {})
            for gone in [m for m, until in held.items() if until <= now_ms]:
                del held[gone]
            if member not in held and len(held) >= limit:
                return False
            held[member] = max(until_ms, held.get(member, 0))
            return True

    def release(self, key: str, member: str) -> None:
        with self._lock:
            held = self._claims.get(key)
            if held is not None:
                held.pop(member, None)
                if not held:
                    del self._claims[key]

    def claimed(self, key: str, now_ms: int) -> list[str]:
        with self._lock:
            return [m for m, until in self._claims.get(key, {}).items() if until > now_ms]

    def count(self) -> int:
        return len(self._sessions)

    def ping(self) -> None:
        return None


class _MemorySubscription(Subscription):
    def __init__(self, store: MemoryStore, sid: str) -> None:
        self._store, self._sid = store, sid
        with store._lock:
            self._seen = store._generation.get(sid, 0)

    def wait(self, timeout: float) -> bool:
        store = self._store
        deadline = time.monotonic() + timeout
        with store._changed:
            while True:
                gen = store._generation.get(self._sid, 0)
                if gen != self._seen:
                    self._seen = gen
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                store._changed.wait(left)

    def close(self) -> None:
        return None
