"""Sessions in Redis (one server) or in a Redis Cluster: one Lua script per move, every
key of a session in its hash slot.

Keys (``prefix`` defaults to ``uno:``; the ``{sid}`` hash tag puts every key of a
session in one Redis Cluster slot, so the multi-key scripts never hit CROSSSLOT):

| key | type | holds |
|---|---|---|
| ``<prefix>{<sid>}:state`` | hash | ``v`` version, ``c`` its commit id, ``seq`` last event number, ``s`` state JSON, ``h`` the first event the bots need (0: none), ``b`` the bytes of the events and moves written |
| ``<prefix>{<sid>}:meta`` | string | meta JSON (variant, seats, token hashes) |
| ``<prefix>{<sid>}:events`` | stream | entry id ``<seq>-0``, field ``e`` = event JSON (MAXLEN ~) |
| ``<prefix>{<sid>}:idem`` | hash | seat-scoped idempotency key -> the first answer to that move |
| ``<prefix>{<sid>}:idemq`` | list | the same keys, oldest first: past ``max_idem`` the oldest goes |
| ``<prefix>{<sid>}:moves`` | list | every move made, oldest first (JSON): the game's record |
| ``<prefix>{<sid>}:pieces`` | list | the record's pieces of each move, written with it (``store.SessionStore.pieces``) |
| ``<prefix>{<sid>}:seen`` | hash | seat -> when it was last seen (epoch ms): presence |
| ``<prefix>{lobby}:all``, ``<prefix>{lobby}:v:<variant>`` | sorted set | public waiting sessions by creation time (one slot of their own) |
| ``<prefix>{<name>}:claims`` | sorted set | claims (``SessionStore.claim``): member -> until (epoch ms); expires with its latest member |

Every key expires with the session (each commit refreshes all of them) and ``DELETE``
removes all of them. Notifications go to ``<prefix>{<sid>}:notify`` (the message is
``<version>:<seq>``): ``PUBLISH``/``SUBSCRIBE`` on one server, sharded pub/sub
(``SPUBLISH``/``SSUBSCRIBE``, Redis 7) on a cluster, so a message stays on the node of
the session's slot. A load is one pipeline (``READ``: the state, and the bots' history
from ``h`` when the caller does not hold it).

Calls reach Redis through ``service.redis.client.SlotRouter`` (on a cluster, the node of the
session's slot; the cluster client when that node cannot serve it). A script runs whole
or not at all, and what a load writes (presence) is the same on a second try, so
sending a call again changes nothing; a lost reply is retried as either client retries
it (a commit then answers ``conflict``, or ``replayed`` with its key).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from typing import Any, TypeVar

from redis.cluster import RedisCluster

from service.redis import outbox_keys
from service.redis.client import REDIS_ERRORS, SlotRouter, guarded

from .durability import NO_WAIT, Durability
from .redis_claims import RedisClaims
from .store import (
    HISTORY_EVENTS,
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

T = TypeVar("T")

# The notifier's part of CREATE and COMMIT (``store.Notices``), when KEYS go on (after
# the session's nine) with
# outbox, outq, the due index and the deadline index (``outbox_keys.session_keys``):
# ARGV then end with the outbox entries..., the warning ('' none), its due ms, the next
# deadline ms ('' none), now ms, keep ms, the outbox's cap (0: none), sid, the number of
# entries. The deadline is indexed (or unindexed) always; the rest not when keep ms is 0
# (the session does not notify). The entries' bytes count in the state's ``b``; they are
# not written while the receiver stopped the session's deliveries (``off``); past the
# cap the oldest entries after the head (the one in delivery) are dropped, counted in
# the outq's ``dropped``.
NOTICES = """
local function last_move()
  if #KEYS > 9 then return #ARGV - 8 - tonumber(ARGV[#ARGV]) end
  return #ARGV
