"""The notifier's Redis side: the slots with work, each session's outbox handed to the
stream one notification at a time, the consumer group that delivers them, the dead
letters; and the sweeper's deadline index. Keys: ``service.redis.outbox_keys``.

Order per session: only the head of a session's outbox is ever handed out (``MOVE``),
and the next only once it is done (delivered, stopped or dead: ``DONE``, ``STOP``), so
a session's notifications arrive in the order of its commits. A head handed to the
stream holds a lease: when the worker that handed it died before the stream had it,
the lease runs out and the head is handed again (with the same webhook-id). A failed
try puts the head back with a retry time (``FAIL``, exponential backoff and jitter,
chosen by the caller); past the retry window it is a dead letter.

Each script works on one session's keys and its slot's index (one slot), so it runs on
a Redis Cluster; the stream, the dead letters and ``wake`` are separate calls.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from redis.cluster import RedisCluster
from redis.exceptions import ResponseError

from service.redis import outbox_keys as K
from service.redis.client import REDIS_ERRORS
from service.sessions.redis_store import RedisStore
from service.sessions.store import StoreUnavailable

from . import metrics

log = logging.getLogger("service.notifier")

#: The consumer group of the workers.
GROUP = "notifier"
#: Dead letters kept (the newest; ``XADD MAXLEN ~``).
DEAD_LETTERS = 100_000
#: Tags a full scan reads per call (a call blocks its node: keep it short).
SCAN_CHUNK = 256

# KEYS: outbox, outq, due index, session state. ARGV: now ms, lease ms, sid.
# A warning due now joins the outbox when the session is still at its version. Then the
# head, when it is neither in flight nor waiting for a retry, is leased and returned; the
# session is indexed again at its next due time (or unindexed). Returns {head or false,
# attempts, entries dropped at the outbox's cap since the last call (then cleared)}.
MOVE = """
local now = tonumber(ARGV[1])
local wdue = tonumber(redis.call('HGET', KEYS[2], 'warn_due') or '-1')
if wdue >= 0 and wdue <= now then
  local v = redis.call('HGET', KEYS[4], 'v')
  if v and v == redis.call('HGET', KEYS[2], 'warn_v') then
    redis.call('RPUSH', KEYS[1], redis.call('HGET', KEYS[2], 'warn'))
    local ttl = redis.call('PTTL', KEYS[2])
    if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
  end
  redis.call('HDEL', KEYS[2], 'warn', 'warn_due', 'warn_v')
  wdue = -1
end
local head = redis.call('LINDEX', KEYS[1], 0)
local nxt = nil
local out = false
if head then
  local lease = tonumber(redis.call('HGET', KEYS[2], 'lease') or '0')
  local retry = tonumber(redis.call('HGET', KEYS[2], 'retry') or '0')
  if lease > now then nxt = lease
  elseif retry > now then nxt = retry
  else
    nxt = now + tonumber(ARGV[2])
    redis.call('HSET', KEYS[2], 'lease', nxt)
    local ttl = redis.call('PTTL', KEYS[1])
    if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
    out = head
  end
