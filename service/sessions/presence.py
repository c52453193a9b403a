"""Presence: which seats are connected and when each was last seen (``connected`` and
``last_seen`` in every answer's seats).

A seat is connected when it made a request with its token (a read, a move, its join),
or held a stream open, within the session's presence window (``window``): the last
``presence_seconds``, or with a turn clock the turn's seconds when that is shorter, so
a phone gone quiet shows as gone before its timeouts hand its seat to a bot (that takes
at least one whole turn after its last request when ``max_timeouts`` is 2 or more). The
time rides on the store call the request makes anyway (the read's, the move's or the
join's commit: ``seen``), written at most once per half window per process and seat;
an open stream writes it on its own (``keep``) at the same pace, and so does a read
that could not name its seat before the store call.

Each process remembers the times it read or wrote (``learn``, ``due``): an answer that
reads nothing (a move, a join) shows the seats as this process last knew them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from . import tokens
from .cache import SnapshotCache
from .config import Env
from .models import Meta
from .store import SessionStore


class Presence:
    def __init__(self, env: Env, cache: SnapshotCache) -> None:
        self.env = env
        self._cache = cache
        #: When this process last recorded each (session, seat) as seen.
        self._recorded: OrderedDict[tuple[str, int], float] = OrderedDict()
        #: What this process knows of each session's presence: seat -> epoch ms.
        self._known: OrderedDict[str, dict[int, int]] = OrderedDict()
        self._lock = threading.Lock()

    def due(self, sid: str, seat: int | None) -> tuple[int, int] | None:
        """``(seat, epoch ms)`` to record with the next store call, when this process has
        not recorded that seat in the last half of ``presence_seconds``; else None."""
        if seat is None:
            return None
        config = self.env.config
        now = self.env.now()
        key = (sid, seat)
        hit = self._cache.peek(sid)  # the window's setting: a copy is enough to pace writes
        half = self.window(hit.meta if hit is not None else None) / 2
        with self._lock:
            last = self._recorded.get(key)
            if last is not None and now - last < half:
                return None
            self._recorded[key] = now
            self._recorded.move_to_end(key)
            while len(self._recorded) > config.cache_size:
                self._recorded.popitem(last=False)
        seen = seat, int(now * 1000)
        self.learn(sid, dict([seen]))
        return seen

    def learn(self, sid: str, seen: dict[int, int]) -> None:
        """Remember ``seen`` (seat -> epoch ms, as a store call read or wrote it)."""
        with self._lock:
            known = self._known.setdefault(sid, {})
            for seat, ms in seen.items():
                known[seat] = max(ms, known.get(seat, ms))
            self._known.move_to_end(sid)
            while len(self._known) > self.env.config.cache_size:
                self._known.popitem(last=False)

    def known_seat(self, sid: str, token: str | None) -> int | None:
        """The token's seat by this process's cached copy (no read; None if unknown)."""
        hit = self._cache.get(sid)
        if hit is None or not token:
            return None
        return tokens.seat_of(token, hit.meta.hashes)

    def keep(self, store: SessionStore, sid: str, seat: int | None) -> None:
        """Record ``seat`` as there on its own (an open stream, a read that named its
        seat only after the store call): at most every half period."""
        seen = self.due(sid, seat)
        if seen is not None:
            store.touch(sid, *seen)

    def window(self, meta: Meta | None) -> float:
        """How long after its last request a seat counts as connected: ``presence_seconds``,
        or the turn's seconds of the session's clock when shorter."""
        seconds = self.env.config.presence_seconds
        clock = None if meta is None else meta.clock
        return seconds if clock is None else min(seconds, clock.turn_seconds)

    def last_seen(self, sid: str, meta: Meta) -> dict[int, int]:
        """When each person's seat was last seen (epoch ms, as this process knows: see
        ``learn``); a seat never seen is not in it."""
        with self._lock:
            known = dict(self._known.get(sid, {}))
        return {s: known[s] for s in meta.persons if s in known}

    def connected(self, sid: str, meta: Meta) -> frozenset[int]:
        """The persons' seats seen within the session's window (as this process knows:
        see ``learn``)."""
        since = (self.env.now() - self.window(meta)) * 1000
        return frozenset(s for s, ms in self.last_seen(sid, meta).items() if ms >= since)
