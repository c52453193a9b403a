"""Fixtures: a real ``redis-server`` and a real three-master Redis Cluster on free
loopback ports (started once for the whole run, stopped at its end), the app on each
of the three stores (in process, one Redis, the cluster), and a small client for the
session API.

``redis-server`` missing: the Redis parts fail when ``CI`` is set (the test command
installs it) and are skipped with the reason otherwise.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import create_app
from tests.redis_procs import LocalCluster, RedisServer, free_port, need_redis_server

# The redis_server and redis_cluster fixtures (one of each per run) are in tests/conftest.py.
__all__ = ["LocalCluster", "RedisServer", "free_port", "need_redis_server"]


#: The stores every session test runs on; "cluster" is given one seed node only.
STORES = ["memory", "redis", "cluster"]


def store_url(kind: str, request: pytest.FixtureRequest) -> str | None:
    if kind == "redis":
        return str(request.getfixturevalue("redis_server").url)
    if kind == "cluster":
        return str(request.getfixturevalue("redis_cluster").seed_url)
    return None


def make_app(config: dict[str, Any]) -> Flask:
    """The service's app, sessions included, with ``config``."""
    return create_app(config)


def store_config(kind: str, request: pytest.FixtureRequest, **extra: Any) -> dict[str, Any]:
    config: dict[str, Any] = {"TESTING": True, **extra}
    url = store_url(kind, request)
    if url is not None:
        config["REDIS_URL"] = url
        config["SESSION_KEY_PREFIX"] = f"t{uuid.uuid4().hex[:8]}:"
    return config


@pytest.fixture(params=["redis", "cluster"])
def redis_url(request: pytest.FixtureRequest) -> str:
    """One Redis, then the cluster (given one seed node)."""
    url = store_url(str(request.param), request)
    assert url is not None
    return url


@pytest.fixture
def replicas(redis_url: str) -> Iterator[tuple[Api, Api]]:
    """Two apps (two service replicas) on the same Redis (or cluster) and key prefix."""
    config = {"REDIS_URL": redis_url, "SESSION_KEY_PREFIX": f"r{uuid.uuid4().hex[:6]}:"}
    a, b = make_app(dict(config)), make_app(dict(config))
    yield Api(a.test_client()), Api(b.test_client())
    for app in (a, b):
        app.extensions["sessions"].store.close()


@pytest.fixture(params=STORES)
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


#: ``SESSION_REPLICAS=2``: on Redis and the cluster, the ``client`` of every session
#: test spreads its requests over two apps (two replicas, a process cache each) on one
#: store and key prefix, the second app on the first's clock (the production shape,
#: in process; docs/development.md). A test that reads or changes one app's internals
#: (its settings, store object, calls made in it; the clock is shared) is marked
#: ``one_process`` and runs on one app.
REPLICAS = int(os.environ.get("SESSION_REPLICAS", "1"))


class SpreadClient(FlaskClient):
    """A test client whose requests go to its app and ``others`` in turn."""

    others: list[FlaskClient]
    turn = 0

    @classmethod
    def over(cls, app: Flask, others: list[Flask]) -> SpreadClient:
        """A client of ``app`` and ``others`` (``app.test_client()`` stays plain)."""
        spread = cls(app, app.response_class, use_cookies=True)
        spread.others = [other.test_client() for other in others]
        return spread

    def open(self, *args: Any, **kwargs: Any) -> Any:
        self.turn += 1
        pick = self.turn % (len(self.others) + 1)
        if pick == 0:
            return super().open(*args, **kwargs)
        return self.others[pick - 1].open(*args, **kwargs)


@pytest.fixture
def app(store_kind: str, request: pytest.FixtureRequest) -> Iterator[Flask]:
    config = store_config(store_kind, request)
    app = make_app(dict(config))
    spread = "REDIS_URL" in config and not request.node.get_closest_marker("one_process")
    others = [make_app(dict(config)) for _ in range(REPLICAS - 1)] if spread else []
    for other in others:
        first = app.extensions["sessions"].env
        other.extensions["sessions"].env.now = lambda first=first: first.now()
    app.extensions["replicas"] = others
    yield app
    for each in (app, *others):
        each.extensions["sessions"].store.close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    others = app.extensions.get("replicas") or []
    if not others:
        return app.test_client()
    return SpreadClient.over(app, others)


