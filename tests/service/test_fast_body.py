"""The body's shortcuts on the hot path agree with what they stand in for.

- ``raw_too_deep`` (bytes, C speed) with ``too_deep`` (the parsed value, a walk);
- ``read_body`` (one read of ``Content-Length`` bytes where the server terminates the
  stream, as gunicorn does) with ``get_data``: the same answers for the same requests,
  413 and the empty-body problem included.
"""

from __future__ import annotations

import io
import json
from typing import Any

import orjson
import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from werkzeug.exceptions import ClientDisconnected, RequestEntityTooLarge
from werkzeug.test import EnvironBuilder

from service import create_app
from service.http import raw_too_deep, read_body, too_deep
from service.sealing import unseal
from tests.service.harness import ApiClient, cached_spec, close, new_game

# ---------------------------------------------------------------- depth
# Strings full of what the byte check must not take for structure.
tricky_text = st.text(alphabet=st.sampled_from('[]{}"\\/:,ab é\n\t\x00'), max_size=8)
leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | tricky_text
)
json_values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(tricky_text, inner, max_size=4),
    max_leaves=60,
)


def chain(value: Any, depth: int, kinds: list[bool]) -> Any:
    for i in range(depth):
        value = [value] if kinds[i % len(kinds)] else {"[k{": value}
    return value


deep_values = st.builds(
    chain,
    json_values,
    st.integers(min_value=0, max_value=45),
    st.lists(st.booleans(), min_size=1, max_size=5),
)


@settings(max_examples=600, deadline=None)
@given(value=json_values | deep_values, limit=st.integers(min_value=1, max_value=40))
def test_raw_too_deep_is_too_deep(value: Any, limit: int) -> None:
    expected = type(value) in (dict, list) and too_deep(value, limit)
    # Compact, with whitespace, with non-ASCII escaped or as UTF-8.
    for raw in (
        json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode(),
        json.dumps(value, indent=1).encode(),
        json.dumps(value).encode(),
    ):
        parsed = orjson.loads(raw)  # what the service checks: valid JSON only
        assert (type(parsed) in (dict, list) and too_deep(parsed, limit)) == expected
        assert raw_too_deep(raw, limit) == expected, raw


def test_raw_too_deep_at_the_edges() -> None:
    for depth in range(1, 40):
        for kinds in ([True], [False], [True, False]):
            raw = orjson.dumps(chain(1, depth, kinds))
            for limit in (depth - 1, depth, depth + 1):
                if limit >= 1:
                    assert raw_too_deep(raw, limit) == (depth > limit), (depth, limit, raw)
    many = orjson.dumps([[[]] for _ in range(50)])  # many brackets, shallow
    assert not raw_too_deep(many, 3) and raw_too_deep(many, 2)
    quoted = orjson.dumps(["[[[[[[[[[[", {'a\\"[[[': ["\\"]}])  # escaped quotes too
    assert not raw_too_deep(quoted, 3) and raw_too_deep(quoted, 2)


# ---------------------------------------------------------------- reading the body
@pytest.fixture
def app() -> Any:
    app = create_app({"TESTING": True, "MAX_CONTENT_LENGTH": 64 * 1024})
    yield app
    close(app)


def exchange(app: Flask, terminated: bool, path: str, data: bytes, **kw: Any) -> tuple[Any, ...]:
    """Status, headers but the request id, and body of one request (a sealed token
    opened: sealing the same state twice gives two tokens)."""
    overrides = {"wsgi.input_terminated": True} if terminated else {}
    kw.setdefault("content_type", "application/json")
    resp = app.test_client().post(path, data=data, environ_overrides=overrides, **kw)
    headers = sorted((k, v) for k, v in resp.headers.items() if k != "X-Request-ID")
    body = resp.get_data()
    if b'"state_token"' in body:
        answer = orjson.loads(body)
        answer["state_token"] = orjson.loads(
            unseal(app.extensions["state_keys"], answer["state_token"])
        )
        body = orjson.dumps(answer)
    return resp.status_code, headers, body


