"""Request ids, JSON logs and Prometheus metrics: ``init_app(app)``.

- **Request ids.** ``X-Request-ID`` is taken from the request when it is 1 to 128
  printable ASCII characters, else a new one is made; it is in
  ``current_request_id()``, in
  every log line written during the request and on every response (problems too).
- **Logs.** The ``service`` logger (and its children) writes one JSON object a line to
  stderr at ``LOG_LEVEL`` (config, then environment; ``info``). Each request writes one
  access line on ``service.access``: ``method``, ``route`` (the URL rule, not the raw
  path), ``path``, ``status``, ``duration_ms``, ``request_id`` (INFO; ERROR for a 5xx).
- **Metrics.** ``GET /metrics`` in the Prometheus text format: requests by method,
  route and status, a latency histogram by route, moves applied by variant
  (``count_moves``, called by the session manager; stateless ``/v1/games/apply`` is
  counted here), active and cached sessions.

The registry is this module's own (a few dicts under one lock), one per process: under
gunicorn with several workers each worker counts what it served, and a scrape sees the
worker that answered it (see README, "For ops"). Durations are to the end of the view
(a stream's first bytes, not its end).
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
import time
from bisect import bisect_left
from typing import Any

import orjson
from flask import Blueprint, Flask, Response, current_app, has_request_context, request

REQUEST_ID = "X-Request-ID"
_VALID_ID = re.compile(r"[\x20-\x7e]{1,128}")
#: Latency buckets (seconds): the API answers in about a millisecond.
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
#: The ``route`` label of a request that matched no URL rule (404s of any path).
UNMATCHED = "<unmatched>"
#: The stateless move route, whose moves are counted here (by the answer's variant).
_APPLY = "/v1/games/apply"
_START = time.time()
#: Where a request's id and start time are kept: its WSGI environ (no proxy lookups).
_ENV_ID = "uno.request_id"
_ENV_T0 = "uno.t0"

#: A gauge as rendered: name, help text, ``(labels, value)`` samples (labels ``{a="b"}`` or "").
Gauge = tuple[str, str, list[tuple[str, float]]]

log = logging.getLogger("service")
access_log = logging.getLogger("service.access")


# ---------------------------------------------------------------------- request ids
def request_id_from(raw: str | None) -> str:
    """``raw`` when it is 1..128 printable ASCII characters (not only spaces), else new."""
    if raw is not None and _VALID_ID.fullmatch(raw) and not raw.isspace():
        return raw
    return os.urandom(16).hex()


def current_request_id() -> str | None:
    """The id of the request being served, if any."""
    return request.environ.get(_ENV_ID) if has_request_context() else None


# ---------------------------------------------------------------------- metrics
class Metrics:
    """Counters and a histogram, thread-safe; rendered in the Prometheus text format."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: dict[tuple[str, str, int], int] = {}
        # route -> one count per bucket, then +Inf, then the sum of seconds
        self.latency: dict[str, list[float]] = {}
        self.moves: dict[tuple[str, str], int] = {}

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        key = (method, route, status)
        i = bisect_left(BUCKETS, seconds)
        with self._lock:
            self.requests[key] = self.requests.get(key, 0) + 1
            h = self.latency.get(route)
            if h is None:
                h = self.latency[route] = [0] * (len(BUCKETS) + 1) + [0.0]
            h[i] += 1
            h[-1] += seconds

    def count_moves(self, variant: str, n: int = 1, source: str = "session") -> None:
        key = (variant, source)
        with self._lock:
            self.moves[key] = self.moves.get(key, 0) + n

    def render(self, gauges: list[Gauge] | None = None) -> bytes:
        with self._lock:
            requests = sorted(self.requests.items())
            latency = sorted((r, list(h)) for r, h in self.latency.items())
            moves = sorted(self.moves.items())
        out = [
            "# HELP uno_http_requests_total HTTP requests by method, route (URL rule) and status.",
            "# TYPE uno_http_requests_total counter",
        ]
        for (method, route, status), n in requests:
            out.append(
                f'uno_http_requests_total{{method="{method}",route="{_esc(route)}",'
                f'status="{status}"}} {n}'
            )
        out += [
            "# HELP uno_http_request_duration_seconds Time to answer a request, by route.",
            "# TYPE uno_http_request_duration_seconds histogram",
        ]
        for route, h in latency:
            r = _esc(route)
            total = 0
            for le, in_bucket in zip((*map(repr, BUCKETS), "+Inf"), h[:-1], strict=True):
                total += int(in_bucket)
                out.append(
                    f'uno_http_request_duration_seconds_bucket{{route="{r}",le="{le}"}} {total}'
                )
            out.append(f'uno_http_request_duration_seconds_sum{{route="{r}"}} {h[-1]!r}')
            out.append(f'uno_http_request_duration_seconds_count{{route="{r}"}} {total}')
        out += [
            "# HELP uno_moves_applied_total Moves applied, by variant and source "
            "(stateless /v1/games/apply, or session: the player's move and its bots').",
            "# TYPE uno_moves_applied_total counter",
        ]
        for (variant, source), n in moves:
            out.append(
                f'uno_moves_applied_total{{variant="{_esc(variant)}",source="{source}"}} {n}'
            )
        for name, help_, samples in gauges or ():
            out += [f"# HELP {name} {help_}", f"# TYPE {name} gauge"]
            out += [f"{name}{labels} {value!r}" for labels, value in samples]
        out += [
            "# HELP process_start_time_seconds Start of this process (Unix time).",
            "# TYPE process_start_time_seconds gauge",
            f"process_start_time_seconds {_START!r}",
        ]
        return ("\n".join(out) + "\n").encode()


