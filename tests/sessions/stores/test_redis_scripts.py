"""The scripts are redis-py's ``register_script``, on one Redis and on the cluster: a
flushed script cache is reloaded, killed connections reconnect, a conflict is no error."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis

from service.sessions.redis_store import RedisStore
from service.sessions.store import CommitRequest
from tests.sessions.conftest import (
    Api,
    LocalCluster,
    first_move,
    make_app,
    mover,
    store_url,
    two_humans,
)


@pytest.fixture(params=["redis", "cluster"])
def url(request: pytest.FixtureRequest) -> str:
    found = store_url(str(request.param), request)
    assert found is not None
    return found


@pytest.fixture
def api(url: str) -> Iterator[Api]:
    app = make_app({"REDIS_URL": url, "SESSION_KEY_PREFIX": f"s{uuid.uuid4().hex[:6]}:"})
    yield Api(app.test_client())
    app.extensions["sessions"].store.close()


def nodes(url: str, request: pytest.FixtureRequest) -> list[redis.Redis]:
    """A plain client per Redis process behind ``url``."""
    if url.startswith("redis+cluster://"):
        cluster: LocalCluster = request.getfixturevalue("redis_cluster")
        return [cluster.node(i) for i in range(len(cluster.ports))]
    return [redis.Redis.from_url(url)]


def _play(api: Api, sid: str, toks: list[str], version: int) -> int:
    seat, body = mover(api, sid, toks)
    r = api.move(sid, toks[seat], first_move(body), version)
    assert r.status_code == 200, r.get_data(as_text=True)
    return int(r.get_json()["version"])


def test_a_flushed_script_cache_is_reloaded(
    api: Api, url: str, request: pytest.FixtureRequest
) -> None:
    sid, toks, _ = two_humans(api)
    v = _play(api, sid, toks, 1)
    for r in nodes(url, request):
        r.script_flush()
        r.close()
    v = _play(api, sid, toks, v)
    assert _play(api, sid, toks, v) == v + 1
    assert api.delete(sid, toks[0]).status_code == 204


def test_killed_connections_reconnect(api: Api, url: str, request: pytest.FixtureRequest) -> None:
    sid, toks, _ = two_humans(api)
    v = _play(api, sid, toks, 1)
    for r in nodes(url, request):
        r.client_kill_filter(_type="normal", skipme=True)
        r.close()
    v = _play(api, sid, toks, v)
    assert _play(api, sid, toks, v) == v + 1


def test_the_store_runs_its_scripts_through_redis_py(url: str) -> None:
    store = RedisStore(url, prefix=f"c{uuid.uuid4().hex[:6]}:")
    store.create("sid12345", b"{}", b"{}", [b"{}"])
    for v in (1, 2, 3):
        assert store.commit(CommitRequest("sid12345", v, b"{}", [b"{}"])).status == "ok"
    assert store.commit(CommitRequest("sid12345", 1, b"{}", [])).status == "conflict"
    assert set(store.router.scripts) == {"create", "commit"}
    assert all(isinstance(s, redis.commands.core.Script) for s in store.router.scripts.values())
    assert store.delete("sid12345") is True
    store.close()
