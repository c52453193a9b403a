"""The body's pre-scan (``service.jsonscan``) measures what the parsed JSON holds, however
the bytes are cut into pieces: the depth of its deepest container and its values (less
one, plus one per empty container); and the service refuses an over-deep body while
reading it, before parsing."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import orjson
import pytest
from flask import Flask
from hypothesis import given, settings
from hypothesis import strategies as st

from service import create_app
from service.jsonscan import Bounds, JsonScan, Refused, TooDeep, TooLong, TooManyValues
from tests.service.harness import close


def depth_of(value: Any) -> int:
    """How deep ``value`` (parsed JSON) nests containers: the reference."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (
                node.values() if isinstance(node, dict) else node
            ))  # fmt: skip
    return deepest


def values_of(value: Any) -> tuple[int, int]:
    """How many values ``value`` holds, itself included, and how many empty containers."""
    if isinstance(value, dict | list):
        children = [values_of(v) for v in (value.values() if isinstance(value, dict) else value)]
        return 1 + sum(n for n, _ in children), sum(e for _, e in children) + (not children)
    return 1, 0


def scan(pieces: list[bytes], max_depth: int, max_values: int | None = None) -> JsonScan:
    s = JsonScan(max_depth, max_values)
    for piece in pieces:
        s.feed(piece)
    return s


# Strings full of what the scan must not take for structure, with escapes and without.
tricky_text = st.text(alphabet=st.sampled_from('[]{}",\\/:ab é\n\t\x00'), max_size=8) | st.text(
    alphabet=st.sampled_from("[]{},:ab"), max_size=8
)
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
        value = [value] if kinds[i % len(kinds)] else {'[k{\\"': value}
    return value


deep_values = st.builds(
    chain, json_values, st.integers(0, 45), st.lists(st.booleans(), min_size=1, max_size=5)
)


def cut(raw: bytes, at: list[int]) -> list[bytes]:
    points = sorted({min(max(i, 0), len(raw)) for i in at})
    return [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=True)]


@settings(max_examples=600, deadline=None)
@given(
    value=json_values | deep_values,
    limit=st.integers(1, 40),
    cuts=st.lists(st.integers(0, 4000), max_size=12),
    one_byte_pieces=st.booleans(),
)
def test_the_scan_measures_the_parsed_json_however_it_is_cut(
    value: Any, limit: int, cuts: list[int], one_byte_pieces: bool
) -> None:
    want = depth_of(value)
    # Compact, with whitespace, with non-ASCII escaped or as UTF-8.
    for raw in (
        json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode(),
        json.dumps(value, indent=1).encode(),
        json.dumps(value).encode(),
    ):
        assert depth_of(orjson.loads(raw)) == want
        pieces = [raw[i : i + 1] for i in range(len(raw))] if one_byte_pieces else cut(raw, cuts)
        if want > limit:
            with pytest.raises(TooDeep):
                scan(pieces, limit)
        else:
            s = scan(pieces, limit)
            assert s.depth == want and s.level == 0
            values, empty = values_of(value)
            assert s.values == values - 1 + empty


def measures(value: Any, ascii_only: bool) -> dict[str, int]:
    """The reference for ``Bounds``: keys in all and in one object, the longest string
    as ``json.dumps`` writes it (quotes left out), the longest run of digits in a
    number."""
    out = {"keys": 0, "object_keys": 0, "string": 0, "digits": 0}
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out["keys"] += len(node)
            out["object_keys"] = max(out["object_keys"], len(node))
            stack.extend(node)  # the keys, as strings
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            written = json.dumps(node, ensure_ascii=ascii_only).encode()
            out["string"] = max(out["string"], len(written) - 2)
        elif isinstance(node, int | float) and not isinstance(node, bool):
            runs = re.findall(r"[0-9]+", json.dumps(node))
            out["digits"] = max([out["digits"], *map(len, runs)])
    return out


