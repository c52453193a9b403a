"""Streams without a cap (issue 37, case 3): 2,000 anonymous streams on two workers
timed every other request out, held a Redis connection each and left 5,322 idle
connections open after they ended.

Now a client holds at most ``SESSION_STREAMS_PER_CLIENT`` streams (429
``too_many_streams``) and a worker at most ``SESSION_STREAMS_PER_WORKER`` (503
``streams_full``), both with ``Retry-After`` and given back when a stream ends; the
Redis pool is bounded (``REDIS_MAX_CONNECTIONS``) and its idle connections are closed
after the streams end."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask import Flask

from service.redis.client import make_client
from tests.hardening.conftest import ISSUE_37_CPU_BUDGET, cost, created
from tests.sessions.conftest import Api, problem


def game(app: Flask) -> str:
    api = Api(app.test_client())
    body = created(api.create("uno_classic", [{"name": "Ann"}, {"bot": True}]))
    return str(body["session_id"])


class Held:
    """A stream held open by the client at ``address`` until ``release`` (asked and read
    in a thread of its own: a streamed answer is read where it was asked)."""

    def __init__(self, app: Flask, sid: str, address: str, seconds: float = 10) -> None:
        self.client = app.test_client()
        self.client.environ_base["REMOTE_ADDR"] = address
        self.url = f"/v1/sessions/{sid}/stream?timeout={seconds}"
        self.resp: Any = None
        self.opened = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._read)
        self.thread.start()
        assert self.opened.wait(10), "no answer"

    def _read(self) -> None:
        self.resp = self.client.get(self.url, buffered=False)
        self.opened.set()
        try:
            if self.resp.status_code == 200:
                for _ in self.resp.response:
                    if self.stop.is_set():
                        break
        finally:
            self.resp.close()

    def release(self) -> None:
        self.stop.set()
        self.thread.join(15)


@pytest.fixture
def app(make: Callable[..., Flask]) -> Flask:
    return make(
        SESSION_STREAMS_PER_CLIENT="2",
        SESSION_STREAMS_PER_WORKER="4",
        SESSION_HEARTBEAT_SECONDS="0.1",
    )


def test_a_client_holds_so_many_streams(app: Flask) -> None:
    sid = game(app)
    held = [Held(app, sid, "10.0.0.66") for _ in range(2)]
    try:
        assert all(h.resp.status_code == 200 for h in held)
        mallory = app.test_client()
        mallory.environ_base["REMOTE_ADDR"] = "10.0.0.66"
        third, cpu = cost(lambda: mallory.get(f"/v1/sessions/{sid}/stream?timeout=10"))
        problem(third, 429, "too_many_streams")
        assert third.headers["Retry-After"].isdigit() and cpu < ISSUE_37_CPU_BUDGET
        other = Held(app, sid, "10.0.0.2")
        assert other.resp.status_code == 200
        other.release()
    finally:
        held[0].release()
    again = Held(app, sid, "10.0.0.66")  # the ended stream's place
    assert again.resp.status_code == 200
    again.release()
    held[1].release()


def test_a_worker_holds_so_many_streams(app: Flask) -> None:
    sid = game(app)
    held = [Held(app, sid, f"10.0.1.{i}") for i in range(4)]
    try:
        assert all(h.resp.status_code == 200 for h in held)
        full = Held(app, sid, "10.0.2.1").resp
        problem(full, 503, "streams_full")
        assert full.headers["Retry-After"].isdigit()
        assert Api(app.test_client()).get(sid).status_code == 200  # other requests go on
    finally:
        for h in held:
            h.release()
    later = Held(app, sid, "10.0.2.1")
    assert later.resp.status_code == 200
    later.release()


@pytest.mark.redis
def test_the_redis_pool_is_bounded(redis_server: Any) -> None:
    """One server: a ``BlockingConnectionPool`` of ``max_connections``; a command that
    finds them all in use waits up to the timeout, then fails (a 503), instead of
    opening one more."""
    client = make_client(redis_server.url, timeout=0.2, max_connections=2)
    pool = client.connection_pool
    assert isinstance(pool, redis.BlockingConnectionPool) and pool.max_connections == 2
    held = [pool.get_connection() for _ in range(2)]
    started = time.monotonic()
    with pytest.raises(redis.ConnectionError):
        client.ping()
    assert 0.15 < time.monotonic() - started < 2
    for c in held:
        pool.release(c)
    assert client.ping()
    client.close()


@pytest.mark.redis
def test_idle_connections_are_closed_after_the_streams_end(
    make: Callable[..., Flask], store_kind: str, redis_server: Any
) -> None:
    """Twenty streams at once (each holds a connection, their reads take more), then
    they end: the worker's connections go back to (about) where they were."""
    if store_kind != "redis":
        pytest.skip("the in-process store has no connections")
    app = make(SESSION_STREAMS_PER_CLIENT="50", SESSION_HEARTBEAT_SECONDS="0.05")
    sid = game(app)
    watch: Any = redis.Redis.from_url(redis_server.url)

    def clients() -> int:
        return len(watch.client_list())

    before = clients()
    # Long enough that all twenty are open at once on a busy machine.
    held = [Held(app, sid, f"10.0.3.{i}", seconds=3) for i in range(20)]
    assert all(h.resp.status_code == 200 for h in held)
    during = clients()
    for h in held:
        h.thread.join(15)
    after = clients()
    watch.close()
    # ``before`` counts the connection the game was made on, idle in the pool: one of
    # the twenty streams takes it rather than opening one more.
    assert during >= before + 19, (before, during)
    assert after <= before + 3, (before, during, after)
