"""Fixtures for the platform tests: an app per test and its test client."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import create_app

MakeApp = Callable[..., Flask]


@pytest.fixture
def make_app(monkeypatch: pytest.MonkeyPatch) -> MakeApp:
    """``make_app(**config)``: the service's app, with no ``RATE_LIMIT``, ``LOG_LEVEL``
    or ``REDIS_URL`` from the environment unless given."""
    for name in ("RATE_LIMIT", "LOG_LEVEL", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)

    def make(**config: Any) -> Flask:
        return create_app({"TESTING": True, **config})

    return make


@pytest.fixture
def app(make_app: MakeApp) -> Flask:
    return make_app()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def json_lines(text: str) -> list[dict[str, Any]]:
    """Every line of ``text`` parsed as JSON (any line that is not fails the test)."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def access_lines(text: str) -> list[dict[str, Any]]:
    return [d for d in json_lines(text) if d["logger"] == "service.access"]
