"""Session settings: from the app config first, then the environment, then defaults.

| setting (config key = environment variable) | default | meaning |
|---|---|---|
| ``REDIS_URL`` | unset: the in-process store | where sessions live (``redis://host:6379/0``, ``redis+sentinel://host:port[,host:port...]/<service>``, ``redis+cluster://host:port[,host:port...]``); or ``REDIS_URL_FILE``, a file holding it |
| ``SESSION_TTL_SECONDS`` | 3600 | idle sessions expire; every write refreshes it |
| ``SESSION_KEY_PREFIX`` | ``uno:`` | Redis key prefix (keys ``<prefix>{<sid>}:...``) |
| ``SESSION_MAX_EVENTS`` | 10000 | events kept per session (stream MAXLEN, approximate) |
| ``SESSION_IDEMPOTENCY_KEYS`` | 32 | idempotent answers kept per session (the most recent) |
| ``SESSION_MAX_BOT_MOVES`` | 500 | bot moves at most per request |
| ``SESSION_BOT_CPU_MS`` | 20 | the CPU time (ms) the bots' moves may take per request (their first moves at a create or the join that deals, their replies to a person's move, a leave's bots, what a read settles): no move is begun that the slowest one so far would take past it, and the next request goes on |
| ``SESSION_MAX_MOVES`` | 20000 | moves at most per session (its move log; then 409 ``move_limit_reached``) |
| ``SESSION_MAX_TIMEOUTS`` | 10 | timeouts in a row after which a bot takes a seat, whatever the clock's ``max_timeouts`` says (a service policy: a game nobody plays goes to its bots and ends or expires; docs/sessions.md) |
| ``SESSION_MAX_BYTES`` | 6291456 (6 MiB) | bytes of events, move-log entries, record pieces and webhooks written at most per session (then 409 ``session_too_large``): a game of ``SESSION_MAX_MOVES`` fits (ten seats store about 280 bytes a move, 5.6 MB at 20,000 moves; a game to 500 points 150-300 KB) |
| ``SESSION_SESSIONS_PER_CLIENT`` | 20 | live sessions one client may have created (a place is held while its session lives; a deleted or expired one gives it back; then 429 ``too_many_sessions``) |
| ``SESSION_WAITING_PER_CLIENT`` | 3 | sessions with open seats one client may have waiting at once, public or not (then 429 ``too_many_waiting_sessions``) |
| ``SESSION_LOBBY_PER_CLIENT`` | 2 | entries of one creator on a lobby page (the others are left out of that page) |
| ``SESSION_STREAMS_PER_CLIENT`` | 8 | event streams one client may hold open at once, on every worker and replica (then 429 ``too_many_streams``) |
| ``SESSION_STREAMS_PER_WORKER`` | 80 | event streams one worker holds at once (then 503 ``streams_full``) |
| ``REDIS_MAX_CONNECTIONS`` | 100 | Redis connections one worker keeps at most (each stream holds one; a command waits up to ``REDIS_TIMEOUT_SECONDS`` for one, then 503); at least ``SESSION_STREAMS_PER_WORKER`` + 4 |
| ``SESSION_LOBBY_SIZE`` | 1000 | public waiting sessions the lobby index keeps (the newest) |
| ``SESSION_PRESENCE_SECONDS`` | 30 | a seat is connected when it made a request (or held a stream) this recently |
| ``SESSION_CACHE_SIZE`` | 10000 | sessions whose last (version, state) a process keeps |
| ``SESSION_CACHE_HISTORY_BYTES`` | 33554432 (32 MiB) | the bots' round events a process keeps with those states, in all; past it the least recently used sessions' events are dropped and read again with the state on their next load |
| ``SESSION_START_GRACE_SECONDS`` | 15 | a turn clock starts when every person has read the session after the deal, or this long after the deal, whichever comes first (0: at the deal) |
| ``SESSION_STREAM_SECONDS`` | 300 | an SSE stream ends after this (clients reconnect) |
| ``SESSION_HEARTBEAT_SECONDS`` | 15 | SSE comment lines while idle |
| ``SESSION_RETRY_AFTER`` | 1 | ``Retry-After`` of a 503 when the store is down |
| ``REDIS_TIMEOUT_SECONDS`` | 0.5 | redis-py connect and socket timeouts (socket: plus ``REDIS_WAIT_TIMEOUT_MS`` when waiting for replicas) |
| ``REDIS_MIN_REPLICAS`` | 0 | a session change is answered 2xx only once this many replicas of its node have it (``WAIT``), else 503 ``store_unavailable``; 0: no wait (``durability.py``, docs/redis-durability.md) |
| ``REDIS_WAIT_TIMEOUT_MS`` | 500 | how long a change waits for those replicas |
| ``WEBHOOK_URL`` | unset: no notifications | where the notifier (``python -m service.notifier``) sends the sessions' webhooks; a session created with ``notify`` writes them to its outbox (docs/notifications.md) |
| ``WEBHOOK_WARNING_SECONDS`` | 300 | a ``turn.clock_warning`` this long before a deadline (0: none; a turn shorter than this gets none) |
| ``WEBHOOK_RETRY_SECONDS`` | 86400 | how long a notification is retried before it is a dead letter (its outbox is kept that long) |
| ``WEBHOOK_OUTBOX_MAX`` | 256 | notifications one session's outbox holds at most (and the turn's clock warning): past it the oldest waiting ones are dropped, never the one in delivery (docs/notifications.md) |
| ``CLOCK_SWEEPER`` | on with ``WEBHOOK_URL``, else off | index each clocked session's next deadline for the notifier's sweeper (it plays timeouts without a request) |
| ``IDENTITY_ASSERTION_KEY`` | unset: no assertions | the HS256 key (at least 32 bytes) the app's backend signs identity assertions with: a seat's ``external_id`` comes only from one (``identity.py``); or ``IDENTITY_ASSERTION_KEY_FILE`` |
| ``ALLOW_CLIENT_SEED`` | on | off (``0``, ``false``, ``no``, ``off``): a ``seed`` on create is 422 ``client_seed_not_allowed`` |
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from service import secretfiles

from .store import IDEMPOTENCY_KEYS, LOBBY_SIZE

#: Redis connections a worker keeps beside its streams' at the least (its commands).
STREAM_SPARE_CONNECTIONS = 4
#: The shortest IDENTITY_ASSERTION_KEY (bytes): RFC 7518 asks HS256 for a key of at least
#: the hash's size.
IDENTITY_KEY_MIN_BYTES = 32
TRUE = frozenset({"1", "true", "yes", "on"})
FALSE = frozenset({"0", "false", "no", "off"})


@dataclass(frozen=True)
class SessionConfig:
    redis_url: str | None = None
    ttl: float = 3600.0
    key_prefix: str = "uno:"
    max_events: int = 10_000
    max_idem: int = IDEMPOTENCY_KEYS
    max_bot_moves: int = 500
    bot_cpu_ms: int = 20
    max_moves: int = 20_000
    max_bytes: int = 6 * 2**20
    max_timeouts: int = 10
    sessions_per_client: int = 20
    waiting_per_client: int = 3
    lobby_per_client: int = 2
    streams_per_client: int = 8
    streams_per_worker: int = 80
    redis_max_connections: int = 100
    cache_size: int = 10_000
    cache_history_bytes: int = 32 * 2**20
    lobby_size: int = LOBBY_SIZE
    presence_seconds: float = 30.0
    start_grace_seconds: float = 15.0
    stream_seconds: float = 300.0
    heartbeat_seconds: float = 15.0
    retry_after: int = 1
    redis_timeout: float = 0.5
    redis_min_replicas: int = 0
    redis_wait_timeout_ms: int = 500
    allow_client_seed: bool = True
    webhook_url: str | None = None
    webhook_warning_seconds: float = 300.0
    webhook_retry_seconds: float = 86_400.0
    webhook_outbox_max: int = 256
    clock_sweeper: bool | None = None
    identity_key: str | None = field(default=None, repr=False)

    @property
    def notifying(self) -> bool:
        """Sessions that opt in write notifications (a webhook is configured)."""
        return self.webhook_url is not None

    @property
    def sweeping(self) -> bool:
        """Clocked sessions (and notifying ones whose bots owe moves) index when the sweeper
        should settle them (``Snapshot.sweep_at``)."""
        return self.notifying if self.clock_sweeper is None else self.clock_sweeper

    @classmethod
    def load(cls, config: Mapping[str, Any] | None = None) -> SessionConfig:
        config = config or {}

        def get(name: str, default: Any, kind: type, zero: bool = False) -> Any:
            raw = config.get(name)
            if raw is None and name in secretfiles.SECRETS:
                raw = secretfiles.read(name)
            elif raw is None:
                raw = os.environ.get(name, "").strip() or None
            if raw is None:
                return default
            try:
                value = kind(raw)
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be a {kind.__name__}, got {raw!r}") from None
            if kind is not str and (value < 0 if zero else value <= 0):
                wanted = "0 or more" if zero else "positive"
                raise ValueError(f"{name} must be {wanted}, got {raw!r}")
            return value

        def flag(name: str, default: bool | None) -> bool | None:
            raw = config.get(name)
            if raw is None:
                raw = os.environ.get(name, "").strip() or None
            if raw is None:
                return default
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in TRUE:
                return True
            if text in FALSE:
                return False
            raise ValueError(f"{name} must be on or off (1/0, true/false, yes/no), got {raw!r}")

        loaded = cls(
            redis_url=get("REDIS_URL", None, str),
            ttl=get("SESSION_TTL_SECONDS", cls.ttl, float),
            key_prefix=get("SESSION_KEY_PREFIX", cls.key_prefix, str),
            max_events=get("SESSION_MAX_EVENTS", cls.max_events, int),
            max_idem=get("SESSION_IDEMPOTENCY_KEYS", cls.max_idem, int),
            max_bot_moves=get("SESSION_MAX_BOT_MOVES", cls.max_bot_moves, int),
            bot_cpu_ms=get("SESSION_BOT_CPU_MS", cls.bot_cpu_ms, int),
            max_moves=get("SESSION_MAX_MOVES", cls.max_moves, int),
            max_bytes=get("SESSION_MAX_BYTES", cls.max_bytes, int),
            max_timeouts=get("SESSION_MAX_TIMEOUTS", cls.max_timeouts, int),
            sessions_per_client=get("SESSION_SESSIONS_PER_CLIENT", cls.sessions_per_client, int),
            waiting_per_client=get("SESSION_WAITING_PER_CLIENT", cls.waiting_per_client, int),
            lobby_per_client=get("SESSION_LOBBY_PER_CLIENT", cls.lobby_per_client, int),
            streams_per_client=get("SESSION_STREAMS_PER_CLIENT", cls.streams_per_client, int),
            streams_per_worker=get("SESSION_STREAMS_PER_WORKER", cls.streams_per_worker, int),
            redis_max_connections=get("REDIS_MAX_CONNECTIONS", cls.redis_max_connections, int),
            cache_size=get("SESSION_CACHE_SIZE", cls.cache_size, int),
            cache_history_bytes=get("SESSION_CACHE_HISTORY_BYTES", cls.cache_history_bytes, int),
            lobby_size=get("SESSION_LOBBY_SIZE", cls.lobby_size, int),
            presence_seconds=get("SESSION_PRESENCE_SECONDS", cls.presence_seconds, float),
            start_grace_seconds=get(
                "SESSION_START_GRACE_SECONDS", cls.start_grace_seconds, float, zero=True
            ),
            stream_seconds=get("SESSION_STREAM_SECONDS", cls.stream_seconds, float),
            heartbeat_seconds=get("SESSION_HEARTBEAT_SECONDS", cls.heartbeat_seconds, float),
            retry_after=get("SESSION_RETRY_AFTER", cls.retry_after, int),
            redis_timeout=get("REDIS_TIMEOUT_SECONDS", cls.redis_timeout, float),
            redis_min_replicas=get("REDIS_MIN_REPLICAS", cls.redis_min_replicas, int, zero=True),
            redis_wait_timeout_ms=get("REDIS_WAIT_TIMEOUT_MS", cls.redis_wait_timeout_ms, int),
            allow_client_seed=bool(flag("ALLOW_CLIENT_SEED", cls.allow_client_seed)),
            webhook_url=get("WEBHOOK_URL", None, str),
            webhook_warning_seconds=get(
                "WEBHOOK_WARNING_SECONDS", cls.webhook_warning_seconds, float, zero=True
            ),
            webhook_retry_seconds=get("WEBHOOK_RETRY_SECONDS", cls.webhook_retry_seconds, float),
            webhook_outbox_max=get("WEBHOOK_OUTBOX_MAX", cls.webhook_outbox_max, int),
            clock_sweeper=flag("CLOCK_SWEEPER", None),
            identity_key=get("IDENTITY_ASSERTION_KEY", None, str),
        )
        key = loaded.identity_key
        if key is not None and len(key.encode()) < IDENTITY_KEY_MIN_BYTES:
            raise ValueError(
                f"IDENTITY_ASSERTION_KEY must be at least {IDENTITY_KEY_MIN_BYTES} bytes (HS256)"
            )
        if loaded.redis_max_connections < loaded.streams_per_worker + STREAM_SPARE_CONNECTIONS:
            raise ValueError(
                f"REDIS_MAX_CONNECTIONS ({loaded.redis_max_connections}) must be at least "
                f"SESSION_STREAMS_PER_WORKER ({loaded.streams_per_worker}) + "
                f"{STREAM_SPARE_CONNECTIONS}: each stream holds a connection"
            )
        return loaded


@dataclass
class Env:
    """What every session part reads: the settings and the wall clock (epoch seconds:
    the move log's times, presence, deadlines). One object, shared by all the parts,
    so a test that replaces either changes it for all of them."""

    config: SessionConfig
    now: Callable[[], float] = time.time