end
local function notices(v, c)
  local t = #ARGV
  local k = tonumber(ARGV[t])
  local sid, cap, keep, now = ARGV[t - 1], tonumber(ARGV[t - 2]), ARGV[t - 3], ARGV[t - 4]
  if ARGV[t - 5] == '' then redis.call('ZREM', KEYS[13], sid)
  else redis.call('ZADD', KEYS[13], ARGV[t - 5], sid) end
  if keep == '0' then return end
  local b = 0
  for i = t - 7 - k, t - 8 do b = b + #ARGV[i] end
  if b > 0 then redis.call('HINCRBY', KEYS[1], 'b', b) end
  if redis.call('HGET', KEYS[11], 'off') then
    redis.call('PEXPIRE', KEYS[11], keep)
    return
  end
  local due = nil
  local n = 0
  for i = t - 7 - k, t - 8 do
    n = redis.call('RPUSH', KEYS[10], ARGV[i])
    due = tonumber(now)
  end
  if cap > 0 and n > cap then
    local head = redis.call('LINDEX', KEYS[10], 0)
    redis.call('LTRIM', KEYS[10], n - cap + 1, -1)
    redis.call('LPUSH', KEYS[10], head)
    redis.call('HINCRBY', KEYS[11], 'dropped', n - cap)
  end
  if ARGV[t - 7] ~= '' then
    redis.call('HSET', KEYS[11], 'warn', ARGV[t - 7], 'warn_due', ARGV[t - 6], 'warn_v', v, 'warn_c', c)
    local w = tonumber(ARGV[t - 6])
    if due == nil or w < due then due = w end
  else
    redis.call('HDEL', KEYS[11], 'warn', 'warn_due', 'warn_v', 'warn_c')
  end
  if due ~= nil then redis.call('ZADD', KEYS[12], 'LT', due, sid) end
  redis.call('PEXPIRE', KEYS[10], keep)
  redis.call('PEXPIRE', KEYS[11], keep)
end
"""

# The move log's part of CREATE and COMMIT: ARGV[first] on hold the moves, their record
# pieces and the number of pieces (then NOTICES' arguments). The moves go to the log;
# the pieces beside them only when there is one a move and the session's pieces match
# its log (as many), so a session stored before them keeps none. Their bytes are added
# to ``b``: the new ``b``.
MOVES = """
local function append_moves(first, b)
  local last = last_move()
  local p = tonumber(ARGV[last])
  local m = last - first - p
  local keep = m > 0 and p == m and redis.call('LLEN', KEYS[9]) == redis.call('LLEN', KEYS[7])
  for i = first, first + m - 1 do
    redis.call('RPUSH', KEYS[7], ARGV[i])
    b = b + #ARGV[i]
  end
  if keep then
    for i = first + m, last - 1 do
      redis.call('RPUSH', KEYS[9], ARGV[i])
      b = b + #ARGV[i]
    end
  end
  return b
end
"""

# KEYS: state, meta, events, idem, idemq, channel, moves, seen, pieces (and NOTICES' keys).
# ARGV: ttl_ms, maxlen, publish command, meta, state, history_from, commit id, number of
# events, events..., moves..., pieces..., number of pieces (MOVES; then NOTICES' arguments). The first write must be one Redis
# refuses when out of memory (SET): after any write (even a DEL of nothing) a script's
# later writes pass the maxmemory check.
CREATE = """
redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[1])
redis.call('DEL', KEYS[1], KEYS[3], KEYS[4], KEYS[5], KEYS[7], KEYS[9])
local n = tonumber(ARGV[8])
local b = 0
for i = 1, n do
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[2], i .. '-0', 'e', ARGV[8 + i])
  b = b + #ARGV[8 + i]
end
b = append_moves(9 + n, b)
redis.call('HSET', KEYS[1], 'v', 1, 'seq', n, 's', ARGV[5], 'h', ARGV[6], 'b', b, 'c', ARGV[7])
for _, k in ipairs({KEYS[1], KEYS[3], KEYS[7], KEYS[9]}) do redis.call('PEXPIRE', k, ARGV[1]) end
if #KEYS > 9 then notices(1, ARGV[7]) end
redis.call(ARGV[3], KEYS[6], '1:' .. n)
return {1, n}
"""

# KEYS: state, meta, events, idem, idemq, channel, moves, seen, pieces (and NOTICES' keys).
# ARGV: expected version, ttl_ms, maxlen, publish command, state, idem field ('' for
# none), idem answer, idem bound, meta ('' keeps it), seen field (the mover's seat, ''
# for none), seen value (epoch ms), history_from, expected commit id ('*': any), new
# commit id, number of events, events..., moves..., pieces..., number of pieces (MOVES;
# then NOTICES' arguments). The
# compare-and-set compares the version and its commit id (``c``; '' for a session stored
# before them):
# a version a failover lost, made again with another state, has another id. Its first
# write is XADD, RPUSH, SET or HSET: refused when Redis is out of memory, so a full
# Redis changes nothing. The checks run in the order of ``SessionStore.commit`` (and
# ``MemoryStore``): missing, replayed, conflict.
COMMIT = """
local cur = redis.call('HMGET', KEYS[1], 'v', 'seq', 'b', 'c')
if not cur[1] then return {'missing'} end
local field = ARGV[6]
if field ~= '' then
  local answer = redis.call('HGET', KEYS[4], field)
  if answer then return {'replayed', cur[1], cur[2], answer} end
