"""REDIS_URL_FILE: the app finds Redis through a mounted secret file, as prod runs it."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
import redis

from service import create_app
from tests.sessions.conftest import RedisServer


def test_sessions_live_in_the_redis_named_by_the_file(
    redis_server: RedisServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "REDIS_URL"
    secret.write_text(redis_server.url + "\n")
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("REDIS_URL_FILE", str(secret))
    prefix = f"f{uuid.uuid4().hex[:8]}:"
    app = create_app({"TESTING": True, "SESSION_KEY_PREFIX": prefix})
    try:
        assert app.extensions["sessions"].store.kind == "redis"
        resp = app.test_client().post(
            "/v1/sessions", json={"variant": "uno_classic", "players": 2, "seed": 1}
        )
        assert resp.status_code == 201, resp.get_data(as_text=True)
        keys = redis.Redis.from_url(redis_server.url).keys(f"{prefix}*")
        assert keys, "the session was not written to the Redis the file names"
    finally:
        app.extensions["sessions"].store.close()