end
if wdue >= 0 and (nxt == nil or wdue < nxt) then nxt = wdue end
if nxt then redis.call('ZADD', KEYS[3], nxt, ARGV[3]) else redis.call('ZREM', KEYS[3], ARGV[3]) end
local dropped = redis.call('HGET', KEYS[2], 'dropped') or '0'
if dropped ~= '0' then redis.call('HDEL', KEYS[2], 'dropped') end
return {out, redis.call('HGET', KEYS[2], 'a') or '0', dropped}
"""

# KEYS: outbox, outq, due index. ARGV: the entry, now ms, sid. The head, when it is the
# entry, is done: popped, its delivery state cleared, the next one due now. Returns the
# entries left, -1 when the entry was not the head.
DONE = """
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] then return -1 end
redis.call('LPOP', KEYS[1])
redis.call('HDEL', KEYS[2], 'a', 'first', 'lease', 'retry')
local left = redis.call('LLEN', KEYS[1])
if left > 0 then redis.call('ZADD', KEYS[3], 'LT', ARGV[2], ARGV[3]) end
return left
"""

# KEYS: outbox, outq, due index. ARGV: the entry, now ms, retry ms, window ms, sid.
# A failed try of the head: 'dead' past the window (from its first failure; the caller
# keeps the dead letter, then DONE), else tried again at the retry time: 'retry'.
# 'gone' when the entry is no longer the head (done by another worker).
FAIL = """
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] then return 'gone' end
local now = tonumber(ARGV[2])
local first = tonumber(redis.call('HGET', KEYS[2], 'first') or ARGV[2])
redis.call('HINCRBY', KEYS[2], 'a', 1)
redis.call('HSET', KEYS[2], 'first', first, 'lease', 0, 'retry', ARGV[3])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
if now - first >= tonumber(ARGV[4]) then return 'dead' end
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[5])
return 'retry'
"""

# KEYS: outbox, outq, due index. ARGV: sid, keep ms. The receiver answered 410: no more
# deliveries for the session (its later commits write none while ``off`` is kept).
STOP = """
redis.call('DEL', KEYS[1])
redis.call('HDEL', KEYS[2], 'a', 'first', 'lease', 'retry', 'warn', 'warn_due', 'warn_v')
redis.call('HSET', KEYS[2], 'off', 1)
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
"""

# KEYS: an index. ARGV: member, the score read, the new score ('' : remove). Set only
# when the member still has the score read (a commit meanwhile wrote a newer one).
RESCORE = """
local cur = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not cur or tonumber(cur) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1])
else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""

# No declared keys, ARGV: the due and deadline index of each tag read (the caller sends
# it to the node of their slots). Each tag's earliest time, '' for none. Read only.
SCAN = """#!lua flags=no-writes,allow-cross-slot-keys
local out = {}
for i = 1, #ARGV, 2 do
  local best = ''
  for j = i, i + 1 do
    local r = redis.call('ZRANGE', ARGV[j], 0, 0, 'WITHSCORES')
    if #r > 0 and (best == '' or tonumber(r[2]) < tonumber(best)) then best = r[2] end
  end
  out[#out + 1] = best
end
return out
"""


@dataclass(frozen=True)
class Message:
    """A notification handed to the stream: its stream id, session and outbox entry."""

    stream_id: bytes
    sid: str
    entry: bytes
    #: The tries that failed before this one.
    attempts: int = 0


