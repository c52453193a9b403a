"""Per-client rate limiting: a fixed window, in Redis when configured, else in process.

``RATE_LIMIT`` (config, then environment): ``<n>/<period>`` with period ``second``,
``minute``, ``hour``, ``day`` (or ``s``/``m``/``h``/``d``, optionally with a count:
``100/10s``). Unset, empty or ``off``: no limit (the default, so benchmarks and tests
are not throttled).

A client is its bearer token (SHA-256, never the token itself) when the request has
``Authorization: Bearer ...``, else its remote address (behind a proxy that is the
proxy's, unless the proxy's ``X-Forwarded-For`` is applied, e.g. with werkzeug's
``ProxyFix``). Over the limit: 429 ``rate_limited`` problem with ``Retry-After`` (the
seconds until the window ends). Health, readiness, metrics and the docs are not limited.

With ``REDIS_URL`` every worker and replica shares the count: one ``INCR`` + ``EXPIRE``
round trip per request on the key ``<RATE_LIMIT_KEY_PREFIX>rl:{<client>}:<window>``
(hash-tagged: fine on Redis Cluster). When Redis fails, requests are let through (fail
open) and Redis is not asked again for ``RATE_LIMIT_BACKOFF_SECONDS`` (5).
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, request

from service.problems import problem_response

log = logging.getLogger("service.ratelimit")

_SPEC = re.compile(
    r"^\s*(\d+)\s*/\s*(\d*)\s*(s|sec|second|m|min|minute|h|hr|hour|d|day)s?\s*$", re.I
)
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}
#: Endpoints never limited: probes, scrapes, the docs page with its assets, the rules pages.
EXEMPT = frozenset({"health.healthz", "health.readyz", "openapi.openapi", "observability.metrics"})
EXEMPT_BLUEPRINTS = frozenset({"docs", "rules_docs"})


@dataclass(frozen=True)
class Limit:
    requests: int
    seconds: int

    @classmethod
    def parse(cls, spec: str | None) -> Limit | None:
        """``"600/minute"`` -> ``Limit(600, 60)``; None for unset, empty, ``off`` or ``0``."""
        if spec is None or spec.strip().lower() in ("", "off", "none", "0", "false"):
            return None
        m = _SPEC.match(spec)
        if m is None:
            raise ValueError(f"RATE_LIMIT must look like 600/minute or 100/10s, got {spec!r}")
        n, count, unit = int(m[1]), int(m[2] or 1), _UNIT[m[3][0].lower()]
        if n < 1 or count < 1:
            raise ValueError(f"RATE_LIMIT must allow at least 1 request, got {spec!r}")
        return cls(n, count * unit)


class MemoryWindow:
    """Fixed windows in this process (per gunicorn worker)."""

    kind = "memory"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._window = -1
        self._counts: dict[str, int] = {}

    def hit(self, client: str, window: int, seconds: int) -> int | None:
        with self._lock:
            if window != self._window:
                self._window, self._counts = window, {}
            n = self._counts.get(client, 0) + 1
            self._counts[client] = n
            return n


class RedisWindow:
    """Fixed windows in Redis, shared by every process; None (let through) when it fails."""

    kind = "redis"

    def __init__(
        self,
        client: Any,
        prefix: str = "uno:",
        backoff: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.redis = client
        self.prefix = prefix
        self.backoff = backoff
        self._clock = clock
        self._down_until = 0.0

    def key(self, client: str, window: int) -> str:
        return f"{self.prefix}rl:{{{client}}}:{window}"

    def hit(self, client: str, window: int, seconds: int) -> int | None:
        if self._down_until and self._clock() < self._down_until:
            return None
        key = self.key(client, window)
        try:
            pipe = self.redis.pipeline(transaction=True)
            pipe.incr(key)
            pipe.expire(key, seconds + 1)
            n, _ = pipe.execute()
        except Exception as e:  # any Redis failure: fail open
            self._down_until = self._clock() + self.backoff
            log.warning(
                "rate limit: Redis failed (%s: %s); letting requests through for %.0f s",
                e.__class__.__name__,
                e,
                self.backoff,
            )
            return None
        self._down_until = 0.0
        return int(n)


def client_key() -> str:
    auth = request.headers.get("Authorization")
    if auth is not None and auth[:7].lower() == "bearer " and auth[7:].strip():
        return "t:" + hashlib.sha256(auth[7:].strip().encode()).hexdigest()[:32]
    return "ip:" + (request.remote_addr or "-")


class RateLimiter:
    def __init__(
        self,
        limit: Limit,
        backend: MemoryWindow | RedisWindow,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.limit = limit
        self.backend = backend
        self._clock = clock

    def check(self) -> Response | None:
        """The 429 answer when this request's client is over the limit, else None."""
        endpoint = request.endpoint
        if endpoint in EXEMPT or request.blueprint in EXEMPT_BLUEPRINTS:
            return None
        seconds = self.limit.seconds
        now = self._clock()
        window = int(now // seconds)
        n = self.backend.hit(client_key(), window, seconds)
        if n is None or n <= self.limit.requests:
            return None
        retry = max(1, math.ceil((window + 1) * seconds - now))
        return problem_response(
            429,
            "rate_limited",
            f"more than {self.limit.requests} requests in {seconds} s from this client; "
            f"retry in {retry} s",
            {"Retry-After": str(retry)},
        )


def _redis_client(app: Flask) -> Any:
    """The session store's Redis client (one pool), or a new one for ``REDIS_URL``."""
    mgr = app.extensions.get("sessions")
    store = getattr(mgr, "store", None)
    if getattr(store, "kind", None) == "redis":
        return store.redis  # type: ignore[union-attr]
    from service.sessions.config import SessionConfig

    config = SessionConfig.load(app.config)
    if not config.redis_url:
        return None
    from service.sessions.redis_store import make_client

    return make_client(config.redis_url, timeout=config.redis_timeout)


def _setting(app: Flask, name: str, default: str | None = None) -> str | None:
    value = app.config.get(name)
    if value is None:
        value = os.environ.get(name, "").strip() or default
    return None if value is None else str(value)


def init_app(app: Flask) -> RateLimiter | None:
    """Install the limiter when ``RATE_LIMIT`` is set (after the sessions, whose Redis
    client it shares); ``app.config["RATE_LIMIT_REDIS"]``: a client to use (tests)."""
    limit = Limit.parse(_setting(app, "RATE_LIMIT"))
    if limit is None:
        return None
    client = app.config.get("RATE_LIMIT_REDIS") or _redis_client(app)
    backend: MemoryWindow | RedisWindow
    if client is not None:
        backend = RedisWindow(
            client,
            prefix=_setting(app, "RATE_LIMIT_KEY_PREFIX", "uno:") or "uno:",
            backoff=float(_setting(app, "RATE_LIMIT_BACKOFF_SECONDS", "5") or 5),
        )
    else:
        backend = MemoryWindow()
    limiter = RateLimiter(limit, backend)
    app.extensions["rate_limiter"] = limiter
    app.before_request(limiter.check)
    log.info(
        "rate limit: %d requests per %d s per client (%s)",
        limit.requests,
        limit.seconds,
        backend.kind,
    )
    return limiter
