"""RATE_LIMIT: 429 rate_limited with Retry-After per client (its address, never an
unvalidated token or header), in process, on one Redis and on the Redis Cluster."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.ratelimit import Limit
from tests.platform.conftest import MakeApp
from tests.redis_procs import LocalCluster, LocalSentinel, RedisServer, free_port, need_redis_server

PROBLEM = "application/problem+json"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def assert_limited(resp: object, limit: int, seconds: int) -> None:
    assert resp.status_code == 429, resp.get_data(as_text=True)  # type: ignore[attr-defined]
    assert resp.mimetype == PROBLEM  # type: ignore[attr-defined]
    body = resp.get_json()  # type: ignore[attr-defined]
    assert body["code"] == "rate_limited" and body["status"] == 429
    assert f"more than {limit} requests in {seconds} s" in body["detail"]
    retry = int(resp.headers["Retry-After"])  # type: ignore[attr-defined]
    assert 1 <= retry <= seconds
    assert resp.headers["X-Request-ID"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("spec", "limit"),
    [
        ("600/minute", Limit(600, 60)),
        ("10/second", Limit(10, 1)),
        ("5 / 10s", Limit(5, 10)),
        ("1000/hour", Limit(1000, 3600)),
        ("50000/day", Limit(50000, 86400)),
        ("20/2m", Limit(20, 120)),
        ("off", None),
        ("", None),
        (None, None),
    ],
)
def test_the_setting_is_parsed(spec: str | None, limit: Limit | None) -> None:
    assert Limit.parse(spec) == limit


@pytest.mark.parametrize("spec", ["600", "ten/minute", "5/fortnight", "0/minute", "5/0s"])
def test_a_wrong_setting_is_refused_at_start(make_app: MakeApp, spec: str) -> None:
    with pytest.raises(ValueError, match="RATE_LIMIT"):
        make_app(RATE_LIMIT=spec)


@pytest.mark.parametrize("hops", ["-1", "one", "17", "1.5"])
def test_a_wrong_proxy_count_is_refused_at_start(make_app: MakeApp, hops: str) -> None:
    with pytest.raises(ValueError, match="TRUSTED_PROXIES"):
        make_app(RATE_LIMIT="5/minute", TRUSTED_PROXIES=hops)


def test_no_limit_by_default(make_app: MakeApp) -> None:
    app = make_app()
    assert "rate_limiter" not in app.extensions
    client = app.test_client()
    assert all(client.get("/v1/variants").status_code == 200 for _ in range(300))


def test_429_after_the_limit_with_retry_after(make_app: MakeApp) -> None:
    client = make_app(RATE_LIMIT="5/minute").test_client()
    codes = [client.get("/v1/variants").status_code for _ in range(5)]
    assert codes == [200] * 5
    assert_limited(client.get("/v1/variants"), 5, 60)
    # Other endpoints share the client's budget; probes, metrics and docs do not count.
    assert client.post("/v1/games", json={}).status_code == 429
    docs = ("/docs/", "/docs/rules", "/docs/rules/uno_classic")
    for path in ("/healthz", "/readyz", "/metrics", "/openapi.yaml", *docs):
        assert client.get(path).status_code == 200, path


def test_the_limit_comes_from_the_environment(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATE_LIMIT", "2/minute")
    client = make_app().test_client()
    assert [client.get("/v1/variants").status_code for _ in range(3)] == [200, 200, 429]


def invented(n: int) -> list[dict[str, str]]:
    """Headers a hostile client would rotate: a new bearer token and a new
    X-Forwarded-For each time."""
    return [
        {
            "Authorization": f"Bearer made-up-{i}-{uuid.uuid4().hex}",
            "X-Forwarded-For": f"203.0.113.{i}",
        }
        for i in range(n)
    ]


def statuses(client: FlaskClient, headers: list[dict[str, str]], **kw: Any) -> list[int]:
    return [client.get("/v1/variants", headers=h, **kw).status_code for h in headers]


def test_invented_tokens_and_forwarded_for_buy_nothing_per_worker(make_app: MakeApp) -> None:
    client = make_app(RATE_LIMIT="5/minute").test_client()
    codes = statuses(client, invented(20))
    assert codes == [200] * 5 + [429] * 15
    # Another address has its own budget.
    other = {"REMOTE_ADDR": "10.1.2.3"}
    assert client.get("/v1/variants", environ_base=other).status_code == 200


def test_a_session_seat_token_does_not_buy_requests_either(make_app: MakeApp) -> None:
    client = make_app(RATE_LIMIT="3/minute").test_client()
    r = client.post("/v1/sessions", json={"variant": "uno_classic", "players": 2})
    assert r.status_code == 201
    body = r.get_json()
    sid, token = body["session_id"], body["seats"][0]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    codes = [client.get(f"/v1/sessions/{sid}", headers=auth).status_code for _ in range(3)]
    assert codes == [200, 200, 429]  # the create counted: one address, one budget
    assert client.get("/v1/variants").status_code == 429


def test_behind_trusted_proxies_the_client_is_the_address_they_saw(make_app: MakeApp) -> None:
    """TRUSTED_PROXIES=1: the last X-Forwarded-For entry (the one our proxy appended) is
    the client; entries the client wrote itself before it change nothing."""
    client = make_app(RATE_LIMIT="2/minute", TRUSTED_PROXIES=1).test_client()
    proxy = {"REMOTE_ADDR": "10.0.0.1"}
    spoofed = [{"X-Forwarded-For": f"198.51.100.{i}, 192.0.2.7"} for i in range(6)]
    assert statuses(client, spoofed, environ_base=proxy) == [200, 200, 429, 429, 429, 429]
    # Two real clients behind the same proxy are counted apart.
    assert statuses(client, [{"X-Forwarded-For": "192.0.2.8"}] * 3, environ_base=proxy) == [
        200, 200, 429,
    ]  # fmt: skip
    # No header: the proxy's own address.
    assert statuses(client, [{}] * 3, environ_base=proxy) == [200, 200, 429]


def test_without_trusted_proxies_forwarded_for_is_ignored(make_app: MakeApp) -> None:
    client = make_app(RATE_LIMIT="2/minute").test_client()
    headers = [{"X-Forwarded-For": f"192.0.2.{i}"} for i in range(4)]
    assert statuses(client, headers) == [200, 200, 429, 429]


def test_a_new_window_lets_the_client_in_again(make_app: MakeApp) -> None:
    client = make_app(RATE_LIMIT="1/second").test_client()
    t0 = time.monotonic()
    assert client.get("/v1/variants").status_code == 200  # the window starts here
    resp = client.get("/v1/variants")
    assert resp.status_code == 429 and resp.headers["Retry-After"] == "1"
    time.sleep(max(0.0, t0 + 1.05 - time.monotonic()))
    assert client.get("/v1/variants").status_code == 200


# ---------------------------------------------------------------- Redis and the cluster
@pytest.fixture(params=["redis", "cluster"])
def shared_url(request: pytest.FixtureRequest) -> str:
    if request.param == "redis":
        return str(request.getfixturevalue("redis_server").url)
    cluster: LocalCluster = request.getfixturevalue("redis_cluster")
    return cluster.seed_url


def scan(url: str, request: pytest.FixtureRequest, pattern: str) -> dict[str, redis.Redis]:
    if url.startswith("redis+cluster://"):
        cluster: LocalCluster = request.getfixturevalue("redis_cluster")
        clients = [cluster.node(i) for i in range(len(cluster.ports))]
    else:
        clients = [redis.Redis.from_url(url)]
    return {k.decode(): r for r in clients for k in r.scan_iter(match=pattern, count=1000)}


def test_the_count_is_shared_through_redis(
    make_app: MakeApp, shared_url: str, request: pytest.FixtureRequest
) -> None:
    """Two apps (two workers or replicas) on one Redis or the cluster: one budget per
    address, whatever tokens and X-Forwarded-For headers the client invents."""
    prefix = f"rl{uuid.uuid4().hex[:6]}:"
    config = {"RATE_LIMIT": "3/minute", "REDIS_URL": shared_url, "RATE_LIMIT_KEY_PREFIX": prefix}
    first: Flask = make_app(**config)
    second: Flask = make_app(**config)
    a, b = first.test_client(), second.test_client()
    addr = {"REMOTE_ADDR": f"10.9.{time.time_ns() % 200}.{time.time_ns() % 250}"}
    tries = invented(8)
    codes = [(a, b)[i % 2].get("/v1/variants", headers=h, environ_base=addr).status_code
             for i, h in enumerate(tries)]  # fmt: skip
    assert codes == [200, 200, 200] + [429] * 5
    assert_limited(b.get("/v1/variants", environ_base=addr), 3, 60)
    # The keys are under the prefix, name no token, and expire.
    keys = scan(shared_url, request, f"{prefix}*")
    assert keys
    for k, r in keys.items():
        assert "made-up" not in k and addr["REMOTE_ADDR"] in k
        ttl: Any = r.ttl(k)
        assert 0 < ttl <= 61


def test_a_dead_store_counts_per_worker_and_says_so(
    make_app: MakeApp, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    client = make_app(RATE_LIMIT="2/minute", REDIS_URL=url).test_client()
    started = time.perf_counter()
    codes = statuses(client, invented(10))
    elapsed = time.perf_counter() - started
    assert codes == [200, 200] + [429] * 8  # the limit holds, counted in this worker
    assert elapsed < 5, elapsed
    err = capsys.readouterr().err
    assert "falling back to in-memory storage" in err
    line = next(x for x in err.splitlines() if "falling back" in x)
    assert '"request_id"' in line


def test_the_shared_count_comes_back_with_redis(
    make_app: MakeApp, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    need_redis_server()
    server = RedisServer(free_port())
    server.start()
    prefix = f"rb{uuid.uuid4().hex[:6]}:"
    app = make_app(RATE_LIMIT="1000/minute", REDIS_URL=server.url, RATE_LIMIT_KEY_PREFIX=prefix)
    client = app.test_client()
    try:
        assert client.get("/v1/variants").status_code == 200
        server.stop()
        assert client.get("/v1/variants").status_code == 200  # per worker now
        server.start()  # empty: the shared count starts again
        r = redis.Redis.from_url(server.url)
        deadline = time.monotonic() + 10
        while not list(r.scan_iter(match=f"{prefix}*")) and time.monotonic() < deadline:
            assert client.get("/v1/variants").status_code == 200
            time.sleep(0.2)
        assert list(r.scan_iter(match=f"{prefix}*")), "the limiter never went back to Redis"
        r.close()
        assert "Rate limit storage recovered" in capsys.readouterr().err
    finally:
        server.stop()


def test_a_cluster_down_at_start_counts_per_worker_and_says_so(
    make_app: MakeApp, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"redis+cluster://127.0.0.1:{free_port()}"
    client = make_app(RATE_LIMIT="2/minute", REDIS_URL=url).test_client()
    assert statuses(client, invented(4)) == [200, 200, 429, 429]
    err = capsys.readouterr().err
    assert "unreachable at start" in err and "per worker, in memory" in err


def limiter_storage(app: Flask) -> Any:
    """The redis-py client the app's limiter counts with."""
    return app.extensions["rate_limiter"]._storage.storage


