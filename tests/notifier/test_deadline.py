"""A try of a webhook has one deadline and takes only a whole answer: a receiver that
drips its answer (body or headers) is cut at ``WEBHOOK_TIMEOUT_SECONDS``, an answer cut
off or longer than the bound is a failed try, and one slow session's receiver does not
hold back another session's webhooks. An outbox entry that cannot be decoded is a dead
letter at once; a try that outlives its deadline makes the worker unhealthy."""

from __future__ import annotations

import time
import urllib.request
import uuid
from typing import Any

import orjson
import pytest

from service.notifier.delivery import MAX_ANSWER_BYTES, Sender
from service.notifier.settings import NotifierSettings
from service.notifier.worker import Worker
from service.redis import outbox_keys as K
from service.sessions.config import SessionConfig
from tests.notifier.conftest import IDENTITY_KEY, SECRET, Deployment, Receiver, wait_until
from tests.notifier.test_delivery import started
from tests.redis_procs import free_port
from tests.sessions.conftest import make_app, store_url

BODY = orjson.dumps({"type": "turn.started", "timestamp": "2027-01-15T08:00:00.000Z",
                     "data": {"session_id": "slow"}})  # fmt: skip


def sender(receiver: Receiver, timeout: str = "2") -> Sender:
    return Sender(NotifierSettings.load({
        "WEBHOOK_URL": receiver.url, "WEBHOOK_SECRET": SECRET, "WEBHOOK_ALLOW_HTTP": "on",
        "WEBHOOK_ALLOW_PRIVATE": "on", "WEBHOOK_TIMEOUT_SECONDS": timeout,
    }))  # fmt: skip


@pytest.mark.parametrize("headers", [False, True], ids=["body", "headers"])
def test_a_dripping_receiver_is_cut_at_the_deadline(receiver: Receiver, headers: bool) -> None:
    # A byte every 0.5 s never trips a 2 s socket timeout; the try's deadline cuts it.
    receiver.answer(drip=["slow"], every=0.5, drip_headers=headers)
    s = sender(receiver)
    began = time.monotonic()
    out = s.send("slow.1.0", BODY)
    took = time.monotonic() - began
    assert (out.result, out.reason) == ("failed", "no whole answer within 2 s"), out
    assert 1.9 < took < 3.0, took
    s.close()


def test_an_answer_cut_off_after_a_200_is_a_failed_try(receiver: Receiver) -> None:
    receiver.answer(cut=["slow"])
    out = sender(receiver).send("slow.1.0", BODY)
    assert out.result == "failed" and "IncompleteRead" in out.reason, out
    receiver.answer()
    assert sender(receiver).send("slow.1.0", BODY).result == "delivered"


def test_an_answer_longer_than_the_bound_is_not_read_and_fails(receiver: Receiver) -> None:
    receiver.answer(long=["slow"])
    out = sender(receiver).send("slow.1.0", BODY)
    assert out.result == "failed" and f"longer than {MAX_ANSWER_BYTES} bytes" in out.reason


def test_a_kept_connection_serves_the_next_try(receiver: Receiver) -> None:
    s = sender(receiver)
    assert s.send("s.1.0", BODY).result == "delivered"
    (kept,) = s._idle["127.0.0.1"]
    assert s.send("s.2.0", BODY).result == "delivered"
    assert s._idle["127.0.0.1"] == [kept]  # the same connection, kept again
    receiver.answer(cut=["slow"])
    assert s.send("s.3.0", BODY).result == "failed"
    assert s._idle["127.0.0.1"] == []  # a failed try's connection is closed
    s.close()


@pytest.mark.redis
@pytest.mark.slow
def test_a_dripping_receiver_of_one_session_does_not_hold_back_another(
    tmp_path: Any, request: pytest.FixtureRequest
) -> None:
    """Two deliverers, the default 5 s deadline, a claim after 6 s: the slow session's
    receiver drips a byte every 3 s. Before the deadline, every retry and every claim
    took another deliverer until none was left; now the slow session holds one at most,
    and the other session's webhooks arrive within 5 s of its start, 15 s in."""
    receiver = Receiver(tmp_path)
    url = store_url("redis", request)
    assert url is not None
    port = free_port()
    d = Deployment(url, receiver, WEBHOOK_TIMEOUT_SECONDS="5", NOTIFIER_CLAIM_SECONDS="6",
                   NOTIFIER_LEASE_SECONDS="12", NOTIFIER_CONCURRENCY="2",
                   NOTIFIER_METRICS_PORT=str(port))  # fmt: skip
    try:
        api = d.api()
        d.worker()
        slow, _ = started(api)
        receiver.answer(drip=[slow], every=3)
        wait_until(lambda: [r for r in receiver.requests() if r["answer"] == "drip"], 10)
        time.sleep(15)
        began = time.monotonic()
        fast, _ = started(api)
        wait_until(lambda: len(receiver.delivered(fast)) >= 3, 5)  # joined, started, turn
        assert time.monotonic() - began < 5
        assert receiver.delivered(slow) == []
        tries = [r for r in receiver.requests() if r["answer"] == "drip"]
        assert len(tries) >= 3  # cut at 5 s and tried again, not held
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
            assert r.status == 200  # each try ends at its deadline: nothing is stuck
    finally:
        for log in d.close():
            assert "Traceback" not in log, log
        receiver.stop()


@pytest.mark.redis
def test_an_undecodable_outbox_entry_is_a_dead_letter_and_the_next_goes_on(
    receiver: Receiver, request: pytest.FixtureRequest
) -> None:
    env = {"REDIS_URL": str(store_url("redis", request)), "WEBHOOK_URL": receiver.url,
           "WEBHOOK_SECRET": SECRET, "WEBHOOK_ALLOW_HTTP": "on", "WEBHOOK_ALLOW_PRIVATE": "on",
           "SESSION_KEY_PREFIX": f"u{uuid.uuid4().hex[:8]}:", "WEBHOOK_WARNING_SECONDS": "0",
           "SESSION_START_GRACE_SECONDS": "0", "IDENTITY_ASSERTION_KEY": IDENTITY_KEY}  # fmt: skip
    app = make_app({"TESTING": True, **env})
    from tests.sessions.conftest import Api

    sid, _ = started(Api(app.test_client()))
    store = app.extensions["sessions"].store
    key = K.outbox_key(store.prefix, sid)
    good = store.outbox(sid)
    assert len(good) == 3
    bad = good[0].partition(b"\n")[0] + b"\n\xff\xfe not UTF-8"
    store.router.on_slot(key, lambda c: c.lset(key, 0, bad))
    worker = Worker(NotifierSettings.load(env), SessionConfig.load(env))
    worker.queue.ensure_group()
    try:
        results = []
        for _ in range(3):
            worker.poll()
            for message in worker.queue.read("t", 10, 100):
                results.append(worker.deliver(message))
        assert results == ["dead", "delivered", "delivered"]
        (letter,) = [d for d in worker.queue.dead_letters() if d["sid"] == sid]
        assert "cannot be decoded" in letter["reason"]
        assert store.outbox(sid) == []
        assert [w["id"] for w in receiver.delivered(sid)] == [
            e.partition(b"\n")[0].decode() for e in good[1:]
        ]
        # The health check: a try under way past its deadline (and the slack) is stuck.
        assert worker.healthy() and worker.stuck() == []
        worker.trying["w-3"] = time.monotonic() - (2 * 5.0 + 31)
        assert worker.stuck() == ["w-3"] and not worker.healthy()
    finally:
        worker.stop()
