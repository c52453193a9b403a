"""A gunicorn worker warms before it takes traffic (``service.warmup``, run by
``post_worker_init``): its first session read opens no connection and asks a cluster
for no slot table, and a worker whose Redis is down still starts."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from service import create_app, observability
from service.sessions.memory import MemoryStore
from service.warmup import warm
from tests.hardening.served import served
from tests.ops.test_gunicorn_serves import server, wait_for_healthz
from tests.redis_procs import free_port
from tests.sessions.conftest import Api, store_url

#: What a cluster client asks when it learns the slots (or the commands' keys).
DISCOVERY = ("cmdstat_cluster|slots", "cmdstat_cluster|shards", "cmdstat_cluster|nodes")


def node_ports(url: str) -> list[int]:
    hosts = url.split("://", 1)[1].split("/", 1)[0]
    return [int(hostport.rsplit(":", 1)[1]) for hostport in hosts.split(",")]


def counts(nodes: list[redis.Redis]) -> tuple[int, int]:
    """Connections the servers accepted, and the slot-table requests they answered."""
    accepted = asked = 0
    for n in nodes:
        info: dict[str, Any] = n.info("stats")  # type: ignore[assignment]
        accepted += int(info["total_connections_received"])
        stats: dict[str, Any] = n.info("commandstats")  # type: ignore[assignment]
        asked += sum(int(stats[name]["calls"]) for name in DISCOVERY if name in stats)
    return accepted, asked


@pytest.fixture(params=["redis", "cluster"])
def url(request: pytest.FixtureRequest) -> Iterator[str]:
    found = store_url(str(request.param), request)
    assert found is not None
    yield found


@pytest.mark.redis
def test_a_warmed_worker_reads_a_session_first_without_a_new_connection(url: str) -> None:
    prefix = f"w{uuid.uuid4().hex[:6]}:"
    app = create_app({"REDIS_URL": url, "SESSION_KEY_PREFIX": prefix})
    body = Api(app.test_client()).create("uno_classic", 2, seed=7).get_json()
    app.extensions["sessions"].store.close()
    sid, token = body["session_id"], body["seats"][0]["token"]
    nodes = [redis.Redis(port=p) for p in node_ports(url)]
    try:
        # No match sweeper: its own client would connect in the background.
        with served(url, SESSION_KEY_PREFIX=prefix, MATCH_SWEEP_SECONDS="0") as s:
            before = counts(nodes)
            status, read = s.call("GET", f"/v1/sessions/{sid}", Authorization=f"Bearer {token}")
            assert status == 200 and read["session_id"] == sid
            status, _ = s.call("GET", f"/v1/sessions/{sid}/record", Authorization=f"Bearer {token}")
            assert status == 200
            assert counts(nodes) == before
    finally:
        for n in nodes:
            n.close()


def test_a_worker_whose_redis_is_down_starts_answers_healthz_and_says_so_once() -> None:
    down = f"redis://127.0.0.1:{free_port()}/0"
    env = {"REDIS_URL": down, "MATCH_SWEEP_SECONDS": "0", "LOG_LEVEL": "warning"}
    with server("gevent", 1, env, stdout=-3) as (conf, proc):
        port = conf["PORT"]
        assert wait_for_healthz(f"http://127.0.0.1:{port}/healthz", proc) == 200
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=10)
        assert refused.value.code == 503
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    said = [
        line for line in err.splitlines() if "warm-up: the session store cannot be reached" in line
    ]
    assert len(said) == 1, err[-3000:]
    assert '"level":"error"' in said[0]


class _Stuck(MemoryStore):
    """A store whose warm-up hangs until released."""

    def __init__(self) -> None:
        super().__init__(60, 100)
        self.unblock = threading.Event()

    def warm(self) -> None:
        self.unblock.wait(30)


def test_the_warm_up_never_holds_the_worker_past_its_timeout() -> None:
    store = _Stuck()
    app = create_app({"SESSION_STORE": store})
    try:
        assert warm(app, 0.05) is False
    finally:
        store.unblock.set()


def _requests_counted() -> float:
    return sum(
        sample.value
        for metric in observability.REQUESTS.collect()
        for sample in metric.samples
        if sample.name.endswith("_total")
    )


def test_the_warm_up_reads_through_the_app_and_is_not_counted() -> None:
    app = create_app()
    counted = _requests_counted()
    assert warm(app, 10) is True
    assert _requests_counted() == counted
    assert Api(app.test_client()).c.get("/v1/sessions/nobody-here").status_code == 404
    assert _requests_counted() == counted + 1


def test_a_store_that_cannot_be_reached_leaves_the_worker_cold(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = create_app({"REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"})
    try:
        assert warm(app, 10) is False
    finally:
        app.extensions["sessions"].store.close()
    said = [r for r in caplog.records if "cannot be reached" in r.getMessage()]
    assert len(said) == 1 and said[0].levelname == "ERROR"
