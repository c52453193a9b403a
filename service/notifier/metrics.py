"""The notifier's metrics (prometheus_client, its own registry; served on
``NOTIFIER_METRICS_PORT``)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
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
LATENCY = Histogram(
    "uno_notifier_delivery_latency_seconds",
    "From the commit that caused a webhook (its timestamp) to the receiver's 2xx.",
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
OUTBOX_DEPTH = Gauge(
    "uno_notifier_outbox_depth",
    "Notifications waiting: sessions with outbox work due or ahead (one server or a "
    "cluster's full scan), the stream's length and its deliveries taken, not finished.",
    ("part",),
    registry=REGISTRY,
)
SWEEPS = Counter(
    "uno_notifier_sweeps",
    "Sessions whose deadline the sweeper found passed, by outcome (settled: the clock's "
    "moves committed, by this sweeper or a racing process; none: nothing was owed; gone: "
    "the session expired or was deleted).",
    ("outcome",),
    registry=REGISTRY,
)


def serve(port: int) -> None:
    """Serve ``/metrics`` on ``port`` (0: not at all)."""
    if port:
        start_http_server(port, registry=REGISTRY)
