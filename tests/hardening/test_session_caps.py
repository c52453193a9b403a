"""Issue 46, case 4 (in part): joins and leaves check the session's byte cap, as moves
do, and a session at a cap can still be deleted by its host.

Before: join and leave never checked ``SESSION_MAX_BYTES``: 2,600 anonymous join/leave
pairs pushed a public waiting session to 1,079,000 bytes; once dealt every move was 409
``session_too_large`` and the host's DELETE 409 ``session_in_progress``."""

from __future__ import annotations

from collections.abc import Callable

from flask import Flask

from tests.hardening.conftest import created, version_of
from tests.sessions.conftest import Api, first_move, mover, problem, two_humans

CAP = 4096
#: What one change may add past the cap (it is checked before the write, as for moves).
ONE_CHANGE = 2048


def stored(app: Flask, sid: str) -> int:
    loaded = app.extensions["sessions"].store.load(sid)
    assert loaded is not None
    return int(loaded.stored)


def test_joins_and_leaves_stop_at_the_byte_cap(make: Callable[..., Flask]) -> None:
    app = make(SESSION_MAX_BYTES=str(CAP))
    api = Api(app.test_client())
    body = created(api.create("uno_classic", [{"name": "Ann"}, {"open": True}, {"open": True}],
                              public=True))  # fmt: skip
    sid, host = body["session_id"], body["seats"][0]["token"]
    refused = None
    for _ in range(200):
        r = api.c.post(f"/v1/sessions/{sid}/join", json={"name": "Mallory", "seat": 1})
        if r.status_code != 200:
            refused = r
            break
        r = api.leave(sid, r.get_json()["token"])
        if r.status_code != 200:
            refused = r
            break
    assert refused is not None, "200 pairs and no cap"
    problem(refused, 409, "session_too_large")
    assert stored(app, sid) < CAP + ONE_CHANGE
    assert api.delete(sid, host).status_code == 204


def test_the_host_deletes_a_game_at_its_cap(make: Callable[..., Flask]) -> None:
    """A game played until its moves are 409 ``session_too_large``: its host's DELETE
    is 204 (it was 409 ``session_in_progress``: such a game could never end)."""
    app = make(SESSION_MAX_BYTES=str(CAP))
    api = Api(app.test_client())
    sid, tokens, _ = two_humans(api)
    for _ in range(200):
        seat, body = mover(api, sid, tokens)
        r = api.move(sid, tokens[seat], first_move(body), version_of(app, sid))
        if r.status_code != 200:
            break
    problem(r, 409, "session_too_large")
    host = tokens[0]
    assert api.delete(sid, host).status_code == 204
    assert api.get(sid).status_code == 404
