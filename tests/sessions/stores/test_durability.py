"""``REDIS_MIN_REPLICAS``: with 1, no move answered 200 is lost when a primary dies and
its replica takes over; with 0 (the default) the same failover loses the moves its
replica had not got. On one Redis with a replica and on a three-master cluster with a
replica each, with real servers: a replica cut off (its link closed, then SIGSTOP) makes
moves on its primary answer 503 ``store_unavailable``; the primary SIGKILLed and the
replica promoted (``REPLICAOF NO ONE``; ``CLUSTER FAILOVER TAKEOVER``), every move
answered 200 is still there and every session's move log and record replay; and a
503'd move retried with its Idempotency-Key is made exactly once, whether the failover
lost it or its primary kept it (then its stored answer is replayed)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import pytest
from flask import Flask

import engine
from service.redis.client import sentinel_parts
from service.sessions import config
from service.sessions.config import SessionConfig
from service.sessions.models import Meta
from tests.redis_procs import (
    LocalCluster,
    LocalSentinel,
    RedisServer,
    cut_off,
    free_port,
    need_redis_server,
)
from tests.sessions.api.test_contract import first_move, mover, two_humans
from tests.sessions.conftest import Api, make_app, problem, replay_record

pytestmark = [pytest.mark.redis]

#: The replicas' wait: short, so a cut-off replica's 503 comes fast.
WAIT_MS = 200
#: The sessions' seed (``two_humans``): the test replays their records from it.
SEED = 7
DOC = Path(__file__).resolve().parents[3] / "docs" / "redis-durability.md"


def durable_app(url: str, min_replicas: int, prefix: str = "d:") -> Flask:
    return make_app(
        {
            "REDIS_URL": url,
            "REDIS_MIN_REPLICAS": min_replicas,
            "REDIS_WAIT_TIMEOUT_MS": WAIT_MS,
            "SESSION_RETRY_AFTER": 2,
            "SESSION_KEY_PREFIX": prefix,
        }
    )


class Game:
    """A two-person session and the moves answered 200 on it, in order."""

    def __init__(self, api: Api) -> None:
        self.sid, self.tokens, _ = two_humans(api)
        self.acked: list[dict[str, Any]] = []
        self.refused: list[tuple[int, dict[str, Any], int, str]] = []

    def move(self, api: Api, key: str | None = None) -> Any:
        """The mover's first legal move (with ``key``): kept in ``acked`` when 200, in
        ``refused`` (seat, move, version, key) when 503."""
        seat, body = mover(api, self.sid, self.tokens)
        move, version = first_move(body), body["version"]
        key = key or uuid.uuid4().hex
        r = api.move(self.sid, self.tokens[seat], move, version, idem=key)
        if r.status_code == 200:
            self.acked.append(move)
        elif r.status_code == 503:
            self.refused.append((seat, move, version, key))
        return r

    def retry(self, api: Api) -> Any:
        """The first 503'd move again, with its key (until the store serves it)."""
        seat, move, version, key = self.refused[0]
        return until_served(lambda: api.move(self.sid, self.tokens[seat], move, version, key))

    def logged(self, app: Flask) -> list[dict[str, Any]]:
        """The session's move log: every move replays from the seed to its state, and
        its record (seed and nonce filled in) replays to that state too."""
        store = app.extensions["sessions"].store
        moves = [orjson.loads(raw)["move"] for raw in store.moves(self.sid)]
        loaded = store.load(self.sid)
        assert loaded is not None
        state, _ = engine.start("uno_classic", 2, SEED)
        for move in moves:
            state, _ = engine.apply(state, move)
        assert engine.to_dict(state) == orjson.loads(loaded.state)
        api = Api(app.test_client())
        record = api.c.get(f"/v1/sessions/{self.sid}/record", headers=api.auth(self.tokens[0]))
        assert record.status_code == 200, record.get_data(as_text=True)
        # The seed and the game's nonce filled in (both hidden while the game runs).
        rec = record.get_json()
        rec["seed_commitment"] = {
            **rec["seed_commitment"],
            "nonce": Meta.from_json(loaded.meta).seed_nonce,
        }
        replayed = replay_record(api.c, {**rec, "seed": str(SEED)})
        assert replayed.status_code == 200, replayed.get_data(as_text=True)
        assert replayed.get_json()["state"] == orjson.loads(loaded.state)
        return moves


def answered(resp: Any, status: int) -> None:
    assert resp.status_code == status, resp.get_data(as_text=True)


def until_served(call: Any, timeout: float = 20) -> Any:
    """``call()`` until it is not a 503 (the client finding the promoted replica)."""
    deadline = time.monotonic() + timeout
    while (resp := call()).status_code == 503 and time.monotonic() < deadline:
        time.sleep(0.1)
    return resp