def test_a_terminated_stream_gives_the_same_answers(app: Flask) -> None:
    client = ApiClient(app.test_client(), cached_spec())
    game = new_game(client, variant="uno_classic", players=2, seed=42)
    sealed = new_game(client, sealed=True, seat=0)
    state, token = game["state"], sealed["state_token"]
    draw = {"type": "draw", "player": 0}
    requests = [
        ("/v1/games/apply", {"state": state, "move": draw}),
        ("/v1/games/apply", {"state_token": token, "move": draw}),
        ("/v1/games/apply", {"state": state, "move": {"type": "draw", "player": 1}}),
        ("/v1/games/validate", {"state": state, "move": draw}),
        ("/v1/games/view", {"state": state, "player": 0}),
        ("/v1/games/legal-moves", {"state": state}),
        ("/v1/games/score", {"state": state}),
        ("/v1/games/apply", {"state": state}),
        ("/v1/games/apply", {"state": state, "move": draw, "extra": 1}),
        ("/v1/games", {"variant": "uno_classic", "players": 3, "seed": 7}),
        ("/v1/games/score", chain({"state": state}, 40, [True])),
        ("/v1/games/score", [1, 2]),
    ]
    raw = [(path, orjson.dumps(body)) for path, body in requests]
    raw += [
        ("/v1/games/apply", b""),
        ("/v1/games/apply", b"{not json"),
        ("/v1/games/apply", b'{"state": {}, "move": {}} trailing'),
        ("/v1/games/score", b'{"state": ' + b'"' + b"x" * (64 * 1024) + b'"}'),  # 413
    ]
    for path, data in raw:
        plain = exchange(app, False, path, data)
        assert exchange(app, True, path, data) == plain, (path, data[:80])
    # 413 comes before any reading, an empty body is the empty-body problem
    assert exchange(app, True, *raw[-1])[0] == 413
    assert b"empty" in exchange(app, True, *raw[-4])[2]
    # a body of another type is still 415 first
    assert exchange(app, True, "/v1/games/apply", b"{}", content_type="text/plain")[0] == 415


def environ(data: bytes, **extra: Any) -> dict[str, Any]:
    env = EnvironBuilder(
        method="POST", path="/v1/games/score", data=data, content_type="application/json"
    ).get_environ()
    env.update(extra)
    return env


def both(app: Flask, env: dict[str, Any], stream: Any) -> tuple[Any, Any]:
    """``read_body`` and ``get_data`` on two copies of a request: result or exception."""
    out = []
    for reader in (read_body, lambda req: req.get_data(cache=False)):
        with app.request_context({**env, "wsgi.input": stream()}) as ctx:
            try:
                out.append(reader(ctx.request))
            except Exception as exc:  # noqa: BLE001 - compared below
                out.append(type(exc))
    return out[0], out[1]


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.binary(max_size=200),
    length=st.sampled_from([None, "", "0", "5", "200", "65536", "65537", " 7", "+3", "x", "٣"]),
    terminated=st.booleans(),
    chunked=st.booleans(),
)
def test_read_body_is_get_data(
    app: Flask, data: bytes, length: str | None, terminated: bool, chunked: bool
) -> None:
    env = environ(data)
    env.pop("CONTENT_LENGTH", None)
    if length is not None:
        env["CONTENT_LENGTH"] = length
    if terminated:
        env["wsgi.input_terminated"] = True
    if chunked:
        env["HTTP_TRANSFER_ENCODING"] = "chunked"
    if length is not None and length.isdigit() and length.isascii() and terminated:
        # a server that terminates the stream ends it at Content-Length
        data = data[: int(length)]
    fast, slow = both(app, env, lambda: io.BytesIO(data))
    assert fast == slow


def test_read_body_errors_are_werkzeugs(app: Flask) -> None:
    class Broken(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, b: Any) -> int:
            raise OSError("connection reset")

    env = environ(b"{}", **{"wsgi.input_terminated": True})
    assert both(app, env, Broken) == (ClientDisconnected, ClientDisconnected)
    env = environ(b"{}", **{"wsgi.input_terminated": True, "CONTENT_LENGTH": "65537"})
    assert both(app, env, lambda: io.BytesIO(b"{}")) == (RequestEntityTooLarge,) * 2
