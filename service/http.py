"""JSON in and out: strict request bodies, orjson answers.

``json_body(schema)`` is the one way a view reads its body: ``application/json`` (any
parameters; else 415), valid UTF-8 JSON (orjson: no NaN, no lone surrogates, integers beyond 64 bits
become floats and so fail integer fields), an object, nested at most
``MAX_JSON_DEPTH`` levels (so nothing downstream can recurse out of stack), then the
marshmallow ``schema``. ``json_response`` dumps with orjson.
"""

from __future__ import annotations

import re
from typing import Any

import orjson
from flask import Flask, Request, Response, current_app, request
from flask.json.provider import JSONProvider
from marshmallow import Schema
from werkzeug.exceptions import ClientDisconnected, RequestEntityTooLarge

from service.problems import ApiProblem

JSON = "application/json"
#: Requests nest far less: a state is 5 levels deep, a body 6.
DEFAULT_MAX_JSON_DEPTH = 32
#: Reads of a body of unknown length; a Content-Length of more digits is not read by us.
CHUNK = 64 * 1024
MAX_LENGTH_DIGITS = 18


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
    Iterative, and only containers are pushed, so a flat list of ids costs one pass.
    (The reference for ``raw_too_deep``, which the service uses.)"""
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


#: A JSON string (escapes included).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
#: ``bytes.translate`` arguments: objects become lists, everything but brackets goes.
_TO_BRACKETS = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


def raw_too_deep(raw: bytes, limit: int) -> bool:
    """``too_deep(orjson.loads(raw), limit)`` for ``raw`` that is valid JSON, at C speed.

    A body with at most ``limit`` opening brackets cannot nest deeper (brackets in
    strings only add to the count). Otherwise the strings go, then everything but the
    brackets (objects become lists: the JSON is valid, so pairs match); each
    ``replace(b"[]", b"")`` then removes the innermost containers, so the brackets are
    gone after exactly as many passes as the deepest container's depth.
    """
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    # Without a backslash no string holds an escaped quote: every other piece is one.
    text = _STRING.sub(b"", raw) if b"\\" in raw else b"".join(raw.split(b'"')[::2])
    brackets = text.translate(_TO_BRACKETS, _NOT_BRACKETS)
    for _ in range(limit):
        if not brackets:
            return False
        brackets = brackets.replace(b"[]", b"")
    return bool(brackets)


def read_body(req: Request) -> bytes:
    """``req.get_data(cache=False)``, with one read where that is the same thing.

    When the server terminates the input stream (``wsgi.input_terminated``: gunicorn)
    and the request has a plain ``Content-Length``, werkzeug wraps the stream in a
    ``LimitedStream`` that reads it in 64 KiB buffers until a read comes back empty;
    here the stream is read once for ``Content-Length`` bytes, with werkzeug's 413
    (before reading) and its ``ClientDisconnected`` on a read error. Anything else
    (chunked bodies, no or odd ``Content-Length``, a body already read) goes to werkzeug.
    """
    env = req.environ
    length = env.get("CONTENT_LENGTH")
    if (
        "wsgi.input_terminated" in env
        and (not length or env.get("HTTP_TRANSFER_ENCODING") == "chunked")
        and "stream" not in req.__dict__
        and getattr(req, "_cached_data", None) is None
    ):
        return _read_capped(env["wsgi.input"], req.max_content_length)
    if (
        not length
        or not length.isdigit()
        or not length.isascii()
        or len(length) > MAX_LENGTH_DIGITS
        or "wsgi.input_terminated" not in env
        or env.get("HTTP_TRANSFER_ENCODING") == "chunked"
        or "stream" in req.__dict__
        or getattr(req, "_cached_data", None) is not None
    ):
        return req.get_data(cache=False)
    size = int(length)
    limit = req.max_content_length
    if limit is not None and size > limit:
        raise RequestEntityTooLarge()
    if size == 0:
        return b""
    try:
        return env["wsgi.input"].read(size)  # type: ignore[no-any-return]
    except (OSError, ValueError):
        raise ClientDisconnected() from None


def _read_capped(stream: Any, limit: int | None) -> bytes:
    """A body of unknown length (chunked) from a server-terminated stream: read until
    it ends, and 413 as soon as it passes ``limit`` (werkzeug's ``LimitedStream`` would
    stop at the limit and hand back a truncated body: a 400 ``invalid_json``)."""
    chunks: list[bytes] = []
    total = 0
    while True:
        try:
            chunk = stream.read(CHUNK)
        except (OSError, ValueError):
            raise ClientDisconnected() from None
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if limit is not None and total > limit:
            raise RequestEntityTooLarge()
        chunks.append(chunk)


def read_json() -> Any:
    """The request body as parsed JSON, or a 400 / 413 / 415 problem."""
    req: Request = request._get_current_object()  # type: ignore[attr-defined]
    mimetype = req.mimetype
    if mimetype != JSON:
        shown = f"Content-Type {mimetype}" if mimetype else "no Content-Type"
        raise ApiProblem(
            415, "unsupported_media_type", f"send the body as application/json (got {shown})"
        )
    raw = read_body(req)
    if not raw:
        raise ApiProblem(400, "invalid_json", "the request body is empty; send a JSON object")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ApiProblem(
            400, "invalid_json", f"the request body is not valid JSON: {exc}"
        ) from None
    limit = current_app.config.get("MAX_JSON_DEPTH", DEFAULT_MAX_JSON_DEPTH)
    if (type(data) is dict or type(data) is list) and raw_too_deep(raw, limit):
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
