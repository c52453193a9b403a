"""JSON in and out: strict request bodies, orjson answers.

``json_body(schema)`` is the one way a view reads its body: ``application/json`` (any
parameters; else 415), at most ``MAX_CONTENT_LENGTH`` bytes (413), nested at most
``MAX_JSON_DEPTH`` levels (so nothing downstream can recurse out of stack; checked while
the body is read, before it is parsed: ``service.jsonscan``), valid UTF-8 JSON (orjson:
no NaN, no lone surrogates, integers beyond 64 bits become floats and so fail integer
fields), an object, then the marshmallow ``schema``. ``json_response`` dumps with orjson.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import orjson
from flask import Flask, Request, Response, current_app, request
from flask.json.provider import JSONProvider
from flask.sessions import SessionInterface, SessionMixin
from marshmallow import Schema
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wsgi import get_input_stream

from service.jsonscan import Bounds, JsonScan, Refused
from service.problems import ApiProblem

JSON = "application/json"
#: Requests nest far less: a state is 5 levels deep, a body 6.
DEFAULT_MAX_JSON_DEPTH = 32
#: The pieces a body is read (and scanned) in.
CHUNK = 64 * 1024
#: What any other body may hold (``JsonScan``), far more than any the API takes: a
#: state holds at most ~300 values, 61 keys, 24 in one object, numbers of 20 digits
#: (a 64-bit seed); a sealed state token is the longest string (``StateToken``).
MAX_BODY_VALUES = 4096
BODY_BOUNDS = Bounds(keys=1024, object_keys=64, string=65536, digits=32)
#: A route's own problem for a bound its body passed (None: 400 ``invalid_json``).
Refusal = Callable[[Refused], ApiProblem | None]
#: What marks a request's connection to close after its answer: an attribute of the
#: WSGI input stream (set by ``gunicorn_conf.pre_request``).
CLOSE_CONNECTION = "uno_close_connection"
#: The environ key set once the app has read a body to its end.
BODY_READ = "uno.body_read"


class NoCookieSessions(SessionInterface):
    """No cookie sessions: the API never reads or sets Flask's ``session`` (its seats
    hold bearer tokens). Each request gets Flask's null session (Flask's documented
    ``session_interface`` hook), whatever the configuration holds."""

    def open_session(self, app: Flask, request: Any) -> SessionMixin:
        return self.make_null_session(app)

    def save_session(self, app: Flask, session: SessionMixin, response: Any) -> None:
        return None


class OrjsonProvider(JSONProvider):
    """Flask's ``app.json`` (``jsonify``, ``request.get_json``) on orjson."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)


def install(app: Flask) -> None:
    app.json = OrjsonProvider(app)
    app.after_request(close_if_unread)


def body_left_unread(environ: dict[str, Any]) -> bool:
    """The request carries a body (a Content-Length over 0, or chunked) that the app did
    not read to its end."""
    if environ.get(BODY_READ):
        return False
    if "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
        return True
    length = environ.get("CONTENT_LENGTH", "").strip()
    return bool(length) and length != "0"


def close_if_unread(resp: Response) -> Response:
    """After each answer: when the body was left unread, the connection closes instead
    of being read to the body's end for the next request (the whole point of refusing
    a body unread)."""
    environ = request.environ
    if body_left_unread(environ):
        close = getattr(environ.get("wsgi.input"), CLOSE_CONNECTION, None)
        if close is not None:
            close()
        resp.headers["Connection"] = "close"
    return resp


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


def read_scanned(scan: JsonScan, refused: Refusal | None = None) -> bytes:
    """The request body, each piece fed to ``scan`` as it is read (so an over-deep or
    over-full body is refused after its first pieces, before anything parses it, and the
    rest is never read: ``close_if_unread``); 413 past ``request.max_content_length``,
    as werkzeug checks it (at once for a Content-Length over it), and only past it (a
    body of unknown length that ends exactly at the limit is read whole). A bound passed
    is 400 ``invalid_json``, or the problem ``refused`` answers for it."""
    req: Request = request._get_current_object()  # type: ignore[attr-defined]
    limit = req.max_content_length
    stream = get_input_stream(req.environ, max_content_length=None if limit is None else limit + 1)
    pieces: list[bytes] = []
    size = 0
    while piece := stream.read(CHUNK):
        size += len(piece)
        if limit is not None and size > limit:
            raise RequestEntityTooLarge()
        try:
            scan.feed(piece)
        except Refused as exc:
            answer = refused(exc) if refused is not None else None
            raise answer or ApiProblem(400, "invalid_json", f"the request body {exc}") from None
        pieces.append(piece)
    req.environ[BODY_READ] = True
    return b"".join(pieces)


