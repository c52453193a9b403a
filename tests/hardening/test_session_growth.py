"""Issue 46, cases 4 and 5, against the real server: gunicorn with one gevent worker on
one Redis, three senders at once, ``/readyz`` asked meanwhile (``served.py``).

- Join/leave pairs on notifying sessions whose webhooks nobody delivers: each session
  stops at its byte cap (409 ``session_too_large``), its outbox at
  ``WEBHOOK_OUTBOX_MAX``. Before: 2,600 pairs pushed a session to 1,079,000 bytes and
  5,000 pairs wrote 5,000 outbox entries (3.4 MB).
- Creates from one address whose quota of live sessions is full: 429 at once, each
  within budget (the places of sessions gone are looked for in their metas)."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from service.redis import outbox_keys
from tests.hardening.served import SENDERS, Served, served

pytestmark = [pytest.mark.slow, pytest.mark.redis]

CAP = 16 * 1024
OUTBOX = 40
QUOTA = 20
PREFIX = f"g{time.monotonic_ns()}:"
_addresses = itertools.count(1)


@pytest.fixture(scope="module")
def service(redis_server: Any) -> Iterator[Served]:
    with served(
        redis_server.url, SESSION_KEY_PREFIX=PREFIX, SESSION_MAX_BYTES=str(CAP),
        WEBHOOK_URL="https://hooks.example.com/uno", WEBHOOK_OUTBOX_MAX=str(OUTBOX),
        SESSION_SESSIONS_PER_CLIENT=str(QUOTA),
    ) as s:  # fmt: skip
        yield s


def address() -> dict[str, str]:
    n = next(_addresses)
    return {"X-Forwarded-For": f"10.47.{n >> 8 & 255}.{n & 255}"}


def test_join_leave_pairs_stop_at_the_byte_cap_and_the_outbox_at_its_cap(
    service: Served, redis_server: Any
) -> None:
    sessions = []
    for _ in range(SENDERS):
        players = [{"name": "Ann"}, {"open": True}, {"open": True}]
        status, body = service.call(
            "POST", "/v1/sessions", {"variant": "uno_classic", "players": players,
                                     "public": True, "notify": True}, **address(),
        )  # fmt: skip
        assert status == 201, body
        sessions.append(body["session_id"])
    pairs = 60  # ~330 bytes a pair (two events, a webhook): the cap at ~50
    made: list[int] = []
    codes: set[str] = set()
    # One pair at a time in a session: two joins at once would fill its seats and deal.
    locks = [threading.Lock() for _ in sessions]

    def send(i: int) -> int:
        sid = sessions[i % SENDERS]
        with locks[i % SENDERS]:
            made.append(1)
            status, body = service.call(
                "POST", f"/v1/sessions/{sid}/join", {"name": "Mallory"}, **address()
            )
            if status != 200:
                codes.add(body["code"])
                return int(status)
            token = body["token"]
            made.append(1)
            status, body = service.call(
                "POST", f"/v1/sessions/{sid}/leave", Authorization=f"Bearer {token}", **address()
            )
            if status != 200:
                codes.add(body["code"])
            return int(status)

    attack = service.attack(send, pairs)
    assert set(attack.statuses) <= {200, 409}, attack.statuses
    assert codes == {"session_too_large"}, "no session reached its cap"
    attack.requests = len(made)  # a pair is two requests (one when the join is refused)
    print("per request:", attack)
    r: Any = redis.Redis.from_url(redis_server.url)
    for sid in sessions:
        stored = int(r.hget(f"{PREFIX}{{{sid}}}:state", "b") or 0)
        assert CAP <= stored < CAP + 2048, stored  # one change past the cap at most
        assert r.llen(outbox_keys.outbox_key(PREFIX, sid)) == OUTBOX
    service.within_budget(attack)


def test_a_full_quota_of_live_sessions_refuses_creates_cheaply(service: Served) -> None:
    one = address()
    bots = {"variant": "uno_classic", "players": [{"name": "A"}, {"bot": True}]}
    for _ in range(QUOTA):
        status, body = service.call("POST", "/v1/sessions", bots, **one)
        assert status == 201, body

    def send(i: int) -> int:
        return int(service.call("POST", "/v1/sessions", bots, **one)[0])

    attack = service.attack(send, 12)
    assert set(attack.statuses) == {429}, attack.statuses
    service.within_budget(attack)
