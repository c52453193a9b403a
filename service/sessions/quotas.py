"""Per-client quotas and the worker's stream slots.

A client is its address as the rate limit names it (``ratelimit.client_address``: the
remote address, or with ``TRUSTED_PROXIES`` the one the proxies saw; an IPv6 address
counted by its network of ``CLIENT_IPV6_PREFIX`` bits, default /64, for every quota
below); the store keeps only a digest of it (``client_key``: keyed with a key
derived from ``STATE_TOKEN_KEYS`` when set). Each quota is a set
of claims in the store (``SessionStore.claim``), shared by every worker and replica:

| quota | setting | held from | given back |
|---|---|---|---|
| sessions created | ``SESSION_SESSIONS_PER_CLIENT`` | the create | a deletion, or ``SESSION_TTL_SECONDS`` later |
| sessions waiting for seats | ``SESSION_WAITING_PER_CLIENT`` | the create (with open seats) | the deal, a deletion or the expiry (checked when the quota is full) |
| event streams | ``SESSION_STREAMS_PER_CLIENT`` | the stream's start | its end (or its deadline, for a worker that died) |

A full quota is 429 with a stable code and ``Retry-After``. Each worker also holds at
most ``SESSION_STREAMS_PER_WORKER`` streams (``StreamSlots``): past it 503
``streams_full``, so streams never take every connection a worker (and its Redis
pool, ``REDIS_MAX_CONNECTIONS``) has. When a worker's last stream ends (and after any
stream, every ``IDLE_SECONDS`` at most) its pool's idle connections are closed.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable

from . import problems
from .config import Env
from .models import Meta
from .store import SessionStore, StoreUnavailable

#: ``Retry-After`` of a full session quota (a place comes back when a session starts,
#: is deleted or expires: no time is known) and of a full stream quota.
SESSIONS_RETRY_AFTER = 60
STREAMS_RETRY_AFTER = 5
#: How often at most a worker closes the Redis connections nothing uses, after a stream.
IDLE_SECONDS = 30.0


#: What the key of ``client_key`` is derived for (``Keyring.derived``).
CLIENT_KEY_PURPOSE = "uno client address v1"


def client_key(address: str, key: bytes | None = None) -> str:
    """What the store keeps of a client's address, shortened: with ``key`` (derived from
    the configured sealing key) its HMAC-SHA256, which nobody without the key can turn
    back into the address; without (no ``STATE_TOKEN_KEYS``: one worker, development)
    its SHA-256, from which an IPv4 address can be found by trying every one."""
    if key is None:
        return hashlib.sha256(address.encode()).hexdigest()[:32]
    return hmac.new(key, address.encode(), hashlib.sha256).hexdigest()[:32]


def now_ms() -> int:
    """Quotas count real time, whatever a game's clock says."""
    return int(time.time() * 1000)


class Quotas:
    def __init__(self, env: Env, store: SessionStore) -> None:
        self.env = env
        self.store = store
        self.streams = StreamSlots(env)
        self._idle_lock = threading.Lock()
        self._next_idle = 0.0

    # ------------------------------------------------------------------ sessions
    def refuse_when_full(self, client: str) -> None:
        """429 at once when ``client`` holds its whole sessions quota already: a create
        is then refused before its body is read (``take_session`` decides for one that
        is read)."""
        config = self.env.config
        if len(self.store.claimed(f"client:{client}:sessions", now_ms())) >= (
            config.sessions_per_client
        ):
            raise problems.too_many_sessions(
                config.sessions_per_client, int(config.ttl), SESSIONS_RETRY_AFTER
            )

    def take_session(self, client: str, sid: str, waiting: bool) -> Callable[[], None]:
        """Count the new session ``sid`` in ``client``'s quotas (``waiting``: it has open
        seats): 429 when one is full. Returns what gives the places back (for a create
        that fails after this)."""
        config = self.env.config
        now = now_ms()
        until = now + int(config.ttl * 1000)
        made = f"client:{client}:sessions"
        if not self.store.claim(made, sid, config.sessions_per_client, until, now):
            raise problems.too_many_sessions(
                config.sessions_per_client, int(config.ttl), SESSIONS_RETRY_AFTER
            )
        if waiting and not self._take_waiting(client, sid, until, now):
            self._release(made, sid)
            raise problems.too_many_waiting_sessions(
                config.waiting_per_client, SESSIONS_RETRY_AFTER
            )

        def give_back() -> None:
            self._release(made, sid)
            if waiting:
                self._release(f"client:{client}:waiting", sid)

        return give_back

    def _take_waiting(self, client: str, sid: str, until: int, now: int) -> bool:
        """Claim a waiting place; when none is left, first give back those of sessions
        that no longer wait (dealt, deleted, expired), then try once more."""
        key, limit = f"client:{client}:waiting", self.env.config.waiting_per_client
        if self.store.claim(key, sid, limit, until, now):
            return True
        held = self.store.claimed(key, now)
        for other, raw in zip(held, self.store.metas(held), strict=True):
            if raw is None or not Meta.from_json(raw).open_seats:
                self._release(key, other)
        return self.store.claim(key, sid, limit, until, now)

    def session_gone(self, sid: str, meta: Meta) -> None:
        """A deleted session gives its creator's places back."""
        if meta.creator is not None:
            self._release(f"client:{meta.creator}:sessions", sid)
            self._release(f"client:{meta.creator}:waiting", sid)

    def _release(self, key: str, member: str) -> None:
        with contextlib.suppress(StoreUnavailable):  # a claim expires on its own
            self.store.release(key, member)

    # ------------------------------------------------------------------ streams
    def take_stream(self, client: str, until_epoch: float) -> Callable[[], None]:
        """A stream's places until ``until_epoch`` (epoch seconds): one of this worker's
        (503 ``streams_full``) and one of ``client``'s (429 ``too_many_streams``).
        Returns what gives them back (call it once, when the stream ends)."""
        config = self.env.config
        if not self.streams.take():
            raise problems.streams_full(config.retry_after)
        key, member = f"client:{client}:streams", secrets.token_hex(8)
        try:
            now = now_ms()
            took = self.store.claim(
                key, member, config.streams_per_client, int(until_epoch * 1000) + 1000, now
            )
        except BaseException:
            self.streams.give_back()
            raise
        if not took:
            self.streams.give_back()
            raise problems.too_many_streams(config.streams_per_client, STREAMS_RETRY_AFTER)
        done = threading.Event()

        def give_back() -> None:
            if done.is_set():
                return
            done.set()
            left = self.streams.give_back()
            self._release(key, member)
            self._disconnect_idle(left == 0)

        return give_back

    def _disconnect_idle(self, last: bool) -> None:
        """After a stream ends: close the store's connections nothing uses, when it was
        the worker's last stream or ``IDLE_SECONDS`` after the previous time (a burst of
        streams leaves them open otherwise)."""
        now = time.monotonic()
        with self._idle_lock:
            if not last and now < self._next_idle:
                return
            self._next_idle = now + IDLE_SECONDS
        self.store.disconnect_idle()


class StreamSlots:
    """The streams this worker holds, at most ``SESSION_STREAMS_PER_WORKER``."""

    def __init__(self, env: Env) -> None:
        self.env = env
        self.open = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self.open >= self.env.config.streams_per_worker:
                return False
            self.open += 1
            return True

    def give_back(self) -> int:
        """One stream ended: the streams still open."""
        with self._lock:
            self.open -= 1
            return self.open