def test_a_worker_holds_at_most_its_bound_of_connections_to_one_redis(
    make_app: MakeApp, redis_server: RedisServer
) -> None:
    """RATE_LIMIT_MAX_CONNECTIONS=3, one Redis held still for 0.3 s (CLIENT PAUSE) while
    24 requests arrive at once: each check waits for one of the 3 connections (a
    ``BlockingConnectionPool``), none opens a fourth, and every request is answered 200,
    counted in Redis (no fall back to memory). Unbounded, each waiting check opened one."""
    prefix = f"rl{uuid.uuid4().hex[:6]}:"
    app = make_app(
        RATE_LIMIT="1000/minute", REDIS_URL=redis_server.url, RATE_LIMIT_KEY_PREFIX=prefix,
        RATE_LIMIT_MAX_CONNECTIONS="3", REDIS_TIMEOUT_SECONDS="2",
    )  # fmt: skip
    pool = limiter_storage(app).connection_pool
    assert isinstance(pool, redis.BlockingConnectionPool) and pool.max_connections == 3
    admin = redis.Redis.from_url(redis_server.url)
    admin.execute_command("CLIENT", "PAUSE", "300", "WRITE")
    codes: list[int] = []

    def call() -> None:
        codes.append(app.test_client().get("/v1/variants").status_code)

    threads = [threading.Thread(target=call) for _ in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert codes == [200] * 24
    assert 1 <= len(pool._connections) <= 3
    assert not app.extensions["rate_limiter"]._storage_dead
    (key,) = [k for k in admin.scan_iter(match=f"{prefix}*")]
    count: Any = admin.get(key)
    assert int(count) == 24


def test_a_worker_holds_at_most_its_bound_of_connections_to_each_cluster_node(
    make_app: MakeApp, redis_cluster: LocalCluster
) -> None:
    app = make_app(
        RATE_LIMIT="1000/minute", REDIS_URL=redis_cluster.seed_url,
        RATE_LIMIT_MAX_CONNECTIONS="3",
    )  # fmt: skip
    assert app.test_client().get("/v1/variants").status_code == 200
    nodes = limiter_storage(app).get_nodes()
    assert nodes and all(n.redis_connection.connection_pool.max_connections == 3 for n in nodes)


@pytest.mark.parametrize("bound", ["0", "-1", "many", "10001"])
def test_a_wrong_connection_bound_is_refused_at_start(make_app: MakeApp, bound: str) -> None:
    with pytest.raises(ValueError, match="RATE_LIMIT_MAX_CONNECTIONS"):
        make_app(
            RATE_LIMIT="10/minute",
            RATE_LIMIT_MAX_CONNECTIONS=bound,
            REDIS_URL="redis://127.0.0.1:1/0",
        )


def test_the_count_is_shared_through_sentinels_primary(make_app: MakeApp) -> None:
    """``REDIS_URL=redis+sentinel://.../uno``: the limiter finds the primary through the
    Sentinel as the sessions do, and counts there."""
    need_redis_server()
    primary = RedisServer(free_port())
    primary.start()
    sentinel = LocalSentinel(free_port(), primary, replicas=0)
    try:
        sentinel.start()
        prefix = f"rl{uuid.uuid4().hex[:6]}:"
        config = {"RATE_LIMIT": "3/minute", "REDIS_URL": sentinel.url,
                  "RATE_LIMIT_KEY_PREFIX": prefix, "RATE_LIMIT_MAX_CONNECTIONS": "5"}  # fmt: skip
        a, b = make_app(**config).test_client(), make_app(**config).test_client()
        codes = [(a, b)[i % 2].get("/v1/variants").status_code for i in range(5)]
        assert codes == [200, 200, 200, 429, 429]
        keys = list(primary.client().scan_iter(match=f"{prefix}*"))
        assert len(keys) == 1
    finally:
        sentinel.stop()
        primary.stop()
