"""The session's move log: every move made (a person's, a bot's), in order, with who
made it and when; replayed from the seed it gives exactly the session's state. And the
move limit that bounds it."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import orjson
import pytest
from flask import Flask

import engine
from tests.sessions.conftest import Api, make_app, problem, replay_record, store_config, turn_seat

SEED = 11


#: Moves that shed cards: the person prefers them, so a game ends in a few hundred moves
#: whatever the bots' ties (seeded by the random session id) make of it.
SHEDDING = ("play", "match", "place", "give")


def play_out(api: Api, sid: str, token: str, seat: int, limit: int = 3000) -> dict[str, Any]:
    """The person's first legal move that sheds cards, else its first other legal move
    (never UNO or a catch), until the game is over."""
    stale = 0
    for _ in range(limit):
        body = api.get(sid, token).get_json()
        if body["view"]["phase"] == "game_over":
            return body  # type: ignore[no-any-return]
        assert turn_seat(body["view"]) == seat, "the bots left the person's turn unplayed"
        own = [m for m in body["legal_moves"] if m["type"] not in ("uno", "catch")]
        move = next((m for m in own if m["type"] in SHEDDING), own[0])
        r = api.move(sid, token, move, body["version"])
        if r.status_code == 412 and stale < 3:
            # A loaded machine can leave bot moves owed past their CPU budget, and a
            # move settles them first: the phone's version is then old. It reads again.
            stale += 1
            continue
        assert r.status_code == 200, r.get_data(as_text=True)
        stale = 0
    raise AssertionError(f"the game did not end in {limit} moves")


def logged_moves(app: Flask, sid: str) -> list[dict[str, Any]]:
    return [orjson.loads(raw) for raw in app.extensions["sessions"].store.moves(sid)]


def stored_state(app: Flask, sid: str) -> engine.State:
    loaded = app.extensions["sessions"].store.load(sid)
    assert loaded is not None
    return engine.from_dict(orjson.loads(loaded.state))


def bots_play_it_out(api: Api, app: Flask, sid: str, budget: int) -> dict[str, Any]:
    """A game whose seats are all bots: read it as a spectator until it is over, each
    read playing the bots' next chain (at least one move, at most ``budget``); then its
    record must replay. Returns the record."""
    counts = [stored_state(app, sid).move_count]
    body = api.get(sid).get_json()
    for _ in range(5_000):
        counts.append(stored_state(app, sid).move_count)
        if body["status"] == "over":
            break
        body = api.get(sid).get_json()
    assert body["status"] == "over" and body["view"]["phase"] == "game_over", body.get("clock")
    assert all(0 < b - a <= budget for a, b in pairwise(counts)), counts[:20]
    record: dict[str, Any] = api.c.get(f"/v1/sessions/{sid}/record").get_json()
    replayed = replay_record(api.c, record)
    assert replayed.status_code == 200, replayed.get_data(as_text=True)
    return record


@pytest.mark.parametrize("variant", [v.id for v in engine.all_variants()])
def test_the_log_replays_to_the_sessions_state(api: Api, app: Flask, variant: str) -> None:
    times = iter(range(1_700_000_000, 1_800_000_000, 7))
    app.extensions["sessions"].now = lambda: float(next(times))
    players = [{"name": "Ann"}, {"bot": True}]
    r = api.create(variant, players, seed=SEED, options={"target": 50})
    assert r.status_code == 201, r.get_data(as_text=True)
    body = r.get_json()
    sid, token = body["session_id"], body["seats"][0]["token"]
    play_out(api, sid, token, 0)
    log = logged_moves(app, sid)
    final = stored_state(app, sid)
    assert len(log) == final.move_count > 0
    state, _ = engine.start(variant, 2, SEED, options={"target": 50})
    for entry in log:
        assert entry["by"] == ("player" if entry["move"]["player"] == 0 else "bot")
        state, _ = engine.apply(state, entry["move"])
    assert engine.to_dict(state) == engine.to_dict(final)
    stamps = [e["at"] for e in log]
    assert stamps == sorted(stamps) and stamps[0] >= 1_700_000_000_000


def test_a_session_takes_no_move_past_its_limit(
    store_kind: str, request: pytest.FixtureRequest
) -> None:
    app = make_app(store_config(store_kind, request, SESSION_MAX_MOVES=3))
    api = Api(app.test_client())
    try:
        body = api.create("uno_classic", 2, seed=SEED).get_json()
        sid, tokens = body["session_id"], [s["token"] for s in body["seats"]]
        for _ in range(3):
            view = api.get(sid).get_json()
            seat = turn_seat(view["view"])
            mine = api.get(sid, tokens[seat]).get_json()
            move = next(m for m in mine["legal_moves"] if m["type"] not in ("uno", "catch"))
            assert api.move(sid, tokens[seat], move, mine["version"]).status_code == 200
        view = api.get(sid).get_json()
        seat = turn_seat(view["view"])
        mine = api.get(sid, tokens[seat]).get_json()
        move = next(m for m in mine["legal_moves"] if m["type"] not in ("uno", "catch"))
        problem(api.move(sid, tokens[seat], move, mine["version"]), 409, "move_limit_reached")
        assert len(logged_moves(app, sid)) == 3
    finally:
        app.extensions["sessions"].store.close()