def test_the_settings_are_read_and_checked() -> None:
    defaults = SessionConfig.load({})
    for name, value in (
        ("REDIS_MIN_REPLICAS", defaults.redis_min_replicas),
        ("REDIS_WAIT_TIMEOUT_MS", defaults.redis_wait_timeout_ms),
    ):  # the two tables that name them agree with the code
        assert f"| ``{name}`` | {value} |" in (config.__doc__ or "")
        assert f"| `{name}` | {value} |" in DOC.read_text()
    assert (defaults.redis_min_replicas, defaults.redis_wait_timeout_ms) == (0, 500)
    loaded = SessionConfig.load({"REDIS_MIN_REPLICAS": "1", "REDIS_WAIT_TIMEOUT_MS": "250"})
    assert (loaded.redis_min_replicas, loaded.redis_wait_timeout_ms) == (1, 250)
    assert SessionConfig.load({"REDIS_MIN_REPLICAS": "0"}).redis_min_replicas == 0
    with pytest.raises(ValueError, match="REDIS_MIN_REPLICAS must be 0 or more"):
        SessionConfig.load({"REDIS_MIN_REPLICAS": "-1"})
    with pytest.raises(ValueError, match="REDIS_WAIT_TIMEOUT_MS must be positive"):
        SessionConfig.load({"REDIS_WAIT_TIMEOUT_MS": "0"})  # WAIT 0 would wait for ever


# ---------------------------------------------------------------- one Redis with a replica
@pytest.fixture
def pair() -> Iterator[tuple[RedisServer, RedisServer]]:
    """A primary and its replica, of their own (the failover ends them)."""
    need_redis_server()
    primary = RedisServer(free_port())
    primary.start()
    replica = RedisServer(free_port(), replica_of=primary)
    try:
        replica.start()
        yield primary, replica
    finally:
        replica.stop()
        primary.stop()


def test_a_stopped_replica_makes_moves_503_and_the_retry_replays_the_stored_move(
    pair: tuple[RedisServer, RedisServer],
) -> None:
    primary, replica = pair
    app = durable_app(primary.url, 1)
    api = Api(app.test_client())
    game, leaver = Game(api), Game(api)
    # A session still waiting for a seat: its host may delete it (a running one, no).
    waiting = api.create("uno_classic", [{"name": "host"}, {"open": True}])
    answered(waiting, 201)
    answered(game.move(api), 200)
    replica.pause()
    try:
        refused = game.move(api, "retry-me")
        problem(refused, 503, "store_unavailable")
        assert refused.headers["Retry-After"] == "2"
        assert game.refused
        # Every other change waits for the replica too.
        problem(api.create("uno_classic", 2), 503, "store_unavailable")
        problem(api.leave(leaver.sid, leaver.tokens[1]), 503, "store_unavailable")
        host = waiting.get_json()
        problem(api.delete(host["session_id"], host["token"]), 503, "store_unavailable")
        # Made on the primary, not confirmed: another process, whose read finds the
        # stored answer (not the commit), does not replay it either.
        other = durable_app(primary.url, 1)
        seat, move, version, key = game.refused[0]
        again = Api(other.test_client()).move(game.sid, game.tokens[seat], move, version, key)
        problem(again, 503, "store_unavailable")
        assert len(game.logged(app)) == 2  # the primary has it (2 moves), unconfirmed
    finally:
        replica.resume()
    for client in (api, Api(other.test_client())):
        r = game.retry(client)
        answered(r, 200)
        assert r.headers["Idempotent-Replayed"] == "true"
    assert game.logged(app) == [*game.acked, move]  # once
    for each in (app, other):
        each.extensions["sessions"].store.close()


@pytest.mark.parametrize("min_replicas", [1, 0])
def test_a_failover_of_one_redis_loses_no_acknowledged_move(
    pair: tuple[RedisServer, RedisServer], min_replicas: int
) -> None:
    primary, replica = pair
    app = durable_app(primary.url, min_replicas)
    api = Api(app.test_client())
    games = [Game(api) for _ in range(3)]
    for game in games:
        answered(game.move(api), 200)
    before = [list(g.acked) for g in games]
    cut = replica.client()
    main = primary.client()
    try:
        cut_off(cut, replica.pid, main)
    finally:
        main.close()
    for game in games:
        answered(game.move(api), 503 if min_replicas else 200)
    primary.crash()
    replica.resume()
    cut.execute_command("REPLICAOF", "NO", "ONE")
    cut.close()
    promoted = durable_app(replica.url, min_replicas)
    logs = [g.logged(promoted) for g in games]
    assert logs == before  # what the replica had when it was cut off
    lost = [g.acked[len(log) :] for g, log in zip(games, logs, strict=True)]
    if min_replicas:
        assert lost == [[], [], []]
    else:  # the loss REDIS_MIN_REPLICAS exists to prevent
        assert all(len(moves) == 1 for moves in lost), lost
    for a in (app, promoted):
        a.extensions["sessions"].store.close()


