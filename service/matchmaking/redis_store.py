"""The match store in Redis (one server, Sentinel or the cluster), shared by every
replica and worker.

Keys (``<prefix>mm:...``): a queue's lock and tables share the queue's hash tag
(``{q:<queue>}``), so the script that writes the tables while checking that the lock is
still this holder's runs on one slot; a ticket and its token share ``{t:<id>}``; a
client's waiting tickets are one sorted set (``{c:<client>}``), counted and added to in
one script; the due index (queue -> earliest deadline) and the count of tickets waiting
per queue are one key each.

The lock is ``SET NX PX`` with a random value, given back by a script that deletes it
only while it holds that value (Redis's single-instance lock pattern); a write of the
tables is refused when the lock is no longer the writer's (it outlived
``LOCK_MS``), so a stalled holder cannot overwrite what the next holder wrote.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import cached_property
from typing import Any

from service.redis.client import StoreUnavailable, guarded, make_client

from .errors import QueueBusy
from .models import Table, Ticket, tables_from_json, tables_to_json
from .store import MatchStore

#: How long a queue's lock lasts unless given back (a holder's work takes milliseconds).
LOCK_MS = 10_000
#: How long a request waits for a queue's lock before it answers 503.
LOCK_WAIT_SECONDS = 5.0

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
PUT_TABLES = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[2]) else redis.call('SET', KEYS[2], ARGV[2]) end
return 1
"""
ADMIT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIREAT', KEYS[1], math.floor(tonumber(ARGV[3]) * 1000) + 1000)
return 1
"""


class RedisMatchStore(MatchStore):
    def __init__(self, url: str | None = None, prefix: str = "uno:", client: Any = None) -> None:
        self._url = url or ""
        self._client = client
        named = type(client).__name__ if client is not None else self._url.partition("://")[0]
        self.kind = "redis-cluster" if "cluster" in named.lower() else "redis"
        self.prefix = prefix + "mm:"
        self._held: dict[str, str] = {}

    @property
    def redis(self) -> Any:
        """The client, made on first use (a cluster client connects when made: a Redis
        down when the worker starts is a 503 on the first ticket, not a failed start)."""
        if self._client is None:
            self._client = guarded(lambda: make_client(self._url))
        return self._client

    @cached_property
    def _release(self) -> Any:
        return self.redis.register_script(RELEASE)

    @cached_property
    def _put_tables(self) -> Any:
        return self.redis.register_script(PUT_TABLES)

    @cached_property
    def _admit(self) -> Any:
        return self.redis.register_script(ADMIT)

    # ------------------------------------------------------------------ keys
    def _queue(self, queue: str, part: str) -> str:
        return f"{self.prefix}{{q:{queue}}}:{part}"

    def _ticket(self, ticket_id: str) -> str:
        return f"{self.prefix}{{t:{ticket_id}}}"

    @property
    def _due_key(self) -> str:
        return f"{self.prefix}due"

    @property
    def _waiting_key(self) -> str:
        return f"{self.prefix}waiting"

    # ------------------------------------------------------------------ the lock
    @contextmanager
    def _locked(self, queue: str) -> Iterator[None]:
        key, value = self._queue(queue, "lock"), secrets.token_hex(16)
        give_up = time.monotonic() + LOCK_WAIT_SECONDS
        pause = 0.002
        while not guarded(lambda: self.redis.set(key, value, nx=True, px=LOCK_MS)):
            if time.monotonic() >= give_up:
                raise QueueBusy(
                    f"the match queue is busy (its lock held past {LOCK_WAIT_SECONDS:g} s); try "
                    "again shortly",
                    retry_after=1,
                )
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
        self._held[queue] = value
        try:
            yield
        finally:
            self._held.pop(queue, None)
            guarded(lambda: self._release(keys=[key], args=[value]))

    def locked(self, queue: str) -> AbstractContextManager[None]:
        return self._locked(queue)

    # ------------------------------------------------------------------ tables
    def tables(self, queue: str) -> list[Table]:
        return tables_from_json(guarded(lambda: self.redis.get(self._queue(queue, "tables"))))

    def put_tables(self, queue: str, tables: list[Table]) -> None:
        held = self._held.get(queue, "")
        keys = [self._queue(queue, "lock"), self._queue(queue, "tables")]
        raw = tables_to_json(tables) if tables else b""
        if not guarded(lambda: self._put_tables(keys=keys, args=[held, raw])):
            raise StoreUnavailable(f"match queue {queue}: the lock expired before the write")
        waiting = sum(len(t.tickets) for t in tables)
        if tables:
            due = min(t.deadline for t in tables)
            guarded(lambda: self.redis.zadd(self._due_key, {queue: due}))
            guarded(lambda: self.redis.hset(self._waiting_key, queue, waiting))
        else:
            guarded(lambda: self.redis.zrem(self._due_key, queue))
            guarded(lambda: self.redis.hdel(self._waiting_key, queue))

    def due(self, now: float, limit: int) -> list[str]:
        got = guarded(lambda: self.redis.zrangebyscore(self._due_key, "-inf", now, 0, limit))
        return [q.decode() if isinstance(q, bytes) else q for q in got]

    def waiting(self) -> int:
        return sum(int(v) for v in guarded(lambda: self.redis.hvals(self._waiting_key)))

    # ------------------------------------------------------------------ tickets
    def ticket(self, ticket_id: str) -> Ticket | None:
        raw = guarded(lambda: self.redis.get(self._ticket(ticket_id)))
        return None if raw is None else Ticket.from_json(raw)

    def put_ticket(self, ticket: Ticket, ttl: float) -> None:
        key, raw = self._ticket(ticket.ticket_id), ticket.to_json()
        guarded(lambda: self.redis.set(key, raw, px=max(1, int(ttl * 1000))))

    def put_token(self, ticket_id: str, token: str, ttl: float) -> None:
        key = self._ticket(ticket_id) + ":token"
        guarded(lambda: self.redis.set(key, token, px=max(1, int(ttl * 1000))))

    def take_token(self, ticket_id: str) -> str | None:
        raw = guarded(lambda: self.redis.getdel(self._ticket(ticket_id) + ":token"))
        return None if raw is None else raw.decode() if isinstance(raw, bytes) else str(raw)

    # ------------------------------------------------------------------ quotas
    def admit(self, client: str, ticket_id: str, until: float, limit: int, now: float) -> bool:
        key = f"{self.prefix}{{c:{client}}}"
        return bool(guarded(lambda: self._admit(keys=[key], args=[now, limit, until, ticket_id])))

    def release(self, client: str, ticket_id: str) -> None:
        guarded(lambda: self.redis.zrem(f"{self.prefix}{{c:{client}}}", ticket_id))

    def close(self) -> None:
        self.closed = True
        if self._client is not None:
            guarded(lambda: self._client.close())
