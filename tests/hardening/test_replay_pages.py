"""Issue 46, case 2 on replay: one replay request plays a page (``REPLAY_PAGE_MOVES``)
and its body is held to what a page needs. Before, a request took a whole record of
``SESSION_MAX_MOVES`` moves: a valid 20,000-move replay cost ~0.7 s of CPU, the
heaviest record's shape 542 ms, junk bodies at the caps 16-62 ms and up to +44 MiB.

Three senders against one gevent worker on one Redis: the pages of long random
records (DOS, two seats: the heaviest pages measured; All Wild, ten seats), each
sent with the resume token the page before answered, and the widest junk the caps let
through, each under 20 ms of worker CPU and 20 MB a request, ``/readyz`` under 250 ms."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from engine.record_pages import pages
from service import DEFAULTS, create_app
from service.replay_limits import RESUME_MAX_CHARS, replay_max_values
from service.sealing import Keyring
from tests.hardening.served import Served, raw_request, served
from tests.service.test_replay import HEAVIEST_ENTRY, small_record
from tests.service.test_replay_pages import PAGE, long_record

pytestmark = [pytest.mark.slow, pytest.mark.redis]

PER_SENDER = 4
KEYS = Keyring.new_key_spec("k1")
_addresses = itertools.count(1)


@pytest.fixture(scope="module")
def service(redis_server: Any) -> Iterator[Served]:
    with served(redis_server.url, STATE_TOKEN_KEYS=KEYS) as s:
        # The worker's first replay (its first use of the engine's variants) is not a page's cost.
        assert s.call("POST", "/v1/games/replay", small_record())[0] == 200
        yield s


def page_bodies(variant: str, seats: int) -> list[bytes]:
    """The pages of a random record of ``3 * PER_SENDER`` pages, each with the resume
    token the page before answered (the same keys as the server's)."""
    rec = long_record(variant, seats, 3 * PER_SENDER * PAGE)
    app = create_app({"TESTING": True, "STATE_TOKEN_KEYS": KEYS})
    client, out, resume = app.test_client(), [], None
    try:
        for page in pages(rec, PAGE):
            body = orjson.dumps({**page, "resume": resume})
            answer = client.post("/v1/games/replay", data=body, content_type="application/json")
            assert answer.status_code == 200, answer.get_data(as_text=True)
            resume = answer.get_json()["resume"]
            out.append(body)
    finally:
        app.extensions["sessions"].store.close()
    return out


CAP = replay_max_values(PAGE)
LIMIT = DEFAULTS["REPLAY_MAX_CONTENT_LENGTH"]
#: The widest bodies the caps let through (``JsonScan`` counts containers and commas:
#: the object and its list, then a comma between two values), and a page of the heaviest
#: entries (not a game: refused at its first move, after its shape is checked). A list
#: of more than a page's moves is parsed, then 413 ``replay_page_too_long``.
JUNK = {
    "short strings at the cap": (b'{"moves": [' + b'"ab",' * (CAP - 2) + b'"ab"]}', 413),
    "integers at the cap": (b'{"moves": [' + b"1," * (CAP - 2) + b"1]}", 413),
    "empty lists at the cap": (b'{"moves": [' + b"[]," * ((CAP - 1) // 2 - 1) + b"[]]}", 413),
    "strings of 900 digits, as many as the bytes allow": (
        b'{"moves": [' + b",".join([b'"' + b"9" * 900 + b'"'] * (LIMIT // 903 - 1)) + b"]}",
        400,
    ),
    "strings of a resume token's length": (
        b'{"moves": ['
        + b",".join([b'"' + b"a" * RESUME_MAX_CHARS + b'"'] * (LIMIT // (RESUME_MAX_CHARS + 3) - 1))
        + b"]}",
        400,
    ),
    "the heaviest entries, a page of them": (
        orjson.dumps({**small_record(), "moves": [HEAVIEST_ENTRY] * PAGE}),
        422,
    ),
}


def fresh() -> dict[str, str]:
    n = next(_addresses)
    return {"X-Forwarded-For": f"10.48.{n >> 8 & 255}.{n & 255}"}


@pytest.mark.parametrize("variant, seats", [("dos", 2), ("uno_all_wild", 10)])
def test_the_pages_of_a_long_record_are_within_budget(
    service: Served, variant: str, seats: int
) -> None:
    bodies = page_bodies(variant, seats)

    def send(i: int) -> int:
        return raw_request(service.port, "POST", "/v1/games/replay", bodies[i], fresh())

    attack = service.attack(send, PER_SENDER)
    assert attack.statuses == [200] * len(bodies), attack.statuses
    service.within_budget(attack)


@pytest.mark.parametrize("case", JUNK)
def test_junk_at_the_page_caps_is_within_budget(service: Served, case: str) -> None:
    body, status = JUNK[case]
    assert len(body) <= LIMIT

    def send(i: int) -> int:
        return raw_request(service.port, "POST", "/v1/games/replay", body, fresh())

    attack = service.attack(send, PER_SENDER)
    assert set(attack.statuses) == {status}, attack.statuses
    service.within_budget(attack)


def test_a_whole_long_record_is_refused_unread(service: Served) -> None:
    """A 20,000-move record in one request: 413 ``replay_page_too_long`` before its body
    is read (its Content-Length is over the page's), the connection closed."""
    rec = long_record("uno_classic", 4, 20_000)
    body = orjson.dumps(rec)
    assert len(rec["moves"]) == 20_000 and len(body) > LIMIT

    def send(i: int) -> int:
        return raw_request(service.port, "POST", "/v1/games/replay", body, fresh(), keep_alive=1)

    attack = service.attack(send, PER_SENDER)
    assert set(attack.statuses) <= {413, 0} and 413 in attack.statuses, attack.statuses
    service.within_budget(attack)
