"""Fixtures: a real ``redis-server`` on a free loopback port, the app on either store,
and a small client for the session API.

``redis-server`` missing: the Redis half fails when ``CI`` is set (the test command
installs it) and is skipped with the reason otherwise.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service import create_app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """A ``redis-server`` subprocess on one loopback port; ``stop``/``start`` keep the
    port (and, with ``persist``, the data: append-only file in ``dir``)."""

    def __init__(self, port: int, persist: Path | None = None) -> None:
        self.port = port
        self.persist = persist
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        exe = shutil.which("redis-server")
        assert exe is not None
        cmd = [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        if self.persist is not None:
            cmd += ["--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.persist)]
        else:
            cmd += ["--appendonly", "no"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2, socket_timeout=0.5)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                # With append-only persistence, wait until the data set is loaded.
                if client.info("persistence").get("loading", 0) == 0:
                    break
            except redis.RedisError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)
        client.close()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None


def need_redis_server() -> None:
    if shutil.which("redis-server") is None:
        reason = "redis-server is not installed (apt-get install redis-server; make test does)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    need_redis_server()
    server = RedisServer(free_port())
    server.start()
    yield server
    server.stop()


def make_app(config: dict[str, Any]) -> Flask:
    """The service's app, sessions included, with ``config``."""
    return create_app(config)


def store_config(kind: str, request: pytest.FixtureRequest, **extra: Any) -> dict[str, Any]:
    config: dict[str, Any] = {"TESTING": True, **extra}
    if kind == "redis":
        server: RedisServer = request.getfixturevalue("redis_server")
        config["REDIS_URL"] = server.url
        config["SESSION_KEY_PREFIX"] = f"t{uuid.uuid4().hex[:8]}:"
    return config


@pytest.fixture(params=["memory", "redis"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def app(store_kind: str, request: pytest.FixtureRequest) -> Iterator[Flask]:
    app = make_app(store_config(store_kind, request))
    yield app
    app.extensions["sessions"].store.close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


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

    def events(self, sid: str, token: str | None = None, after: int = 0) -> Any:
        return self.c.get(f"/v1/sessions/{sid}/events?after={after}", headers=self.auth(token))

    def delete(self, sid: str, token: str | None) -> Any:
        return self.c.delete(f"/v1/sessions/{sid}", headers=self.auth(token))


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


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