def _esc(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


#: This process's registry.
METRICS = Metrics()


def count_moves(variant: str, n: int = 1, source: str = "session") -> None:
    """Count ``n`` moves applied in a game of ``variant`` (for the session manager)."""
    METRICS.count_moves(variant, n, source)


def _variant_of(body: bytes) -> str | None:
    """The first ``"variant":"..."`` of a JSON answer (the state's or the view's)."""
    i = body.find(b'"variant":"')
    if i < 0:
        return None
    i += 11
    j = body.find(b'"', i, i + 65)
    return body[i:j].decode() if j > i else None


def _session_gauges(app: Flask) -> list[Gauge]:
    mgr = app.extensions.get("sessions")
    if mgr is None:
        return []
    gauges: list[Gauge] = [
        (
            "uno_sessions_cached",
            "Sessions whose last state this process keeps in its cache.",
            [("", float(len(mgr._cache)))],
        )
    ]
    store = mgr.store
    count = getattr(store, "count", None)
    active: int | None = None
    if callable(count):
        active = count()
    elif store.kind == "memory":
        active = len(store._sessions)  # expired ones go at the next sweep
    if active is not None:
        gauges.append(
            (
                "uno_sessions_active",
                "Sessions held by the store (the in-process store: this process's).",
                [(f'{{store="{store.kind}"}}', float(active))],
            )
        )
    return gauges


metrics_bp = Blueprint("observability", __name__)


@metrics_bp.get("/metrics")
def metrics() -> Response:
    body = METRICS.render(_session_gauges(current_app))
    resp = Response(body, mimetype="text/plain")
    resp.headers["Content-Type"] = "text/plain; version=0.0.4; charset=utf-8"
    resp.headers["Cache-Control"] = "no-store"
    return resp


# ---------------------------------------------------------------------- logs
class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, request_id, extra fields
    (``extra={"fields": {...}}``) and the exception, if any."""

    def format(self, record: logging.LogRecord) -> str:
        t = time.gmtime(record.created)
        d: dict[str, Any] = {
            "time": f"{time.strftime('%Y-%m-%dT%H:%M:%S', t)}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = record.__dict__.get("fields")
        if fields:
            d.update(fields)
        elif (rid := current_request_id()) is not None:
            d["request_id"] = rid
        if record.exc_info:
            d["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(d, default=str).decode()


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is now (gunicorn's, or a test's capture)."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(JsonFormatter())

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def configure_logging(level: str | int | None = None) -> None:
    """JSON lines on stderr for the ``service`` loggers, at ``level`` (once a process)."""
    if not any(isinstance(h, _StderrHandler) for h in log.handlers):
        log.addHandler(_StderrHandler())
    log.propagate = False
    if level is not None:
        name = str(level).strip().upper()
        value = logging.getLevelName(name) if not name.isdigit() else int(name)
        if not isinstance(value, int):
            raise ValueError(f"LOG_LEVEL must be a logging level name, got {level!r}")
        log.setLevel(value)


# ---------------------------------------------------------------------- wiring
def _before() -> None:
    env = request.environ
    env[_ENV_T0] = time.perf_counter()
    env[_ENV_ID] = request_id_from(env.get("HTTP_X_REQUEST_ID"))


def _after(response: Response) -> Response:
    req = request._get_current_object()  # type: ignore[attr-defined]
    env = req.environ
    seconds = time.perf_counter() - env.get(_ENV_T0, 0.0)
    rid = env.get(_ENV_ID)
    if rid is None:  # a request that failed before the hooks ran
        rid = env[_ENV_ID] = request_id_from(env.get("HTTP_X_REQUEST_ID"))
    response.headers.add(REQUEST_ID, rid)
    rule = req.url_rule
    route = rule.rule if rule is not None else UNMATCHED
    status = response.status_code
    method = req.method
    METRICS.observe(method, route, status, seconds)
    if status == 200 and route == _APPLY and not response.is_streamed:
        variant = _variant_of(response.get_data())
        if variant is not None:
            METRICS.count_moves(variant, 1, "stateless")
    level = logging.ERROR if status >= 500 else logging.INFO
    if access_log.isEnabledFor(level):
        access_log.log(
            level,
            "request",
            extra={
                "fields": {
                    "method": method,
                    "route": route,
                    "path": req.path,
                    "status": status,
                    "duration_ms": round(seconds * 1000, 3),
                    "request_id": rid,
                }
            },
        )
    return response


def init_app(app: Flask) -> None:
    """Register the request id and access-log hooks (first, so every other hook's answer
    carries the id) and ``/metrics``; configure the JSON logs."""
    configure_logging(app.config.get("LOG_LEVEL") or os.environ.get("LOG_LEVEL") or "info")
    app.before_request_funcs.setdefault(None, []).insert(0, _before)
    app.after_request(_after)
    app.register_blueprint(metrics_bp)
