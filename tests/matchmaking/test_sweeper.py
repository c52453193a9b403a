"""What happens with every phone closed: each worker's sweeper thread deals a table
whose wait is over, with nobody asking; and the metrics say how many tickets wait and
how long seating took."""

from __future__ import annotations

import time

from flask import Flask

from tests.matchmaking.conftest import BASE, Phone, close
from tests.sessions.conftest import make_app


def test_the_sweeper_deals_a_due_table_with_no_request(swept: Flask) -> None:
    client = swept.test_client()
    made = Phone(client, 1).play(seats=3, wait_seconds=1).get_json()
    sid = made["session_id"]
    give_up = time.monotonic() + 10
    status = "waiting"
    while status == "waiting" and time.monotonic() < give_up:
        time.sleep(0.1)  # no request reaches the app meanwhile: only its sweeper runs
        status = _status(swept, sid)
    assert status == "playing"


def _status(app: Flask, sid: str) -> str:
    """The session's status read in process (a request would sweep too)."""
    import orjson

    return str(orjson.loads(app.extensions["sessions"].get(sid, None).body)["status"])


def test_the_metrics_count_tickets_waiting_and_time_to_seat() -> None:
    app = make_app({"TESTING": True, **BASE})
    client = app.test_client()

    def scraped(name: str) -> float:
        text = client.get("/metrics").get_data(as_text=True)
        rows = [line for line in text.splitlines() if line.startswith(name + " ")
                or line.startswith(name + "{")]  # fmt: skip
        return sum(float(line.rsplit(" ", 1)[1]) for line in rows)

    seated = scraped('uno_match_time_to_seat_seconds_count{filled_by="people"}')
    Phone(client, 1).play(seats=2)
    assert scraped("uno_match_tickets_waiting") == 1
    Phone(client, 2).play(seats=2)
    assert scraped("uno_match_tickets_waiting") == 0
    assert scraped('uno_match_time_to_seat_seconds_count{filled_by="people"}') == seated + 2
    close(app)
