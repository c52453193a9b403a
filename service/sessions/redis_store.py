"""Sessions in Redis: one Lua script per move, keys hash-tagged per session.

Keys (``prefix`` defaults to ``uno:``; the ``{sid}`` hash tag puts every key of a
session in one Redis Cluster slot, so the multi-key scripts never hit CROSSSLOT):

| key | type | holds |
|---|---|---|
| ``<prefix>{<sid>}:state`` | hash | ``v`` version, ``seq`` last event number, ``s`` state JSON |
| ``<prefix>{<sid>}:meta`` | string | meta JSON (variant, seats, token hashes) |
| ``<prefix>{<sid>}:events`` | stream | entry id ``<seq>-0``, field ``e`` = event JSON (MAXLEN ~) |
| ``<prefix>{<sid>}:idem:<seat>:<key>`` | string | the first answer to an idempotent move |

Notifications go to the channel ``<prefix>{<sid>}:notify`` (the message is
``<version>:<seq>``). Scripts are registered once (EVALSHA; reloaded after a Redis
restart). The client has short timeouts and bounded retries, so a dead Redis fails in
milliseconds; every Redis error becomes ``StoreUnavailable``.

The move's ``EVALSHA`` skips redis-py's command layer (``_Scripts``): redis-py 8 spends
about 100 us of CPU per command on pool bookkeeping, observability hooks, a readiness
poll of the socket and generic argument encoding, three times what the round trip
itself costs. The script runs on connections made by the client's own pool (same
address, auth, TLS, timeouts) and under the client's ``Retry`` policy, exactly as
``Script.__call__`` would run it; only the bookkeeping is gone.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import redis
from redis.backoff import ExponentialWithJitterBackoff
from redis.commands.core import Script
from redis.connection import AbstractConnection
from redis.exceptions import NoScriptError, RedisError, ResponseError
from redis.retry import Retry

from .store import Commit, Idem, Loaded, SessionStore, StoreUnavailable, Subscription

T = TypeVar("T")

# KEYS: state, meta, events. ARGV: ttl_ms, maxlen, channel, meta, state, events...
CREATE = """
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
local n = #ARGV - 5
for i = 1, n do
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[2], i .. '-0', 'e', ARGV[5 + i])
end
redis.call('HSET', KEYS[1], 'v', 1, 'seq', n, 's', ARGV[5])
redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
if n > 0 then redis.call('PEXPIRE', KEYS[3], ARGV[1]) end
redis.call('PUBLISH', ARGV[3], '1:' .. n)
return {1, n}
"""

# KEYS: state, meta, events, idem (or "" for none).
# ARGV: expected version, ttl_ms, maxlen, channel, state, idem answer, events...
COMMIT = """
if KEYS[4] ~= '' then
  local answer = redis.call('GET', KEYS[4])
  if answer then return {'replayed', answer} end
end
local cur = redis.call('HMGET', KEYS[1], 'v', 'seq')
if not cur[1] then return {'missing'} end
if cur[1] ~= ARGV[1] then return {'conflict', cur[1], cur[2]} end
local seq = tonumber(cur[2])
for i = 7, #ARGV do
  seq = seq + 1
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], seq .. '-0', 'e', ARGV[i])
end
local v = tonumber(cur[1]) + 1
redis.call('HSET', KEYS[1], 'v', v, 'seq', seq, 's', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
if KEYS[4] ~= '' then redis.call('SET', KEYS[4], ARGV[6], 'PX', ARGV[2]) end
redis.call('PUBLISH', ARGV[4], v .. ':' .. seq)
return {'ok', tostring(v), tostring(seq)}
"""

# KEYS: state, meta, events. ARGV: channel.
DELETE = """
local n = redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
if n > 0 then redis.call('PUBLISH', ARGV[1], 'deleted') end
return n
"""


def make_client(url: str, timeout: float = 0.5, retries: int = 2) -> redis.Redis:
    """A client that fails fast: short socket timeouts, two jittered retries."""
    return redis.Redis.from_url(
        url,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(ExponentialWithJitterBackoff(cap=0.1, base=0.01), retries),
        retry_on_error=[redis.ConnectionError, redis.TimeoutError],
        health_check_interval=0,
    )


def _pack(parts: Sequence[bytes]) -> bytes:
    """One RESP command of bulk strings."""
    out = [b"*%d\r\n" % len(parts)]
    for p in parts:
        out.append(b"$%d\r\n%s\r\n" % (len(p), p))
    return b"".join(out)


def _bulk(value: bytes | str | int) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    return b"%d" % value


class _Scripts:
    """``EVALSHA`` on a free list of connections of the client's pool.

    A connection is taken off the list for one command and put back only after its
    whole answer was read (or after it was closed), so a connection never carries a
    half-read answer into the next command: the check redis-py's pool makes for that
    (a ``poll`` of the socket per command) is not needed. With gevent each greenlet
    takes its own connection, as with redis-py's pool. Failures are retried by the
    client's ``Retry`` (connection and timeout errors, with backoff; the connection is
    closed and reconnects), a ``NOSCRIPT`` loads the script once and sends it again."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self.pool = client.connection_pool
        self._free: list[AbstractConnection] = []
        self._pid = os.getpid()

    def _take(self) -> AbstractConnection:
        if self._pid != os.getpid():  # forked: the parent's sockets are not ours
            self._free = []
            self._pid = os.getpid()
        try:
            return self._free.pop()
        except IndexError:
            # Checked out of the pool for good: connected, and closed by its disconnect().
            return self.pool.get_connection()

    def evalsha(
        self, script: Script, keys: Sequence[str], args: Sequence[bytes | str | int]
    ) -> Any:
        tail = [b"%d" % len(keys), *map(_bulk, keys), *map(_bulk, args)]
        conn = self._take()
        try:
            try:
                return self._send(conn, _pack([b"EVALSHA", script.sha.encode(), *tail]))
            except NoScriptError:
                script.sha = self.client.script_load(script.script)
                return self._send(conn, _pack([b"EVALSHA", script.sha.encode(), *tail]))
        except ResponseError:
            raise  # the whole error answer was read: the connection is fine
        except BaseException:
            conn.disconnect()  # anything else may leave an answer half read
            raise
        finally:
            self._free.append(conn)

    @staticmethod
    def _send(conn: AbstractConnection, packed: bytes) -> Any:
        def once() -> Any:
            conn.send_packed_command([packed], check_health=False)
            return conn.read_response()

        return conn.retry.call_with_retry(once, lambda _: conn.disconnect())

    def close(self) -> None:
        free, self._free = self._free, []
        for conn in free:
            conn.disconnect()


