"""The notifier's metrics (prometheus_client, its own registry) and its health, served
on ``NOTIFIER_METRICS_PORT``: ``/metrics``, and ``/healthz`` (200 while the poller
finished a round recently, else 503: the liveness probe restarts a stuck worker)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.metrics import disable_created_metrics

disable_created_metrics()

#: Delivery latency: from the commit that caused a notification to its 2xx (seconds).
LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400)

REGISTRY = CollectorRegistry()
DELIVERED = Counter(
    "uno_notifier_delivered",
    "Webhooks the receiver answered 2xx, by type.",
    ("type",),
    registry=REGISTRY,
)
RETRIED = Counter(
    "uno_notifier_retried",
    "Webhook tries that failed and were put back for a retry, by reason (status or error).",
    ("reason",),
    registry=REGISTRY,
)
DEAD = Counter(
    "uno_notifier_dead",
    "Webhooks given up after the retry window (kept as dead letters).",
    registry=REGISTRY,
)
STOPPED = Counter(
    "uno_notifier_stopped",
    "Sessions whose deliveries stopped: the receiver answered 410.",
    registry=REGISTRY,
)
DROPPED = Counter(
    "uno_notifier_dropped",
    "Webhooks dropped unsent: a session's outbox was full (WEBHOOK_OUTBOX_MAX), the "
    "oldest waiting ones went (counted when the session's next one is handed out).",
    registry=REGISTRY,
)
LATENCY = Histogram(
    "uno_notifier_delivery_latency_seconds",
    "From the commit that caused a webhook (its timestamp) to the receiver's 2xx.",
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
OUTBOX_DEPTH = Gauge(
    "uno_notifier_outbox_depth",
    "Notifications waiting: sessions with outbox work due now (one server) or slots "
    "with work (a cluster's full scan), the stream's length and its deliveries taken, "
    "not finished.",
    ("part",),
    registry=REGISTRY,
)
SWEEPS = Counter(
    "uno_notifier_sweeps",
    "Sessions whose deadline the sweeper found passed, by outcome (settled: the clock's "
    "moves committed, by this sweeper or a racing process; none: nothing was owed; gone: "
    "the session expired or was deleted; failed: a fault, logged, tried again later).",
    ("outcome",),
    registry=REGISTRY,
)


LAST_POLL = Gauge(
    "uno_notifier_last_poll_timestamp_seconds",
    "When the poller last finished a round (Unix time).",
    registry=REGISTRY,
)


def serve(port: int, healthy: Callable[[], bool]) -> ThreadingHTTPServer | None:
    """Serve ``/metrics`` and ``/healthz`` (``healthy()``) on ``port`` in a thread of
    its own (0: not at all)."""
    if not port:
        return None

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if self.path == "/metrics":
                status, body, kind = 200, generate_latest(REGISTRY), CONTENT_TYPE_LATEST
            elif self.path == "/healthz":
                ok = healthy()
                status, body, kind = (200 if ok else 503), (b"ok" if ok else b"stuck"), "text/plain"
            else:
                status, body, kind = 404, b"not found", "text/plain"
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("0.0.0.0", port), Handler)  # a pod: its IP, scraped
    threading.Thread(target=server.serve_forever, name="notifier-metrics", daemon=True).start()
    return server