end
local same = ARGV[13] == '*' or (cur[4] or '') == ARGV[13]
if cur[1] ~= ARGV[1] or not same then return {'conflict', cur[1], cur[2]} end
local seq = tonumber(cur[2])
local b = tonumber(cur[3] or '0') or 0
local n = tonumber(ARGV[15])
for i = 16, 15 + n do
  seq = seq + 1
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], seq .. '-0', 'e', ARGV[i])
  b = b + #ARGV[i]
end
b = append_moves(16 + n, b)
if ARGV[9] ~= '' then redis.call('SET', KEYS[2], ARGV[9]) end
local v = tonumber(cur[1]) + 1
redis.call('HSET', KEYS[1], 'v', v, 'seq', seq, 's', ARGV[5], 'h', ARGV[12], 'b', b, 'c', ARGV[14])
if field ~= '' then
  redis.call('HSET', KEYS[4], field, ARGV[7])
  local q = redis.call('RPUSH', KEYS[5], field)
  while q > tonumber(ARGV[8]) do
    redis.call('HDEL', KEYS[4], redis.call('LPOP', KEYS[5]))
    q = q - 1
  end
end
if ARGV[10] ~= '' then redis.call('HSET', KEYS[8], ARGV[10], ARGV[11]) end
for _, i in ipairs({1, 2, 3, 4, 5, 7, 8, 9}) do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
if #KEYS > 9 then notices(v, ARGV[14]) end
redis.call(ARGV[4], KEYS[6], v .. ':' .. seq)
return {'ok', tostring(v), tostring(seq)}
"""

# KEYS: state, events. ARGV: the version whose history the caller holds, the most
# events to return. The state's version, last event number, state JSON, ``h`` and ``b``
# (the bytes stored) and ``c`` (the commit id); with the events numbered ``h`` and after,
# newest first (at most ARGV[2]), when ``h`` is not 0 and the session is not at version
# ARGV[1]. Read only:
# sent with ``EVAL`` in the load's pipeline (a cluster pipeline refuses ``EVALSHA``;
# Redis caches the script by its hash).
READ = """
local st = redis.call('HMGET', KEYS[1], 'v', 'seq', 's', 'h', 'b', 'c')
local h = tonumber(st[4] or '0') or 0
local b = st[5] or '0'
local c = st[6] or ''
if h > 0 and st[1] ~= ARGV[1] then
  local rows = redis.call('XREVRANGE', KEYS[2], '+', h .. '-0', 'COUNT', ARGV[2])
  return {st[1], st[2], st[3], st[4], b, c, rows}
