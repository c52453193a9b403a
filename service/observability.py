"""Request ids, JSON logs and Prometheus metrics: ``init_app(app)``.

- **Request ids.** ``X-Request-ID`` is taken from the request when it is 1 to 128
  printable ASCII characters, else a new one is made; it is in
  ``current_request_id()``, in
  every log line written during the request and on every response (problems too).
- **Logs.** The ``service`` logger (and its children) writes one JSON object a line to
  stderr at ``LOG_LEVEL`` (config, then environment; ``info``). Each request writes one
  access line on ``service.access``: ``method``, ``route`` (the URL rule, not the raw
  path), ``path``, ``status``, ``duration_ms``, ``request_id`` (INFO; ERROR for a 5xx).
- **Metrics.** ``GET /metrics`` in the Prometheus text format (prometheus_client):
  requests by method (``other`` for a method HTTP does not define), route and status,
  a latency histogram by route, moves applied by variant (``count_moves``, called where
  a move is applied: the session manager and stateless ``/v1/games/apply``), unexpected
  errors, active and cached sessions, and the standard ``process_*`` metrics.

With ``PROMETHEUS_MULTIPROC_DIR`` set (gunicorn_conf.py prepares it) prometheus_client
runs in multiprocess mode: every worker writes its values to files there and a scrape
sums them all, so it gives the pod's exact totals whichever worker answers (the
``process_*`` metrics are the answering worker's). Without it (``python -m service --dev``,
tests) the registry is this process's own. Durations are to the end of the view (a
stream's first bytes, not its end).
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
from http import HTTPMethod
from typing import Any

import orjson
from flask import Blueprint, Flask, Response, current_app, has_request_context, request
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)
from prometheus_client import values as prometheus_values

REQUEST_ID = "X-Request-ID"
_VALID_ID = re.compile(r"[\x20-\x7e]{1,128}")
#: Latency buckets (seconds): the API answers in about a millisecond.
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
#: The ``route`` label of a request that matched no URL rule (404s of any path).
UNMATCHED = "<unmatched>"
#: Requests under this prefix may change the session gauges.
_SESSIONS = "/v1/sessions"
#: Where a request's id and start time are kept: its WSGI environ (no proxy lookups).
_ENV_ID = "uno.request_id"
_ENV_T0 = "uno.t0"
#: Set in the WSGI environ of a worker's own warm-up request (``service.warmup``): kept
#: out of the metrics and the access log. A client cannot set it (only ``HTTP_*`` keys).
WARMUP_ENV = "uno.warmup"

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
#: What ``generate_latest`` writes: the classic text format.
TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8"
#: Request methods counted under their own name; any other is counted as ``other``
#: (a client can send any token as a method: each must not become a new series).
KNOWN_METHODS = frozenset(m.value for m in HTTPMethod)
OTHER_METHOD = "other"

# Counters and histograms without ``_created`` series: multiprocess mode has none, and
# both modes should expose the same series.
disable_created_metrics()

#: This process's metrics. In multiprocess mode their values live in files under
#: ``PROMETHEUS_MULTIPROC_DIR`` and a scrape reads every worker's files instead.
REGISTRY = CollectorRegistry()
REQUESTS = Counter(
    "uno_http_requests",
    "HTTP requests by method, route (URL rule) and status.",
    ("method", "route", "status"),
    registry=REGISTRY,
)
LATENCY = Histogram(
    "uno_http_request_duration_seconds",
    "Time to answer a request, by route.",
    ("route",),
    buckets=BUCKETS,
    registry=REGISTRY,
)
MOVES = Counter(
    "uno_moves_applied",
    "Moves applied, by variant and source "
    "(stateless /v1/games/apply, or session: the player's move and its bots').",
    ("variant", "source"),
    registry=REGISTRY,
)
INTERNAL_ERRORS = Counter(
    "uno_internal_errors",
    "Requests answered 500 internal_error (an unexpected exception: a bug), by route "
    "and exception class.",
    ("route", "exception"),
    registry=REGISTRY,
)
SESSIONS_CACHED = Gauge(
    "uno_sessions_cached",
    "Sessions whose last state a worker keeps in its cache (summed over live workers).",
    registry=REGISTRY,
    multiprocess_mode="livesum",
)
SESSIONS_ACTIVE = Gauge(
    "uno_sessions_active",
    "Sessions held by the in-process store (summed over live workers; not reported for Redis).",
    ("store",),
    registry=REGISTRY,
    multiprocess_mode="livesum",
)
ProcessCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)

#: (method label, route, status) -> the request counter's and the histogram's children
#: (looked up once: ``labels()`` validates and locks on every call).
_series: dict[tuple[str, str, int], tuple[Any, Any]] = {}
#: (variant, source) -> the moves counter's child.
_moves: dict[tuple[str, str], Any] = {}
_scrape_registry: CollectorRegistry | None = None


def multiprocess_mode() -> bool:
    """Whether values go to files under ``PROMETHEUS_MULTIPROC_DIR`` (decided by
    prometheus_client when it is imported: the variable must be set before)."""
    return bool(getattr(prometheus_values.ValueClass, "_multiprocess", False))


def scrape_registry() -> CollectorRegistry:
    """What ``/metrics`` renders: this process's registry, or in multiprocess mode every
    worker's files (dead workers' counters included) and this process's own
    process metrics."""
    global _scrape_registry
    if not multiprocess_mode():
        return REGISTRY
    if _scrape_registry is None:
        reg = CollectorRegistry()
        multiprocess.MultiProcessCollector(reg)
        ProcessCollector(registry=reg)
        PlatformCollector(registry=reg)
        _scrape_registry = reg
    return _scrape_registry


def observe(method: str, route: str, status: int, seconds: float) -> None:
    """Count one request and its duration."""
    key = (method if method in KNOWN_METHODS else OTHER_METHOD, route, status)
    children = _series.get(key)
    if children is None:
        children = _series[key] = (
            REQUESTS.labels(key[0], route, str(status)),
            LATENCY.labels(route),
        )
    children[0].inc()
    children[1].observe(seconds)


def count_moves(variant: str, n: int = 1, source: str = "session") -> None:
    """Count ``n`` moves applied in a game of ``variant`` (``source``: ``session`` or
    ``stateless``)."""
    key = (variant, source)
    child = _moves.get(key)
    if child is None:
        child = _moves[key] = MOVES.labels(variant, source)
    child.inc(n)


def count_internal_error(exc: BaseException) -> None:
    """Count an unexpected exception of the request being served (problems.py)."""
    rule = request.url_rule if has_request_context() else None
    INTERNAL_ERRORS.labels(rule.rule if rule is not None else UNMATCHED, type(exc).__name__).inc()


def refresh_session_gauges(app: Flask) -> None:
    """Set this process's session gauges from ``app``'s session manager (after a
    session request and before a scrape: they change only then, or by expiry)."""
    mgr = app.extensions.get("sessions")
    if mgr is None:
        return
    stats = mgr.stats()
    _set_gauge(SESSIONS_CACHED, stats["cached"])
    stored = stats["stored"]
    if stored is not None:  # the in-process store (Redis cannot tell without a scan)
        kind = mgr.store.kind
        child = _gauge_children.get(kind)
        if child is None:
            child = _gauge_children[kind] = SESSIONS_ACTIVE.labels(kind)
        _set_gauge(child, stored)


#: The session gauges' labelled children, and the value this process last gave each
#: gauge: a value is written only when it changed (in multiprocess mode each ``set``
#: writes the worker's file, on every session request otherwise).
_gauge_children: dict[str, Any] = {}
_gauge_values: dict[int, float] = {}


def _set_gauge(gauge: Any, value: float) -> None:
    if _gauge_values.get(id(gauge)) != value:
        gauge.set(value)
        _gauge_values[id(gauge)] = value


metrics_bp = Blueprint("observability", __name__)


@metrics_bp.get("/metrics")
def metrics() -> Response:
    refresh_session_gauges(current_app)
    resp = Response(generate_latest(scrape_registry()), mimetype="text/plain")
    resp.headers["Content-Type"] = TEXT_FORMAT
    resp.headers["Cache-Control"] = "no-store"
    return resp


# ---------------------------------------------------------------------- logs
def _line_head(
    created: float, msecs: float, level: str, logger: str, message: str
) -> dict[str, Any]:
    """The fields every JSON log line begins with (``JsonFormatter`` and the access
    line's own writer, ``_write_access``, both)."""
    t = time.gmtime(created)
    return {
        "time": f"{time.strftime('%Y-%m-%dT%H:%M:%S', t)}.{int(msecs):03d}Z",
        "level": level.lower(),
        "logger": logger,
        "message": message,
    }


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, request_id, extra fields
    (``extra={"fields": {...}}``) and the exception, if any."""

    def format(self, record: logging.LogRecord) -> str:
        d = _line_head(
            record.created, record.msecs, record.levelname, record.name, record.getMessage()
        )
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


def _plain_access_handler() -> logging.Handler | None:
    """The handler an INFO access line goes to when logging is as ``configure_logging``
    left it (``service.access`` without handlers or filters of its own, ``service``
    with this module's one stderr handler, no filters, not propagating): then
    ``_write_access`` may write the line itself. None when anything else was
    configured: the line then goes through logging, to whatever was configured."""
    handlers = log.handlers
    if (
        len(handlers) != 1
        or access_log.handlers
        or access_log.filters
        or not access_log.propagate
        or log.filters
        or log.propagate
    ):
        return None
    handler = handlers[0]
    if (
        type(handler) is not _StderrHandler
        or handler.filters
        or handler.level > logging.INFO
        or type(handler.formatter) is not JsonFormatter
    ):
        return None
    return handler


def _write_access(fields: dict[str, Any]) -> None:
    """One INFO access line with ``fields``: the line ``JsonFormatter`` writes for
    ``access_log.info("request", extra={"fields": fields})``, written without a
    ``LogRecord`` when logging is as configured here (``_plain_access_handler``); else
    through logging. A line alone costs 7.6 µs through logging and 2.3 µs here
    (benchmarks/access_log.py); on the production server (gevent) the access line
    added 49-64 µs of CPU to an apply request of ~322 µs through logging, 28-34 µs
    here (benchmarks/http_bench.py, ``apply_logged``).
    tests/platform/test_observability.py holds the two lines equal, byte for byte."""
    handler = _plain_access_handler()
    if handler is not None:
        now = time.time()
        d = _line_head(now, (now - int(now)) * 1000, "INFO", access_log.name, "request")
        d.update(fields)
        try:
            line = orjson.dumps(d, default=str).decode() + "\n"
        except (TypeError, ValueError):  # not JSON: logging reports it as it would any
            line = None
        if line is not None:
            handler.acquire()
            try:
                sys.stderr.write(line)
            except Exception:  # noqa: BLE001 - as logging does: report it on stderr, go on
                handler.handleError(access_log.makeRecord(
                    access_log.name, logging.INFO, __file__, 0, "request", (), None
                ))  # fmt: skip
            finally:
                handler.release()
            return
    access_log.info("request", extra={"fields": fields})


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
    if env.get(WARMUP_ENV):
        return response
    rule = req.url_rule
    route = rule.rule if rule is not None else UNMATCHED
    status = response.status_code
    method = req.method
    observe(method, route, status, seconds)
    if route.startswith(_SESSIONS):
        refresh_session_gauges(current_app)
    level = logging.ERROR if status >= 500 else logging.INFO
    if access_log.isEnabledFor(level):
        fields = {
            "method": method,
            "route": route,
            "path": req.path,
            "remote": req.remote_addr,
            "status": status,
            "duration_ms": round(seconds * 1000, 3),
            "request_id": rid,
        }
        if level == logging.INFO:
            _write_access(fields)
        else:
            access_log.log(level, "request", extra={"fields": fields})
    return response


def init_app(app: Flask) -> None:
    """Register the request id and access-log hooks (first, so every other hook's answer
    carries the id) and ``/metrics``; configure the JSON logs."""
    configure_logging(app.config.get("LOG_LEVEL") or os.environ.get("LOG_LEVEL") or "info")
    app.before_request_funcs.setdefault(None, []).insert(0, _before)
    app.after_request(_after)
    app.register_blueprint(metrics_bp)
