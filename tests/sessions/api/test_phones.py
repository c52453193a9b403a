"""What a phone sees: the multiplayer story played by four phones that poll only (no
stream) with a 3-second turn clock, on every session store.

- Every answer about a seat (create, join, get, move, leave, rematch) is one shape: the
  spec's ``SessionState``, each validated against it.
- The join that deals answers the first turn's view; the clock holds until each person
  has read the session after the deal (or the start grace), so nobody loses a turn
  before their first read.
- A phone whose seat a bot took after its timeouts, or that left, is told so by its
  old token (401 ``seat_taken_by_bot`` / ``seat_left``), for the session's life; the
  former claims its seat in the rematch with it.
- A join and a create count as being there (``connected``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.sessions.events import rfc3339
from tests.sessions.api.test_lobby import Lobby
from tests.sessions.conftest import problem, turn_seat
from tests.support import schema_validator

T0 = 1_800_000_000.0
TURN = 3
GRACE = 15.0


@pytest.fixture
def lobby(client: FlaskClient) -> Lobby:
    return Lobby(client)


def seat_answer(r: Any, status: int = 200) -> dict[str, Any]:
    """A seat answer: ``status``, and the body valid for ``SessionState``."""
    assert r.status_code == status, r.get_data(as_text=True)
    body: dict[str, Any] = r.get_json()
    schema_validator("SessionState").validate(body)
    return body


class Clock:
    def __init__(self) -> None:
        self.t = T0

    def __call__(self) -> float:
        return self.t


@dataclass
class Phone:
    """One player's phone: its token, and what it has read."""

    name: str
    seat: int
    token: str
    first_read: float | None = None
    last_event: int = 0
    version: int = 0
    #: Answers to moves (it stops moving when False).
    plays: bool = True
    events: list[dict[str, Any]] = field(default_factory=list)

    def poll(self, api: Lobby, sid: str, now: float) -> dict[str, Any]:
        """One poll: the session with the events since the last one."""
        r = api.c.get(f"/v1/sessions/{sid}?after={self.last_event}", headers=api.auth(self.token))
        body = seat_answer(r)
        if self.first_read is None:
            self.first_read = now
        self.take(body)
        return body

    def take(self, body: dict[str, Any]) -> None:
        assert body["seat"] == self.seat and body["version"] >= self.version
        self.version = body["version"]
        fresh = [e for e in body["events"] if e["seq"] > self.last_event]
        self.events += fresh
        self.last_event = max([self.last_event, body["last_event"]])

    def my_turn(self, body: dict[str, Any]) -> bool:
        view = body["view"]
        return body["status"] == "playing" and turn_seat(view) == self.seat

    def move(self, api: Lobby, sid: str, body: dict[str, Any]) -> dict[str, Any]:
        move = next(m for m in body["legal_moves"] if m["type"] not in ("uno", "catch"))
        answer = seat_answer(api.move(sid, self.token, move, body["version"]))
        self.take(answer)
        return answer


