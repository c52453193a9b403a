"""What only Redis shows: several processes on one Redis or on the cluster, a Redis that
dies and comes back, the key layout, and one round trip per move."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask

from service.sessions.redis_store import RedisStore
from tests.sessions.conftest import (
    Api,
    LocalCluster,
    RedisServer,
    first_move,
    free_port,
    make_app,
    mover,
    need_redis_server,
    two_humans,
)
from tests.sessions.conftest import problem as expect_problem


def node_clients(url: str, request: pytest.FixtureRequest) -> list[redis.Redis]:
    """A plain client per Redis process behind ``url`` (every master of the cluster)."""
    if url.startswith("redis+cluster://"):
        cluster: LocalCluster = request.getfixturevalue("redis_cluster")
        return [cluster.node(i) for i in range(len(cluster.ports))]
    return [redis.Redis.from_url(url)]


def session_keys(sid: str, url: str, request: pytest.FixtureRequest) -> dict[str, redis.Redis]:
    """Every key naming the session, on whichever node holds it."""
    found: dict[str, redis.Redis] = {}
    for r in node_clients(url, request):
        for k in r.scan_iter(match=f"*{{{sid}}}*", count=1000):
            found[k.decode()] = r
    return found


def test_a_replica_with_an_old_cache_reloads_and_applies(replicas: tuple[Api, Api]) -> None:
    a, b = replicas
    sid, toks, _ = two_humans(a)
    seat, body = mover(b, sid, toks)  # b caches version 1
    assert a.move(sid, toks[seat], first_move(body), 1).status_code == 200
    seat, body = mover(a, sid, toks)
    # b's cache says 1, the client says 2: b reads the session again and applies.
    r = b.move(sid, toks[seat], first_move(body), 2)
    assert r.status_code == 200, r.get_data(as_text=True)
    assert r.get_json()["version"] == 3
    assert a.get(sid).get_json()["version"] == 3


def test_a_replica_with_a_stale_cache_loses_the_compare_and_set(replicas: tuple[Api, Api]) -> None:
    a, b = replicas
    sid, toks, _ = two_humans(a)
    seat, body = mover(b, sid, toks)
    move = first_move(body)
    assert a.move(sid, toks[seat], move, 1).status_code == 200
    # b's cache still says version 1, and so does the client: Redis refuses the write.
    p = expect_problem(b.move(sid, toks[seat], move, 1), 412, "version_mismatch")
    assert p["current_version"] == 2
    log = a.events(sid).get_json()
    assert [e["seq"] for e in log["events"]] == list(range(1, log["last_event"] + 1))


def test_idempotent_retries_on_another_replica_apply_once(replicas: tuple[Api, Api]) -> None:
    a, b = replicas
    sid, toks, _ = two_humans(a)
    seat, body = mover(b, sid, toks)
    move = first_move(body)
    first = a.move(sid, toks[seat], move, 1, idem="k")
    again = b.move(sid, toks[seat], move, 1, idem="k")  # b's cache is at version 1
    assert again.status_code == 200 and again.get_data() == first.get_data()
    assert a.get(sid).get_json()["version"] == 2


def test_keys_are_hash_tagged_per_session_and_expire(
    redis_url: str, replicas: tuple[Api, Api], request: pytest.FixtureRequest
) -> None:
    a, _ = replicas
    sid, toks, _ = two_humans(a)
    seat, body = mover(a, sid, toks)
    a.move(sid, toks[seat], first_move(body), 1, idem="x")
    keys = session_keys(sid, redis_url, request)
    assert len(keys) == 8
    assert all(f"{{{sid}}}:" in k for k in keys)
    kinds = {k.rsplit(":", 1)[1]: k for k in keys}
    assert set(kinds) == {"state", "meta", "events", "idem", "idemq", "moves", "seen", "pieces"}
    assert len({id(r) for r in keys.values()}) == 1  # one node: the session's slot
    for k, r in keys.items():
        ttl: Any = r.pttl(k)
        assert 0 < ttl <= 3600_000, k
    r = keys[kinds["events"]]
    assert r.type(kinds["events"]) == b"stream" and r.type(kinds["idem"]) == b"hash"
    assert r.type(kinds["idemq"]) == b"list" and r.type(kinds["moves"]) == b"list"
    assert r.type(kinds["seen"]) == b"hash"  # presence: seat -> last seen
    # Deleting (DELETE's store call) leaves nothing of the session behind.
    assert a.c.application.extensions["sessions"].store.delete(sid)
    assert session_keys(sid, redis_url, request) == {}


def test_a_move_is_one_round_trip_in_the_steady_state(redis_url: str) -> None:
    """One packet per move, to the one Redis or to the node of the session's slot (the
    first move of a process may load the script: the second is counted)."""
    app = make_app({"REDIS_URL": redis_url, "SESSION_KEY_PREFIX": f"rt{uuid.uuid4().hex[:6]}:"})
    a = Api(app.test_client())
    sid, toks, _ = two_humans(a)
    seat, body = mover(a, sid, toks)
    assert a.move(sid, toks[seat], first_move(body), 1).status_code == 200
    seat, body = mover(a, sid, toks)
    store: RedisStore = a.c.application.extensions["sessions"].store
    home = store.redis.get_node_from_key(store._keys(sid)[0]) if store.cluster else None
    calls: list[tuple[int, Any]] = []
    conn_cls = redis.Connection  # the class of every client's connections here (no TLS)
    original = conn_cls.send_packed_command

    def counting(self: Any, command: Any, check_health: bool = True) -> None:
        calls.append((self.port, command))
        original(self, command, check_health)

    conn_cls.send_packed_command = counting  # type: ignore[method-assign]
    try:
        r = a.move(sid, toks[seat], first_move(body), 2)
    finally:
        conn_cls.send_packed_command = original  # type: ignore[method-assign]
    assert r.status_code == 200
    assert len(calls) == 1 and b"EVALSHA" in b"".join(
        c if isinstance(c, bytes) else b"".join(c) for _, c in calls
    )
    if home is not None:
        assert calls[0][0] == home.port
    store.close()


@pytest.fixture
def durable_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A dedicated redis-server with append-only persistence (fsync always)."""
    need_redis_server()
    server = RedisServer(free_port(), persist=tmp_path)
    server.start()
    yield server
    server.stop()


