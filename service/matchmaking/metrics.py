"""The quick match's metrics, in the service's registry (``observability.REGISTRY``):
tickets waiting (the store's count, the newest any worker read) and the time from a
ticket to its dealt table."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from service.observability import REGISTRY

TICKETS_WAITING = Gauge(
    "uno_match_tickets_waiting",
    "Quick-match tickets seated at tables that fill (every replica's, as last read).",
    registry=REGISTRY,
    multiprocess_mode="mostrecent",
)
TIME_TO_SEAT = Histogram(
    "uno_match_time_to_seat_seconds",
    "From a quick-match ticket to its table dealt, by how the table was completed "
    "(people, or bots after the wait).",
    ("filled_by",),
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800),
    registry=REGISTRY,
)
TICKETS = Counter(
    "uno_match_tickets",
    "Quick-match tickets by outcome (matched, cancelled, expired).",
    ("outcome",),
    registry=REGISTRY,
)
