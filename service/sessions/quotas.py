"""Per-client quotas and the worker's stream slots.

A client is its address as the rate limit names it (``ratelimit.client_address``: the
remote address, or with ``TRUSTED_PROXIES`` the one the proxies saw; an IPv6 address
counted by its network of ``CLIENT_IPV6_PREFIX`` bits, default /64, for every quota
below); the store keeps only a digest of it (``client_key``: keyed with a key
derived from ``STATE_TOKEN_KEYS`` when set). Each quota is a set
of claims in the store (``SessionStore.claim``), shared by every worker and replica:

| quota | setting | held from | given back |
|---|---|---|---|
| live sessions created | ``SESSION_SESSIONS_PER_CLIENT`` | the create | a deletion, or the session's expiry (checked when the quota is full) |
| sessions waiting for seats | ``SESSION_WAITING_PER_CLIENT`` | the create (with open seats) | the deal, a deletion or the expiry (checked when the quota is full) |
| event streams | ``SESSION_STREAMS_PER_CLIENT`` | the stream's start | its end (or its deadline, for a worker that died) |

A live session's place is held while the session lives: its claim is held
``LIVE_CLAIM_SECONDS`` past the session's expiry, and a write that keeps the session
within ``RENEW_SECONDS`` of that holds it on (``Quotas.holding``, ``Meta.claim_until_ms``),
so a session kept for weeks by its clock or its moves keeps its place. A session that
expired gives its place back when the quota is next found full (its meta is gone).

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
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import replace

from . import problems
from .config import Env
from .models import Meta
from .store import SessionStore, StoreUnavailable

log = logging.getLogger("service.sessions")

#: ``Retry-After`` of a full session quota (a place comes back when a session starts,
#: is deleted or expires: no time is known) and of a full stream quota.
SESSIONS_RETRY_AFTER = 60
STREAMS_RETRY_AFTER = 5
#: How often at most a worker closes the Redis connections nothing uses, after a stream.
IDLE_SECONDS = 30.0
#: How long past its session's expiry a live session's place is held, and how close to
#: that a write of the session comes before it holds the place on (see the module).
LIVE_CLAIM_SECONDS = 7 * 86_400
RENEW_SECONDS = 86_400


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
        """429 at once when ``client`` holds its whole sessions quota already (live
        sessions: those gone first give their places back): a create is then refused
        before its body is read (``take_session`` decides for one that is read)."""
        config = self.env.config
        key = sessions_key(client)
        if len(self.store.claimed(key, now_ms())) >= config.sessions_per_client and (
            len(self._drop_gone(key, now_ms(), lambda raw: raw is None))
            >= config.sessions_per_client
        ):
            raise problems.too_many_sessions(config.sessions_per_client, SESSIONS_RETRY_AFTER)

    def take_session(
        self, client: str, sid: str, waiting: bool, hold_until: int
    ) -> Callable[[], None]:
        """Count the new session ``sid`` in ``client``'s quotas (``waiting``: it has open
        seats), its live place held until ``hold_until`` (epoch ms: ``live_until``): 429
        when one is full. Returns what gives the places back (for a create that fails
        after this)."""
        config = self.env.config
        now = now_ms()
        made = sessions_key(client)
        limit = config.sessions_per_client
        if not self._claim(made, sid, limit, hold_until, now, lambda raw: raw is None):
            raise problems.too_many_sessions(limit, SESSIONS_RETRY_AFTER)
        until = now + int(config.ttl * 1000)
        if waiting and not self._claim(
            f"client:{client}:waiting", sid, config.waiting_per_client, until, now, no_longer_waits
        ):
            self._release(made, sid)
            raise problems.too_many_waiting_sessions(
                config.waiting_per_client, SESSIONS_RETRY_AFTER
            )

        def give_back() -> None:
            self._release(made, sid)
            if waiting:
                self._release(f"client:{client}:waiting", sid)

        return give_back

    def live_until(self, expires_ms: int | None) -> int:
        """Until when a live session's place is held (epoch ms): ``LIVE_CLAIM_SECONDS``
        past its expiry (None: a new session, expiring a TTL from now)."""
        if expires_ms is None:
            expires_ms = now_ms() + int(self.env.config.ttl * 1000)
        return expires_ms + LIVE_CLAIM_SECONDS * 1000

    def holding(self, meta: Meta, ttl: float) -> Meta | None:
        """The meta of a session that a write keeps for ``ttl`` seconds more, with its
        place held on (``hold_on``) when that comes within ``RENEW_SECONDS`` of the
        place's end; None: it need not be (or the session has no creator's place)."""
        if meta.creator is None or meta.claim_until_ms is None:
            return None
        expires = now_ms() + int(ttl * 1000)
        if expires + RENEW_SECONDS * 1000 <= meta.claim_until_ms:
            return None
        return replace(meta, claim_until_ms=self.live_until(expires))

    def hold_on(self, sid: str, meta: Meta) -> None:
        """Hold ``sid``'s place in its creator's sessions quota until the meta says (a
        place already held is held on whatever the quota)."""
        if meta.creator is None or meta.claim_until_ms is None:
            return
        limit = self.env.config.sessions_per_client
        try:
            self.store.claim(sessions_key(meta.creator), sid, limit, meta.claim_until_ms, now_ms())
        except StoreUnavailable as e:  # the next write of the session tries again
            log.warning("session %s: its place in its creator's quota not held on: %s", sid, e)

    def _claim(
        self,
        key: str,
        sid: str,
        limit: int,
        until: int,
        now: int,
        gone: Callable[[bytes | None], bool],
    ) -> bool:
        """Claim a place; when none is left, first give back those of the sessions
        ``gone`` says no longer count (by their meta, None when expired or deleted),
        then try once more."""
        if self.store.claim(key, sid, limit, until, now):
            return True
        if len(self._drop_gone(key, now, gone)) >= limit:
            return False
        return self.store.claim(key, sid, limit, until, now)

    def _drop_gone(self, key: str, now: int, gone: Callable[[bytes | None], bool]) -> list[str]:
        """Give back the places of ``key`` whose sessions ``gone`` says no longer count;
        the places still held."""
        held = self.store.claimed(key, now)
        kept = []
        for other, raw in zip(held, self.store.metas(held), strict=True):
            if gone(raw):
                self._release(key, other)
            else:
                kept.append(other)
        return kept

    def session_gone(self, sid: str, meta: Meta) -> None:
        """A deleted session gives its creator's places back."""
        if meta.creator is not None:
            self._release(sessions_key(meta.creator), sid)
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


def sessions_key(client: str) -> str:
    """The claims of ``client``'s live sessions."""
    return f"client:{client}:sessions"


def no_longer_waits(raw: bytes | None) -> bool:
    """A session that gives its waiting place back: dealt, deleted or expired."""
    return raw is None or not Meta.from_json(raw).open_seats


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
