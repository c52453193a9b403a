"""The move's EVALSHA path (``_Scripts``): what redis-py's ``Script`` did for it still
holds: a flushed script cache, a killed connection, a fork."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis

from service.sessions.redis_store import RedisStore, _Scripts
from tests.sessions.conftest import Api, RedisServer, make_app
from tests.sessions.test_contract import first_move, mover, two_humans


@pytest.fixture
def api(redis_server: RedisServer) -> Iterator[Api]:
    app = make_app(
        {"REDIS_URL": redis_server.url, "SESSION_KEY_PREFIX": f"s{uuid.uuid4().hex[:6]}:"}
    )
    yield Api(app.test_client())
    app.extensions["sessions"].store.close()


def _play(api: Api, sid: str, toks: list[str], version: int) -> int:
    seat, body = mover(api, sid, toks)
    r = api.move(sid, toks[seat], first_move(body), version)
    assert r.status_code == 200, r.get_data(as_text=True)
    return int(r.get_json()["version"])


def test_a_flushed_script_cache_is_reloaded(api: Api, redis_server: RedisServer) -> None:
    sid, toks, _ = two_humans(api)
    v = _play(api, sid, toks, 1)
    r = redis.Redis.from_url(redis_server.url)
    r.script_flush()
    r.close()
    v = _play(api, sid, toks, v)
    assert _play(api, sid, toks, v) == v + 1


def test_killed_connections_reconnect(api: Api, redis_server: RedisServer) -> None:
    sid, toks, _ = two_humans(api)
    v = _play(api, sid, toks, 1)
    r = redis.Redis.from_url(redis_server.url)
    r.client_kill_filter(_type="normal", skipme=True)
    r.close()
    v = _play(api, sid, toks, v)
    assert _play(api, sid, toks, v) == v + 1


def test_a_script_error_keeps_the_connection_usable(redis_server: RedisServer) -> None:
    client = redis.Redis.from_url(redis_server.url)
    scripts = _Scripts(client)
    bad = client.register_script("return redis.error_reply('boom')")
    good = client.register_script("return {ARGV[1], KEYS[1]}")
    with pytest.raises(redis.ResponseError, match="boom"):
        scripts.evalsha(bad, [], [])
    assert scripts.evalsha(good, ["k"], [7]) == [b"7", b"k"]
    assert len(scripts._free) == 1
    scripts.close()
    client.close()


def test_the_store_uses_one_connection_per_concurrent_move(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url, prefix=f"c{uuid.uuid4().hex[:6]}:")
    store.create("sid12345", b"{}", b"{}", [b"{}"])
    for v in (1, 2, 3):
        assert store.commit("sid12345", v, b"{}", [b"{}"]).status == "ok"
    assert len(store._scripts._free) == 1
    assert store.commit("sid12345", 1, b"{}", []).status == "conflict"
    store.close()
