"""Per-client rate limiting with Flask-Limiter (fixed window), on the sessions' Redis (one
server or the cluster) when ``REDIS_URL`` is set, else in process.

``RATE_LIMIT`` (config, then environment): ``<n>/<period>`` with period ``second``,
``minute``, ``hour``, ``day`` (or ``s``/``m``/``h``/``d``, optionally with a count:
``100/10s``). Unset, empty or ``off``: no limit (the default, so benchmarks and tests
are not throttled).

A client is its remote address (``client_address``), an IPv6 address counted by its
network of ``CLIENT_IPV6_PREFIX`` bits (default 64: one host's /64, which it can fill
with addresses at will; an IPv4-mapped one as the IPv4 address): for this limit and
for every per-client quota (``service.sessions.quotas``). ``TRUSTED_PROXIES``
(default 0) is the number of proxies in front of the service that append to
``X-Forwarded-For``: with N > 0 the address is the one the Nth proxy from the service
saw (werkzeug's ``ProxyFix``, ``x_for=N``; it is also what the logs show); with 0 the
header is ignored, since any client can send it. A bearer token never changes the
key: an invented token buys nothing.

``REPLAY_RATE_LIMIT`` (same notation; default ``120/minute`` while ``RATE_LIMIT`` is
on, else off): ``POST /v1/games/replay``'s own limit per client, counted on top of
``RATE_LIMIT``. A request plays one page of a record (``REPLAY_PAGE_MOVES``, 200
moves, about 10 ms of CPU), so a record of ``SESSION_MAX_MOVES`` (20,000) moves is 100
requests: verified in under a minute, at most ~1.2 s of a worker's CPU a minute per
client (10 whole records a minute cost up to 7 s before pages). Set alone, it is the
only limit; ``off`` turns it off.

Over a limit: 429 ``rate_limited`` problem with ``Retry-After`` (the seconds until
the window ends). Health, readiness, metrics, the OpenAPI document and the docs are not
limited.

With ``REDIS_URL`` every worker and replica shares the count (``limits``' Redis,
Redis Sentinel or Redis Cluster storage, keys under ``<RATE_LIMIT_KEY_PREFIX>rl:``, at
most ``RATE_LIMIT_MAX_CONNECTIONS`` (16) connections a worker). When the store fails,
each worker counts alone in memory with the same limit (Flask-Limiter's in-memory
fallback: neither open nor closed) until a periodic check finds the store again; both
switches are logged.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import os
import re
import time
from dataclasses import dataclass
from typing import Any

import redis
from flask import Flask, Response, current_app, request
from flask_limiter import ApplicationLimit, Limiter, RequestLimit
from flask_limiter.errors import RateLimitExceeded
from flask_limiter.util import get_remote_address
from werkzeug.middleware.proxy_fix import ProxyFix

from service.problems import problem_response

log = logging.getLogger("service.ratelimit")

_SPEC = re.compile(
    r"^\s*(\d+)\s*/\s*(\d*)\s*(s|sec|second|m|min|minute|h|hr|hour|d|day)s?\s*$", re.I
)
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}
#: Endpoints never limited: probes, scrapes, the docs page with its assets, the rules pages.
EXEMPT = frozenset({"health.healthz", "health.readyz", "openapi.openapi", "observability.metrics"})
EXEMPT_BLUEPRINTS = frozenset({"docs", "rules_docs"})
#: A worker's connections to the rate limit's Redis (each node's, on a cluster):
#: ``RATE_LIMIT_MAX_CONNECTIONS``. A check holds one for a round trip.
MAX_CONNECTIONS = 16
#: The replay route and its own limit while ``RATE_LIMIT`` is on and it is not set.
REPLAY_ENDPOINT = "games.replay"
DEFAULT_REPLAY_RATE_LIMIT = "120/minute"
#: The bits of an IPv6 address that name one client (``CLIENT_IPV6_PREFIX``).
DEFAULT_IPV6_PREFIX = 64
IPV6_PREFIX_EXTENSION = "client_ipv6_prefix"


@dataclass(frozen=True)
class Limit:
    requests: int
    seconds: int

    @classmethod
    def parse(cls, spec: str | None, setting: str = "RATE_LIMIT") -> Limit | None:
        """``"600/minute"`` -> ``Limit(600, 60)``; None for unset, empty, ``off`` or ``0``
        (``setting``: the name a wrong ``spec`` is reported under)."""
        if spec is None or spec.strip().lower() in ("", "off", "none", "0", "false"):
            return None
        m = _SPEC.match(spec)
        if m is None:
            raise ValueError(f"{setting} must look like 600/minute or 100/10s, got {spec!r}")
        n, count, unit = int(m[1]), int(m[2] or 1), _UNIT[m[3][0].lower()]
        if n < 1 or count < 1:
            raise ValueError(f"{setting} must allow at least 1 request, got {spec!r}")
        return cls(n, count * unit)

    @property
    def spec(self) -> str:
        """The same limit in the ``limits`` library's notation."""
        return f"{self.requests} per {self.seconds} second"


