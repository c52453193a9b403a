"""Each process's copy of the sessions it served: the last snapshot it read or wrote per
session, so a move whose ``If-Match`` names the cached version needs no read.

A copy is never taken as current on its own word: another process may have committed
since, and after a failover the store may hold an older version than the copy (or
the copy's number with another state). A copy identifies its state by version and
commit id (``Snapshot.commit``); the commit's compare-and-set proves it current, and
any refusal judged on it is judged again on the session read (``moves.py``). A
snapshot read from the store replaces the copy whatever its version: the store is
the truth, and a later version it does not hold is one a failover lost.

At most ``cache_size`` sessions are kept (the least recently used go first). The bots'
history a snapshot holds counts against ``cache_history_bytes`` in all: past it the least
recently cached sessions keep their state but lose their history, which their next load
reads again in the same round trip. Thread-safe.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import replace

from .config import Env
from .models import Snapshot


class SnapshotCache:
    def __init__(self, env: Env) -> None:
        self._env = env
        self._entries: OrderedDict[str, Snapshot] = OrderedDict()
        #: The cached sessions that hold the bots' history -> its bytes, least recently
        #: cached first; their sum.
        self._histories: OrderedDict[str, int] = OrderedDict()
        self._history_bytes = 0
        self._lock = threading.Lock()

    def get(self, sid: str) -> Snapshot | None:
        """The cached snapshot (now the most recently used), or None."""
        with self._lock:
            hit = self._entries.get(sid)
            if hit is not None:
                self._entries.move_to_end(sid)
            return hit

    def peek(self, sid: str) -> Snapshot | None:
        """The cached snapshot, leaving the order as it is."""
        return self._entries.get(sid)

    def put(self, snapshot: Snapshot, read: bool = False) -> None:
        """Keep ``snapshot`` (unless a later version of its session is kept already and
        ``snapshot`` was not ``read`` from the store: see the module)."""
        sid = snapshot.sid
        config = self._env.config
        with self._lock:
            old = self._entries.get(sid)
            if not read and old is not None and old.version > snapshot.version:
                return
            self._uncount(sid)
            self._entries[sid] = snapshot
            self._entries.move_to_end(sid)
            size = snapshot.history_size()
            if size:
                self._histories[sid] = size
                self._history_bytes += size
            while len(self._entries) > config.cache_size:
                self._uncount(self._entries.popitem(last=False)[0])
            while self._history_bytes > config.cache_history_bytes and self._histories:
                key = next(iter(self._histories))
                self._uncount(key)
                hit = self._entries.get(key)
                if hit is not None:
                    self._entries[key] = replace(hit, history=None)

    def forget(self, sid: str) -> None:
        with self._lock:
            self._entries.pop(sid, None)
            self._uncount(sid)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._histories.clear()
            self._history_bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def history_bytes(self) -> int:
        """The bytes of the bots' history kept, in all."""
        return self._history_bytes

    def snapshots(self) -> list[Snapshot]:
        """Every kept snapshot, least recently used first."""
        with self._lock:
            return list(self._entries.values())

    def _uncount(self, sid: str) -> None:
        """Stop counting ``sid``'s history (the lock held)."""
        self._history_bytes -= self._histories.pop(sid, 0)
