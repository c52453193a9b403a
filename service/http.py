"""JSON in and out: strict request bodies, orjson answers.

``json_body(schema)`` is the one way a view reads its body: ``application/json`` (any
parameters; else 415), valid UTF-8 JSON (orjson: no NaN, no lone surrogates, integers beyond 64 bits
become floats and so fail integer fields), an object, nested at most
``MAX_JSON_DEPTH`` levels (so nothing downstream can recurse out of stack), then the
marshmallow ``schema``. ``json_response`` dumps with orjson.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Flask, Response, current_app, request
from flask.json.provider import JSONProvider
from marshmallow import Schema

from service.problems import ApiProblem

JSON = "application/json"
#: Requests nest far less: a state is 5 levels deep, a body 6.
DEFAULT_MAX_JSON_DEPTH = 32


class OrjsonProvider(JSONProvider):
    """Flask's ``app.json`` (``jsonify``, ``request.get_json``) on orjson."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)


def install(app: Flask) -> None:
    app.json = OrjsonProvider(app)


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    try:
        data = orjson.dumps(body)
    except orjson.JSONEncodeError as exc:
        # Only an integer beyond 64 bits gets here: a counter of the state grew past it.
        raise ApiProblem(
            422,
            "invalid_state",
            f"the answer cannot be written as JSON ({exc}); a number in the state "
            "(scores, round, move_count) is out of range",
        ) from None
    resp = Response(data, status=status, mimetype=JSON)
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def too_deep(value: Any, limit: int) -> bool:
    """Whether ``value`` (parsed JSON) nests lists and objects more than ``limit`` deep.
    Iterative, and only containers are pushed, so a flat list of ids costs one pass."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if depth > limit:
            return True
        for child in node.values() if type(node) is dict else node:
            if type(child) is dict or type(child) is list:
                push((child, depth + 1))
    return False


def read_json() -> Any:
    """The request body as parsed JSON, or a 400 / 415 problem."""
    mimetype = request.mimetype
    if mimetype != JSON:
        shown = f"Content-Type {mimetype}" if mimetype else "no Content-Type"
        raise ApiProblem(
            415, "unsupported_media_type", f"send the body as application/json (got {shown})"
        )
    raw = request.get_data(cache=False)
    if not raw:
        raise ApiProblem(400, "invalid_json", "the request body is empty; send a JSON object")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ApiProblem(
            400, "invalid_json", f"the request body is not valid JSON: {exc}"
        ) from None
    limit = current_app.config.get("MAX_JSON_DEPTH", DEFAULT_MAX_JSON_DEPTH)
    if (type(data) is dict or type(data) is list) and too_deep(data, limit):
        raise ApiProblem(400, "invalid_json", f"the request body nests deeper than {limit} levels")
    return data


def json_body(schema: Schema) -> dict[str, Any]:
    """The request's JSON object, loaded with ``schema`` (400/415 problems otherwise)."""
    data = read_json()
    if not isinstance(data, dict):
        raise ApiProblem(
            400, "invalid_json", f"the request body must be a JSON object, not {_kind(data)}"
        )
    return schema.load(data)  # type: ignore[no-any-return]


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"
