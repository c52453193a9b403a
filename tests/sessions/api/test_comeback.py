"""A phone on a flaky network, one behaviour at a time (in process): the seat a bot took
after its timeouts taken back with the old token (``POST .../return``), and the rules
that refuse it; the same seat claimed in the rematch; two returns racing; a deadline
that only moves later while the clock holds after the deal; presence that shows a quiet
seat as gone within the turn, with ``last_seen``. Each seat answer is validated against
the spec's ``SessionState``. The whole story, four phones on each store: test_flaky_phone.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.sessions.events import rfc3339
from service.sessions.manager import SessionManager
from service.sessions.memory import MemoryStore
from tests.sessions.api.test_lobby import Lobby
from tests.sessions.api.test_phones import Clock, seat_answer
from tests.sessions.conftest import make_app, problem

T0 = 1_800_000_000.0
#: The tests on the app fixture: in process.
MEMORY = pytest.mark.parametrize("store_kind", ["memory"], indirect=True)


@pytest.fixture
def lobby(client: FlaskClient) -> Lobby:
    return Lobby(client)


def returning(api: Lobby, sid: str, token: str | None) -> Any:
    return api.c.post(f"/v1/sessions/{sid}/return", headers=api.auth(token))


def clocked(api: Lobby, now: Clock, players: int = 2, **clock: Any) -> tuple[str, list[str]]:
    """A game of ``players`` persons with a clock (``clock``), every seat told."""
    names = [{"name": n} for n in ["Ann", "Bob", "Cy", "Di"][:players]]
    created = seat_answer(
        api.create("uno_classic", names, seed=7, options={"target": 1}, clock=clock), 201
    )
    sid, tokens = created["session_id"], [s["token"] for s in created["seats"]]
    for token in tokens[1:]:
        seat_answer(api.get(sid, token))
    return sid, tokens


def taken(api: Lobby, now: Clock) -> tuple[str, list[str], int]:
    """Ann and Bob, a 3-s clock, a bot after one timeout: the seat the game waited for is
    a bot's. The session, the tokens, that seat."""
    sid, tokens = clocked(api, now, turn_seconds=3, max_timeouts=1)
    seat = seat_answer(api.get(sid))["clock"]["seat"]
    now.t += 3.5
    took = [e for e in api.all_events(sid) if e["type"] == "bot_took_seat"]
    assert [e["player"] for e in took] == [seat]
    return sid, tokens, seat


def at(app: Flask) -> Clock:
    now = Clock()
    app.extensions["sessions"].now = now
    return now


# ---------------------------------------------------------------- coming back
@MEMORY
def test_the_person_takes_back_the_seat_a_bot_took(lobby: Lobby, app: Flask) -> None:
    now = at(app)
    sid, tokens, seat = taken(lobby, now)
    lost = problem(lobby.get(sid, tokens[seat]), 401, "seat_taken_by_bot")
    assert "/return" in lost["detail"]
    before = lobby.all_events(sid)
    bot_moves = [e for e in before if e.get("player") == seat and e["type"] == "played"]
    read = seat_answer(lobby.get(sid))
    now.t += 1
    r = returning(lobby, sid, tokens[seat])
    back = seat_answer(r)
    assert r.headers["ETag"] == f'"{back["etag"]}"' and back["version"] == read["version"] + 1
    assert back["seat"] == seat and back["view"]["player"] == seat
    assert back["seats"][seat] == {**back["seats"][seat], "bot": False, "connected": True,
                                   "last_seen": rfc3339(now.t)}  # fmt: skip
    assert back["events"] == [{"seq": read["last_event"] + 1, "type": "seat_returned",
                               "player": seat}]  # fmt: skip
    assert back["clock"]["timeouts"][seat] == 0
    # The bot's moves stand: the log before the return is the log's start after it.
    after = lobby.all_events(sid, tokens[seat])
    assert [e["seq"] for e in after[: len(before)]] == [e["seq"] for e in before]
    assert [e for e in after if e.get("player") == seat and e["type"] == "played"] == bot_moves
    # The token works again; a repeat changes nothing.
    assert seat_answer(lobby.get(sid, tokens[seat]))["seat"] == seat
    again = seat_answer(returning(lobby, sid, tokens[seat]))
    assert again["version"] == back["version"] and again["events"] == []