# ---------------------------------------------------------------- one Redis with Sentinel
def test_through_sentinel_the_promoted_replica_is_found_and_no_move_is_lost(
    watched: tuple[RedisServer, list[RedisServer], LocalSentinel],
) -> None:
    """``REDIS_URL=redis+sentinel://.../uno`` and ``REDIS_MIN_REPLICAS=1``: the primary
    SIGKILLed, the Sentinel promotes a replica and points the other at it, and the same
    app, told nothing, finds the new primary: a move is 503 until then (retried with its
    Idempotency-Key: made once), then 200; no move answered 200 is lost and every
    session's move log and record replay."""
    primary, replicas, sentinel = watched
    app = durable_app(sentinel.url, 1)
    api = Api(app.test_client())
    games = [Game(api) for _ in range(3)]
    for game in games:
        answered(game.move(api), 200)
    primary.crash()
    deadline = time.monotonic() + 30
    while sentinel.primary_port() == primary.port and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sentinel.primary_port() in {r.port for r in replicas}
    for game in games:
        until_served(partial(api.get, game.sid, game.tokens[0]), 30)
        seat, body = mover(api, game.sid, game.tokens)
        move, key = first_move(body), uuid.uuid4().hex
        made = partial(api.move, game.sid, game.tokens[seat], move, body["version"], key)
        answered(until_served(made, 30), 200)
        game.acked.append(move)
    for game in games:
        assert game.logged(app) == game.acked  # every move answered 200, each once
    app.extensions["sessions"].store.close()


def test_a_sentinel_url_is_read_and_a_wrong_one_refused_at_start() -> None:
    hosts, service, auth, db = sentinel_parts(
        "redis+sentinel://u:p%40ss@h1:26379,[::1]:26380/uno?db=2"
    )
    assert (hosts, service, auth, db) == (
        [("h1", 26379), ("::1", 26380)],
        "uno",
        {"username": "u", "password": "p@ss"},
        2,
    )
    for url, says in (
        ("redis+sentinel://h1:26379", "service"),
        ("redis+sentinel://h1:26379/a/b", "service"),
        ("redis+sentinel://h1/uno", "host:port"),
        ("redis+sentinel://h1:26379/uno?db=x", "db"),
        ("redis+sentinel://h1:26379/uno?ssl=1", "db"),
        ("memcached://h1:11211", "scheme"),
    ):
        with pytest.raises(ValueError, match=says):
            durable_app(url, 0)


# ---------------------------------------------------------------- a cluster, a replica each
@pytest.fixture
def replicated_cluster() -> Iterator[LocalCluster]:
    """Three masters with a replica each, of their own (the failover ends one master)."""
    need_redis_server()
    cluster = LocalCluster(3, replicas=1)
    cluster.start()
    yield cluster
    cluster.stop()


def home(app: Flask, cluster: LocalCluster, sid: str) -> int:
    """The index of the master that holds the session's slot."""
    node = app.extensions["sessions"].store.redis.get_node_from_key(f"x{{{sid}}}")
    return cluster.ports.index(node.port)


@pytest.mark.cluster
@pytest.mark.parametrize("min_replicas", [1, 0])
def test_a_cluster_failover_loses_no_acknowledged_move(
    replicated_cluster: LocalCluster, min_replicas: int
) -> None:
    cluster = replicated_cluster
    app = durable_app(cluster.url, min_replicas)
    api = Api(app.test_client())
    games = [Game(api) for _ in range(9)]
    while len({home(app, cluster, g.sid) for g in games}) < 2:  # odds 3 * (1/3)**9
        games.append(Game(api))
    for game in games:
        answered(game.move(api), 200)
    victim = home(app, cluster, games[0].sid)
    on_victim = [home(app, cluster, g.sid) == victim for g in games]
    replica = cluster.replica_of(victim)
    cluster.cut_off(replica)
    # The victim's sessions: 503 when a replica must have the move (none answers 200);
    # the other masters' sessions (their replicas are up): 200.
    for game, there in zip(games, on_victim, strict=True):
        r = game.move(api)
        if there and min_replicas:
            problem(r, 503, "store_unavailable")
            assert r.headers["Retry-After"] == "2"
        else:
            answered(r, 200)
    cluster.crash(victim)
    cluster.resume(replica)
    cluster.failover(replica, how="TAKEOVER")
    lost = []
    for game, there in zip(games, on_victim, strict=True):
        answered(until_served(lambda game=game: api.get(game.sid)), 200)
        logged = game.logged(app)
        assert logged == game.acked[: len(logged)]
        lost.append(game.acked[len(logged) :])
        if not there:
            assert lost[-1] == []
    if not min_replicas:  # the loss REDIS_MIN_REPLICAS exists to prevent
        assert lost == [[g.acked[-1]] if on else [] for g, on in zip(games, on_victim, strict=True)]
    else:
        assert not any(lost), lost
        # The old master comes back as the new one's replica: the 503'd moves (lost by
        # the failover, as the logs above show), retried with their keys, are made once
        # each; a retry after that is answered with the stored answer.
        cluster.restart(victim)
        for game in (g for g, there in zip(games, on_victim, strict=True) if there):
            first = game.retry(api)
            answered(first, 200)
            again = game.retry(api)
            answered(again, 200)
            assert again.headers["Idempotent-Replayed"] == "true"
            assert again.get_data() == first.get_data()
            assert game.logged(app) == [*game.acked, game.refused[0][1]]
    app.extensions["sessions"].store.close()
