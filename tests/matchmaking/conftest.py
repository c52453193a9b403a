"""Fixtures: the app on each store (in process, one Redis, the cluster), two replicas
on one Redis, and phones: each a client with an address of its own (``TRUSTED_PROXIES``
1 and ``X-Forwarded-For``), as the quotas count clients."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.sessions.conftest import STORES, make_app, store_config

#: The settings every quick-match test app has: no sweeper thread (a test settles the
#: deadlines itself), the phones' addresses from X-Forwarded-For.
BASE = {"MATCH_SWEEP_SECONDS": 0, "TRUSTED_PROXIES": "1"}


class Phone:
    """One phone: its address, the app it reaches, its ticket once it asked."""

    def __init__(self, client: FlaskClient, number: int) -> None:
        self.client = client
        self.address = f"10.{number // 250}.{number % 250}.7"
        self.ticket: dict[str, Any] = {}

    def call(self, method: str, path: str, body: Any = None, secret: str | None = None) -> Any:
        headers = {"X-Forwarded-For": self.address}
        if secret is not None:
            headers["Authorization"] = f"Bearer {secret}"
        return self.client.open(path, method=method, json=body, headers=headers)

    def play(self, **req: Any) -> Any:
        """Ask to play: the answer; the ticket kept when it was made."""
        r = self.call("POST", "/v1/matches", {"variant": "uno_classic", **req})
        if r.status_code == 201:
            self.ticket = r.get_json()
        return r

    def poll(self) -> Any:
        t = self.ticket
        return self.call("GET", f"/v1/matches/{t['ticket_id']}", secret=t["secret"])

    def cancel(self) -> Any:
        t = self.ticket
        return self.call("DELETE", f"/v1/matches/{t['ticket_id']}", secret=t["secret"])


def faults(stderr: str, request_id: str) -> list[dict[str, Any]]:
    """The service's ERROR log lines (JSON, on stderr) written for ``request_id``, but the
    access line."""
    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    return [
        d for d in lines
        if d.get("level") == "error" and d.get("request_id") == request_id
        and d.get("logger") != "service.access"
    ]  # fmt: skip


def close(app: Flask) -> None:
    app.extensions["matchmaking"].store.close()
    app.extensions["sessions"].store.close()


@pytest.fixture(params=STORES)
def app(request: pytest.FixtureRequest) -> Iterator[Flask]:
    app = make_app(store_config(str(request.param), request, **BASE))
    yield app
    close(app)


@pytest.fixture
def phones(app: Flask) -> list[Phone]:
    client = app.test_client()
    return [Phone(client, i) for i in range(12)]


@pytest.fixture(params=["redis", pytest.param("cluster", marks=pytest.mark.cluster)])
def two_replicas(request: pytest.FixtureRequest) -> Iterator[tuple[Flask, Flask]]:
    """Two apps (two replicas) on one Redis (or the cluster), one key prefix."""
    fixture = "redis_server" if request.param == "redis" else "redis_cluster"
    server = request.getfixturevalue(fixture)
    url = server.url if request.param == "redis" else server.seed_url
    config = {**BASE, "REDIS_URL": url, "SESSION_KEY_PREFIX": f"m{uuid.uuid4().hex[:6]}:"}
    a, b = make_app(dict(config)), make_app(dict(config))
    yield a, b
    close(a)
    close(b)


@pytest.fixture(params=["memory", "redis"])
def swept(request: pytest.FixtureRequest) -> Iterator[Flask]:
    """The app on the memory store and one Redis, its sweeper dealing due tables."""
    config = store_config(str(request.param), request, **{**BASE, "MATCH_SWEEP_SECONDS": 0.1})
    app = make_app(config)
    yield app
    close(app)