@MEMORY
def test_a_return_is_refused_by_its_rules(lobby: Lobby, app: Flask) -> None:
    now = at(app)
    sid, tokens, seat = taken(lobby, now)
    other = 1 - seat
    problem(returning(lobby, sid, None), 401, "missing_token")
    problem(returning(lobby, sid, "not-a-token"), 401, "invalid_token")
    holds = seat_answer(returning(lobby, sid, tokens[other]))  # it holds its seat: no change
    assert holds["seat"] == other and holds["events"] == []
    # The other person leaves: a seat left is not given back.
    seat_answer(lobby.leave(sid, tokens[other]))
    left = problem(returning(lobby, sid, tokens[other]), 409, "seat_return_left")
    assert left["seat"] == other
    # Bots hold both seats: each read plays on until the game is over.
    for _ in range(200):
        if seat_answer(lobby.get(sid))["status"] == "over":
            break
    else:
        pytest.fail("the bots did not finish the game")
    over = problem(returning(lobby, sid, tokens[seat]), 409, "seat_return_game_over")
    assert over["seat"] == seat and "rematch" in over["detail"]
    # The rematch: the token the bot took the seat from claims it; the leaver's does not.
    claim = seat_answer(lobby.rematch(sid, tokens[seat]))
    assert claim["seat"] == seat and claim["seats"][seat]["bot"] is False
    assert claim["seats"][other]["bot"] is True
    assert [e["player"] for e in claim["events"] if e["type"] == "seat_returned"] == [seat]
    repeat = seat_answer(lobby.rematch(sid, tokens[seat]))
    assert repeat["token"] == claim["token"] and repeat["version"] == claim["version"]
    assert seat_answer(lobby.get(claim["session_id"], claim["token"]))["seat"] == seat
    problem(lobby.rematch(sid, tokens[other]), 401, "seat_left")


def test_two_returns_racing_one_wins(clock_store: tuple[Clock, MemoryStore]) -> None:
    """Two replicas take the same seat back at once (two tabs of the phone): the one
    that commits second lost the compare-and-set, reads the seat back and answers it
    without a second event; a bot's move that wins the race stands."""
    now, store = clock_store
    a, b = (make_app({"TESTING": True, "SESSION_STORE": store}) for _ in range(2))
    for app in (a, b):
        app.extensions["sessions"].now = now
    api_a, api_b = Lobby(a.test_client()), Lobby(b.test_client())
    sid, tokens, seat = taken(api_a, now)
    seat_answer(api_a.get(sid))  # replica a caches the session as it is now
    mgr: SessionManager = a.extensions["sessions"]
    commit = mgr.repo.commit
    raced: list[int] = []

    def racing_commit(*args: Any, **kw: Any) -> Any:
        if not raced:  # replica b's return commits first
            raced.append(seat_answer(returning(api_b, sid, tokens[seat]))["version"])
        return commit(*args, **kw)

    mgr.repo.commit = racing_commit  # type: ignore[method-assign]
    mine = seat_answer(returning(api_a, sid, tokens[seat]))
    assert mine["version"] == raced[0] and mine["events"] == []
    returned = [e for e in api_a.all_events(sid) if e["type"] == "seat_returned"]
    assert [e["player"] for e in returned] == [seat]


@pytest.fixture
def clock_store() -> tuple[Clock, MemoryStore]:
    return Clock(), MemoryStore(3600, 1000)


def test_a_return_that_loses_to_a_timeout_is_judged_after_it(
    clock_store: tuple[Clock, MemoryStore],
) -> None:
    """Three persons; Cy's seat is a bot's. While her return is on its way, another
    replica plays Ann's or Bob's timeout: the return commits after it, on the session
    as it is then, and the timeout stands."""
    now, store = clock_store
    a, b = (make_app({"TESTING": True, "SESSION_STORE": store}) for _ in range(2))
    for app in (a, b):
        app.extensions["sessions"].now = now
    api_a, api_b = Lobby(a.test_client()), Lobby(b.test_client())
    sid, tokens = clocked(api_a, now, 3, turn_seconds=3, max_timeouts=1)
    first = seat_answer(api_a.get(sid))["clock"]["seat"]
    now.t += 3.5
    seat_answer(api_a.get(sid))  # the first seat's timeout: a bot has it
    mgr: SessionManager = a.extensions["sessions"]
    commit = mgr.repo.commit
    raced: list[dict[str, Any]] = []

    def racing_commit(*args: Any, **kw: Any) -> Any:
        if not raced:  # the next deadline passes; replica b's read plays it first
            now.t += 3.5
            raced.append(seat_answer(api_b.get(sid)))
        return commit(*args, **kw)

    mgr.repo.commit = racing_commit  # type: ignore[method-assign]
    back = seat_answer(returning(api_a, sid, tokens[first]))
    assert back["version"] == raced[0]["version"] + 1 and back["seats"][first]["bot"] is False
    kinds = [e["type"] for e in api_a.all_events(sid)]
    assert kinds.count("timeout") == 2 and kinds[-1] == "seat_returned"


