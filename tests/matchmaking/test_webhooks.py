"""A quick-match table notifies when the deployment has a webhook: an app whose phone is
closed learns from ``match.found`` (one per ticket, after ``game.started``) that the
ticket's table was dealt, its seat and its person (``external_id``, from the ticket's
identity assertion); never a token, nor another seat's data."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from flask import Flask

from service.sessions.memory import MemoryStore
from service.sessions.outbox import parse_entry
from tests.matchmaking.conftest import BASE, Phone, close
from tests.notifier.conftest import IDENTITY_KEY, asserted
from tests.sessions.conftest import make_app, store_config

HOOK = {"WEBHOOK_URL": "https://hooks.example.com/uno", "IDENTITY_ASSERTION_KEY": IDENTITY_KEY}


def hooks(app: Flask, sid: str) -> list[dict[str, Any]]:
    return [
        orjson.loads(parse_entry(raw)[1]) for raw in app.extensions["sessions"].store.outbox(sid)
    ]


def test_a_dealt_table_sends_game_started_naming_each_tickets_person() -> None:
    app = make_app({"TESTING": True, "SESSION_STORE": MemoryStore(3600, 10_000), **BASE, **HOOK})
    client = app.test_client()
    ann, bob = Phone(client, 1), Phone(client, 2)
    sid = ann.play(seats=2, name="Ann", identity=asserted("user-ann")).get_json()["session_id"]
    assert bob.play(seats=2, name="Bob", identity=asserted("user-bob")).status_code == 201
    started = [h for h in hooks(app, sid) if h["type"] == "game.started"]
    assert len(started) == 1
    seats = started[0]["data"]["seats"]
    assert [(s["name"], s["external_id"], s["bot"]) for s in seats] == [
        ("Ann", "user-ann", False), ("Bob", "user-bob", False),
    ]  # fmt: skip


def test_a_ticket_with_a_bad_assertion_is_refused_before_it_sits() -> None:
    app = make_app({"TESTING": True, **BASE, **HOOK})
    phone = Phone(app.test_client(), 3)
    refused = phone.play(seats=2, identity="not.a.jwt")
    assert refused.status_code == 422
    assert refused.get_json()["code"] == "identity_assertion_invalid"
    assert phone.play(seats=2).status_code == 201  # no seat or quota was kept


# ---------------------------------------------------------------- match.found
@pytest.fixture(params=["memory", "redis"])
def hooked(request: pytest.FixtureRequest) -> Iterator[Flask]:
    """The app, with a webhook, on the memory store and on one Redis."""
    app = make_app(store_config(str(request.param), request, **BASE, **HOOK))
    yield app
    close(app)


def test_a_dealt_table_sends_match_found_per_ticket_after_game_started(hooked: Flask) -> None:
    client = hooked.test_client()
    ann, bob, cy = Phone(client, 1), Phone(client, 2), Phone(client, 3)
    ann.play(seats=3, name="Ann", identity=asserted("user-ann"))
    bob.play(seats=3, name="Bob")  # no identity: external_id null
    sid = ann.ticket["session_id"]
    assert not [h for h in hooks(hooked, sid) if h["type"] == "match.found"]  # not dealt yet
    cy.play(seats=3, name="Cy", identity=asserted("user-cy"))
    sent = hooks(hooked, sid)
    kinds = [h["type"] for h in sent]
    assert kinds.index("game.started") < kinds.index("match.found")
    found = [h["data"] for h in sent if h["type"] == "match.found"]
    seats = {p.ticket["ticket_id"]: p.poll().get_json()["seat"] for p in (ann, bob, cy)}
    version = found[0]["version"]
    assert found == [
        {"session_id": sid, "version": version, "variant": "uno_classic",
         "ticket_id": p.ticket["ticket_id"], "seat": seats[p.ticket["ticket_id"]],
         "external_id": ext}
        for p, ext in ((ann, "user-ann"), (bob, None), (cy, "user-cy"))
    ]  # fmt: skip
    # Nothing a ticket's holder alone may have: no seat token, no ticket secret.
    tokens = [p.poll().get_json()["token"] for p in (ann, bob, cy)]
    secrets = [p.ticket["secret"] for p in (ann, bob, cy)]
    raw = b"".join(hooked.extensions["sessions"].store.outbox(sid)).decode()
    for hidden in [*secrets, *(t for t in tokens if t)]:
        assert hidden not in raw


def test_a_lobby_joiner_and_the_bots_get_no_match_found(hooked: Flask) -> None:
    client = hooked.test_client()
    ann = Phone(client, 4)
    ann.play(seats=2, name="Ann", identity=asserted("user-ann"))
    sid = ann.ticket["session_id"]
    joined = client.post(f"/v1/sessions/{sid}/join", json={"name": "Lobby Lu"})
    assert joined.status_code == 200, joined.get_json()
    found = [h["data"] for h in hooks(hooked, sid) if h["type"] == "match.found"]
    assert [(d["ticket_id"], d["seat"], d["external_id"]) for d in found] == [
        (ann.ticket["ticket_id"], ann.poll().get_json()["seat"], "user-ann")
    ]


def test_a_request_cannot_name_a_ticket_for_its_seat(hooked: Flask) -> None:
    client = hooked.test_client()
    ann = Phone(client, 5)
    ann.play(seats=2, name="Ann")
    sid = ann.ticket["session_id"]
    forged = client.post(
        f"/v1/sessions/{sid}/join", json={"name": "Eve", "ticket": ann.ticket["ticket_id"]}
    )
    assert (forged.status_code, forged.get_json()["code"]) == (400, "invalid_request")
    made = client.post(
        "/v1/sessions",
        json={"variant": "uno_classic", "players": [
            {"name": "Eve", "bot": False, "ticket": "x"}, {"bot": True}]},
    )  # fmt: skip
    assert (made.status_code, made.get_json()["code"]) == (400, "invalid_request")


def test_a_rematch_of_a_quick_matched_table_is_no_ticket_s_match(hooked: Flask) -> None:
    client = hooked.test_client()
    ann, bob = Phone(client, 6), Phone(client, 7)
    ann.play(seats=2, name="Ann")
    bob.play(seats=2, name="Bob")
    sessions = hooked.extensions["sessions"]
    snapshot, _ = sessions.repo.load(ann.ticket["session_id"])
    assert [s.ticket for s in snapshot.meta.seats] == [
        ann.ticket["ticket_id"],
        bob.ticket["ticket_id"],
    ]
    following = sessions.rematches.next_meta(snapshot.meta, 7, 1)
    assert [s.ticket for s in following.seats] == [None, None]
    # ...and no answer shows a seat's ticket.
    seen = client.get(f"/v1/sessions/{ann.ticket['session_id']}").get_data(as_text=True)
    assert ann.ticket["ticket_id"] not in seen and bob.ticket["ticket_id"] not in seen


@pytest.fixture(params=["memory", "redis"])
def hooked_swept(request: pytest.FixtureRequest) -> Iterator[Flask]:
    """The app with a webhook and its sweeper dealing due tables."""
    config = store_config(str(request.param), request, **BASE, **HOOK)
    app = make_app({**config, "MATCH_SWEEP_SECONDS": 0.1})
    yield app
    close(app)


def test_the_bots_deal_with_every_phone_closed_sends_match_found(hooked_swept: Flask) -> None:
    ann = Phone(hooked_swept.test_client(), 8)
    ann.play(seats=3, name="Ann", wait_seconds=1, identity=asserted("user-ann"))
    sid = ann.ticket["session_id"]
    give_up = time.monotonic() + 10
    found: list[dict[str, Any]] = []
    while not found and time.monotonic() < give_up:
        time.sleep(0.1)  # no request: only the sweeper thread deals the table
        found = [h["data"] for h in hooks(hooked_swept, sid) if h["type"] == "match.found"]
    assert [(d["ticket_id"], d["seat"], d["external_id"]) for d in found] == [
        (ann.ticket["ticket_id"], ann.ticket["seat"], "user-ann")
    ]
