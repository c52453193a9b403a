"""A quick-match table notifies when the deployment has a webhook: an app whose phone is
closed learns from ``game.started`` (its ``session_id`` is the one the ticket named at
once) that the table was dealt, and which seat is its person (``external_id``, from the
ticket's identity assertion)."""

from __future__ import annotations

from typing import Any

import orjson
from flask import Flask

from service.sessions.memory import MemoryStore
from service.sessions.outbox import parse_entry
from tests.matchmaking.conftest import BASE, Phone
from tests.notifier.conftest import IDENTITY_KEY, asserted
from tests.sessions.conftest import make_app

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
