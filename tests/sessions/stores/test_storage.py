"""What a session costs the store, and a store that cannot take a write.

- Idempotent answers are bounded per session on every store (the most recent
  ``SESSION_IDEMPOTENCY_KEYS``): a recent retry replays, an evicted one is judged as a
  new request (412, the version has moved on), on memory, Redis and the cluster alike.
- A keyed 300-move session keeps well under 64 KiB outside its event stream in Redis
  (``MEMORY USAGE`` of each key) and leaves no key after ``DELETE``.
- A Redis full under ``noeviction``, or read-only: ``/readyz`` is 503, a move is 503
  ``store_unavailable`` with ``Retry-After`` and an error log naming the cause, and
  both are 200 again when the store can write.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask import Flask

from service.sessions.store import IDEMPOTENCY_KEYS
from tests.sessions.conftest import (
    Api,
    LocalCluster,
    RedisServer,
    first_move,
    free_port,
    make_app,
    mover,
    need_redis_server,
    problem,
    store_config,
    two_humans,
)
from tests.support import spec_document

MOVES = 300


def play_keyed(api: Api, sid: str, toks: list[str], moves: int) -> list[tuple[Any, ...]]:
    """``moves`` moves, each with its own Idempotency-Key; (key, seat, move, if-match, body)."""
    done: list[tuple[Any, ...]] = []
    version = 1
    for i in range(moves):
        seat, body = mover(api, sid, toks)
        if body["view"]["phase"] == "game_over":
            break
        move = first_move(body)
        r = api.move(sid, toks[seat], move, version, idem=f"key-{i}")
        assert r.status_code == 200, r.get_data(as_text=True)
        done.append((f"key-{i}", seat, move, version, r.get_data()))
        version += 1
    return done


def test_idempotent_answers_are_bounded_alike_on_every_store(api: Api, app: Flask) -> None:
    store = app.extensions["sessions"].store
    assert store.max_idem == IDEMPOTENCY_KEYS
    sid, toks, _ = two_humans(api)
    done = play_keyed(api, sid, toks, IDEMPOTENCY_KEYS + 8)
    assert len(done) == IDEMPOTENCY_KEYS + 8
    # The most recent ones replay, byte for byte.
    for key, seat, move, version, body in done[-IDEMPOTENCY_KEYS:][::7]:
        r = api.move(sid, toks[seat], move, version, idem=key)
        assert r.status_code == 200 and r.headers["Idempotent-Replayed"] == "true"
        assert r.get_data() == body
    # The oldest are gone: the retry is a new request on an old version.
    for key, seat, move, version, _ in done[:8]:
        problem(api.move(sid, toks[seat], move, version, idem=key), 412, "version_mismatch")
    loaded = store.load(sid, f"{done[0][1]}:x")
    assert loaded is not None and loaded.version == len(done) + 1


@pytest.fixture(params=["redis", "cluster"])
def redis_app(request: pytest.FixtureRequest) -> Iterator[Flask]:
    app = make_app(store_config(str(request.param), request))
    yield app
    app.extensions["sessions"].store.close()


def node_clients(app: Flask, request: pytest.FixtureRequest) -> list[redis.Redis]:
    store = app.extensions["sessions"].store
    if store.cluster:
        cluster: LocalCluster = request.getfixturevalue("redis_cluster")
        return [cluster.node(i) for i in range(len(cluster.ports))]
    return [redis.Redis.from_url(app.config["REDIS_URL"])]


def test_a_keyed_300_move_session_stays_small_and_delete_leaves_nothing(
    redis_app: Flask, request: pytest.FixtureRequest
) -> None:
    api = Api(redis_app.test_client())
    sid, toks, _ = two_humans(api)
    done = play_keyed(api, sid, toks, MOVES)
    assert len(done) == MOVES
    keys: dict[str, int] = {}
    ttls: dict[str, int] = {}
    owner: dict[str, redis.Redis] = {}
    for r in node_clients(redis_app, request):
        for k in r.scan_iter(match=f"*{{{sid}}}*", count=1000):
            keys[k.decode()] = int(r.memory_usage(k, samples=0) or 0)  # type: ignore[arg-type]
            ttls[k.decode()] = int(r.pttl(k))  # type: ignore[arg-type]
            owner[k.decode()] = r
    assert len(keys) == 8, keys  # with :seen (presence) and :pieces, written by the moves
    assert all(0 < t <= 3600_000 for t in ttls.values()), ttls
    logs = (":events", ":moves", ":pieces")
    outside = sum(n for k, n in keys.items() if not k.endswith(logs))
    assert outside < 52 * 1024, keys  # well under 64 KiB, whatever the number of moves
    # The move log grows with the game, by a small entry a move (bounded by the limit).
    (moves,) = (n for k, n in keys.items() if k.endswith(":moves"))
    assert moves < 128 * MOVES, keys
    (pieces,) = (n for k, n in keys.items() if k.endswith(":pieces"))
    assert pieces < 160 * MOVES, keys  # the record's pieces: an entry a move, in step
    (idem,) = (k for k in keys if k.endswith(":idem"))
    r = owner[idem]
    assert r.hlen(idem) == IDEMPOTENCY_KEYS and r.llen(idem + "q") == IDEMPOTENCY_KEYS
    assert redis_app.extensions["sessions"].store.delete(sid)  # what DELETE does
    left = [k for c in node_clients(redis_app, request) for k in c.scan_iter(match=f"*{{{sid}}}*")]
    assert left == []


# ---------------------------------------------------------------- a store that cannot write
@pytest.fixture
def small_redis() -> Iterator[RedisServer]:
    """A redis-server with ``maxmemory`` and ``noeviction`` (the recommended policy)."""
    need_redis_server()
    server = RedisServer(
        free_port(), args=["--maxmemory", "4mb", "--maxmemory-policy", "noeviction"]
    )
    server.start()
    yield server
    server.stop()


def fill(r: redis.Redis) -> int:
    """Make Redis full: 1 MiB of ballast, then ``maxmemory`` 256 KiB under what is used
    (so small fluctuations of client buffers cannot make room). Deleting the ballast
    makes room again. The bytes used."""
    for n in range(16):
        r.set(f"ballast:{n}", b"x" * 65536)
    info: Any = r.info("memory")
    used = int(info["used_memory"])
    r.config_set("maxmemory", used - 256 * 1024)
    with pytest.raises(redis.exceptions.OutOfMemoryError):
        r.set("probe", b"x")
    return used


def errors(text: str) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in text.splitlines() if x.startswith("{")]
    return [d for d in lines if d["level"] == "error"]


def test_a_full_redis_is_not_ready_and_moves_are_503_until_it_has_room(
    small_redis: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    app = make_app({"REDIS_URL": small_redis.url, "SESSION_RETRY_AFTER": 3})
    api = Api(app.test_client())
    sid, toks, _ = two_humans(api)
    seat, body = mover(api, sid, toks)
    r = redis.Redis.from_url(small_redis.url)
    assert api.c.get("/readyz").status_code == 200
    assert fill(r) > 0
    ping: Any = r.ping()
    assert ping is True  # PING still works: a ping-only readiness would say ready

    ready = api.c.get("/readyz")
    assert ready.status_code == 503 and ready.get_json()["sessions"]["ok"] is False
    capsys.readouterr()
    resp = api.move(sid, toks[seat], first_move(body), 1)
    problem(resp, 503, "store_unavailable")
    assert resp.headers["Retry-After"] == "3"
    logged = errors(capsys.readouterr().err)
    assert any("OutOfMemoryError" in e["message"] and e.get("request_id") for e in logged)
    problem(api.create(), 503, "store_unavailable")
    # Reads still work: the players can see the game.
    assert api.get(sid, toks[seat]).get_json()["version"] == 1

    for k in r.scan_iter(match="ballast:*"):
        r.delete(k)
    assert api.c.get("/readyz").status_code == 200
    moved = api.move(sid, toks[seat], first_move(body), 1)
    assert moved.status_code == 200 and moved.get_json()["version"] == 2
    r.close()
    app.extensions["sessions"].store.close()


def test_a_read_only_replica_is_not_ready_until_promoted(
    small_redis: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    app = make_app({"REDIS_URL": small_redis.url})
    api = Api(app.test_client())
    sid, toks, _ = two_humans(api)
    seat, body = mover(api, sid, toks)
    r = redis.Redis.from_url(small_redis.url)
    r.replicaof("127.0.0.1", str(free_port()))  # a replica of nothing: read-only, keeps data
    try:
        assert api.c.get("/readyz").status_code == 503
        capsys.readouterr()
        problem(api.move(sid, toks[seat], first_move(body), 1), 503, "store_unavailable")
        assert any("ReadOnlyError" in e["message"] for e in errors(capsys.readouterr().err))
    finally:
        r.replicaof("NO", "ONE")
    assert api.c.get("/readyz").status_code == 200
    assert api.move(sid, toks[seat], first_move(body), 1).status_code == 200
    r.close()
    app.extensions["sessions"].store.close()


def test_the_bound_is_stated_once() -> None:
    """The sessions page and the settings table say the bound the code uses."""
    import service.sessions.config as config
    from tests.docs_pages import page

    assert f"answers of its {IDEMPOTENCY_KEYS} most recent" in page("sessions.md")
    assert f"``SESSION_IDEMPOTENCY_KEYS`` | {IDEMPOTENCY_KEYS} |" in (config.__doc__ or "")
    assert config.SessionConfig().max_idem == IDEMPOTENCY_KEYS


def test_the_store_kinds_are_the_ones_the_api_description_names() -> None:

    from service.sessions.memory import MemoryStore
    from service.sessions.redis_store import RedisStore

    spec = spec_document()
    prop = spec["components"]["schemas"]["Readiness"]["properties"]["sessions"]["properties"]
    assert set(prop["store"]["enum"]) == {
        MemoryStore.kind, RedisStore.kind, RedisStore.CLUSTER_KIND, None,
    }  # fmt: skip
