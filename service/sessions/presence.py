"""Presence: which seats are connected (``connected`` in a read's seats).

A seat is connected when it made a request, or held a stream open, in the last
``presence_seconds``. The time rides on the store call the request makes anyway (the
read's or the move's commit: ``seen``), written at most once per half
``presence_seconds`` per process and seat; an open stream writes it on its own
(``keep``) at the same pace.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from . import tokens
from .cache import SnapshotCache
from .config import Env
from .models import Meta
from .store import SessionStore
from .views import public_seats


class Presence:
    def __init__(self, env: Env, cache: SnapshotCache) -> None:
        self.env = env
        self._cache = cache
        #: When this process last recorded each (session, seat) as seen.
        self._recorded: OrderedDict[tuple[str, int], float] = OrderedDict()
        self._lock = threading.Lock()

    def due(self, sid: str, seat: int | None) -> tuple[int, int] | None:
        """``(seat, epoch ms)`` to record with the next store call, when this process has
        not recorded that seat in the last half of ``presence_seconds``; else None."""
        if seat is None:
            return None
        config = self.env.config
        now = self.env.now()
        key = (sid, seat)
        with self._lock:
            last = self._recorded.get(key)
            if last is not None and now - last < config.presence_seconds / 2:
                return None
            self._recorded[key] = now
            self._recorded.move_to_end(key)
            while len(self._recorded) > config.cache_size:
                self._recorded.popitem(last=False)
        return seat, int(now * 1000)

    def known_seat(self, sid: str, token: str | None) -> int | None:
        """The token's seat by this process's cached copy (no read; None if unknown)."""
        hit = self._cache.get(sid)
        if hit is None or not token:
            return None
        return tokens.seat_of(token, hit.meta.hashes)

    def keep(self, store: SessionStore, sid: str, seat: int | None) -> None:
        """An open stream keeps its seat connected (recorded at most every half period)."""
        seen = self.due(sid, seat)
        if seen is not None:
            store.touch(sid, *seen)

    def seats(self, meta: Meta, seen: dict[int, int]) -> list[dict[str, Any]]:
        """The seats, each with ``connected``: seen in the last ``presence_seconds``
        (``seen``: seat -> epoch ms, as the store read it)."""
        since = (self.env.now() - self.env.config.presence_seconds) * 1000
        return [
            {**s, "connected": not s["bot"] and seen.get(s["seat"], -1) >= since}
            for s in public_seats(meta)
        ]
