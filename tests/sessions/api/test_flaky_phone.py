"""Four phones that poll (no stream), a 3-second turn clock, a bot after two timeouts in
a row: Cy's phone goes quiet (a tunnel), a bot takes her seat, her phone comes back,
takes the seat back with its old token (``POST .../return``) and the game is played to
its end. On one process, and on two app instances (replicas) on one Redis and on the
cluster, every request going to the other replica than the one before.

What every answer must hold, checked as the story goes:

- it is valid for the spec's ``SessionState`` (seat answers) or ``Problem``;
- no answer shows a deadline earlier than an answer showed before for the same turn
  (the same seat waited for, no event in between: ``last_event``);
- Cy's seat shows ``connected: false`` while it is still hers, before the bot takes it;
- the bot's moves stand: the log keeps them, before ``seat_returned``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask

from service.sessions.events import rfc3339
from tests.sessions.api.test_lobby import Lobby
from tests.sessions.api.test_phones import Clock, seat_answer
from tests.sessions.conftest import Api, problem, turn_seat

TURN = 3
#: Cy's phone goes quiet at this time after the create, for at least ``2 * TURN``.
QUIET_AT = 4.0
#: Each tick one phone polls: every phone polls once per ``4 * TICK`` seconds.
TICK = 0.25


@dataclass
class Phone:
    name: str
    seat: int
    token: str
    last_event: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)
    #: When the phone last made a request (None: not since the create).
    last_request: float | None = None

    def take(self, body: dict[str, Any]) -> None:
        self.events += [e for e in body["events"] if e["seq"] > self.last_event]
        self.last_event = max(self.last_event, body["last_event"])


@dataclass
class Story:
    """The requests of the story, each to the next replica in turn, and what the
    answers showed."""

    apis: list[Lobby]
    now: Clock
    sid: str = ""
    sent: int = 0
    #: The latest deadline shown per turn: (seat waited for, last event) -> RFC 3339.
    shown: dict[tuple[int, int], str] = field(default_factory=dict)
    #: What the other phones saw of Cy's seat: (time, bot, connected, last_seen).
    cy_seen: list[tuple[float, Any, bool, str | None]] = field(default_factory=list)

    def api(self) -> Lobby:
        self.sent += 1
        return self.apis[self.sent % len(self.apis)]

    def answer(self, r: Any, status: int = 200) -> dict[str, Any]:
        body = seat_answer(r, status)
        clock = body["clock"]
        if clock["deadline"] is not None:
            turn = (clock["seat"], body["last_event"])
            before = self.shown.get(turn)
            assert before is None or clock["deadline"] >= before, (turn, before, clock)
            self.shown[turn] = clock["deadline"]
        return body

    def poll(self, phone: Phone) -> Any:
        phone.last_request = self.now.t
        return self.api().c.get(
            f"/v1/sessions/{self.sid}?after={phone.last_event}", headers=Api.auth(phone.token)
        )


def play(apis: list[Lobby], now: Clock) -> None:
    story = Story(apis, now)
    t0 = now.t
    created = story.answer(story.api().create(
        "uno_classic", [{"name": n} for n in ("Ann", "Bob", "Cy", "Di")], seed=11,
        options={"target": 1}, clock={"turn_seconds": TURN, "max_timeouts": 2},
    ), 201)  # fmt: skip
    story.sid = created["session_id"]
    phones = [Phone(s["name"], s["seat"], s["token"]) for s in created["seats"]]
    ann, cy = phones[0], phones[2]
    ann.take(created)
    took_at: float | None = None  # when a phone first saw the bot take Cy's seat
    quiet_since: float | None = None  # Cy's last request before the tunnel
    returned: dict[str, Any] | None = None
    back_at = 0.0
    body: dict[str, Any] = created
    for tick in range(1, 4000):
        now.t = t0 + tick * TICK
        phone = phones[tick % 4]
        quiet = phone is cy and now.t >= t0 + QUIET_AT and returned is None
        if quiet and (took_at is None or now.t < took_at + 2 * TURN):
            quiet_since = quiet_since or cy.last_request
            continue  # in the tunnel
        r = story.poll(phone)
        if phone is cy and returned is None and r.status_code == 401:
            lost = problem(r, 401, "seat_taken_by_bot")
            assert lost["seat"] == cy.seat and took_at is not None
            r = story.api().c.post(f"/v1/sessions/{story.sid}/return", headers=Api.auth(cy.token))
            returned, back_at = story.answer(r), now.t
            cy.take(returned)
            assert returned["seat"] == cy.seat and returned["seats"][cy.seat]["bot"] is False
            assert [e["type"] for e in returned["events"]] == ["seat_returned"]
            continue
        body = story.answer(r)
        assert body["seat"] == phone.seat
        phone.take(body)
        if phone is not cy:
            row = body["seats"][cy.seat]
            story.cy_seen.append((now.t, row["bot"], row["connected"], row["last_seen"]))
            if took_at is None and any(e["type"] == "bot_took_seat" for e in phone.events):
                took_at = now.t
        if body["status"] == "over":
            break
        if turn_seat(body["view"]) == phone.seat:
            move = next(m for m in body["legal_moves"] if m["type"] not in ("uno", "catch"))
            moved = story.api().move(story.sid, phone.token, move, body["version"])
            if moved.status_code != 412:  # a timeout a read played first: read again
                phone.take(story.answer(moved))
    assert body["status"] == "over", "the game did not end"
    assert returned is not None, "Cy never took her seat back"

    # The log: two timeouts of Cy's, the bot took her seat, its moves, her return.
    log = ann.events
    kinds = [(e["type"], e.get("player")) for e in log]
    took = kinds.index(("bot_took_seat", cy.seat))
    back = kinds.index(("seat_returned", cy.seat))
    timeouts = [e for e in log[:took] if e["type"] == "timeout"]
    assert [e["player"] for e in timeouts[-2:]] == [cy.seat, cy.seat]
    assert took < back and log[back]["seq"] == returned["events"][0]["seq"]
    # Cy played again after her return (her own moves, not the bot's).
    assert any(p == cy.seat and k in ("played", "drew") for k, p in kinds[back:])
    # Cy's seat showed as gone while it was still hers, before the bot's takeover.
    takeover = timeouts[-1]["deadline"]
    assert quiet_since is not None
    gone = [(t, seen) for t, bot, connected, seen in story.cy_seen if bot is False
            and not connected and quiet_since < t and rfc3339(t) < takeover]  # fmt: skip
    assert gone, story.cy_seen
    assert all(seen is not None and seen <= rfc3339(quiet_since) for _, seen in gone)
    # Every answer a turn after Cy's last request showed her gone, until her return.
    assert all(not connected for t, _, connected, _ in story.cy_seen
               if quiet_since + TURN <= t < back_at)  # fmt: skip
    # The bot's moves stand: it played her seat between the takeover and her return.
    assert any(p == cy.seat for _, p in kinds[took + 1 : back])


def clocked(apps: list[Flask]) -> Clock:
    now = Clock()
    for app in apps:
        app.extensions["sessions"].now = now
    return now


@pytest.mark.parametrize("store_kind", ["memory"], indirect=True)
def test_a_flaky_phone_comes_back_on_one_process(app: Flask) -> None:
    play([Lobby(app.test_client())], clocked([app]))


def test_a_flaky_phone_comes_back_across_two_replicas(replicas: tuple[Api, Api]) -> None:
    pair = [Lobby(api.c) for api in replicas]
    play(pair, clocked([api.c.application for api in pair]))