class Api:
    """The session endpoints, with the headers spelled once."""

    def __init__(self, client: FlaskClient) -> None:
        self.c = client

    @staticmethod
    def auth(token: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"} if token else {}

    def create(self, variant: str = "uno_classic", players: Any = 2, **kw: Any) -> Any:
        return self.c.post("/v1/sessions", json={"variant": variant, "players": players, **kw})

    def get(self, sid: str, token: str | None = None) -> Any:
        return self.c.get(f"/v1/sessions/{sid}", headers=self.auth(token))

    def legal(self, sid: str, token: str | None) -> Any:
        return self.c.get(f"/v1/sessions/{sid}/legal-moves", headers=self.auth(token))

    def move(
        self,
        sid: str,
        token: str | None,
        move: dict[str, Any],
        version: int | str | None,
        idem: str | None = None,
    ) -> Any:
        headers = self.auth(token)
        if version is not None:
            headers["If-Match"] = f'"{version}"' if isinstance(version, int) else version
        if idem is not None:
            headers["Idempotency-Key"] = idem
        return self.c.post(f"/v1/sessions/{sid}/moves", json={"move": move}, headers=headers)

    def leave(self, sid: str, token: str | None) -> Any:
        return self.c.post(f"/v1/sessions/{sid}/leave", headers=self.auth(token))

    def events(self, sid: str, token: str | None = None, after: int = 0) -> Any:
        return self.c.get(f"/v1/sessions/{sid}/events?after={after}", headers=self.auth(token))

    def all_events(self, sid: str, token: str | None = None) -> list[dict[str, Any]]:
        """Every event of the session, page after page (a page holds 500 by default)."""
        found: list[dict[str, Any]] = []
        while True:
            r = self.events(sid, token, after=found[-1]["seq"] if found else 0)
            assert r.status_code == 200, r.get_data(as_text=True)
            page = r.get_json()
            found += page["events"]
            if not page["events"] or found[-1]["seq"] >= page["last_event"]:
                return found

    def delete(self, sid: str, token: str | None) -> Any:
        return self.c.delete(f"/v1/sessions/{sid}", headers=self.auth(token))


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


def replay_record(client: FlaskClient, record: dict[str, Any]) -> Any:
    """``POST /v1/games/replay`` of ``record`` a page at a time (``REPLAY_PAGE_MOVES``,
    ``engine.record_pages.pages``), each page with the ``resume`` the one before
    answered: the last page's answer, or the first refusal."""
    from engine.record_pages import pages

    size = client.application.config["REPLAY_PAGE_MOVES"]
    resume = None
    for page in pages(record, size):
        answer = client.post("/v1/games/replay", json={**page, "resume": resume})
        if answer.status_code != 200:
            return answer
        resume = answer.get_json()["resume"]
    return answer


def turn_seat(view: dict[str, Any]) -> int:
    """The seat the game waits for (a pending decision's, else the current player)."""
    pend = view["pending"]
    return int(pend["player"]) if pend else int(view["current_player"])


def problem(resp: Any, status: int, code: str) -> dict[str, Any]:
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json()
    assert body["status"] == status and body["code"] == code
    assert {"type", "title", "detail"} <= set(body)
    return body  # type: ignore[no-any-return]


# ---------------------------------------------------------------- shared steps
def two_humans(api: Api, **kw: Any) -> tuple[str, list[str], dict[str, Any]]:
    r = api.create("uno_classic", 2, seed=7, **kw)
    assert r.status_code == 201, r.get_data(as_text=True)
    body = r.get_json()
    return body["session_id"], [s["token"] for s in body["seats"]], body


def mover(api: Api, sid: str, tokens: list[str]) -> tuple[int, dict[str, Any]]:
    """The seat to move and its GET answer."""
    spectator = api.get(sid).get_json()
    seat = turn_seat(spectator["view"])
    return seat, api.get(sid, tokens[seat]).get_json()


def first_move(body: dict[str, Any]) -> dict[str, Any]:
    return next(m for m in body["legal_moves"] if m["type"] not in ("uno", "catch"))


def sse(resp: Any) -> list[dict[str, Any]]:
    """Parse an event stream into ``{id, event, data}`` records (comments dropped)."""
    text = resp if isinstance(resp, str) else resp.get_data(as_text=True)
    out = []
    for block in text.split("\n\n"):
        rec: dict[str, Any] = {}
        for line in block.splitlines():
            if line.startswith(":") or not line:
                continue
            key, _, value = line.partition(": ")
            rec[key] = orjson.loads(value) if key == "data" else value
        if "id" in rec:
            out.append(rec)
    return out