class NotifyQueue:
    """The notifier's calls on the sessions' Redis (``store``'s client and slots)."""

    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.router = store.router
        self.prefix = store.prefix
        self.cluster = store.cluster
        self.stream = K.stream_key(self.prefix)

    # ------------------------------------------------------------------ keys
    def _session_keys(self, sid: str) -> list[str]:
        tag = K.slot_tag(sid, self.cluster)
        return [
            K.outbox_key(self.prefix, sid),
            K.outq_key(self.prefix, sid),
            K.due_key(self.prefix, tag),
        ]

    def _global(self, fn: Callable[[Any], Any]) -> Any:
        return self.router.on_slot(self.stream, fn)

    # ------------------------------------------------------------------ the slots with work
    def all_tags(self) -> list[str]:
        return K.slot_tags() if self.cluster else [K.TAG]

    def woken(self, now_ms: int, count: int) -> list[tuple[str, float]]:
        """The tags (and the times told) with work due by ``now_ms``: on a cluster the
        slots told to ``wake``; on one server its one tag, always."""
        if not self.cluster:
            return [(K.TAG, 0.0)]
        key = K.wake_key(self.prefix)
        rows = self._global(
            lambda c: c.zrangebyscore(key, "-inf", now_ms, start=0, num=count, withscores=True)
        )
        return [(tag.decode(), score) for tag, score in rows]

    def next_time(self, tag: str) -> float | None:
        """The earliest time in the tag's due and deadline indexes (None: both empty)."""
        keys = (K.due_key(self.prefix, tag), K.deadlines_key(self.prefix, tag))

        def run(client: Any) -> list[Any]:
            pipe = client.pipeline(transaction=False)
            for key in keys:
                pipe.zrange(key, 0, 0, withscores=True)
            return pipe.execute()  # type: ignore[no-any-return]

        found = [rows[0][1] for rows in self.router.on_slot(keys[0], run) if rows]
        return min(found, default=None)

    def rewake(self, tag: str, told: float) -> None:
        """After the tag's work: tell ``wake`` its next time, unless a commit told it
        another since it was read (``told``)."""
        if not self.cluster:
            return
        nxt = self.next_time(tag)
        key = K.wake_key(self.prefix)
        args = [tag, told, "" if nxt is None else int(nxt)]
        self.router.run("notify_rescore", RESCORE, [key], args)

    def scan(self, now_ms: int) -> int:
        """A cluster's full scan: every slot's earliest time told to ``wake`` (at most
        ``now_ms`` early), in chunks per node. The slots with work found."""
        if not self.cluster:
            return 0
        client: RedisCluster = self.router.client
        by_node: dict[str, tuple[Any, list[str]]] = {}
        for slot, tag in enumerate(K.slot_tags()):
            node = client.nodes_manager.get_node_from_slot(slot)
            by_node.setdefault(node.name, (node, []))[1].append(tag)
        told: dict[str, int] = {}
        for node, tags in by_node.values():
            conn = client.get_redis_connection(node)
            for i in range(0, len(tags), SCAN_CHUNK):
                chunk = tags[i : i + SCAN_CHUNK]
                args = [
                    k
                    for t in chunk
                    for k in (K.due_key(self.prefix, t), K.deadlines_key(self.prefix, t))
                ]
                try:
                    found: Any = conn.eval(SCAN, 0, *args)
                except REDIS_ERRORS as e:  # a slot moved meanwhile: the next scan reads it
                    log.warning("notifier: a scan of %s failed: %s", node.name, e)
                    client.nodes_manager.initialize()
                    break
                for tag, best in zip(chunk, found, strict=True):
                    if best:
                        told[tag] = int(float(best))
        if told:
            key = K.wake_key(self.prefix)
            self._global(lambda c: c.zadd(key, told, lt=True))
        return len(told)

    # ------------------------------------------------------------------ the outbox
    def due_sessions(self, tag: str, now_ms: int, count: int) -> list[str]:
        key = K.due_key(self.prefix, tag)
        rows = self.router.on_slot(
            key, lambda c: c.zrangebyscore(key, "-inf", now_ms, start=0, num=count)
        )
        return [sid.decode() for sid in rows]

    def move(self, sid: str, now_ms: int, lease_ms: int) -> bool:
        """Hand ``sid``'s head to the stream when it is due: True when handed."""
        keys = [*self._session_keys(sid), self.store._keys(sid)[0]]
        head, attempts, dropped = self.router.run(
            "notify_move", MOVE, keys, [now_ms, lease_ms, sid]
        )
        if int(dropped):
            metrics.DROPPED.inc(int(dropped))
        if not head:
            return False
        fields = {"sid": sid, "entry": head, "a": attempts}
        self._global(lambda c: c.xadd(self.stream, fields))
        return True

    def ensure_group(self) -> None:
        try:
            self._global(lambda c: c.xgroup_create(self.stream, GROUP, id="0", mkstream=True))
        except StoreUnavailable as e:  # BUSYGROUP: made already
            if not isinstance(e.__cause__, ResponseError) or "BUSYGROUP" not in str(e):
                raise

    def read(self, consumer: str, count: int, block_ms: int) -> list[Message]:
        rows = self._global(
            lambda c: c.xreadgroup(GROUP, consumer, {self.stream: ">"}, count=count, block=block_ms)
        )
        return [m for _, msgs in rows or [] for m in _messages(msgs)]

    def claim(self, consumer: str, idle_ms: int, count: int) -> list[Message]:
        """Deliveries another worker took ``idle_ms`` ago and never finished."""
        res = self._global(
            lambda c: c.xautoclaim(self.stream, GROUP, consumer, idle_ms, "0-0", count=count)
        )
        return list(_messages(res[1]))

    def is_head(self, sid: str, entry: bytes) -> bool:
        key = K.outbox_key(self.prefix, sid)
        return bool(self.router.on_slot(key, lambda c: c.lindex(key, 0)) == entry)

    def done(self, sid: str, entry: bytes, now_ms: int) -> int:
        """The head ``entry`` done: the entries left (-1: it was not the head)."""
        keys = self._session_keys(sid)
        return int(self.router.run("notify_done", DONE, keys, [entry, now_ms, sid]))

    def wake(self, sid: str, at_ms: int) -> None:
        """Tell ``wake`` that ``sid``'s slot has work at ``at_ms`` (a cluster's)."""
        self.store.wake(sid, at_ms)

    def fail(self, sid: str, entry: bytes, now_ms: int, retry_ms: int, window_ms: int) -> str:
        keys = self._session_keys(sid)
        res = self.router.run("notify_fail", FAIL, keys, [entry, now_ms, retry_ms, window_ms, sid])
        return res.decode() if isinstance(res, bytes) else str(res)

    def stop(self, sid: str, keep_ms: int) -> None:
        self.router.run("notify_stop", STOP, self._session_keys(sid), [sid, keep_ms])

    def dead(self, sid: str, entry: bytes, reason: str) -> None:
        key = K.dead_key(self.prefix)
        fields = {"sid": sid, "entry": entry, "reason": reason}
        self._global(lambda c: c.xadd(key, fields, maxlen=DEAD_LETTERS, approximate=True))

    def ack(self, message: Message) -> None:
        def run(c: Any) -> None:
            pipe = c.pipeline(transaction=False)
            pipe.xack(self.stream, GROUP, message.stream_id)
            pipe.xdel(self.stream, message.stream_id)
            pipe.execute()

        self._global(run)

    def dead_letters(self, count: int = 100) -> list[dict[str, str]]:
        """The newest dead letters (ops): sid, entry (webhook-id and body), reason (an
        entry that could not be decoded: its bad bytes replaced)."""
        key = K.dead_key(self.prefix)
        rows = self._global(lambda c: c.xrevrange(key, count=count))
        return [
            {k.decode(): v.decode(errors="replace") for k, v in fields.items()}
            for _, fields in rows
        ]

    def depth(self) -> dict[str, int]:
        """The stream's length and the deliveries taken and not finished."""

        def run(c: Any) -> list[Any]:
            pipe = c.pipeline(transaction=False)
            pipe.xlen(self.stream)
            pipe.xpending(self.stream, GROUP)
            return pipe.execute()  # type: ignore[no-any-return]

        length, pending = self._global(run)
        return {"stream": int(length), "pending": int(pending["pending"])}

    def outbox_sessions(self, tags: list[str], now_ms: int) -> int:
        """Sessions whose outbox has a notification due by ``now_ms`` in these tags' due
        indexes. An entry ahead (a clock warning for later, a retry's backoff, a lease on
        what the stream holds) is not waiting yet: the stream's parts count what is handed."""

        def count(key: str) -> int:
            return int(self.router.on_slot(key, lambda c: c.zcount(key, "-inf", now_ms)))

        return sum(count(K.due_key(self.prefix, tag)) for tag in tags)

    # ------------------------------------------------------------------ the sweeper's
    def due_deadlines(self, tag: str, now_ms: int, count: int) -> list[tuple[str, float]]:
        key = K.deadlines_key(self.prefix, tag)
        rows = self.router.on_slot(
            key,
            lambda c: c.zrangebyscore(key, "-inf", now_ms, start=0, num=count, withscores=True),
        )
        return [(sid.decode(), score) for sid, score in rows]

    def defer_deadline(self, sid: str, after_ms: int) -> None:
        """Move ``sid``'s deadline, when it is still indexed and before ``after_ms``, to
        ``after_ms``: a session swept goes behind every other one due now (``Sweeper``).
        A later deadline (its commit wrote one), or none, stays as it is."""
        key = K.deadlines_key(self.prefix, K.slot_tag(sid, self.cluster))
        self.router.on_slot(key, lambda c: c.zadd(key, {sid: after_ms}, xx=True, gt=True))

    def rescore_deadline(self, sid: str, read: float, deadline_ms: int | None) -> None:
        """Index ``sid``'s deadline anew (None: none), unless a commit did meanwhile."""
        key = K.deadlines_key(self.prefix, K.slot_tag(sid, self.cluster))
        args = [sid, read, "" if deadline_ms is None else deadline_ms]
        self.router.run("notify_rescore", RESCORE, [key], args)


def _messages(rows: Any) -> Iterator[Message]:
    for stream_id, fields in rows:
        if fields:  # a claimed entry deleted meanwhile comes back without fields
            attempts = int(fields.get(b"a", 0))
            yield Message(stream_id, fields[b"sid"].decode(), fields[b"entry"], attempts)