@settings(max_examples=300, deadline=None)
@given(
    value=json_values,
    cuts=st.lists(st.integers(0, 4000), max_size=12),
    one_byte_pieces=st.booleans(),
)
def test_the_scan_bounds_keys_strings_and_digits_however_it_is_cut(
    value: Any, cuts: list[int], one_byte_pieces: bool
) -> None:
    """Each bound holds exactly at the body's own measure and refuses one below it."""
    for raw, ascii_only in (
        (json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode(), False),
        (json.dumps(value, indent=1).encode(), True),
    ):
        pieces = [raw[i : i + 1] for i in range(len(raw))] if one_byte_pieces else cut(raw, cuts)
        want = measures(value, ascii_only)
        for name, measure in want.items():
            JsonScan(64, None, Bounds(**{name: measure}))  # holds
            exact = JsonScan(64, None, Bounds(**{name: measure}))
            for piece in pieces:
                exact.feed(piece)
            if measure:
                below = JsonScan(64, None, Bounds(**{name: measure - 1}))
                with pytest.raises(Refused):
                    for piece in pieces:
                        below.feed(piece)


def test_the_scan_refuses_wide_and_long_bodies_at_their_first_pieces() -> None:
    """Issue 46's bodies: 80,000 unknown keys, an object of 80,000 keys, a string or a
    number longer than its bound; each refused within the first 64 KiB read."""
    bounds = Bounds(keys=1024, object_keys=64, string=65536, digits=32)
    wide = b"{" + b",".join(b'"k%d":1' % i for i in range(80_000)) + b"}"
    nested = b'{"options": {' + b",".join(b'"k%d":[]' % i for i in range(80_000)) + b"}}"
    keyed = b"[" + b",".join(b'{"a":1,"b":2}' for _ in range(2000)) + b"]"
    long_string = b'["' + b"a" * 200_000 + b'"]'
    escaped = b'["' + b"\\n" * 100_000 + b'"]'
    digits = b"[" + b"9" * 900 + b"]"
    cut_digits = [b"[1, " + b"9" * 20, b"9" * 20 + b"]"]
    for body, error in ((wide, TooManyValues), (nested, TooManyValues), (keyed, TooManyValues),
                        (long_string, TooLong), (escaped, TooLong), (digits, TooLong)):  # fmt: skip
        s = JsonScan(32, None, bounds)
        with pytest.raises(error):
            for piece in cut(body, list(range(65536, len(body), 65536))):
                s.feed(piece)
    with pytest.raises(TooLong):
        scan_with(cut_digits, bounds)
    # Digits inside a string are the string's, and keys in many small objects are
    # counted in all but not against one object.
    scan_with([b'["' + b"9" * 900 + b'"]'], bounds)
    scan_with([b"[" + b",".join(b'{"a":1}' for _ in range(500)) + b"]"], bounds)


def scan_with(pieces: list[bytes], bounds: Bounds) -> JsonScan:
    s = JsonScan(32, None, bounds)
    for piece in pieces:
        s.feed(piece)
    return s


def test_the_scan_at_the_edges() -> None:
    for depth in range(1, 40):
        for kinds in ([True], [False], [True, False]):
            raw = orjson.dumps(chain(1, depth, kinds))
            for limit in (depth - 1, depth, depth + 1):
                if limit >= 1:
                    refused = False
                    try:
                        scan([raw], limit)
                    except TooDeep:
                        refused = True
                    assert refused == (depth > limit), (depth, limit, raw)
    many = orjson.dumps([[[]] for _ in range(50)])  # many brackets, shallow
    assert scan([many], 3).depth == 3
    with pytest.raises(TooDeep):
        scan([many], 2)
    quoted = orjson.dumps(["[[[[[[[[[[", {'a\\"[[[': ["\\"]}])  # escaped quotes too
    assert scan([quoted], 3).depth == 3
    # A string cut just after a backslash: the next piece's quote is escaped.
    assert scan([b'["a\\', b'"[[[[", 1]'], 1).depth == 1


