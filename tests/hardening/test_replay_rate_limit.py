"""``POST /v1/games/replay`` has its own, tighter rate limit per client
(``REPLAY_RATE_LIMIT``, ``120/minute`` while ``RATE_LIMIT`` is on): a request plays a
page of a record, and a record of ``SESSION_MAX_MOVES`` moves is 100 of them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import create_app
from service.ratelimit import DEFAULT_REPLAY_RATE_LIMIT, Limit
from tests.service.harness import close

SETTINGS = ("RATE_LIMIT", "REPLAY_RATE_LIMIT", "RATE_LIMIT_STORAGE_URI", "REDIS_URL")


@pytest.fixture
def make_app(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Flask]]:
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)
    made: list[Flask] = []

    def make(**config: Any) -> Flask:
        made.append(create_app({"TESTING": True, **config}))
        return made[-1]

    yield make
    for app in made:
        close(app)


def replays(client: FlaskClient, n: int, addr: str = "127.0.0.1") -> list[int]:
    """Statuses of ``n`` replays of a body that is not a record (a cheap 400)."""
    return [
        client.post("/v1/games/replay", json={}, environ_base={"REMOTE_ADDR": addr}).status_code
        for _ in range(n)
    ]


def test_with_rate_limiting_on_replay_has_its_own_tighter_limit(
    make_app: Callable[..., Flask],
) -> None:
    default = Limit.parse(DEFAULT_REPLAY_RATE_LIMIT)
    assert default == Limit(120, 60)
    client = make_app(RATE_LIMIT="1000/minute").test_client()
    assert replays(client, 120) == [400] * 120
    over = client.post("/v1/games/replay", json={})
    assert over.status_code == 429 and over.mimetype == "application/problem+json"
    body = over.get_json()
    assert body["code"] == "rate_limited"
    assert "more than 120 requests to POST /v1/games/replay in 60 s" in body["detail"]
    assert 1 <= int(over.headers["Retry-After"]) <= 60
    # The client's other requests go on, within RATE_LIMIT; another client replays.
    assert client.get("/v1/variants").status_code == 200
    assert client.post("/v1/games", json={}).status_code == 400
    assert replays(client, 1, "10.9.8.7") == [400]


def test_the_replay_limit_is_set_alone_or_turned_off(make_app: Callable[..., Flask]) -> None:
    alone = make_app(REPLAY_RATE_LIMIT="2/minute").test_client()
    assert replays(alone, 3) == [400, 400, 429]
    assert all(alone.get("/v1/variants").status_code == 200 for _ in range(50))
    off = make_app(RATE_LIMIT="100/minute", REPLAY_RATE_LIMIT="off").test_client()
    assert replays(off, 12) == [400] * 12


def test_the_replay_limit_comes_from_the_environment(
    make_app: Callable[..., Flask], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REPLAY_RATE_LIMIT", "1/minute")
    assert replays(make_app().test_client(), 2) == [400, 429]


@pytest.mark.parametrize("spec", ["10", "ten/minute", "0/minute"])
def test_a_wrong_replay_limit_is_refused_at_start(
    make_app: Callable[..., Flask], spec: str
) -> None:
    with pytest.raises(ValueError, match="REPLAY_RATE_LIMIT"):
        make_app(REPLAY_RATE_LIMIT=spec)


def test_without_any_setting_nothing_is_limited(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    assert "rate_limiter" not in app.extensions
    assert replays(app.test_client(), 15) == [400] * 15
