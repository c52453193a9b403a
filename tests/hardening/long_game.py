"""A long game to read (issue 46, case 3): one person and nine bots, UNO Classic to the
highest target, the person playing its first legal move each turn (never UNO or a
catch) until the session's log holds ``moves`` moves. The person stays, so reading the
game plays nothing: a read costs what reading costs."""

from __future__ import annotations

from typing import Any

import orjson

from tests.sessions.conftest import Api, turn_seat


def long_game(api: Api, moves: int, bots: int = 9) -> tuple[str, str, int]:
    """The session id, the person's token and the moves made (at least ``moves``)."""
    players = [{"name": "Ann"}] + [{"bot": True} for _ in range(bots)]
    r = api.create("uno_classic", players, seed=7, options={"target": 100_000})
    assert r.status_code == 201, r.get_data(as_text=True)
    body = r.get_json()
    sid, token = body["session_id"], body["seats"][0]["token"]
    made = 0
    while made < moves:
        own: dict[str, Any] = api.get(sid, token).get_json()
        assert turn_seat(own["view"]) == 0, "the bots left the person's turn unplayed"
        move = next(m for m in own["legal_moves"] if m["type"] not in ("uno", "catch"))
        r = api.move(sid, token, move, own["version"])
        assert r.status_code == 200, r.get_data(as_text=True)
        made = moves_of(api, sid)
    return sid, token, made


def moves_of(api: Api, sid: str) -> int:
    """The moves a session's log holds (its store, no request)."""
    app = api.c.application
    loaded = app.extensions["sessions"].store.load(sid)
    assert loaded is not None
    return int(orjson.loads(loaded.state)["move_count"])