def test_four_phones_that_poll_play_the_multiplayer_story(lobby: Lobby, app: Flask) -> None:
    now = Clock()
    app.extensions["sessions"].now = now
    api = lobby
    # Ann's phone: three open seats, public, a 3-second clock, a bot after two timeouts.
    r = api.create(
        "uno_classic",
        [{"name": "Ann"}, {"open": True}, {"open": True}, {"open": True}],
        public=True,
        options={"target": 1},
        clock={"turn_seconds": TURN, "max_timeouts": 2},
    )
    created = seat_answer(r, 201)
    sid, code = created["session_id"], created["invitation_code"]
    assert created["status"] == "waiting" and created["token"] == created["seats"][0]["token"]
    assert [s["name"] for s in created["seats"]] == ["Ann", "Player 2", "Player 3", "Player 4"]
    assert [s["connected"] for s in created["seats"]] == [True, False, False, False]
    ann = Phone("Ann", 0, created["token"])
    ann.take(created)

    # Bob joins with the code, Cy and Di from the lobby; each join is there at once.
    phones = [ann]
    for i, name in enumerate(["Bob", "Cy", "Di"], start=1):
        now.t += 1
        joined = seat_answer(api.join(sid, name, code if name == "Bob" else None))
        assert joined["seat"] == i and joined["seats"][i]["connected"] is True
        assert joined["token"] and all(s["connected"] for s in joined["seats"][: i + 1])
        phones.append(Phone(name, i, joined["token"]))
        phones[-1].take(joined)
    deal = now.t
    # The join that dealt answers the first turn as Di sees it, and the clock holds for
    # the three who have not read since the deal.
    assert joined["status"] == "playing" and len(joined["view"]["hand"]) >= 7
    assert [e["type"] for e in joined["events"]][:2] == ["joined", "started"]
    clock = joined["clock"]
    assert clock["held_for"] == [0, 1, 2] and clock["held_until"] == rfc3339(deal + GRACE)
    # Not running yet: the turn's whole time, from now (it never shows a later deadline
    # than the one the turn gets once the clock starts).
    assert clock["running"] is False and clock["seconds_left"] == TURN
    assert clock["deadline"] == rfc3339(deal + TURN)

    # The phones read at their own pace: Ann after 1 s, Bob after 2 s, Cy after 9 s
    # (three turns' worth). Whoever is to move and has read moves at once.
    first_reads = {0: deal + 1, 1: deal + 2, 3: deal + 2.5, 2: deal + 9}
    for seat, at in sorted(first_reads.items(), key=lambda kv: kv[1]):
        now.t = at
        phone = phones[seat]
        body = phone.poll(api, sid, now.t)
        assert not any(e["type"] == "timeout" for e in body["events"])
        held = body["clock"]["held_for"]
        assert seat not in held and all(phones[s].first_read is None for s in held)
        if phone.my_turn(body):
            phone.move(api, sid, body)
    assert phones[2].first_read == deal + 9
    # Cy's read started the clock: nobody had lost a turn before it.
    body = phones[2].poll(api, sid, now.t)
    assert body["clock"]["held_for"] == [] and body["clock"]["held_until"] is None
    assert not [e for p in phones for e in p.events if e["type"] == "timeout"]

    # They play, each phone polling every second. Bob's phone stops answering (it
    # still polls); once a bot has his seat Cy leaves, and Ann and Di play it out.
    bob, cy = phones[1], phones[2]
    bob.plays = False
    lost: dict[str, dict[str, Any]] = {}
    for tick in range(4000):
        now.t += 0.25
        phone = phones[tick % 4]
        if phone.name in lost:
            continue
        if phone is cy and "Bob" in lost:
            left = seat_answer(api.leave(sid, cy.token))
            assert left["seat"] == 2 and left["seats"][2]["bot"] is True
            assert left["view"]["player"] is None and left["legal_moves"] == []  # a spectator's
            lost["Cy"] = problem(api.get(sid, cy.token), 401, "seat_left")
            continue
        r = api.c.get(f"/v1/sessions/{sid}?after={phone.last_event}", headers=api.auth(phone.token))
        if r.status_code == 401:
            lost[phone.name] = problem(r, 401, r.get_json()["code"])
            continue
        body = seat_answer(r)
        phone.take(body)
        if body["status"] == "over":
            break
        if phone.plays and phone.my_turn(body):
            phone.move(api, sid, body)
    assert body["status"] == "over", "the game did not end"

    # Only Bob lost turns, each after his first read; then a bot took his seat.
    timeouts = [e for e in ann.events if e["type"] == "timeout"]
    assert timeouts and {e["player"] for e in timeouts} == {1}
    assert all(e["deadline"] > rfc3339(first_reads[e["player"]]) for e in timeouts)
    took = [e for e in ann.events if e["type"] == "bot_took_seat"]
    assert took == [{"seq": took[0]["seq"], "type": "bot_took_seat", "player": 1,
                     "reason": "timeouts"}]  # fmt: skip
    assert lost["Bob"]["code"] == "seat_taken_by_bot" and lost["Bob"]["seat"] == 1
    assert lost["Bob"]["at"] == timeouts[-1]["deadline"]
    assert lost["Cy"] == {**lost["Cy"], "seat": 2, "reason": "left", "replaced_by": "bot"}

    # The rematch: each phone asks with its old token; the lost seats are told again.
    again = seat_answer(api.rematch(sid, ann.token))
    assert again["previous_session_id"] == sid and again["seat"] == 0 and again["token"]
    assert again["view"] is not None and again["events"][0]["seq"] == 1
    assert again["clock"]["held_for"] == [3]  # Di has not asked yet
    di = seat_answer(api.rematch(sid, phones[3].token))
    assert di["session_id"] == again["session_id"] and di["clock"]["held_for"] == []
    # Bob's seat, a bot's after his timeouts, is his again in the rematch (his old
    # token claims it); Cy left hers: her token is told so.
    back = seat_answer(api.rematch(sid, bob.token))
    assert back["session_id"] == again["session_id"] and back["seat"] == 1
    assert back["seats"][1]["bot"] is False and back["token"]
    assert [e for e in back["events"] if e["type"] == "seat_returned"][0]["player"] == 1
    problem(api.rematch(sid, cy.token), 401, "seat_left")


