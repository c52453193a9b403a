"""The move log and the game's record.

Every move made (a person's, a bot's, or a forced one at a deadline) is appended to the
session's move log with who made it and when (``logged``): the game's record, which
replays to the session's state (``engine.records.build``). The whole record is anyone's
once the game is over; while it runs only a seat's, without the seed and the move
fields that seat may not see. A record is built once per version (and seat, while the
game runs): each process keeps the records it built, the most recently asked
``RECORD_CACHE_BYTES`` of them.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict

import orjson

import engine.records
from engine import Move, Phase

from . import access
from .models import Reply, Snapshot, wire_bot
from .store import SessionStore

#: The bytes of built records each process keeps (the least recently asked go first).
RECORD_CACHE_BYTES = 16 * 2**20
#: A cached record: the session, its version and the seat it was built for (None: the
#: whole record of a finished game).
RecordKey = tuple[str, int, int | None]

log = logging.getLogger("service.sessions")


def logged(moves: list[Move], by: str, at: float) -> list[bytes]:
    """Move-log entries: ``{"by": "player" | "bot" | "clock", "at": <epoch ms>, "move":
    {...}}`` (the seat is the move's ``player``; ``clock``: a forced move at a deadline)."""
    ms = int(at * 1000)
    return [orjson.dumps({"by": by, "at": ms, "move": m.to_dict()}) for m in moves]


class Records:
    def __init__(self, store: SessionStore) -> None:
        self.store = store
        #: Built records, least recently asked first, and their bytes in all.
        self._built: OrderedDict[RecordKey, bytes] = OrderedDict()
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
        over = dealt.phase is Phase.GAME_OVER
        key: RecordKey = (c.sid, c.version, None if over else seat)
        with self._lock:
            kept = self._built.get(key)
            if kept is not None:
                self._built.move_to_end(key)
                return Reply.of(kept, c)
        rows = self.store.moves(c.sid)
        # A commit after the load appends moves the loaded state has not made yet.
        entries = [orjson.loads(raw) for raw in rows[: dealt.move_count]]
        players = [{"name": s.name, "bot": wire_bot(s.bot)} for s in c.meta.seats]
        rec, final = engine.records.build(
            c.meta.variant,
            players,
            dealt.seed,
            entries,
            c.meta.dealer,
            dict(dealt.options),
            game_id=c.sid,
            seat=seat,
            nonce=c.meta.seed_nonce,
        )
        if final != dealt:
            log.error("session %s: its move log does not replay to its state", c.sid)
            raise RuntimeError(f"session {c.sid}: the move log does not replay to the state")
        body = engine.records.dumps(rec).encode()
        self._keep(key, body)
        return Reply.of(body, c)

    def _keep(self, key: RecordKey, body: bytes) -> None:
        with self._lock:
            if key in self._built:
                return
            self._built[key] = body
            self._bytes += len(body)
            while self._bytes > RECORD_CACHE_BYTES and self._built:
                self._bytes -= len(self._built.popitem(last=False)[1])
