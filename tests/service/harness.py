"""A test harness for the service: the app, and a client that checks every exchange
against ``openapi.yaml`` (openapi-core). Test modules import the fixtures they use
(``api``, ``api_app``, ``openapi_spec``) from here.

``api`` (an ``ApiClient``) sends JSON, then for every response:

- the status is never 500;
- the response is valid for its operation in the spec (status, content type, body,
  headers); an answer for a path or method the spec does not have (Flask's 404/405)
  must be a ``Problem`` (problem+json);
- a 2xx answer means the request was valid for the spec too (the spec is not
  stricter than the code), and a 400 about the body's shape (``invalid_request``,
  ``invalid_move``, ``unknown_move_type``, ``invalid_color``) means it was not (the spec
  is not looser than the code).
"""

from __future__ import annotations

import functools
import json as _json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient
from openapi_core import Config, OpenAPI
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIResponse
from openapi_core.datatypes import RequestParameters
from openapi_core.templating.paths.exceptions import OperationNotFound, PathNotFound
from openapi_schema_validator import OAS31Validator
from werkzeug.datastructures import Headers, ImmutableMultiDict
from werkzeug.test import TestResponse

from service import create_app
from tests.support import SPEC_PATH, spec_document

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = "application/problem+json"
#: 400 codes about the body's shape: the spec must refuse such a request too.
SHAPE_CODES = frozenset({"invalid_request", "invalid_move", "unknown_move_type", "invalid_color"})
_MISSING = object()


@dataclass
class SentRequest:
    """What the client sent, in the shape openapi-core reads (its ``Request`` protocol).
    Built from the bytes sent, since the app consumes the WSGI input stream."""

    method: str
    path: str
    body: bytes | None
    content_type: str
    headers: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)
    host_url: str = "http://localhost/"
    # openapi-core writes the resolved path parameters into this object.
    parameters: RequestParameters = field(init=False)

    def __post_init__(self) -> None:
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(self.query),
            header=Headers(self.headers),
            cookie=ImmutableMultiDict(),
        )


def load_spec() -> OpenAPI:
    def text(data: bytes) -> str:
        return data.decode() if isinstance(data, bytes) else data

    config = Config(
        extra_media_type_deserializers={
            PROBLEM: _json.loads,
            # A YAML body is its data, as a reader parses it (as schemathesis reads it).
            "application/yaml": lambda data: yaml.safe_load(text(data)),
            "text/html": text,
            "text/markdown": text,
            "text/css": text,
            "text/javascript": text,
        }
    )
    return OpenAPI.from_file_path(str(SPEC_PATH), config=config)


class ApiClient:
    """A Flask test client whose every exchange is checked against the spec."""

    def __init__(self, client: FlaskClient, spec: OpenAPI) -> None:
        self.c = client
        self.spec = spec
        document = spec_document()
        # The Problem schema with the document's components, for its $refs (ProblemCode).
        self._problem_schema = {
            "components": document["components"],
            "$ref": "#/components/schemas/Problem",
        }
        self.exchanges = 0

    def get(self, path: str, **kw: Any) -> TestResponse:
        return self.request("GET", path, **kw)

    def post(self, path: str, json: Any = _MISSING, **kw: Any) -> TestResponse:
        return self.request("POST", path, json=json, **kw)

    def request(
        self,
        method: str,
        path: str,
        json: Any = _MISSING,
        data: bytes | str | None = None,
        content_type: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> TestResponse:
        if json is not _MISSING:
            try:
                data = orjson.dumps(json)
            except TypeError:  # integers beyond 64 bits: as a client in another language
                data = _json.dumps(json).encode()
            content_type = content_type or "application/json"
        body = data.encode() if isinstance(data, str) else data
        path_only, _, query = path.partition("?")
        kwargs: dict[str, Any] = {"method": method, "headers": headers or {}}
        if body is not None:
            kwargs["data"] = body
        if content_type is not None:
            kwargs["content_type"] = content_type
        resp = self.c.open(path, **kwargs)
        sent = SentRequest(
            method.lower(),
            path_only,
            body,
            content_type or "application/octet-stream",
            {**(headers or {}), **({"Content-Type": content_type} if content_type else {})},
            dict(p.split("=", 1) for p in query.split("&") if "=" in p),
        )
        self.check(sent, resp)
        return resp

    def check(self, sent: SentRequest, resp: TestResponse) -> None:
        self.exchanges += 1
        assert resp.status_code != 500, resp.get_data(as_text=True)
        openapi_resp = WerkzeugOpenAPIResponse(resp)
        try:
            self.spec.validate_response(sent, openapi_resp)
        except (PathNotFound, OperationNotFound):
            # Not an operation of the spec: only Flask's own errors may answer here.
            assert resp.status_code in (404, 405), (sent.method, sent.path, resp.status_code)
            assert resp.mimetype == PROBLEM
            OAS31Validator(self._problem_schema).validate(resp.get_json())
            return
        status = resp.status_code
        request_errors = self._request_errors(sent)
        if 200 <= status < 300:
            assert request_errors is None, f"spec refuses a request the code took: {request_errors}"
        elif (
            status == 400
            and resp.get_json().get("code") in SHAPE_CODES
            # JSON Schema's "integer" takes 2.0; the service does not (documented).
            and not _integral_floats(sent.body)
        ):
            assert request_errors is not None, (
                f"spec accepts a request the code refused: {resp.get_data(as_text=True)}"
            )

    def _request_errors(self, sent: SentRequest) -> str | None:
        try:
            self.spec.validate_request(sent)
        except Exception as exc:  # openapi-core raises one of several validation errors
            try:
                return f"{type(exc).__name__}: {exc}"
            except Exception:  # e.g. a body that is not UTF-8 cannot even be described
                return type(exc).__name__
        return None


def _integral_floats(body: bytes | None) -> bool:
    try:
        data = _json.loads(body or b"null")
    except ValueError:
        return False
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, float) and node.is_integer():
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


@functools.cache
def cached_spec() -> OpenAPI:
    return load_spec()


@pytest.fixture
def openapi_spec() -> OpenAPI:
    return cached_spec()


def close(app: Flask) -> None:
    """Release what the app holds (the in-process session store's threads)."""
    sessions = app.extensions.get("sessions")
    if sessions is not None:
        sessions.store.close()


@pytest.fixture
def api_app() -> Iterator[Flask]:
    app = create_app({"TESTING": True})
    yield app
    close(app)


@pytest.fixture
def api(api_app: Flask, openapi_spec: OpenAPI) -> ApiClient:
    return ApiClient(api_app.test_client(), openapi_spec)


# ---------------------------------------------------------------- helpers
def problem(resp: TestResponse, status: int, code: str) -> dict[str, Any]:
    """Assert an RFC 9457 problem with this status and code; return its body."""
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.mimetype == PROBLEM, resp.mimetype
    body: dict[str, Any] = resp.get_json()
    assert body["status"] == status and body["code"] == code, body
    assert body["type"].endswith(code)
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    return body


def turn_seat(view: dict[str, Any]) -> int:
    """The seat the game waits for (a pending decision's, else the current player)."""
    pend = view["pending"]
    return int(pend["player"]) if pend else int(view["current_player"])


def new_game(client: ApiClient, **body: Any) -> dict[str, Any]:
    body.setdefault("variant", "uno_classic")
    body.setdefault("players", 2)
    body.setdefault("seed", 42)
    resp = client.post("/v1/games", json=body)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()  # type: ignore[no-any-return]