def _setting(app: Flask, name: str, default: str | None = None) -> str | None:
    value = app.config.get(name)
    if value is None:
        value = os.environ.get(name, "").strip() or default
    return None if value is None else str(value)


def trusted_proxies(app: Flask) -> int:
    raw = _setting(app, "TRUSTED_PROXIES", "0") or "0"
    if not raw.isdigit() or int(raw) > 16:
        raise ValueError(f"TRUSTED_PROXIES must be an integer from 0 to 16, got {raw!r}")
    return int(raw)


def ipv6_prefix(app: Flask) -> int:
    raw = _setting(app, "CLIENT_IPV6_PREFIX", str(DEFAULT_IPV6_PREFIX)) or ""
    if not raw.isdigit() or not 1 <= int(raw) <= 128:
        raise ValueError(f"CLIENT_IPV6_PREFIX must be from 1 to 128, got {raw!r}")
    return int(raw)


def client_address() -> str:
    """The client as the rate limit and the quotas count it: the remote address
    (after ``TRUSTED_PROXIES``); an IPv6 one as its network of ``CLIENT_IPV6_PREFIX``
    bits (``2001:db8:1:2::/64``), an IPv4-mapped one as the IPv4 address."""
    address = get_remote_address()
    if ":" not in address:
        return address
    try:
        ip = ipaddress.IPv6Address(address)
    except ValueError:  # a zone id, or not an address (a proxy's odd header): as sent
        return address
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    prefix = current_app.extensions.get(IPV6_PREFIX_EXTENSION, DEFAULT_IPV6_PREFIX)
    return str(ipaddress.IPv6Network((ip, prefix), strict=False))


def max_connections(app: Flask) -> int:
    raw = _setting(app, "RATE_LIMIT_MAX_CONNECTIONS", str(MAX_CONNECTIONS)) or ""
    if not raw.isdigit() or not 1 <= int(raw) <= 10_000:
        raise ValueError(f"RATE_LIMIT_MAX_CONNECTIONS must be from 1 to 10000, got {raw!r}")
    return int(raw)


def _storage(app: Flask) -> tuple[str, dict[str, Any]]:
    """The storage URI and options: ``RATE_LIMIT_STORAGE_URI``, else ``REDIS_URL`` (the
    sessions' Redis or cluster), else ``memory://``; Redis with the sessions' timeouts
    and at most ``RATE_LIMIT_MAX_CONNECTIONS`` connections a worker:

    - one server: a ``BlockingConnectionPool``; a check waits up to
      ``REDIS_TIMEOUT_SECONDS`` for a connection;
    - Sentinel: that many to the primary (the count is kept there, never read from a
      replica);
    - a cluster: that many a node; redis-py's cluster client raises at once when a
      node's are all in use, and the worker counts in memory for a while, as when the
      store fails."""
    from service.redis.client import (
        CLUSTER_SCHEME,
        SENTINEL_SCHEME,
        client_options,
        socket_options,
    )
    from service.sessions.config import SessionConfig

    config = SessionConfig.load(app.config)
    uri = _setting(app, "RATE_LIMIT_STORAGE_URI") or config.redis_url or "memory://"
    if uri.startswith("memory://"):
        return uri, {}
    prefix = _setting(app, "RATE_LIMIT_KEY_PREFIX", "uno:") or "uno:"
    bound = max_connections(app)
    options: dict[str, Any] = client_options(config.redis_timeout)
    if uri.startswith(("redis://", "rediss://")):
        pool = redis.BlockingConnectionPool.from_url(
            uri, max_connections=bound, timeout=config.redis_timeout, **options
        )
        return uri, {"key_prefix": f"{prefix}rl", "connection_pool": pool, **options}
    if uri.startswith(SENTINEL_SCHEME + "://"):  # limits reads the same URL
        options.update(sentinel_kwargs=socket_options(options), use_replicas=False)
    if uri.startswith((CLUSTER_SCHEME + "://", SENTINEL_SCHEME + "://")):
        options["max_connections"] = bound
    return uri, {"key_prefix": f"{prefix}rl", **options}