def read_json(
    max_values: int = MAX_BODY_VALUES, bounds: Bounds = BODY_BOUNDS, refused: Refusal | None = None
) -> Any:
    """The request body as parsed JSON, or a 400 / 413 / 415 problem. Nesting deeper
    than ``MAX_JSON_DEPTH``, more than ``max_values`` values and anything past
    ``bounds`` (keys, keys in one object, a string's bytes, a number's digits:
    ``JsonScan``) are refused while the body is read, before it is parsed (``refused``:
    a route's own answer to a bound passed, or None for 400 ``invalid_json``)."""
    mimetype = request.mimetype
    if mimetype != JSON:
        shown = f"Content-Type {mimetype}" if mimetype else "no Content-Type"
        raise ApiProblem(
            415, "unsupported_media_type", f"send the body as application/json (got {shown})"
        )
    depth = current_app.config.get("MAX_JSON_DEPTH", DEFAULT_MAX_JSON_DEPTH)
    raw = read_scanned(JsonScan(depth, max_values, bounds), refused)
    if not raw:
        raise ApiProblem(400, "invalid_json", "the request body is empty; send a JSON object")
    try:
        data = parse_untracked(raw)
    except orjson.JSONDecodeError as exc:
        raise ApiProblem(
            400, "invalid_json", f"the request body is not valid JSON: {exc}"
        ) from None
    return integral(data) if fraction_or_exponent(raw) else data


#: ``bytes.translate`` table: a digit as ``0``, a dot or an ``e`` as ``.``, a quote kept,
#: all else a space; ``0.`` then marks where a number may have a fraction or an exponent.
_NUMBER_MARKS = bytes(
    0x30 if chr(b).isdigit() and b < 128 else 0x2E if b in b".eE" else b if b == 0x22 else 0x20
    for b in range(256)
)


def parse_untracked(raw: bytes) -> Any:
    """``orjson.loads(raw)`` with the cyclic garbage collector paused: parsing builds
    only new containers, none in a cycle, and each few hundred of them would start a
    collection that walks all built so far (a body of 322,000 empty lists parsed in 88 ms
    with it, 23 ms without; issue 46). One C call: no other greenlet runs meanwhile."""
    if not gc.isenabled():
        return orjson.loads(raw)
    gc.disable()
    try:
        return orjson.loads(raw)
    finally:
        gc.enable()


def fraction_or_exponent(raw: bytes) -> bool:
    """``raw`` (JSON) may hold a number written with a fraction or an exponent: a digit
    followed by a dot or an ``e`` outside its strings (a record's every timestamp,
    ``"...24.123Z"``, is inside one: ``integral`` would walk it for nothing). A body with
    a backslash (an escaped quote) is answered yes when any digit is so followed."""
    marks = raw.translate(_NUMBER_MARKS)
    at = marks.find(b"0.")
    if at < 0 or b"\\" in raw:
        return at >= 0
    quotes = last = 0
    while at >= 0:
        quotes += marks.count(b'"', last, at)
        if not quotes % 2:
            return True
        last = at
        at = marks.find(b"0.", at + 2)
    return False


#: The largest integer a JSON number with a fraction holds exactly (a double's 53 bits).
EXACT_INTEGERS = 2**53


def integral(value: Any) -> Any:
    """``value`` with every integral number written with a fraction or an exponent
    (``6.0``, ``6e0``) as the integer it is, as JSON Schema reads it: everywhere an
    integer is expected (a seat, a card id, a move inside a state), one rule at the one
    place bodies are parsed. Beyond ``EXACT_INTEGERS`` a float is left as it is (the
    integer it was written as may be lost), and is refused where an integer is expected."""
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < EXACT_INTEGERS else value
    if isinstance(value, dict):
        return {k: integral(v) for k, v in value.items()}
    if isinstance(value, list):
        return [integral(v) for v in value]
    return value


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
