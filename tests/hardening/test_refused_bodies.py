"""Issue 46, case 1: a refused request costs what refusing costs. Bodies over a route's
limit (with a Content-Length or chunked), bodies refused for what their first pieces
hold, for their Content-Type or by the replay's rate limit are answered without being
read, and the connection is closed, so gunicorn does not drain the rest of them either.

Three senders, each request's whole 8 MiB body written whatever the server answers,
against one gevent worker on one Redis: under 20 ms of worker CPU a request, ``/readyz``
under 250 ms throughout, the worker never replaced."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from tests.hardening.served import Served, raw_request, served

pytestmark = [pytest.mark.slow, pytest.mark.redis]

BIG = 8 * 2**20
#: A JSON-looking body of ``BIG`` bytes: an object with one long string.
BIG_STRING = b'{"x": "' + b"a" * (BIG - 10) + b'"}'
#: Nested past any depth at its first byte.
DEEP = b"[" * BIG
#: The replay route takes 8 MiB: this is over it (sent with its Content-Length; chunked,
#: the pieces up to the limit are read, and the string's length refuses it: case 2).
OVER_REPLAY = b'{"x": "' + b"a" * (BIG + 2**20) + b'"}'
PER_SENDER = 4
_addresses = itertools.count(1)


@pytest.fixture(scope="module")
def service(redis_server: Any) -> Iterator[Served]:
    with served(redis_server.url, REPLAY_RATE_LIMIT="2/minute") as s:
        yield s


def fresh() -> dict[str, str]:
    """A client of its own (``TRUSTED_PROXIES=1``)."""
    n = next(_addresses)
    return {"X-Forwarded-For": f"10.46.{n >> 8 & 255}.{n & 255}"}


CASES = {
    "apply, Content-Length": ("/v1/games/apply", BIG_STRING, False, {}),
    "create, Content-Length": ("/v1/sessions", BIG_STRING, False, {}),
    "create, chunked": ("/v1/sessions", BIG_STRING, True, {}),
    "apply, chunked, too deep": ("/v1/games/apply", DEEP, True, {}),
    "replay, too deep": ("/v1/games/replay", DEEP, False, {}),
    "replay, chunked, too deep": ("/v1/games/replay", DEEP, True, {}),
    "replay, over its limit": ("/v1/games/replay", OVER_REPLAY, False, {}),
    "create, text/plain": ("/v1/sessions", BIG_STRING, False, {"Content-Type": "text/plain"}),
}
EXPECTED = {"text/plain": 415, "deep": 400}


@pytest.mark.parametrize("case", CASES)
def test_a_refused_body_is_not_read(service: Served, case: str) -> None:
    path, body, chunked, headers = CASES[case]

    def send(i: int) -> int:
        return raw_request(
            service.port, "POST", path, body, {**fresh(), **headers}, chunked, keep_alive=1
        )

    attack = service.attack(send, PER_SENDER)
    # The answer is read where the client gets it before the connection closes.
    assert set(attack.statuses) <= {400, 413, 415, 0}, attack.statuses
    service.within_budget(attack)


def test_a_rate_limited_replay_is_not_read(service: Served) -> None:
    one = fresh()
    small = b'{"variant": "uno_classic"}'
    for _ in range(2):
        assert raw_request(service.port, "POST", "/v1/games/replay", small, one) in (400, 422)

    def send(i: int) -> int:
        return raw_request(service.port, "POST", "/v1/games/replay", BIG_STRING, one, keep_alive=1)

    attack = service.attack(send, PER_SENDER)
    assert set(attack.statuses) <= {429, 0}, attack.statuses
    service.within_budget(attack)


def test_a_well_formed_request_keeps_its_connection(service: Served) -> None:
    """Closing is for bodies left unread: a request read whole, even refused, keeps
    its connection for the next one."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=10)
    for _ in range(2):
        conn.request("POST", "/v1/games/apply", body=b"{}", headers={"Content-Type": JSON})
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 400
        assert resp.getheader("Connection") != "close"
    conn.close()


JSON = "application/json"
