"""Server-held sessions: the logic behind ``/v1/sessions``, independent of Flask.

A session is an engine state kept by the service, a version that grows by one per
commit, and an event log numbered from 1. Each seat holds a bearer token; the service
keeps only its SHA-256. Answers are always redacted for the caller's seat (or for a
spectator), so a client never sees a hidden card it may not see.

``SessionManager`` builds the parts once, each given its collaborators (lila's
``Env``), and holds them: the API and the notifier call the part whose job it is
(``sessions.moves.move``, ``sessions.timekeeper.sweep`` ...). Its own methods are the
work of no one part: deleting a session, the reads that settle it first, readiness.
Nothing is set on a part after it is built; nothing runs in a circle (the outbox reads
a session's deadlines from the session itself, not from the timekeeper).

| part | job |
|---|---|
| ``repo.Repository`` | read a session, write its next version (the one compare-and-set), retry a change |
| ``cache.SnapshotCache`` | this process's last snapshot of each session (and the bots' history) |
| ``creation.Creation`` | a new session: seats, seed, deal |
| ``seats.Seats`` | join, leave, a person takes back the seat a bot took |
| ``rematch.Rematches`` | the next game with the same seats |
| ``lobby.Lobby`` | the public lobby |
| ``quotas.Quotas`` | what one client may hold: sessions, waiting sessions, streams |
| ``moves.Moves`` | a seat's move, idempotent, with the bots' replies |
| ``timekeeper.Timekeeper`` | what the clock owes, the bots' held-back chains, the next deadline |
| ``outbox.Outbox`` | what each write adds for the notifier (webhooks, the sweeper's deadline) and its TTL |
| ``settling.ReadSettler`` | what a reader settles: once, by one request at a time |
| ``presence.Presence`` | which seats are connected (``connected`` in every answer's seats) |
| ``records.Records`` | the move log and the game's record |
| ``streams.Streams`` | the event stream |
| ``views`` | every answer's body, redacted for the caller: one seat answer for create, join, get, move, leave and rematch |
| ``access`` | seat tokens, invitation and spectator codes |

Every request that touches a session first settles it (``Timekeeper.settle``): the
caller's seat told of the deal when the clock holds for it, what its clock owes, and
the bots' next chain when a game whose seats all went to bots waits for them. A read
settles only after its token (or spectator access) is checked, within
``SESSION_BOT_CPU_MS``, and one reader at a time (``ReadSettler``). Time is read from
``Env.now`` (the ``now`` the manager is built with: ``time.time`` unless the notifier
or a test gives another); the settings from ``Env.config``. Both live in one ``Env``
that every part shares (``SessionManager.now`` and ``.config`` are that ``Env``'s).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import orjson

from . import access, problems
from .bots import BotPlayer
from .cache import SnapshotCache
from .config import Env, SessionConfig
from .creation import Creation
from .lobby import Lobby
from .models import Reply, Snapshot, Status
from .moves import Moves
from .outbox import Outbox
from .presence import Presence
from .quotas import Quotas
from .records import Records
from .rematch import Rematches
from .repo import Repository
from .seats import Seats
from .settling import ReadSettler
from .store import Loaded, SessionStore, StoreUnavailable
from .streams import MAX_EVENTS_PAGE, Streams
from .timekeeper import Timekeeper
from .views import Views, event_row, legal_moves

log = logging.getLogger("service.sessions")


class SessionManager:
    """Sessions on a ``SessionStore``; every method raises a session problem
    (``problems.py``) or ``StoreUnavailable``."""

    def __init__(
        self,
        store: SessionStore,
        config: SessionConfig,
        count_moves: Callable[[str, int], None] | None = None,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.env = Env(config, now)
        self.store = store
        self.cache = SnapshotCache(self.env)
        self.presence = Presence(self.env, self.cache)
        outbox = Outbox(self.env)
        self.quotas = Quotas(self.env, store)
        self.repo = Repository(
            store, self.cache, outbox, self.presence.learn, count_moves, self.quotas
        )
        bots = BotPlayer(self.env)
        self.views = Views(self.env, self.presence)
        self.timekeeper = Timekeeper(self.env, self.repo, bots)
        self.settler = ReadSettler(self.env, self.repo, self.timekeeper)
        self.listing = Lobby(self.env, store)
        self.creation = Creation(
            self.env, self.repo, bots, self.listing, self.views, self.quotas, self.presence
        )
        self.seats = Seats(self.env, self.repo, bots, self.listing, self.views, self.presence)
        self.rematches = Rematches(self.env, self.repo, self.creation, self.views, self.presence)
        self.moves = Moves(self.env, self.repo, bots, self.timekeeper, self.presence, self.views)
        self.records = Records(store)
        self.streams = Streams(self.env, self.repo, self.settler, self.presence)

    # ------------------------------------------------------------------ settings
    @property
    def config(self) -> SessionConfig:
        return self.env.config

    @config.setter
    def config(self, config: SessionConfig) -> None:
        self.env.config = config

    @property
    def now(self) -> Callable[[], float]:
        """The wall clock (epoch seconds) every part reads."""
        return self.env.now

    @now.setter
    def now(self, now: Callable[[], float]) -> None:
        self.env.now = now

    # ------------------------------------------------------------------ writes
    def delete(self, sid: str, token: str | None) -> None:
        """Delete the session: its host's token only (403 ``not_host`` for another
        seat's), before the deal or after the game (409 ``session_in_progress`` while it
        is played: a seat leaves instead), or at any time once it is at a cap (its bytes
        or moves: it can move no more). A session stored before hosts has none: any
        seat's token deletes it, at the same times."""
        c, _ = self.repo.load(sid)
        seat = access.holder_seat(c.meta, token)
        if c.meta.host is not None and seat != c.meta.host:
            raise problems.not_host(c.meta.host)
        if c.status is Status.PLAYING and not self._at_a_cap(c):
            raise problems.session_in_progress()
        self.repo.delete(sid)
        self.quotas.session_gone(sid, c.meta)
        if c.meta.public and c.state is None:
            self.listing.unlist([(sid, c.meta.variant)])

    def _at_a_cap(self, c: Snapshot) -> bool:
        """The session can no longer move: its stored bytes or its moves at their cap
        (then its host may delete it while it is played)."""
        config = self.config
        if c.stored >= config.max_bytes:
            return True
        return c.state is not None and c.state.move_count >= config.max_moves

    # ------------------------------------------------------------------ reads
    def get(self, sid: str, token: str | None, after: int | None = None) -> Reply:
        """The session as the caller's seat (or a spectator) sees it, with presence, and
        the events after ``after`` (none when None; a page at most)."""
        c, seat, loaded = self._read(sid, token)
        events: list[dict[str, Any]] = []
        if after is not None:
            rows = self.store.events(sid, after, MAX_EVENTS_PAGE)
            events = [event_row(seq, ev, seat) for seq, ev in rows]
        body = self.views.answer(c, seat, seat, events)
        return Reply(orjson.dumps(body), c.version)

    def legal_moves(self, sid: str, token: str | None) -> Reply:
        c, _ = self.repo.load(sid)
        access.holder_seat(c.meta, token)  # nothing is played for a caller who may not move
        c = self.settler.settle(c, caller=access.token_seat(c.meta, token))
        seat = access.holder_seat(c.meta, token)
        self.presence.keep(self.store, sid, seat)
        body = {"session_id": sid, "version": c.version, "seat": seat}
        body["moves"] = legal_moves(c.state, seat)
        return Reply(orjson.dumps(body), c.version)

    def events(self, sid: str, token: str | None, after: int, limit: int) -> Reply:
        """A page of the event log after ``after``, redacted for the caller."""
        c, seat, _ = self._read(sid, token)
        rows = self.store.events(sid, after, min(limit, MAX_EVENTS_PAGE))
        body = {
            "session_id": sid,
            "seat": seat,
            "status": c.status.value,
            "version": c.version,
            "last_event": c.seq,
            "events": [event_row(seq, ev, seat) for seq, ev in rows],
        }
        return Reply(orjson.dumps(body), c.version)

    def _read(self, sid: str, token: str | None) -> tuple[Snapshot, int | None, Loaded]:
        """A read by ``token``'s seat (or a spectator): the session loaded and settled
        (the seat told of the deal), the seat, what the store read. The seat is there
        (presence): recorded with the load when this process knew the seat, else after."""
        hint = self.presence.known_seat(sid, token)
        c, loaded = self.repo.load(sid, seen=self.presence.due(sid, hint))
        access.reader_seat(c.meta, token)  # nothing is played for a caller who may not read
        c = self.settler.settle(c, caller=access.token_seat(c.meta, token))
        seat = access.reader_seat(c.meta, token)
        if seat is not None and seat != hint:
            self.presence.keep(self.store, sid, seat)
        return c, seat, loaded

    def record(self, sid: str, token: str | None) -> Reply:
        c, _ = self.repo.load(sid)
        self.records.reader(c, token)  # nothing is played for a caller who may not read
        c = self.settler.settle(c, caller=access.token_seat(c.meta, token))
        return self.records.record(c, token)

    # ------------------------------------------------------------------ operations
    def ready(self) -> dict[str, Any]:
        """``{"store": kind, "ok": bool}``: not ok when the store cannot take a write."""
        try:
            self.store.ping()
            ok = True
        except StoreUnavailable as e:
            log.warning("not ready: the session store cannot take a write: %s", e)
            ok = False
        return {"store": self.store.kind, "ok": ok}

    def stats(self) -> dict[str, int | None]:
        """What the metrics report: the sessions this process caches, and the sessions
        its store holds (None when the store cannot tell cheaply: Redis)."""
        return {"cached": len(self.cache), "stored": self.store.count()}