end
return {st[1], st[2], st[3], tostring(h), b, c}
"""

# KEYS: state, meta, events, idem, idemq, channel, moves, seen, pieces. ARGV: publish command.
DELETE = """
local n = redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[7], KEYS[8], KEYS[9])
if n > 0 then redis.call(ARGV[1], KEYS[6], 'deleted') end
return n
"""


class RedisStore(RedisClaims, outbox_keys.NotifierReads, SessionStore):
    """Sessions in one Redis or a Redis Cluster (``client``, or one made for ``url``;
    ``slot_clients``: see ``SlotRouter``)."""

    kind = "redis"
    #: ``kind`` on a Redis Cluster.
    CLUSTER_KIND = "redis-cluster"

    def __init__(
        self,
        url: str | None = None,
        ttl: float = 3600,
        max_events: int = 10_000,
        prefix: str = "uno:",
        client: Any = None,
        max_idem: int = 32,
        timeout: float = 0.5,
        lobby_size: int = LOBBY_SIZE,
        slot_clients: bool = True,
        max_connections: int | None = None,
        durability: Durability = NO_WAIT,
    ) -> None:
        super().__init__(ttl, max_events, max_idem, lobby_size)
        self.router = SlotRouter(
            url, client, durability.socket_timeout(timeout), slot_clients, max_connections
        )
        self.durability = durability
        self.cluster = self.router.cluster
        self.slot_clients = self.router.slot_clients
        if self.cluster:
            self.kind = self.CLUSTER_KIND
        self.prefix = prefix
        self._publish = "SPUBLISH" if self.cluster else "PUBLISH"
        self._ttl_ms = max(1, int(ttl * 1000))

    @property
    def redis(self) -> Any:
        """The client (``SlotRouter.client``)."""
        return self.router.client

    def _run(self, name: str, source: str, keys: list[str], args: list[Any]) -> Any:
        """The script ``name`` over ``keys`` (one slot) with ``args``, confirmed."""
        return self._confirmed(keys[0], self.router.run(name, source, keys, args))

    def _confirmed(self, key: str, result: T) -> T:
        """``result``, once the replicas have all ``key``'s node wrote (``Durability``)."""
        if self.durability.waits:
            self.durability.confirm(self.redis, key)
        return result

    def _ttl(self, ttl: float | None) -> int:
        """A write's time to live (ms): ``ttl`` when given and longer, else the store's."""
        return self._ttl_ms if ttl is None else max(self._ttl_ms, int(ttl * 1000))

    def _notice_keys(self, sid: str, notices: Notices | None, args: list[Any]) -> list[str]:
        """The keys of ``notices`` (NOTICES in the scripts), their arguments appended to
        ``args``; none without notices."""
        if notices is None:
            return []
        args += [
            *notices.entries, notices.warning or b"", notices.warning_due_ms,
            "" if notices.deadline_ms is None else notices.deadline_ms, notices.now_ms,
            notices.keep_ms, notices.outbox_max, sid, len(notices.entries),
        ]  # fmt: skip
        return outbox_keys.session_keys(self.prefix, sid, self.cluster)

    def _keys(self, sid: str) -> list[str]:
        base = f"{self.prefix}{{{sid}}}"
        return [
            f"{base}:state", f"{base}:meta", f"{base}:events", f"{base}:idem", f"{base}:idemq",
            f"{base}:notify", f"{base}:moves", f"{base}:seen", f"{base}:pieces",
        ]  # fmt: skip

    def _lobby_key(self, variant: str | None) -> str:
        """The lobby index of ``variant`` (None: every variant), all in one slot."""
        return f"{self.prefix}{{lobby}}:" + ("all" if variant is None else f"v:{variant}")

    def lobby_add(self, sid: str, variant: str, created_ms: int) -> None:
        keys = (self._lobby_key(None), self._lobby_key(variant))

        def run(client: Any) -> None:
            pipe = client.pipeline(transaction=False)
            for key in keys:
                pipe.zadd(key, {sid: created_ms})
                pipe.zremrangebyrank(key, 0, -(self.lobby_size + 1))
            pipe.execute()

        self.router.on_slot(keys[0], run)

    def lobby_remove(self, sids: Sequence[tuple[str, str]]) -> None:
        if not sids:
            return

        def run(client: Any) -> None:
            pipe = client.pipeline(transaction=False)
            pipe.zrem(self._lobby_key(None), *(sid for sid, _ in sids))
            for sid, variant in sids:
                pipe.zrem(self._lobby_key(variant), sid)
            pipe.execute()

        self.router.on_slot(self._lobby_key(None), run)

    def lobby_page(
        self, variant: str | None, before: tuple[int, str] | None, count: int
    ) -> list[tuple[int, str]]:
        key = self._lobby_key(variant)
        top: Any = "+inf" if before is None else before[0]
        # Entries tied with ``before`` come first: read enough to step past them.
        want = count + (64 if before is not None else 0)

        def run(client: Any) -> Any:
            return client.zrevrangebyscore(key, top, "-inf", start=0, num=want, withscores=True)

        rows = [(int(score), m.decode()) for m, score in self.router.on_slot(key, run)]
        return lobby_order(rows, before, count)

    def metas(self, sids: Sequence[str]) -> list[bytes | None]:
        if not sids:
            return []

        def run() -> list[Any]:
            pipe = self.redis.pipeline(transaction=False)
            for sid in sids:
                pipe.get(self._keys(sid)[1])
            return pipe.execute()  # type: ignore[no-any-return]

        return guarded(run)

    def channel(self, sid: str) -> str:
        return f"{self.prefix}{{{sid}}}:notify"

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
        args: list[Any] = [
            self._ttl(ttl), self.max_events, self._publish, meta, state, history_from,
            new_commit_id() if commit_id is None else commit_id, len(events), *events, *moves,
            *pieces, len(pieces),
        ]  # fmt: skip
        keys = self._keys(sid) + self._notice_keys(sid, notices, args)
        v, n = self._run("create", NOTICES + MOVES + CREATE, keys, args)
        return Commit("ok", int(v), int(n))

    def load(
        self,
        sid: str,
        idem_key: str | None = None,
        seen: tuple[int, int] | None = None,
        history_known: int = 0,
    ) -> Loaded | None:
        keys = self._keys(sid)
        state_key, meta_key, events_key, idem_hash = keys[:4]
        seen_key = keys[7]

        def read(client: Any) -> list[Any]:
            pipe = client.pipeline(transaction=False)
            if seen is not None:
                pipe.hset(seen_key, str(seen[0]), seen[1])
                pipe.pexpire(seen_key, self._ttl_ms)
            # ``execute_command``: a cluster pipeline's ``eval`` is not the command; and
            # told the slot's node, it does not ask Redis for the keys (COMMAND GETKEYS,
            # one more round trip) before it sends the pipeline.
            pipe.execute_command(
                "EVAL", READ, 2, state_key, events_key, history_known, HISTORY_EVENTS,
                **({"target_nodes": client.get_node_from_key(state_key)}
                   if isinstance(client, RedisCluster) else {}),
            )  # fmt: skip
            pipe.get(meta_key)
            pipe.hgetall(seen_key)
            if idem_key:
                pipe.hget(idem_hash, idem_key)
            return pipe.execute()  # type: ignore[no-any-return]

        res = self.router.on_slot(state_key, read)[0 if seen is None else 2 :]
        row, meta, last = res[0], res[1], res[2]
        v, seq, state, since, stored, commit = row[:6]
        if v is None or meta is None:
            return None
        if idem_key and res[3] is not None:  # a replay: its move must be on the replicas
            self._confirmed(state_key, None)
        presence = {int(k): int(t) for k, t in last.items()}
        history = tuple(fields[1] for _, fields in reversed(row[6])) if len(row) > 6 else None
        return Loaded(
            int(v), int(seq), state, meta, res[3] if idem_key else None, presence,
            int(since), history, int(stored), commit.decode(),
        )  # fmt: skip

    def version(self, sid: str) -> int | None:
        key = self._keys(sid)[0]
        v = self.router.on_slot(key, lambda client: client.hget(key, "v"))
        return None if v is None else int(v)

    def touch(self, sid: str, seat: int, at_ms: int) -> None:
        key = self._keys(sid)[7]

        def run(client: Any) -> None:
            pipe = client.pipeline(transaction=False)
            pipe.hset(key, str(seat), at_ms)
            pipe.pexpire(key, self._ttl_ms)
            pipe.execute()

        self.router.on_slot(key, run)

    def commit(self, request: CommitRequest) -> Commit:
        idem, seen = request.idem, request.seen
        args: list[Any] = [
            request.expected_version, self._ttl(request.ttl), self.max_events, self._publish,
            request.state, idem.key if idem else "", idem.answer if idem else b"",
            self.max_idem, request.meta or b"", "" if seen is None else str(seen[0]),
            0 if seen is None else seen[1], request.history_from,
            "*" if request.expected_commit is None else request.expected_commit, request.commit_id, len(request.events), *request.events, *request.moves,
            *request.pieces, len(request.pieces),
        ]  # fmt: skip

        keys = self._keys(request.sid) + self._notice_keys(request.sid, request.notices, args)
        res = self._run("commit", NOTICES + MOVES + COMMIT, keys, args)
        status = res[0].decode()
        if status == "ok":
            return Commit("ok", int(res[1]), int(res[2]))
        if status == "conflict":
            return Commit("conflict", int(res[1]), int(res[2] or 0))
        if status == "replayed":
            return Commit("replayed", int(res[1]), int(res[2] or 0), res[3])
        return Commit("missing")

    def events(self, sid: str, after: int, limit: int) -> list[tuple[int, bytes]]:
        key = self._keys(sid)[2]
        rows: Any = self.router.on_slot(
            key, lambda client: client.xrange(key, f"{after + 1}-0", "+", count=limit)
        )
        return [(int(eid.split(b"-", 1)[0]), fields[b"e"]) for eid, fields in rows]

    def moves(self, sid: str, start: int = 0) -> list[bytes]:
        key = self._keys(sid)[6]
        return self.router.on_slot(key, lambda client: client.lrange(key, start, -1))  # type: ignore[no-any-return]

    def pieces(self, sid: str, start: int = 0) -> list[bytes] | None:
        keys = self._keys(sid)
        moves, pieces = keys[6], keys[8]

        def read(client: Any) -> list[Any]:  # one round trip: both lengths, the pieces
            pipe = client.pipeline(transaction=False)
            return pipe.llen(moves).llen(pieces).lrange(pieces, start, -1).execute()  # type: ignore[no-any-return]

        logged, kept, rows = self.router.on_slot(pieces, read)
        return rows if logged == kept and kept else None

    def delete(self, sid: str) -> bool:
        return bool(self._run("delete", DELETE, self._keys(sid), [self._publish]))

    def subscribe(self, sid: str) -> Subscription:
        return _RedisSubscription(self, sid)

    def health_keys(self) -> list[str]:
        """Keys the readiness check writes: one on a server, one per master on a
        cluster (a master out of memory or read-only fails its own key's write)."""
        if not self.cluster:
            return [f"{self.prefix}{{health}}:ready"]
        client = self.redis
        wanted = {node.name for node in client.get_primaries()}
        found: dict[str, str] = {}
        for i in range(16384):
            if len(found) == len(wanted):
                break
            key = f"{self.prefix}{{health-{i}}}:ready"
            found.setdefault(client.get_node_from_key(key).name, key)
        return list(found.values())

    def ping(self) -> None:
        """A write that expires (``SET ... PX``), not a ``PING``: under ``noeviction`` a
        full Redis still answers ``PING`` while every write fails."""

        def write() -> None:
            for key in self.health_keys():
                self.redis.set(key, b"1", px=10_000)

        guarded(write)

    def warm(self) -> None:
        self.router.warm()

    def disconnect_idle(self) -> None:
        self.router.disconnect_idle()

    def close(self) -> None:
        self.router.close()


