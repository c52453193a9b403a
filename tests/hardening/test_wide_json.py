"""Issue 46, case 2: a body's width is bounded while it is read, on every JSON route.
Round two capped the width only on replay: ~1 MiB bodies to create, join and apply with
80,000 unknown keys cost 490-720 ms and a 2.86 MB answer listing every key; ``options``
with 80,000 keys 331 ms; 300,000 empty arrays 200-260 ms and +28 MB. Now each is refused
by the pre-scan at its first pieces (``http.BODY_BOUNDS``), and an answer names at most
``MAX_NAMED`` fields.

Three senders against one gevent worker on one Redis: under 20 ms of worker CPU a
request, ``/readyz`` under 250 ms, answers under 2 KiB."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from service import DEFAULTS
from service.problems import MAX_NAMED
from tests.hardening.served import Served, raw_request, served

pytestmark = [pytest.mark.slow, pytest.mark.redis]

PER_SENDER = 4
KEYS = 80_000
_addresses = itertools.count(1)


@pytest.fixture(scope="module")
def service(redis_server: Any) -> Iterator[Served]:
    with served(redis_server.url) as s:
        yield s


def unknown_keys(**fields: Any) -> bytes:
    """A body of ``fields`` and 80,000 unknown keys (under 1 MiB)."""
    extra = b",".join(b'"k%d":1' % i for i in range(KEYS))
    return orjson.dumps(fields)[:-1] + b"," + extra + b"}"


PLAYERS = [{"name": "Ann"}, {"open": True}]
CASES = {
    "create, unknown keys": ("/v1/sessions", unknown_keys(variant="uno_classic", players=2)),
    "join, unknown keys": ("/v1/sessions/nosuchsession/join", unknown_keys(name="Bob")),
    "apply, unknown keys": ("/v1/games/apply", unknown_keys(variant="uno_classic")),
    "create, wide options": (
        "/v1/sessions",
        b'{"variant": "uno_classic", "players": 2, "options": {'
        + b",".join(b'"o%d":1' % i for i in range(KEYS))
        + b"}}",
    ),
    "apply, empty arrays": ("/v1/games/apply", b'{"x": [' + b",".join([b"[]"] * 300_000) + b"]}"),
    # As many as the replay route's bytes hold (9,000 when it took 8 MiB).
    "replay, long numbers": (
        "/v1/games/replay",
        b'{"moves": ['
        + b",".join([b"9" * 900] * (DEFAULTS["REPLAY_MAX_CONTENT_LENGTH"] // 901 - 1))
        + b"]}",
    ),
    "replay, one long string (chunked)": (
        "/v1/games/replay",
        b'{"x": "' + b"a" * 9 * 2**20 + b'"}',
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_wide_body_is_refused_while_read(service: Served, case: str) -> None:
    path, body = CASES[case]
    assert len(body) <= 2**20 or "replay" in path
    chunked = "chunked" in case

    def send(i: int) -> int:
        n = next(_addresses)
        address = {"X-Forwarded-For": f"10.47.{n >> 8 & 255}.{n & 255}"}
        return raw_request(service.port, "POST", path, body, address, chunked)

    attack = service.attack(send, PER_SENDER)
    assert set(attack.statuses) <= {400, 0}, attack.statuses
    service.within_budget(attack)


def test_an_answer_names_at_most_a_few_fields(service: Served) -> None:
    """What is within the bounds and still wrong: the answer names ``MAX_NAMED`` fields
    and counts the rest, in ``errors`` and in ``detail``."""
    body = {"variant": "uno_classic", "players": 2, **{f"k{i}": 1 for i in range(60)}}
    status, answer = service.call("POST", "/v1/sessions", body)
    assert status == 400 and answer["code"] == "invalid_request"
    assert len(answer["errors"]) == MAX_NAMED + 1
    assert answer["errors"]["..."] == [f"and {62 - 2 - MAX_NAMED} more"]
    assert answer["detail"].endswith(f"and {60 - MAX_NAMED} more)")
    assert len(orjson.dumps(answer)) < 2048