def test_redis_killed_mid_game_is_503_then_recovers_with_no_state_lost(
    durable_redis: RedisServer,
) -> None:
    app: Flask = make_app({"REDIS_URL": durable_redis.url, "SESSION_RETRY_AFTER": 2})
    api = Api(app.test_client())
    sid, toks, _ = two_humans(api)
    seat, body = mover(api, sid, toks)
    assert api.move(sid, toks[seat], first_move(body), 1).status_code == 200
    seat, body = mover(api, sid, toks)
    before = api.get(sid, toks[seat]).get_json()

    durable_redis.stop()
    for resp in (
        api.get(sid, toks[seat]),
        api.move(sid, toks[seat], first_move(body), 2),
        api.events(sid),
        api.create(),
        api.c.get(f"/v1/sessions/{sid}/stream?timeout=0.2"),
    ):
        expect_problem(resp, 503, "store_unavailable")
        assert resp.headers["Retry-After"] == "2"
    assert api.c.get("/readyz").status_code == 503
    assert api.c.get("/healthz").status_code == 200
    assert api.c.get("/v1/variants").status_code == 200

    durable_redis.start()
    assert api.c.get("/readyz").status_code == 200
    after = api.get(sid, toks[seat]).get_json()
    assert after == before
    r = api.move(sid, toks[seat], first_move(body), 2)
    assert r.status_code == 200 and r.get_json()["version"] == 3
    log = api.events(sid).get_json()
    assert [e["seq"] for e in log["events"]] == list(range(1, log["last_event"] + 1))
    app.extensions["sessions"].store.close()


def test_a_dead_redis_fails_fast(durable_redis: RedisServer) -> None:
    import time

    app = make_app({"REDIS_URL": durable_redis.url})
    api = Api(app.test_client())
    sid, _, _ = two_humans(api)
    durable_redis.stop()
    t0 = time.monotonic()
    expect_problem(api.get(sid), 503, "store_unavailable")
    assert time.monotonic() - t0 < 2.0
    app.extensions["sessions"].store.close()


def test_the_store_parses_replies_with_hiredis(redis_url: str) -> None:
    """redis-py's C parser and packer (the ``redis[hiredis]`` extra of the lock): a session
    move costs 18% fewer instructions with it, so an install that lost it is a failure."""
    from redis._parsers import _HiredisParser

    store = RedisStore(redis_url, prefix=f"h{uuid.uuid4().hex[:6]}:")
    try:
        client = store.redis
        assert client.ping()
        pools = (
            [node.redis_connection.connection_pool for node in client.get_nodes()]
            if store.cluster
            else [client.connection_pool]
        )
        assert pools
        for pool in pools:
            conn = pool.get_connection()
            try:
                assert isinstance(conn._parser, _HiredisParser), type(conn._parser)
            finally:
                pool.release(conn)
    finally:
        store.close()