@pytest.mark.parametrize("store_kind", ["memory"], indirect=True)
def test_the_clock_starts_at_the_grace_when_someone_never_reads(lobby: Lobby, app: Flask) -> None:
    """A person who never reads: the clock starts at the deal plus the grace."""
    now = Clock()
    app.extensions["sessions"].now = now
    r = lobby.create("uno_classic", [{"name": "Ann"}, {"name": "Bob"}], seed=5,
                     clock={"turn_seconds": TURN})  # fmt: skip
    created = seat_answer(r, 201)
    sid, waiting = created["session_id"], created["clock"]["seat"]
    assert created["clock"]["held_for"] == [1]
    now.t = T0 + GRACE + TURN - 0.5
    assert not [e for e in lobby.all_events(sid) if e["type"] == "timeout"]
    now.t = T0 + GRACE + TURN
    timeout = [e for e in lobby.all_events(sid) if e["type"] == "timeout"]
    assert timeout == [{"seq": timeout[0]["seq"], "type": "timeout", "player": waiting,
                        "deadline": rfc3339(T0 + GRACE + TURN), "moves": timeout[0]["moves"]}]  # fmt: skip


@pytest.mark.parametrize("store_kind", ["memory"], indirect=True)
def test_a_read_that_tells_keeps_the_movers_version_good(lobby: Lobby, app: Flask) -> None:
    """Telling a seat of the deal is a commit of its own, but a quiet one: a move that
    answers the version before it is still judged (no 412)."""
    now = Clock()
    app.extensions["sessions"].now = now
    created = seat_answer(lobby.create("uno_classic", [{"name": "Ann"}, {"name": "Bob"}],
                                       seed=5, clock={"turn_seconds": 30}), 201)  # fmt: skip
    sid, toks = created["session_id"], [s["token"] for s in created["seats"]]
    mover = turn_seat(created["view"])
    mine = seat_answer(lobby.get(sid, toks[mover]))
    told = seat_answer(lobby.get(sid, toks[1]))  # Bob's first read
    assert told["version"] == mine["version"] + (mover == 0)
    move = next(m for m in mine["legal_moves"] if m["type"] not in ("uno", "catch"))
    assert told["etag"].partition(".")[2] == mine["etag"].partition(".")[2]  # same game
    moved = seat_answer(lobby.move(sid, toks[mover], move, f'"{mine["etag"]}"'))
    assert moved["version"] == told["version"] + 1
    assert [s["connected"] for s in moved["seats"]] == [True, True]
    problem(lobby.move(sid, toks[mover], move, mine["version"]), 412, "version_mismatch")
    problem(lobby.move(sid, toks[mover], move, f'"{told["etag"]}"'), 412, "version_mismatch")


@pytest.mark.parametrize("store_kind", ["memory"], indirect=True)
def test_a_stream_tells_its_seat_and_keeps_it_there(lobby: Lobby, app: Flask) -> None:
    """A phone that follows the stream instead of reading: its stream tells it of the
    deal (the clock starts) and shows it connected."""
    now = Clock()
    app.extensions["sessions"].now = now
    created = seat_answer(lobby.create("uno_classic", [{"name": "Ann"}, {"name": "Bob"}],
                                       seed=5, clock={"turn_seconds": 30}), 201)  # fmt: skip
    sid, bob = created["session_id"], created["seats"][1]["token"]
    assert created["clock"]["held_for"] == [1]
    assert [s["connected"] for s in created["seats"]] == [True, False]
    now.t += 4
    r = lobby.stream(sid, bob)
    assert r.status_code == 200 and r.get_data().startswith(b"retry:")
    spectator = seat_answer(lobby.get(sid))
    assert spectator["clock"]["held_for"] == [] and spectator["clock"]["seconds_left"] == 30
    assert [s["connected"] for s in spectator["seats"]] == [True, True]