def _too_many(limit: RequestLimit, what: str = "requests") -> Response:
    item = limit.limit
    seconds = item.get_expiry()
    try:
        reset = limit.window[0]  # when the window ends (``reset_at`` adds a second)
        retry = min(seconds, max(1, math.ceil(reset - time.time())))
    except Exception:  # the store failed between the hit and this read: a whole window
        retry = seconds
    return problem_response(
        429,
        "rate_limited",
        f"more than {item.amount} {what} in {seconds} s from this client; retry in {retry} s",
        {"Retry-After": str(retry)},
    )


def _too_many_replays(limit: RequestLimit) -> Response:
    return _too_many(limit, "requests to POST /v1/games/replay")


def _exempt() -> bool:
    return request.endpoint in EXEMPT or request.blueprint in EXEMPT_BLUEPRINTS


def _not_replay() -> bool:
    return request.endpoint != REPLAY_ENDPOINT


def replay_limit(app: Flask, limit: Limit | None) -> Limit | None:
    """``REPLAY_RATE_LIMIT``, or its default while ``limit`` (``RATE_LIMIT``) is on."""
    spec = _setting(app, "REPLAY_RATE_LIMIT")
    if spec is None and limit is not None:
        spec = DEFAULT_REPLAY_RATE_LIMIT
    return Limit.parse(spec, "REPLAY_RATE_LIMIT")


def _limits(limit: Limit | None, replay: Limit | None) -> list[ApplicationLimit]:
    """The client's budget over every route and the replay route's own (a scope of its
    own, not counted on other routes)."""
    out = []
    if limit is not None:
        out.append(ApplicationLimit(limit.spec, key_function=client_address, on_breach=_too_many))
    if replay is not None:
        out.append(
            ApplicationLimit(
                replay.spec,
                key_function=client_address,
                scope="replay",
                exempt_when=_not_replay,
                on_breach=_too_many_replays,
            )
        )
    return out


def init_app(app: Flask) -> Limiter | None:
    """Apply ``TRUSTED_PROXIES`` and install the limiter when ``RATE_LIMIT`` is set."""
    hops = trusted_proxies(app)
    app.extensions[IPV6_PREFIX_EXTENSION] = ipv6_prefix(app)
    if hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=0, x_host=0)  # type: ignore[method-assign]
    limit = Limit.parse(_setting(app, "RATE_LIMIT"))
    replay = replay_limit(app, limit)
    if limit is None and replay is None:
        return None
    uri, options = _storage(app)
    # Flask-Limiter logs its switches to and from the in-memory fallback on its own
    # logger: send them through the service's JSON lines (with the request id).
    lib_log, ours = logging.getLogger("flask-limiter"), logging.getLogger("service")
    for handler in ours.handlers:
        if handler not in lib_log.handlers:
            lib_log.addHandler(handler)
    lib_log.setLevel(ours.getEffectiveLevel())
    lib_log.propagate = False
    # One budget per client over every route (an application limit, "global" scope),
    # and the replay route's own; the same two in memory while the store is down.
    limiter = Limiter(
        client_address,
        application_limits=_limits(limit, replay),  # type: ignore[arg-type]
        storage_uri=uri,
        storage_options=options,
        strategy="fixed-window",
        in_memory_fallback_enabled=uri != "memory://",
        in_memory_fallback=_limits(limit, replay) if uri != "memory://" else None,  # type: ignore[arg-type]
        swallow_errors=True,
        headers_enabled=False,
    )
    limiter.request_filter(_exempt)
    try:
        limiter.init_app(app)
    except Exception as e:  # a cluster client connects when made: the cluster is down
        log.error(
            "rate limit: storage %s unreachable at start (%s: %s); counting per worker",
            uri.split("@")[-1],
            e.__class__.__name__,
            e,
        )
        uri = "memory://"
        limiter = Limiter(
            client_address,
            application_limits=_limits(limit, replay),  # type: ignore[arg-type]
            storage_uri=uri,
            strategy="fixed-window",
            headers_enabled=False,
        )
        limiter.request_filter(_exempt)
        limiter.init_app(app)

    @app.errorhandler(RateLimitExceeded)
    def _limited(e: RateLimitExceeded) -> Response:
        if isinstance(e.response, Response):
            return e.response
        return problem_response(429, "rate_limited", "too many requests from this client")

    app.extensions["rate_limiter"] = limiter
    shared = "per worker, in memory" if uri.startswith("memory://") else "shared through Redis"
    log.info(
        "rate limit: %s per client, POST /v1/games/replay %s (%s, %d trusted proxies)",
        f"{limit.requests} requests per {limit.seconds} s" if limit else "none",
        f"{replay.requests} per {replay.seconds} s" if replay else "not limited apart",
        shared,
        hops,
    )
    return limiter
