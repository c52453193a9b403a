"""RATE_LIMIT: 429 rate_limited with Retry-After per client, in process or in Redis."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
import redis
from flask.testing import FlaskClient

from service.ratelimit import Limit, RedisWindow
from tests.platform.conftest import MakeApp
from tests.sessions.conftest import RedisServer, free_port, need_redis_server

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


def test_clients_are_counted_apart(make_app: MakeApp) -> None:
    client = make_app(RATE_LIMIT="2/minute").test_client()
    for _ in range(2):
        assert client.get("/v1/variants", headers=bearer("alice")).status_code == 200
    assert_limited(client.get("/v1/variants", headers=bearer("alice")), 2, 60)
    # Another token, and no token (the remote address), each have their own budget.
    assert client.get("/v1/variants", headers=bearer("bob")).status_code == 200
    assert client.get("/v1/variants").status_code == 200
    other = {"REMOTE_ADDR": "10.1.2.3"}
    assert client.get("/v1/variants", environ_base=other).status_code == 200


def test_a_new_window_lets_the_client_in_again(make_app: MakeApp) -> None:
    app = make_app(RATE_LIMIT="1/second")
    client = app.test_client()
    limiter = app.extensions["rate_limiter"]
    now = [1000.25]
    limiter._clock = lambda: now[0]
    assert client.get("/v1/variants").status_code == 200
    resp = client.get("/v1/variants")
    assert resp.status_code == 429 and resp.headers["Retry-After"] == "1"
    now[0] = 1001.0
    assert client.get("/v1/variants").status_code == 200


# ---------------------------------------------------------------- Redis
@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    need_redis_server()
    server = RedisServer(free_port())
    server.start()
    yield server.url
    server.stop()


def test_redis_shares_the_count_between_workers(make_app: MakeApp, redis_url: str) -> None:
    """Two apps (two workers or replicas) on one Redis: one budget per client."""
    first = make_app(RATE_LIMIT="3/minute", REDIS_URL=redis_url, SESSION_KEY_PREFIX="rl-test:")
    second = make_app(RATE_LIMIT="3/minute", REDIS_URL=redis_url, SESSION_KEY_PREFIX="rl-test:")
    backend = first.extensions["rate_limiter"].backend
    assert isinstance(backend, RedisWindow)
    a: FlaskClient = first.test_client()
    b: FlaskClient = second.test_client()
    token = f"shared-{time.time_ns()}"
    codes = [c.get("/v1/variants", headers=bearer(token)).status_code for c in (a, b, a)]
    assert codes == [200, 200, 200]
    assert_limited(b.get("/v1/variants", headers=bearer(token)), 3, 60)
    # The key is hash-tagged on the client (never the raw token) and expires.
    r = redis.Redis.from_url(redis_url)
    keys = [k.decode() for k in r.scan_iter("uno:rl:*")]
    assert keys and all(token not in k for k in keys)
    ours = [k for k in keys if int(r.get(k) or 0) == 4]
    assert len(ours) == 1 and ours[0].startswith("uno:rl:{t:")
    assert 0 < r.ttl(ours[0]) <= 61


def dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_dead_redis_fails_open_and_fast(make_app: MakeApp) -> None:
    url = f"redis://127.0.0.1:{dead_port()}/0"
    client = make_app(RATE_LIMIT="1/minute", REDIS_URL=url).test_client()
    started = time.perf_counter()
    codes = [client.get("/v1/variants").status_code for _ in range(20)]
    elapsed = time.perf_counter() - started
    assert codes == [200] * 20
    assert elapsed < 5, elapsed  # one failed try, then Redis is left alone for a while


def test_redis_comes_back_after_the_backoff() -> None:
    class Flaky:
        def __init__(self) -> None:
            self.down = True
            self.calls = 0
            self.n = 0

        def pipeline(self, transaction: bool = True) -> Flaky:
            return self

        def incr(self, key: str) -> None:
            pass

        def expire(self, key: str, seconds: int) -> None:
            pass

        def execute(self) -> list[int]:
            self.calls += 1
            if self.down:
                raise redis.ConnectionError("down")
            self.n += 1
            return [self.n, 1]

    now = [0.0]
    client = Flaky()
    window = RedisWindow(client, backoff=5, clock=lambda: now[0])
    assert window.hit("c", 1, 60) is None  # fails open
    assert window.hit("c", 1, 60) is None and client.calls == 1  # not asked in the backoff
    client.down = False
    now[0] = 6.0
    assert window.hit("c", 1, 60) == 1 and client.calls == 2
