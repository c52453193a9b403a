"""A phone follows its ticket's table by the session's own stream (docs/sessions.md,
"Following the table"): the ticket names its ``session_id`` at once; a quick-match
table lets anyone watch (``spectators: anyone``), so the phone opens
``GET /v1/sessions/{session_id}/stream`` with no token and waits for ``event: started``
(people took the last seat, or bots after the wait); then one poll of the ticket hands
it its seat's token. The stream shows nothing hidden and nothing of the ticket."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.matchmaking.conftest import Phone


def frames(client: FlaskClient, sid: str, timeout: float, after: int = 0) -> list[dict[str, str]]:
    """The stream's frames (``id``, ``event``, ``data``) until ``timeout`` ends it."""
    headers = {"Last-Event-ID": str(after)} if after else {}
    r = client.get(f"/v1/sessions/{sid}/stream?timeout={timeout}", headers=headers)
    assert r.status_code == 200, r.get_data(as_text=True)
    out = []
    for block in r.get_data(as_text=True).split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            out.append(fields)
    return out


def test_a_phone_follows_its_table_by_the_session_stream_to_the_deal(swept: Flask) -> None:
    client = swept.test_client()
    ann, bob, cy = Phone(client, 1), Phone(client, 2), Phone(client, 3)
    ann.play(seats=3, name="Ann")
    sid = ann.ticket["session_id"]
    bob.play(seats=3, name="Bob")
    before = frames(client, sid, 0.3)
    assert "started" not in [f["event"] for f in before]  # the table fills: nothing dealt
    assert ann.poll().get_json()["status"] == "waiting"
    last = max([int(f["id"]) for f in before], default=0)
    cy.play(seats=3, name="Cy")
    after = frames(client, sid, 0.3, last)
    assert [f["event"] for f in after][:2] == ["joined", "started"]  # Cy's seat, the deal
    polled = ann.poll().get_json()
    assert polled["status"] == "matched" and polled["token"]
    shown = "".join(f["data"] for f in before + after)
    for hidden in (polled["token"], ann.ticket["secret"], ann.ticket["ticket_id"], '"hand"'):
        assert hidden not in shown


def test_a_phone_alone_sees_the_bots_deal_on_its_open_stream(swept: Flask) -> None:
    client = swept.test_client()
    ann = Phone(client, 4)
    ann.play(seats=3, name="Ann", wait_seconds=1)
    assert ann.poll().get_json()["status"] == "waiting"  # the stream opens before the deal
    seen = frames(client, ann.ticket["session_id"], 3)
    assert "started" in [f["event"] for f in seen]  # ...which it told while it waited
    polled = ann.poll().get_json()
    assert polled["status"] == "matched" and polled["token"]
    assert '"hand"' not in "".join(f["data"] for f in seen)
