"""Issue 46, case 5: a game always ends, and a game nobody plays is not kept forever.

Before: with no ``max_timeouts`` the clock's forced moves only drew (on a 2 s clock the
hands went from 7 to 21 cards in 70 s), the game never ended, and every sweep renewed
its TTL (a 14-day turn plus a 14-day bank: 28 days each time). Now a seat is handed to
a bot after ``SESSION_MAX_TIMEOUTS`` timeouts in a row whatever ``max_timeouts`` says:
a game nobody plays goes to its bots, is no longer swept, and its readers (or its
expiry) end it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask

from service.sessions.config import SessionConfig
from service.sessions.memory import MemoryStore
from tests.sessions.conftest import Api, make_app

DOCS = Path(__file__).resolve().parents[2] / "docs"
T0 = 1_800_000_000.0
CAP = 3


class Wall:
    def __init__(self) -> None:
        self.t = T0

    def __call__(self) -> float:
        return self.t


def game(wall: Wall, **config: Any) -> tuple[Flask, Api, str]:
    """A clocked game of two people (2 s turns, no ``max_timeouts``), one round to win."""
    store = MemoryStore(3600, 10_000)
    app = make_app({"TESTING": True, "SESSION_STORE": store, "CLOCK_SWEEPER": "on",
                    "SESSION_START_GRACE_SECONDS": "0", **config})  # fmt: skip
    app.extensions["sessions"].now = wall
    api = Api(app.test_client())
    r = api.create("uno_classic", 2, seed=5, options={"target": 1}, clock={"turn_seconds": 2})
    assert r.status_code == 201, r.get_data(as_text=True)
    assert r.get_json()["clock"]["max_timeouts"] is None
    return app, api, r.get_json()["session_id"]


def test_a_game_nobody_plays_goes_to_its_bots_and_ends() -> None:
    wall = Wall()
    app, api, sid = game(wall, SESSION_MAX_TIMEOUTS=str(CAP))
    wall.t += 600  # ten minutes nobody moved: 300 deadlines passed
    body: dict[str, Any] = {}
    for _ in range(50):  # each read plays what the clock and the bots owe, within budgets
        body = api.get(sid).get_json()
        if body["status"] == "over":
            break
    assert body["status"] == "over", body["view"]["hand_sizes"]
    events = api.events(sid).get_json()["events"]
    handed = [e for e in events if e["type"] == "bot_took_seat"]
    assert sorted(e["player"] for e in handed) == [0, 1]
    assert {e["reason"] for e in handed} == {"timeouts"}
    timeouts = [e for e in events if e["type"] == "timeout"]
    assert len(timeouts) <= 2 * CAP  # each seat's CAP in a row, then its bot
    # Bots only: nothing for the sweeper, and the store's TTL (not renewed by sweeps).
    assert app.extensions["sessions"].store.deadline_index(sid) is None


def test_the_default_cap_hands_over_a_seat_that_never_moves() -> None:
    """The default ``SESSION_MAX_TIMEOUTS``: a seat that never moves is a bot's after
    that many timeouts in a row (docs/sessions.md states the figure)."""
    cap = SessionConfig().max_timeouts
    page = " ".join((DOCS / "sessions.md").read_text().split())
    assert f"`SESSION_MAX_TIMEOUTS` ({cap}) timeouts in a row" in page
    security = (DOCS / "security.md").read_text()
    assert (
        f"| a game nobody plays | timeouts in a row of one seat | `SESSION_MAX_TIMEOUTS` ({cap}),"
        in security
    )
    wall = Wall()
    app, api, sid = game(wall)
    for _ in range(60):
        wall.t += 2.5
        body = api.get(sid).get_json()
        if any(s["bot"] for s in body["seats"]):
            break
    handed = [e for e in api.events(sid).get_json()["events"] if e["type"] == "bot_took_seat"]
    assert handed, "no seat went to a bot"
    seat = handed[0]["player"]
    timeouts = [e for e in api.events(sid).get_json()["events"] if e["type"] == "timeout"]
    assert len([e for e in timeouts if e["player"] == seat]) == cap
