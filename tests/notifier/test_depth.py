"""``uno_notifier_outbox_depth{part="sessions"}``: the sessions with a webhook due now,
not those whose next entry lies ahead (a clock warning for later, a retry's backoff)."""

from __future__ import annotations

import uuid

from service.notifier import metrics
from service.notifier.settings import NotifierSettings
from service.notifier.worker import Worker
from service.redis import outbox_keys as K
from service.sessions.config import SessionConfig
from tests.redis_procs import RedisServer

T0 = 1_800_000_000.0


def test_a_session_whose_next_webhook_lies_ahead_is_not_counted_as_waiting(
    redis_server: RedisServer,
) -> None:
    config = SessionConfig.load(
        {"REDIS_URL": redis_server.url, "SESSION_KEY_PREFIX": f"t{uuid.uuid4().hex[:8]}:"}
    )
    worker = Worker(NotifierSettings.load({"NOTIFIER_METRICS_PORT": "0"}), config, now=lambda: T0)
    try:
        now_ms = int(T0 * 1000)
        due = K.due_key(worker.queue.prefix, K.TAG)
        client = worker.store.router.client
        # One session due a second ago, one whose clock warning is due in ten minutes.
        client.zadd(due, {"sid-due": now_ms - 1000, "sid-later": now_ms + 600_000})
        assert worker.queue.outbox_sessions([K.TAG], now_ms) == 1
        worker.poll()
        gauge = metrics.REGISTRY.get_sample_value("uno_notifier_outbox_depth", {"part": "sessions"})
        assert gauge == 1
        # Once the later one is due, both are.
        assert worker.queue.outbox_sessions([K.TAG], now_ms + 600_000) == 2
    finally:
        worker.store.close()