def test_the_scan_counts_values_and_stops_at_the_cap() -> None:
    body = orjson.dumps([[1, 2], {"a": [], "b": "x,y"}, 3])  # 9 values, 4 containers
    assert scan([body], 8).values == 4 + 4  # containers and commas outside strings
    assert scan([body], 8, 8).values == 8
    with pytest.raises(TooManyValues, match="more than 7 JSON values"):
        scan([body], 8, 7)


def test_a_body_that_is_not_json_is_left_to_the_parser() -> None:
    # A closing bracket too many: the scan stops there, the parser says what is wrong.
    s = scan([b"[]]", b"[" * 100], 3)
    assert s.depth <= 1  # not refused as too deep
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(b"[]]" + b"[" * 100)


# ---------------------------------------------------------------- through the app
@pytest.fixture
def app() -> Any:
    app = create_app({"TESTING": True, "MAX_CONTENT_LENGTH": 256 * 1024, "MAX_JSON_DEPTH": 8})
    yield app
    close(app)


def post(app: Flask, data: bytes, chunked: bool = False, path: str = "/v1/games") -> Any:
    if chunked:  # no Content-Length, as gunicorn hands a chunked body on
        return app.test_client().post(
            path,
            input_stream=io.BytesIO(data),
            content_type="application/json",
            headers={"Transfer-Encoding": "chunked"},
            environ_overrides={"wsgi.input_terminated": True},
        )
    return app.test_client().post(path, data=data, content_type="application/json")


@pytest.mark.parametrize("chunked", [False, True])
def test_a_deep_body_is_refused_while_it_is_read(
    app: Flask, chunked: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[bytes] = []
    loads = orjson.loads

    def spy(raw: bytes) -> Any:
        parsed.append(raw)
        return loads(raw)

    monkeypatch.setattr(orjson, "loads", spy)
    body = b"[" * (200 * 1024) + b"]" * (50 * 1024)  # under the limit, not even valid
    resp = post(app, body, chunked)
    assert parsed == []  # refused before any parse
    assert resp.status_code == 400 and resp.mimetype == "application/problem+json"
    answer = resp.get_json()
    assert answer["code"] == "invalid_json"
    assert answer["detail"] == "the request body nests deeper than 8 levels"
    # Within the limit it goes on to the schema as before.
    ok = post(app, orjson.dumps({"variant": "uno_classic", "players": 2, "x": [[[[[[[1]]]]]]]}))
    assert ok.status_code == 400 and ok.get_json()["code"] == "invalid_request"


@pytest.mark.parametrize("extra", [0, 1])
def test_a_deep_chunked_body_is_refused_unread(app: Flask, extra: int) -> None:
    """Refused at its first piece, whatever its length (issue 46: the rest is never
    read, and the connection closes so no server reads it either)."""
    limit = app.config["MAX_CONTENT_LENGTH"]
    resp = post(app, b"[" * (limit + extra), chunked=True)
    assert (resp.status_code, resp.get_json()["code"]) == (400, "invalid_json")
    assert resp.headers["Connection"] == "close"


def test_the_security_page_states_the_body_bounds() -> None:
    """docs/security.md's row for any JSON body names the bounds the code holds."""
    from service.http import BODY_BOUNDS, MAX_BODY_VALUES
    from tests.ops.support import ROOT

    [row] = [
        line
        for line in (ROOT / "docs" / "security.md").read_text().splitlines()
        if line.startswith("| any JSON body |")
    ]
    for figure in (
        f"over {MAX_BODY_VALUES:,} values",
        f"a string over {BODY_BOUNDS.string:,} bytes",
        f"over {BODY_BOUNDS.keys:,} keys, {BODY_BOUNDS.object_keys} in one object",
        f"over {BODY_BOUNDS.digits} in a row",
    ):
        assert figure in row, figure
    from service.replay_limits import REPLAY_BOUNDS

    page = (ROOT / "docs" / "security.md").read_text()
    assert f"a string of {REPLAY_BOUNDS['string']:,} bytes at most on replay" in page
    assert f"| {BODY_BOUNDS.object_keys} keys in one object |" in page
    assert f"| {MAX_BODY_VALUES:,} values |" in page
    assert f"| {BODY_BOUNDS.digits} digits in a row |" in page
