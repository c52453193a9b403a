"""GET /v1/sessions/{id}/record: a session's game record, replayed by POST /v1/games/replay
to exactly the session's final state, for every variant, with a bot seat, on every store."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from flask import Flask

import engine
from engine.record_builder import Builder
from service.sessions import repo
from service.sessions.config import SessionConfig
from service.sessions.records import RECORD_CACHE_BYTES, Records
from tests.docs_pages import page
from tests.hardening.long_game import long_game
from tests.sessions.api.test_move_log import play_out, stored_state
from tests.sessions.conftest import Api, problem, replay_record, turn_seat

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
    replayed = replay_record(api.c, rec)
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


@pytest.mark.one_process  # counts this process's reads
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
    """Each seat's read after a move reads the record's stored pieces from the last move
    this process had joined (not all of them) and answers what a record built afresh
    answers."""
    players = [{"name": "Ann"}, {"name": "Bo"}, {"bot": True}]
    body = api.create("uno_pocket_pizza", players, seed=SEED).get_json()
    sid, tokens = body["session_id"], [s["token"] for s in body["seats"][:2]]
    mgr = app.extensions["sessions"]
    store = mgr.store
    read_from: list[int] = []  # where the kept records' reads began in the log
    counts: list[int] = []
    real = store.pieces

    def spy(sid: str, start: int = 0) -> list[bytes] | None:
        if mgr.records is kept:
            read_from.append(start)
        return real(sid, start)

    store.pieces = spy
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
    # After the first read, each begins at the last move an earlier read's record ended
    # with (re-read to check it is the move the builder holds), not at the start again
    # (a read may settle bot moves owed, so a seat's read can find more than the other
    # seat's before it).
    assert len(read_from) > 3 and read_from[0] == 0, read_from
    assert {start + 1 for start in read_from[1:]} <= set(counts), (read_from, counts)
    assert max(read_from) > 3, read_from


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
    replayed = replay_record(api.c, rec)
    assert replayed.status_code == 200, replayed.get_data(as_text=True)
    final = stored_state(app, sid)
    assert replayed.get_json()["state"] == orjson.loads(orjson.dumps(engine.to_dict(final)))


def _read_both_ways(
    api: Api, app: Flask, mp: pytest.MonkeyPatch, sid: str, token: str | None
) -> tuple[bytes, int]:
    """The record as a fresh process reads it (an empty record cache: a worker's first
    read) and as one played from the log reads it (the store's pieces unread): the first
    read's bytes after checking both agree, and the moves the first read played."""
    mgr = app.extensions["sessions"]
    store, kept = mgr.store, mgr.records
    played: list[int] = []
    extend = Builder.extend

    def counted(self: Builder, moves: Any) -> engine.State:
        listed = list(moves)
        played.append(len(listed))
        return extend(self, listed)

    with mp.context() as m:
        m.setattr(Builder, "extend", counted)
        mgr.records = Records(store)
        joined = record_of(api, sid, token)
    with mp.context() as m:
        m.setattr(store, "pieces", lambda sid, start=0: None, raising=False)
        mgr.records = Records(store)
        replayed = record_of(api, sid, token)
    mgr.records = kept
    assert joined.status_code == 200, joined.get_data(as_text=True)
    assert joined.get_data() == replayed.get_data()
    return joined.get_data(), sum(played)


def _play_reading(
    api: Api, app: Flask, mp: pytest.MonkeyPatch, sid: str, tokens: list[str], moves: int
) -> int:
    """Play ``moves`` person moves (or to the end), each seat's record read both ways
    after each (and anyone's once it is over): the moves the fresh reads played."""
    played = 0
    for _ in range(moves):
        view = api.get(sid).get_json()
        if view["status"] == "over":
            break
        for token in tokens:
            played += _read_both_ways(api, app, mp, sid, token)[1]
        seat = turn_seat(view["view"])
        mine = api.get(sid, tokens[seat]).get_json()
        move = next(m for m in mine["legal_moves"] if m["type"] not in ("uno", "catch"))
        assert api.move(sid, tokens[seat], move, mine["version"]).status_code == 200
    if api.get(sid).get_json()["status"] == "over":
        played += _read_both_ways(api, app, mp, sid, None)[1]
    return played


@pytest.mark.one_process  # replaces this process's record cache
@pytest.mark.parametrize("variant", [v.id for v in engine.all_variants()])
def test_a_fresh_process_joins_a_records_stored_pieces_and_plays_no_move(
    api: Api, app: Flask, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    """A process that has read none of a session's record joins the pieces its commits
    stored beside its moves: it plays no move, and each seat's copy (its own hidden
    fields only) and the whole record are byte for byte those played from the log."""
    bot = [{"bot": True}] if engine.find_variant(variant).max_players > 2 else []
    players = [{"name": "Ann"}, {"name": "Bo"}, *bot]
    body = api.create(variant, players, seed=SEED, options={"target": 50}).get_json()
    sid, tokens = body["session_id"], [s["token"] for s in body["seats"][:2]]
    assert _play_reading(api, app, monkeypatch, sid, tokens, 60) == 0
    moves = orjson.loads(_read_both_ways(api, app, monkeypatch, sid, tokens[0])[0])["moves"]
    assert len(moves) == stored_state(app, sid).move_count > 10


@pytest.mark.one_process  # replaces this process's record cache
def test_a_session_stored_without_pieces_is_read_from_its_log(
    api: Api, app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session whose first commits stored no pieces (stored before them) keeps none:
    its record is played from its log, the same bytes, however it goes on."""
    players = [{"name": "Ann"}, {"name": "Bo"}, {"bot": True}]
    with monkeypatch.context() as m:
        m.setattr(repo, "record_pieces", lambda base, new, moves: [])
        body = api.create("uno_pocket_pizza", players, seed=SEED).get_json()
        sid, tokens = body["session_id"], [s["token"] for s in body["seats"][:2]]
        _play_reading(api, app, monkeypatch, sid, tokens, 3)
    assert app.extensions["sessions"].store.pieces(sid) is None
    assert _play_reading(api, app, monkeypatch, sid, tokens, 10) > 0
    assert app.extensions["sessions"].store.pieces(sid) is None


def test_the_security_page_states_the_record_pieces_kept() -> None:
    stated = f"{RECORD_CACHE_BYTES // 2**20} MiB in all (`RECORD_CACHE_BYTES`"
    assert stated in " ".join(page("security.md").split())


@pytest.mark.one_process  # reads this process's store
def test_a_game_of_the_most_moves_fits_the_default_byte_cap(api: Api, app: Flask) -> None:
    """A session's stored bytes count its record's pieces beside its events and moves:
    a game of ten seats (the most events a move) at its stored bytes a move still fits
    ``SESSION_MAX_MOVES`` moves under the default ``SESSION_MAX_BYTES``, as the pages
    state it."""
    caps = SessionConfig()
    sid, _, made = long_game(api, 400)
    loaded = app.extensions["sessions"].store.load(sid)
    pieces = app.extensions["sessions"].store.pieces(sid)
    assert loaded is not None and pieces is not None and len(pieces) == made
    logged = app.extensions["sessions"].store.moves(sid)
    assert loaded.stored >= sum(map(len, pieces)) + sum(map(len, logged))
    assert loaded.stored / made * caps.max_moves < caps.max_bytes
    stated = (
        f"`SESSION_MAX_BYTES` ({caps.max_bytes // 2**20} MiB: a game of `SESSION_MAX_MOVES` fits)"
    )
    assert stated in " ".join(page("security.md").split())
    assert f"| 20, {caps.max_bytes // 2**20} MiB, 10," in page("operations.md")
