"""The API's translations of HTTP: the bearer token, If-Match, the Idempotency-Key, and a
part's reply as a response (the HTTP tests in tests/sessions/api run them end to end)."""

from __future__ import annotations

import pytest

from service.sessions.api import (
    MAX_IF_MATCH_CHARS,
    _answer,
    _or_problem,
    bearer,
    idempotency_key,
    parse_if_match,
    status_of,
)
from service.sessions.models import Reply
from service.sessions.problems import SessionError


@pytest.mark.parametrize(
    ("header", "token"),
    [
        (None, None),
        ("Bearer abc", "abc"),
        ("  bearer abc  ", "abc"),
        ("Basic YWJjOmRlZg==", ""),
        ("Bearer", ""),
        ("Bearer " + "x" * 257, ""),
    ],
)
def test_the_bearer_token(header: str | None, token: str | None) -> None:
    assert bearer(header) == token


@pytest.mark.parametrize(
    ("header", "version"),
    [
        (None, None),
        ("*", None),
        ('"7"', 7),
        ('W/"7"', 7),
        ("7", 7),
        ('"v7"', -1),
        ('"1' + "0" * 19 + '"', -1),
    ],
)
def test_if_match_names_a_version(header: str | None, version: int | None) -> None:
    assert parse_if_match(header) == version


@pytest.mark.parametrize("header", ['"1", "2"', "x" * (MAX_IF_MATCH_CHARS + 1), '"'])
def test_an_unreadable_if_match_is_a_400_naming_it(header: str) -> None:
    with pytest.raises(SessionError) as e:
        parse_if_match(header)
    assert status_of(e.value) == 400 and e.value.facts == {"errors": {"If-Match": ["invalid"]}}


def test_an_idempotency_key_is_visible_ascii_and_its_problem_waits_its_turn() -> None:
    assert idempotency_key(None) is None and idempotency_key("k-1!~") == "k-1!~"
    for bad in ("", "with space", "é", "x" * 256):
        later = _or_problem(idempotency_key, bad)
        assert isinstance(later, SessionError) and status_of(later) == 400
    assert _or_problem(parse_if_match, '"3"') == 3


def test_a_reply_is_answered_with_its_etag_and_never_cached() -> None:
    resp = _answer(Reply(b'{"a":1}', 4, replayed=True), 201)
    assert resp.status_code == 201 and resp.get_data() == b'{"a":1}'
    assert resp.headers["ETag"] == '"4"' and resp.headers["Idempotent-Replayed"] == "true"
    assert resp.headers["Cache-Control"] == "no-store" and resp.mimetype == "application/json"
    plain = _answer(Reply(b"{}"))
    assert "ETag" not in plain.headers and "Idempotent-Replayed" not in plain.headers
