"""One shape for a bot seat: a seat's ``bot`` is spelled the same in every answer and in
every webhook (false for a person, true for the simple bot, else the level's name), and
the webhook bodies are valid for the spec's ``Webhook`` union."""

from __future__ import annotations

from typing import Any

from tests.notifier.conftest import IDENTITY_KEY, asserted
from tests.notifier.test_outbox import Clocks, app_with, outbox
from tests.sessions.conftest import Api
from tests.support import schema_validator

HOOK = {"WEBHOOK_URL": "https://hooks.example.com/uno", "IDENTITY_ASSERTION_KEY": IDENTITY_KEY}


def test_a_webhook_spells_a_bot_seat_as_the_answers_do() -> None:
    app = app_with(Clocks(), **HOOK)
    api = Api(app.test_client())
    players: list[dict[str, Any]] = [
        {"name": "Ann"}, {"name": "Hal", "bot": "hard"}, {"name": "Sim", "bot": True},
        {"name": "Nora", "bot": "normal"},
    ]  # fmt: skip
    r = api.create("uno_classic", players, notify=True, seed=5)
    assert r.status_code == 201, r.get_data(as_text=True)
    answer = r.get_json()
    sid = answer["session_id"]
    hooks = outbox(app, sid)
    started = next(w for w in hooks if w["type"] == "game.started")
    assert [s["bot"] for s in started["data"]["seats"]] == [False, "hard", True, "normal"]
    assert [s["bot"] for s in started["data"]["seats"]] == [s["bot"] for s in answer["seats"]]
    for w in hooks:
        schema_validator("Webhook").validate({k: v for k, v in w.items() if k != "id"})


def test_a_seat_taken_back_writes_seat_returned() -> None:
    """A notifying session: the bot's takeover, then the return with the old token,
    each a webhook valid for the spec; the return's seat is the returned one."""
    clocks = Clocks()
    app = app_with(clocks, **HOOK)
    api = Api(app.test_client())
    players = [
        {"name": "Ann", "identity": asserted("u-0")},
        {"name": "Bo", "identity": asserted("u-1")},
    ]
    r = api.create("uno_classic", players, notify=True, seed=5,
                   clock={"turn_seconds": 30, "max_timeouts": 1})  # fmt: skip
    created = r.get_json()
    sid, seat = created["session_id"], created["clock"]["seat"]
    clocks.t += 31  # no hold (SESSION_START_GRACE_SECONDS 0): the turn ran out
    assert api.get(sid).status_code == 200
    token = created["seats"][seat]["token"]
    n = len(outbox(app, sid))
    back = api.c.post(f"/v1/sessions/{sid}/return", headers=api.auth(token))
    assert back.status_code == 200, back.get_data(as_text=True)
    new = outbox(app, sid)[n:]
    assert [w["type"] for w in new] == ["seat.returned"]
    assert new[0]["data"] == {"session_id": sid, "version": back.get_json()["version"],
                              "variant": "uno_classic", "seat": seat,
                              "external_id": f"u-{seat}"}  # fmt: skip
    for w in outbox(app, sid):
        schema_validator("Webhook").validate({k: v for k, v in w.items() if k != "id"})