class _RedisSubscription(Subscription):
    """``SUBSCRIBE`` on one server, ``SSUBSCRIBE`` (sharded, on the slot's node) on a
    cluster; it waits for the confirmation so later commits cannot slip past."""

    def __init__(self, store: RedisStore, sid: str) -> None:
        self._store = store
        self._sharded = store.cluster
        self._pubsub = guarded(lambda: store.redis.pubsub())
        channel = store.channel(sid)
        self._node: Any = None
        if self._sharded:
            # The channel's node is named on every read: without it redis-py's
            # ClusterPubSub (7.x) ignores the timeout, and with ignore_subscribe_messages
            # it drops every message, so confirmations are skipped here instead.
            self._node = guarded(lambda: store.redis.get_node_from_key(channel))
            guarded(lambda: self._pubsub.ssubscribe(channel))
        else:
            guarded(lambda: self._pubsub.subscribe(channel))
        guarded(lambda: self._read(0.5))

    def _read(self, timeout: float) -> Any:
        if self._sharded:
            return self._pubsub.get_sharded_message(timeout=timeout, target_node=self._node)
        return self._pubsub.get_message(timeout=timeout)

    def _get(self, timeout: float) -> Any:
        """The next notification within ``timeout`` seconds, or None."""
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read(max(0.0, deadline - time.monotonic()))
            if msg is None:
                return None
            if msg["type"] in (b"message", b"smessage", "message", "smessage"):
                return msg
            if time.monotonic() >= deadline:
                return None

    def wait(self, timeout: float) -> bool:
        msg = guarded(lambda: self._get(timeout))
        if msg is None:
            return False
        # Drain whatever else arrived: one wake-up is enough for the reader.
        while guarded(lambda: self._get(0)) is not None:
            pass
        return True

    def close(self) -> None:
        with contextlib.suppress(*REDIS_ERRORS):
            self._pubsub.close()