# ---------------------------------------------------------------- the deadline shown
@MEMORY
def test_a_held_clock_shows_a_deadline_that_only_moves_later(lobby: Lobby, app: Flask) -> None:
    """The issue's case: a 10-s clock held after the deal for Bob and Cy. The creator's
    answer shows the turn's whole time, not running; the deadline shown moves later
    until the last seat's first read starts the clock, then stays."""
    now = at(app)
    created = seat_answer(lobby.create(
        "uno_classic", [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}], seed=7,
        clock={"turn_seconds": 10}), 201)  # fmt: skip
    sid, tokens = created["session_id"], [s["token"] for s in created["seats"]]
    clocks = [created["clock"]]
    assert created["clock"] == {**created["clock"], "running": False, "seconds_left": 10,
                                "deadline": rfc3339(T0 + 10), "held_for": [1, 2]}  # fmt: skip
    for step, token in [(2, None), (1, tokens[1]), (2, None), (0.5, tokens[2]), (2, None)]:
        now.t += step
        clocks.append(seat_answer(lobby.get(sid, token))["clock"])
    deadlines = [c["deadline"] for c in clocks]
    assert deadlines == sorted(deadlines)
    assert [c["running"] for c in clocks] == [False] * 4 + [True] * 2
    assert clocks[3]["seconds_left"] == 10 and clocks[3]["held_for"] == [2]
    assert clocks[4]["deadline"] == rfc3339(T0 + 5.5 + 10) == clocks[5]["deadline"]
    assert clocks[5]["seconds_left"] == 8 and clocks[5]["held_until"] is None


@MEMORY
def test_a_clock_held_to_its_end_shows_no_earlier_deadline(lobby: Lobby, app: Flask) -> None:
    """Bob never reads: the clock starts at the hold's end (15 s); every deadline shown
    before it is earlier than the one it gets."""
    now = at(app)
    created = seat_answer(lobby.create("uno_classic", [{"name": "Ann"}, {"name": "Bob"}],
                                       seed=7, clock={"turn_seconds": 10}), 201)  # fmt: skip
    sid = created["session_id"]
    shown = [created["clock"]["deadline"]]
    for t in (5, 14.9, 15, 20):
        now.t = T0 + t
        shown.append(seat_answer(lobby.get(sid))["clock"]["deadline"])
    assert shown == sorted(shown) and shown[-1] == rfc3339(T0 + 25) == shown[-2]


# ---------------------------------------------------------------- presence
@MEMORY
def test_a_quiet_seat_shows_as_gone_within_the_turn(lobby: Lobby, app: Flask) -> None:
    now = at(app)
    sid, tokens = clocked(lobby, now, turn_seconds=5)  # Bob's read at T0
    now.t += 4.9
    seats = seat_answer(lobby.get(sid, tokens[0]))["seats"]
    assert [s["connected"] for s in seats] == [True, True]
    assert seats[1]["last_seen"] == rfc3339(T0)
    now.t += 0.2  # 5.1 s since Bob's last request: more than the turn
    seats = seat_answer(lobby.get(sid, tokens[0]))["seats"]
    assert [s["connected"] for s in seats] == [True, False]
    # Ann's time is written at most once per half window (2.5 s): her read at 4.9 s.
    assert seats[1]["last_seen"] == rfc3339(T0) and seats[0]["last_seen"] == rfc3339(T0 + 4.9)


@MEMORY
def test_without_a_clock_presence_lasts_the_presence_window(lobby: Lobby, app: Flask) -> None:
    now = at(app)
    created = seat_answer(lobby.create("uno_classic", [{"name": "Ann"}, {"name": "Bob"}]), 201)
    sid, bob = created["session_id"], created["seats"][1]["token"]
    seat_answer(lobby.get(sid, bob))
    window = app.extensions["sessions"].config.presence_seconds
    now.t += window - 1
    assert seat_answer(lobby.get(sid))["seats"][1]["connected"] is True
    now.t += 2
    gone = seat_answer(lobby.get(sid))["seats"][1]
    assert gone["connected"] is False and gone["last_seen"] == rfc3339(T0)