class RedisStore(SessionStore):
    kind = "redis"

    def __init__(
        self,
        url: str | None = None,
        ttl: float = 3600,
        max_events: int = 10_000,
        prefix: str = "uno:",
        client: redis.Redis | None = None,
    ) -> None:
        super().__init__(ttl, max_events)
        if client is None:
            if url is None:
                raise ValueError("RedisStore needs a url or a client")
            client = make_client(url)
        self.redis = client
        self.prefix = prefix
        self._ttl_ms = max(1, int(ttl * 1000))
        self._create = client.register_script(CREATE)
        self._commit = client.register_script(COMMIT)
        self._delete = client.register_script(DELETE)
        self._scripts = _Scripts(client)

    def _keys(self, sid: str) -> tuple[str, str, str]:
        base = f"{self.prefix}{{{sid}}}"
        return f"{base}:state", f"{base}:meta", f"{base}:events"

    def _idem_key(self, sid: str, key: str) -> str:
        return f"{self.prefix}{{{sid}}}:idem:{key}"

    def channel(self, sid: str) -> str:
        return f"{self.prefix}{{{sid}}}:notify"

    @staticmethod
    def _call(fn: Callable[[], T]) -> T:
        try:
            return fn()
        except RedisError as e:
            raise StoreUnavailable(f"redis: {e.__class__.__name__}: {e}") from e

    # ------------------------------------------------------------------ the API
    def create(self, sid: str, meta: bytes, state: bytes, events: list[bytes]) -> Commit:
        args: list[Any] = [self._ttl_ms, self.max_events, self.channel(sid), meta, state, *events]
        v, n = self._call(lambda: self._create(keys=self._keys(sid), args=args))
        return Commit("ok", int(v), int(n))

    def load(self, sid: str, idem_key: str | None = None) -> Loaded | None:
        state_key, meta_key, _ = self._keys(sid)

        def read() -> list[Any]:
            pipe = self.redis.pipeline(transaction=False)
            pipe.hmget(state_key, "v", "seq", "s")
            pipe.get(meta_key)
            if idem_key:
                pipe.get(self._idem_key(sid, idem_key))
            return pipe.execute()

        res = self._call(read)
        (v, seq, state), meta = res[0], res[1]
        if v is None or meta is None:
            return None
        return Loaded(int(v), int(seq), state, meta, res[2] if idem_key else None)

    def commit(
        self,
        sid: str,
        expected_version: int,
        state: bytes,
        events: list[bytes],
        idem: Idem | None = None,
    ) -> Commit:
        keys = [*self._keys(sid), self._idem_key(sid, idem.key) if idem else ""]
        args: list[Any] = [
            expected_version, self._ttl_ms, self.max_events, self.channel(sid), state,
            idem.answer if idem else b"", *events,
        ]  # fmt: skip
        res = self._call(lambda: self._scripts.evalsha(self._commit, keys, args))
        status = res[0].decode()
        if status == "ok":
            return Commit("ok", int(res[1]), int(res[2]))
        if status == "conflict":
            return Commit("conflict", int(res[1]), int(res[2] or 0))
        if status == "replayed":
            return Commit("replayed", answer=res[1])
        return Commit("missing")

    def events(self, sid: str, after: int, limit: int) -> list[tuple[int, bytes]]:
        key = self._keys(sid)[2]
        rows: Any = self._call(lambda: self.redis.xrange(key, f"{after + 1}-0", "+", count=limit))
        return [(int(eid.split(b"-", 1)[0]), fields[b"e"]) for eid, fields in rows]

    def delete(self, sid: str) -> bool:
        n = self._call(lambda: self._delete(keys=self._keys(sid), args=[self.channel(sid)]))
        return bool(n)

    def subscribe(self, sid: str) -> Subscription:
        return _RedisSubscription(self, sid)

    def ping(self) -> None:
        self._call(self.redis.ping)

    def close(self) -> None:
        self._scripts.close()
        self.redis.close()
        self.redis.connection_pool.disconnect()


class _RedisSubscription(Subscription):
    def __init__(self, store: RedisStore, sid: str) -> None:
        self._pubsub = store.redis.pubsub(ignore_subscribe_messages=True)
        channel = store.channel(sid)
        store._call(lambda: self._pubsub.subscribe(channel))
        # Wait for the subscribe confirmation so later commits cannot slip past.
        store._call(lambda: self._pubsub.get_message(ignore_subscribe_messages=False, timeout=0.5))
        self._store = store

    def wait(self, timeout: float) -> bool:
        msg = self._store._call(lambda: self._pubsub.get_message(timeout=timeout))
        if msg is None:
            return False
        # Drain whatever else arrived: one wake-up is enough for the reader.
        while self._store._call(lambda: self._pubsub.get_message(timeout=0)) is not None:
            pass
        return True

    def close(self) -> None:
        with contextlib.suppress(RedisError):
            self._pubsub.close()
