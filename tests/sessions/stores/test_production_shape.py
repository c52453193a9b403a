"""The production shape (``k8s/overlays/prod``): two service instances of two gunicorn
workers each (the production config, real subprocesses) on one Redis and on the
cluster, each request on a new connection to one instance or the other, so every
worker's own copy of the session gets behind. Four phones play a game by polling:
each request's status, problem code, version and view must be what one process (the
app in the test's process) answers to the same requests on the same store (issue 44)."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest

from benchmarks.servers import gunicorn, over_http
from tests.redis_procs import LocalCluster, RedisServer, free_port, need_redis_server
from tests.sessions.conftest import make_app

pytestmark = [pytest.mark.redis, pytest.mark.slow]

#: The first game's seed, the games, the moves made in each, the seats.
SEED = 11
GAMES = 3
MOVES = 6
SEATS = 4
#: A clock whose hold makes each phone's first read a quiet commit (its times are left
#: out of the comparison: they depend on when the requests came).
CLOCK = {"turn_seconds": 3600}
#: How long an instance may take to start (a loaded machine: much longer than alone).
START_SECONDS = 120


class Phones:
    """The requests of the game, each sent to one of ``bases`` drawn at random (a seeded
    draw, so a failure repeats: an instance's URL, or a test client of one app in this
    process), with what each
    answered: (what, status, code, the answer's status, version, view or moves)."""

    def __init__(self, bases: list[Any]) -> None:
        self.bases = bases
        self.draw = random.Random(SEED)
        self.transcript: list[tuple[Any, ...]] = []

    def call(self, what: str, method: str, path: str, body: Any = None, **headers: str) -> Any:
        base = self.draw.choice(self.bases)
        headers = {k.replace("_", "-"): v for k, v in headers.items()}
        if isinstance(base, str):
            status, out = over_http(base, method, path, body, headers, timeout=10)
        else:  # one worker: the app in this process
            r = base.open(path, method=method, json=body, headers=headers)
            status, out = r.status_code, r.get_json()
        shown = {k: out.get(k) for k in ("status", "version", "view", "legal_moves", "moves")}
        if isinstance(out.get("clock"), dict):
            shown["held_for"] = out["clock"].get("held_for")
        self.transcript.append((what, status, out.get("code"), shown))
        return status, out


def play(bases: list[Any]) -> list[tuple[Any, ...]]:
    """``GAMES`` games: Ann creates a clocked four-seat session with three open seats,
    Bob, Cy and Dee join (the last join deals); then, round after round, every phone
    polls (a phone's first read after the deal tells it: a quiet commit) and the one to
    move sends its first listed move with the version it read, ``MOVES`` moves a game."""
    p = Phones(bases)
    for game in range(GAMES):
        players = [{"name": "Ann"}] + [{"open": True}] * (SEATS - 1)
        _, made = p.call(
            "create", "POST", "/v1/sessions",
            {"variant": "uno_classic", "players": players, "seed": SEED + game, "clock": CLOCK},
        )  # fmt: skip
        sid, code = made["session_id"], made["invitation_code"]
        tokens = [made["seats"][0]["token"]]
        for name in ("Bob", "Cy", "Dee"):
            path = f"/v1/sessions/{sid}/join"
            _, joined = p.call("join", "POST", path, {"name": name, "code": code})
            tokens.append(joined["token"])
        for _ in range(MOVES):
            read = []
            for seat, token in enumerate(tokens):
                auth = {"Authorization": f"Bearer {token}"}
                status, body = p.call(f"read {seat}", "GET", f"/v1/sessions/{sid}", **auth)
                assert status == 200, body
                read.append(body)
            seat = next(s for s, body in enumerate(read) if body["legal_moves"])
            body = read[seat]
            move = next(m for m in body["legal_moves"] if m["type"] not in ("uno", "catch"))
            headers = {"Authorization": f"Bearer {tokens[seat]}"}
            headers["If-Match"] = f'"{body["version"]}"'
            headers["Idempotency-Key"] = uuid.uuid4().hex
            p.call(f"move {seat}", "POST", f"/v1/sessions/{sid}/moves", {"move": move}, **headers)
    return p.transcript


@contextmanager
def instances(url: str, count: int, workers: int) -> Iterator[list[str]]:
    """``count`` instances of ``workers`` gunicorn workers each on ``url``: their bases."""
    env = {
        "REDIS_URL": url,
        "SESSION_KEY_PREFIX": f"p{uuid.uuid4().hex[:6]}:",
        "WEB_CONCURRENCY": str(workers),
        "RATE_LIMIT": "100000/minute",
    }
    with ExitStack() as stack:
        yield [
            "http://{}:{}".format(
                *stack.enter_context(gunicorn(env, start_seconds=START_SECONDS))[:2]
            )
            for _ in range(count)
        ]


@pytest.fixture(params=["redis", pytest.param("cluster", marks=pytest.mark.cluster)])
def store_url(request: pytest.FixtureRequest) -> Iterator[str]:
    need_redis_server()
    if request.param == "redis":
        server = RedisServer(free_port())
        server.start()
        yield server.url
        server.stop()
    else:
        cluster = LocalCluster(3)
        cluster.start()
        yield cluster.url
        cluster.stop()


def test_four_phones_on_two_instances_of_two_workers_see_what_one_worker_shows(
    store_url: str,
) -> None:
    app = make_app({"REDIS_URL": store_url, "SESSION_KEY_PREFIX": "one:"})
    try:
        alone = play([app.test_client()])
    finally:
        app.extensions["sessions"].store.close()
    with instances(store_url, 2, 2) as two:
        spread = play(two)
    assert [row[:3] for row in spread] == [row[:3] for row in alone]
    assert spread == alone
    made = [status for what, status, *_ in alone if what.startswith("move")]
    assert made == [200] * (GAMES * MOVES)
