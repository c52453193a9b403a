"""The move log and the game's record.

Every move made (a person's, a bot's, or a forced one at a deadline) is appended to the
session's move log with who made it and when (``logged``): the game's record, which
replays to the session's state (``engine.records.build``). The whole record is anyone's
once the game is over; while it runs only a seat's, without the seed and the move
fields that seat may not see. A finished game's record never changes: each process
keeps the last ``RECORD_CACHE`` of them.
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

#: Finished games' records each process keeps.
RECORD_CACHE = 32

log = logging.getLogger("service.sessions")


def logged(moves: list[Move], by: str, at: float) -> list[bytes]:
    """Move-log entries: ``{"by": "player" | "bot" | "clock", "at": <epoch ms>, "move":
    {...}}`` (the seat is the move's ``player``; ``clock``: a forced move at a deadline)."""
    ms = int(at * 1000)
    return [orjson.dumps({"by": by, "at": ms, "move": m.to_dict()}) for m in moves]


class Records:
    def __init__(self, store: SessionStore) -> None:
        self.store = store
        #: Finished games' records by session, least recently used first.
        self._finished: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def record(self, c: Snapshot, token: str | None) -> Reply:
        """The record of the session ``c`` (settled) for the bearer of ``token``: anyone
        once the game is over; while it runs a seat only (401 otherwise)."""
        dealt = c.dealt()
        over = dealt.phase is Phase.GAME_OVER
        seat = access.reader_seat(c.meta, token) if over else access.holder_seat(c.meta, token)
        if over:
            with self._lock:
                kept = self._finished.get(c.sid)
                if kept is not None:
                    self._finished.move_to_end(c.sid)
                    return Reply(kept, c.version)
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
        )
        if final != dealt:
            log.error("session %s: its move log does not replay to its state", c.sid)
            raise RuntimeError(f"session {c.sid}: the move log does not replay to the state")
        body = engine.records.dumps(rec).encode()
        if over:
            with self._lock:
                self._finished[c.sid] = body
                while len(self._finished) > RECORD_CACHE:
                    self._finished.popitem(last=False)
        return Reply(body, c.version)
