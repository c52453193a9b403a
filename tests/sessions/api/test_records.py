"""GET /v1/sessions/{id}/record: a session's game record, replayed by POST /v1/games/replay
to exactly the session's final state, for every variant, with a bot seat, on every store."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from flask import Flask

import engine
from service.sessions.records import RECORD_CACHE_BYTES, Records
from tests.docs_pages import page
from tests.sessions.api.test_move_log import play_out, stored_state
from tests.sessions.conftest import Api, problem, turn_seat

SEED = 11


def record_of(api: Api, sid: str, token: str | None = None) -> Any:
    return api.c.get(f"/v1/sessions/{sid}/record", headers=api.auth(token))


@pytest.mark.parametrize("variant", [v.id for v in engine.all_variants()])
def test_a_sessions_record_replays_to_its_final_state(api: Api, app: Flask, variant: str) -> None:
    times = iter(range(1_700_000_000, 1_800_000_000, 7))
    app.extensions["sessions"].now = lambda: float(next(times))
    players = [{"name": "Ann"}, {"bot": True}]
    body = api.create(variant, players, seed=SEED, options={"target": 50}).get_json()
    sid, token = body["session_id"], body["seats"][0]["token"]
    play_out(api, sid, token, 0)
    r = record_of(api, sid)  # over: a spectator gets the whole record
    assert r.status_code == 200, r.get_data(as_text=True)
    rec = r.get_json()
    final = stored_state(app, sid)
    assert rec["record"] == 1 and rec["variant"] == variant
    assert rec["seed"] == str(SEED) == str(final.seed)
    assert rec["players"] == [{"name": "Ann", "bot": False}, {"name": "Player 2", "bot": True}]
    assert len(rec["moves"]) == final.move_count
    assert {m["by"] for m in rec["moves"]} == {"player", "bot"}
    assert rec["moves"][0]["at"].startswith("2023-11-14T22:13:")
    assert rec["result"] == {"winners": list(final.winners), "scores": list(final.scores)}
    assert rec["seed_commitment"]["sha256"] == body["seed_commitment"]["sha256"]
    replayed = api.c.post("/v1/games/replay", json=rec)
    assert replayed.status_code == 200, replayed.get_data(as_text=True)
    out = replayed.get_json()
    assert out["state"] == orjson.loads(orjson.dumps(engine.to_dict(final)))
    assert out["score"]["winners"] == list(final.winners)


def test_a_running_games_record_is_for_its_seats_only(api: Api) -> None:
    body = api.create("uno_classic", [{"name": "Ann"}, {"name": "Bo"}], seed=SEED).get_json()
    sid, tokens = body["session_id"], [s["token"] for s in body["seats"]]
    problem(record_of(api, sid), 401, "missing_token")
    problem(record_of(api, sid, "not-a-token"), 401, "invalid_token")
    rec = record_of(api, sid, tokens[1]).get_json()
    assert rec["seed"] is None and rec["result"] is None
    assert rec["seed_commitment"]["sha256"] == body["seed_commitment"]["sha256"]
    problem(api.c.post("/v1/games/replay", json=rec), 422, "record_seed_missing")


def test_a_finished_record_is_built_once_per_process(api: Api, app: Flask) -> None:
    body = api.create("uno_all_wild", [{"name": "Ann"}, {"bot": True}], seed=SEED).get_json()
    sid, token = body["session_id"], body["seats"][0]["token"]
    play_out(api, sid, token, 0)
    first = record_of(api, sid).get_data()
    store = app.extensions["sessions"].store

    def no_read(sid: str) -> list[bytes]:
        raise AssertionError("the move log was read again")

    store.moves = no_read
    assert record_of(api, sid, token).get_data() == first
    assert api.delete(sid, token).status_code == 204
    problem(record_of(api, sid), 404, "session_not_found")


def test_a_running_games_record_reads_only_the_moves_logged_since_its_last_read(
    api: Api, app: Flask
) -> None:
    """Each seat's read after a move reads the log from the first move this process had
    not played (not the whole log) and answers what a record built afresh answers."""
    players = [{"name": "Ann"}, {"name": "Bo"}, {"bot": True}]
    body = api.create("uno_pocket_pizza", players, seed=SEED).get_json()
    sid, tokens = body["session_id"], [s["token"] for s in body["seats"][:2]]
    mgr = app.extensions["sessions"]
    store = mgr.store
    read_from: list[int] = []  # where the kept records' reads began in the log
    counts: list[int] = []
    real = store.moves

    def spy(sid: str, start: int = 0) -> list[bytes]:
        if mgr.records is kept:
            read_from.append(start)
        return real(sid, start)

    store.moves = spy
    kept = mgr.records
    for _ in range(12):
        view = api.get(sid).get_json()
        if view["status"] == "over":
            break
        seat = turn_seat(view["view"])
        for token in tokens:
            got = record_of(api, sid, token).get_data()
            mgr.records = Records(store)  # built afresh from the whole log
            assert record_of(api, sid, token).get_data() == got
            mgr.records = kept
            counts.append(len(orjson.loads(got)["moves"]))
        mine = api.get(sid, tokens[seat]).get_json()
        move = next(m for m in mine["legal_moves"] if m["type"] not in ("uno", "catch"))
        assert api.move(sid, tokens[seat], move, mine["version"]).status_code == 200
    # After the first read, each begins at the first move not yet played: where an
    # earlier read's record ended (never at the start again; a read may settle bot
    # moves owed, so a seat's read can find more than the other seat's before it).
    assert len(read_from) > 3 and read_from[0] == 0, read_from
    assert set(read_from[1:]) <= set(counts) and 0 not in read_from[1:], (read_from, counts)


@pytest.mark.parametrize("variant", [v.id for v in engine.all_variants()])
def test_a_clocked_games_record_replays_with_its_forced_and_bot_moves(
    api: Api, app: Flask, variant: str
) -> None:
    """Both people let their time run out once: the clock plays their forced moves, bots
    take both seats and finish the game; the record (forced, bot and person moves) replays
    through the API to the session's final state."""
    now = [1_800_000_000.0]
    app.extensions["sessions"].now = lambda: now[0]
    clock = {"turn_seconds": 10, "max_timeouts": 1}
    body = api.create(variant, 2, seed=SEED, options={"target": 50}, clock=clock).get_json()
    sid = body["session_id"]
    for _ in range(20):
        now[0] += 11
        state = api.get(sid).get_json()
        if state["status"] == "over":
            break
    assert state["status"] == "over", state["clock"]
    r = record_of(api, sid)
    assert r.status_code == 200, r.get_data(as_text=True)
    rec = r.get_json()
    assert {"clock", "bot"} <= {m["by"] for m in rec["moves"]}
    replayed = api.c.post("/v1/games/replay", json=rec)
    assert replayed.status_code == 200, replayed.get_data(as_text=True)
    final = stored_state(app, sid)
    assert replayed.get_json()["state"] == orjson.loads(orjson.dumps(engine.to_dict(final)))


def test_the_security_page_states_the_record_pieces_kept() -> None:
    stated = f"{RECORD_CACHE_BYTES // 2**20} MiB in all (`RECORD_CACHE_BYTES`"
    assert stated in " ".join(page("security.md").split())
