"""Issue 46, case 3: reading a long game costs what reading a short one does. A game of
5,000 moves (one person, nine bots) on one Redis, read through one gevent worker by
three senders at once: the person's record after each of its moves (each read a new
version), and anonymous streams from the first event. Under 20 ms of worker CPU and
20 MB a read, ``/readyz`` under 250 ms throughout, the worker never replaced.

Before: the record was built again from the whole log at every version (191-258 ms a
read) and a stream sent the whole history, one write an event (105-147 ms)."""

from __future__ import annotations

import http.client
import itertools
import threading
import uuid
from typing import Any

import pytest

from service import create_app
from tests.hardening.long_game import long_game
from tests.hardening.served import served
from tests.sessions.conftest import Api

pytestmark = [pytest.mark.slow, pytest.mark.redis]

MOVES = 5000
PER_SENDER = 6
_addresses = itertools.count(1)


def get(port: int, path: str, **headers: str) -> int:
    """A GET read to its end, from a client of its own: its status."""
    n = next(_addresses)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path, headers={"X-Forwarded-For": f"10.3.{n >> 8}.{n & 255}", **headers})
    resp = conn.getresponse()
    resp.read()
    conn.close()
    return resp.status


def test_a_long_games_record_and_history_cost_what_a_short_games_do(redis_server: Any) -> None:
    prefix = f"g{uuid.uuid4().hex[:6]}:"
    app = create_app({"REDIS_URL": redis_server.url, "SESSION_KEY_PREFIX": prefix})
    api = Api(app.test_client())
    sid, token, _ = long_game(api, MOVES)
    moving = threading.Lock()

    def move() -> None:
        """The person's next move, made by another process (this one) on the Redis."""
        with moving:
            own = api.get(sid, token).get_json()
            step = next(m for m in own["legal_moves"] if m["type"] not in ("uno", "catch"))
            assert api.move(sid, token, step, own["version"]).status_code == 200

    try:
        with served(redis_server.url, SESSION_KEY_PREFIX=prefix) as s:
            record = f"/v1/sessions/{sid}/record"
            auth = {"Authorization": f"Bearer {token}"}
            # The worker's first read of the game plays its log once (docs/security.md).
            assert get(s.port, record, **auth) == 200

            def send(i: int) -> int:
                if i % 2:
                    return get(s.port, f"/v1/sessions/{sid}/stream?timeout=2")
                move()
                return get(s.port, record, **auth)

            attack = s.attack(send, PER_SENDER)
            assert set(attack.statuses) == {200}
            s.within_budget(attack)
    finally:
        app.extensions["sessions"].store.close()
