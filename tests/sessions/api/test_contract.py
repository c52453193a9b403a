"""The session contract, run against the in-process store and a real Redis."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from flask import Flask

import engine
from tests.sessions.api.test_move_log import play_out
from tests.sessions.conftest import Api, first_move, mover, problem, sse, turn_seat, two_humans


def test_create_answers_tokens_version_and_the_first_seats_view(api: Api, app: Flask) -> None:
    r = api.create("uno_classic", [{"name": "Ann"}, {"name": "Bob"}, {"bot": True}], seed=1)
    assert r.status_code == 201 and r.mimetype == "application/json"
    body = r.get_json()
    assert r.headers["ETag"] == f'"{body["etag"]}"' and body["version"] == 1
    assert body["etag"].startswith("1.")
    seats = body["seats"]
    assert [s["name"] for s in seats] == ["Ann", "Bob", "Player 3"]
    assert [s["bot"] for s in seats] == [False, False, True] and seats[2]["token"] is None
    assert len({seats[0]["token"], seats[1]["token"]}) == 2 and len(seats[0]["token"]) >= 40
    assert body["seat"] == 0 and len(body["view"]["hand"]) == 7
    assert body["events"][0]["seq"] == 1
    # Tokens are stored hashed, never in the game state.
    loaded = app.extensions["sessions"].store.load(body["session_id"])
    for s in seats[:2]:
        assert s["token"].encode() not in loaded.state + loaded.meta
    assert b"token_sha256" in loaded.meta and b"token_sha256" not in loaded.state


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"variant": "uno_classic"}, 400, "invalid_request"),
        ({"variant": "uno_classic", "players": "two"}, 400, "invalid_request"),
        ({"variant": "uno_classic", "players": 2, "seed": -1}, 400, "invalid_request"),
        ({"variant": "uno_classic", "players": 2, "colour": 1}, 400, "invalid_request"),
        ({"variant": "uno_classic", "players": [{"bot": True}] * 2}, 400, "invalid_request"),
        ({"variant": "chess", "players": 2}, 422, "unknown_variant"),
        ({"variant": "uno_classic", "players": 1}, 422, "invalid_player_count"),
        ({"variant": "uno_classic", "players": 2, "options": {"target": 0}}, 422, "invalid_option"),
    ],
)
def test_create_rejects_bad_bodies(api: Api, body: dict[str, Any], status: int, code: str) -> None:
    problem(api.c.post("/v1/sessions", json=body), status, code)


def test_a_body_that_is_not_json_is_a_400(api: Api) -> None:
    r = api.c.post("/v1/sessions", data=b"{", content_type="application/json")
    problem(r, 400, "invalid_json")


def test_get_with_a_token_is_that_seats_view_and_without_it_the_spectators(api: Api) -> None:
    sid, toks, _ = two_humans(api)
    for seat, tok in enumerate(toks):
        r = api.get(sid, tok)
        body = r.get_json()
        assert r.status_code == 200 and r.headers["ETag"] == f'"{body["etag"]}"'
        assert body["version"] == 1 and body["etag"].startswith("1.")
        assert body["seat"] == seat and body["view"]["player"] == seat
        assert len(body["view"]["hand"]) == body["view"]["hand_sizes"][seat] >= 7
    spec = api.get(sid)
    assert spec.status_code == 200
    body = spec.get_json()
    assert body["seat"] is None and body["view"]["hand"] == [] and body["legal_moves"] == []
    assert sum(body["view"]["hand_sizes"]) >= 14


def test_tokens_are_checked(api: Api) -> None:
    sid, toks, _ = two_humans(api)
    other, other_toks, _ = two_humans(api)
    problem(api.get(sid, "not-a-token"), 401, "invalid_token")
    problem(api.get(sid, other_toks[0]), 401, "invalid_token")
    r = api.c.get(f"/v1/sessions/{sid}", headers={"Authorization": "Basic abc"})
    problem(r, 401, "invalid_token")
    # The header as werkzeug parses it: the scheme in any case, the token after it.
    for header in ("Bearer", "Bearer ", f"Token {toks[0]}", f"Bearer {toks[0]} x"):
        r = api.c.get(f"/v1/sessions/{sid}", headers={"Authorization": header})
        problem(r, 401, "invalid_token")
    for header in (f"bearer {toks[0]}", f"BEARER  {toks[0]}"):
        r = api.c.get(f"/v1/sessions/{sid}", headers={"Authorization": header})
        assert r.status_code == 200 and r.get_json()["seat"] == 0, header
    problem(api.legal(sid, None), 401, "missing_token")
    problem(api.move(sid, None, {"type": "draw"}, 1), 401, "missing_token")
    assert "WWW-Authenticate" in api.move(sid, None, {"type": "draw"}, 1).headers
    problem(api.delete(sid, None), 401, "missing_token")


def test_unknown_sessions_are_404(api: Api) -> None:
    for sid in ("nosuchsession123", "bad{id}", "x"):
        problem(api.get(sid), 404, "session_not_found")
        problem(api.move(sid, "t", {"type": "draw"}, 1), 404, "session_not_found")
        problem(api.events(sid), 404, "session_not_found")


def test_legal_moves_are_the_token_seats(api: Api) -> None:
    sid, toks, _ = two_humans(api)
    seat, body = mover(api, sid, toks)
    r = api.legal(sid, toks[seat])
    assert r.status_code == 200 and r.headers["ETag"] == f'"{body["etag"]}"'
    assert r.get_json()["etag"] == body["etag"]
    moves = r.get_json()["moves"]
    assert moves == body["legal_moves"] and moves
    assert all(m["player"] == seat for m in moves)
    assert api.legal(sid, toks[1 - seat]).get_json()["moves"] == []


def test_a_move_applies_for_the_tokens_seat_and_answers_view_events_version(api: Api) -> None:
    sid, toks, _ = two_humans(api)
    seat, body = mover(api, sid, toks)
    move = first_move(body)
    r = api.move(sid, toks[seat], move, 1)
    assert r.status_code == 200, r.get_data(as_text=True)
    out = r.get_json()
    assert out["version"] == 2 and r.headers["ETag"] == f'"{out["etag"]}"'
    assert out["etag"].startswith("2.") and out["etag"] != body["etag"]
    assert out["view"]["player"] == seat and out["events"]
    assert [e["seq"] for e in out["events"]] == list(
        range(body["last_event"] + 1, out["last_event"] + 1)
    )
    assert api.get(sid).get_json()["version"] == 2


def test_the_player_field_defaults_to_the_tokens_seat(api: Api) -> None:
    sid, toks, _ = two_humans(api)
    seat, body = mover(api, sid, toks)
    move = {k: v for k, v in first_move(body).items() if k != "player"}
    assert api.move(sid, toks[seat], move, 1).status_code == 200


def test_a_move_for_another_seat_is_403(api: Api) -> None:
    sid, toks, _ = two_humans(api)
    seat, body = mover(api, sid, toks)
    problem(api.move(sid, toks[1 - seat], first_move(body), 1), 403, "not_your_seat")


def test_if_match_is_required_and_checked(api: Api) -> None:
    sid, toks, _ = two_humans(api)
    seat, body = mover(api, sid, toks)
    move = first_move(body)
    p = problem(api.move(sid, toks[seat], move, None), 428, "if_match_required")
    assert p["current_version"] == 1
    problem(api.move(sid, toks[seat], move, "*"), 428, "if_match_required")
    assert p["current_etag"] == body["etag"]
    other = "0" * 16 if not body["etag"].endswith("0" * 16) else "1" * 16
    for stale in (0, 5, '"abc"', f'"1.{other}"', f'"2.{body["etag"][2:]}"'):
        r = api.move(sid, toks[seat], move, stale)
        p = problem(r, 412, "version_mismatch")
        assert p["current_version"] == 1 and p["current_etag"] == body["etag"]
        assert r.headers["ETag"] == f'"{body["etag"]}"'
    r = api.move(sid, toks[seat], move, f'W/"{body["etag"]}"')
    assert r.status_code == 200, r.get_data(as_text=True)
    for stale in (1, f'"{body["etag"]}"'):
        p = problem(api.move(sid, toks[seat], move, stale), 412, "version_mismatch")
        assert p["current_version"] == 2 and p["current_etag"] == r.get_json()["etag"]


def test_a_bare_version_number_in_if_match_is_still_accepted(api: Api) -> None:
    """The form before commit ids (``"1"``) names the version alone (docs/sessions.md)."""
    sid, toks, _ = two_humans(api)
    seat, body = mover(api, sid, toks)
    r = api.move(sid, toks[seat], first_move(body), 'W/"1"')
    assert r.status_code == 200 and r.get_json()["version"] == 2


def test_an_illegal_move_is_422_with_the_engines_code(api: Api) -> None:
    sid, toks, _ = two_humans(api)
    seat, _ = mover(api, sid, toks)
    problem(api.move(sid, toks[1 - seat], {"type": "draw"}, 1), 422, "not_your_turn")
    problem(api.move(sid, toks[seat], {"type": "flap"}, 1), 400, "unknown_move_type")
    r = api.c.post(
        f"/v1/sessions/{sid}/moves",
        json={"mvoe": {}},
        headers={**api.auth(toks[seat]), "If-Match": '"1"'},
    )
    problem(r, 400, "invalid_request")
    assert api.get(sid).get_json()["version"] == 1


def test_a_retry_with_the_same_idempotency_key_applies_once(api: Api) -> None:
    sid, toks, _ = two_humans(api)
    seat, body = mover(api, sid, toks)
    move = first_move(body)
    first = api.move(sid, toks[seat], move, 1, idem="key-1")
    assert first.status_code == 200
    again = api.move(sid, toks[seat], move, 1, idem="key-1")
    assert again.status_code == 200 and again.get_data() == first.get_data()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["ETag"] == first.headers["ETag"] == f'"{first.get_json()["etag"]}"'
    assert api.get(sid).get_json()["version"] == 2
    log = api.events(sid, toks[seat]).get_json()["events"]
    assert [e["seq"] for e in log] == list(range(1, first.get_json()["last_event"] + 1))
    # The same key for another move is refused; a new key is a new move (here: stale).
    other = {"type": "draw", "player": seat}
    problem(api.move(sid, toks[seat], other, 1, idem="key-1"), 422, "idempotency_key_reused")
    problem(api.move(sid, toks[seat], move, 1, idem="key-2"), 412, "version_mismatch")


def test_an_idempotency_key_is_per_seat(api: Api) -> None:
    sid, toks, _ = two_humans(api)
    seat, body = mover(api, sid, toks)
    assert api.move(sid, toks[seat], first_move(body), 1, idem="same").status_code == 200
    # The other seat's request with the same key is not given the first seat's answer.
    r = api.move(sid, toks[1 - seat], {"type": "draw"}, 1, idem="same")
    problem(r, 412, "version_mismatch")


def test_two_concurrent_moves_on_one_version_apply_once(api: Api, app: Flask) -> None:
    sid, toks, _ = two_humans(api)
    seat, body = mover(api, sid, toks)
    moves = [m for m in body["legal_moves"] if m["type"] not in ("uno", "catch")]
    n = 8
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n

    def go(i: int) -> None:
        c = Api(app.test_client())
        barrier.wait()
        results[i] = c.move(sid, toks[seat], moves[i % len(moves)], 1)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = sorted(r.status_code for r in results)
    assert codes == [200] + [412] * (n - 1)
    winner = next(r for r in results if r.status_code == 200).get_json()
    for r in results:
        if r.status_code == 412:
            assert r.get_json()["current_version"] == 2
    log = api.events(sid, toks[seat]).get_json()["events"]
    assert [e["seq"] for e in log] == list(range(1, winner["last_event"] + 1))
    assert log[-len(winner["events"]) :] == winner["events"]


def test_events_after_n_are_redacted_for_the_callers_seat(api: Api) -> None:
    sid, toks, created = two_humans(api)
    seat, body = mover(api, sid, toks)
    api.move(sid, toks[seat], {"type": "draw", "player": seat}, 1)
    mine = api.events(sid, toks[seat]).get_json()
    theirs = api.events(sid, toks[1 - seat]).get_json()
    spec = api.events(sid).get_json()
    assert [e["seq"] for e in mine["events"]] == [e["seq"] for e in spec["events"]]
    drew = [e for e in mine["events"] if e["type"] == "drew" and e["player"] == seat]
    assert drew and all("cards" in e for e in drew)
    for e in theirs["events"] + spec["events"]:
        if e["type"] == "drew" and e["player"] == seat:
            assert "cards" not in e
    last = mine["last_event"]
    assert api.events(sid, toks[seat], after=last).get_json()["events"] == []
    tail = api.events(sid, toks[seat], after=last - 1).get_json()["events"]
    assert [e["seq"] for e in tail] == [last]
    problem(api.c.get(f"/v1/sessions/{sid}/events?after=x"), 400, "invalid_request")


def test_only_the_host_deletes_a_game_and_not_while_it_is_played(api: Api) -> None:
    """The creator's seat is the host: another seat's token is 403 ``not_host``, the
    host's while the game runs 409 ``session_in_progress``; after the end the host's
    deletes it."""
    body = api.create("uno_classic", [{"name": "Ann"}, {"bot": True}], options={"target": 30})
    sid, host = body.get_json()["session_id"], body.get_json()["seats"][0]["token"]
    problem(api.delete(sid, "wrong"), 401, "invalid_token")
    problem(api.delete(sid, host), 409, "session_in_progress")
    play_out(api, sid, host, 0)
    r = api.delete(sid, host)
    assert r.status_code == 204 and r.get_data() == b""
    problem(api.get(sid), 404, "session_not_found")
    problem(api.move(sid, host, {"type": "draw"}, 1), 404, "session_not_found")
    problem(api.delete(sid, host), 404, "session_not_found")
    sid, toks, _ = two_humans(api)
    problem(api.delete(sid, toks[1]), 403, "not_host")
    problem(api.delete(sid, toks[0]), 409, "session_in_progress")


def test_the_stream_replays_and_resumes_from_last_event_id(api: Api) -> None:
    sid, toks, created = two_humans(api)
    n = created["last_event"]
    r = api.c.get(f"/v1/sessions/{sid}/stream?timeout=0.2", headers=api.auth(toks[0]))
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    recs = sse(r)
    assert [int(x["id"]) for x in recs] == list(range(1, n + 1))
    assert all(x["event"] == x["data"]["type"] for x in recs)
    assert recs[0]["data"] == created["events"][0]
    r = api.c.get(
        f"/v1/sessions/{sid}/stream?timeout=0.2",
        headers={"Last-Event-ID": str(n - 2)},
    )
    assert [int(x["id"]) for x in sse(r)] == [n - 1, n]
    r = api.c.get(f"/v1/sessions/{sid}/stream?timeout=5&max_events=2")
    assert len(sse(r)) == 2
    problem(api.c.get("/v1/sessions/nosuchsession123/stream"), 404, "session_not_found")
    problem(api.c.get(f"/v1/sessions/{sid}/stream", headers=api.auth("x")), 401, "invalid_token")


def test_the_stream_delivers_events_as_they_happen(api: Api, app: Flask) -> None:
    sid, toks, created = two_humans(api)
    n = created["last_event"]
    seat, body = mover(api, sid, toks)
    got: list[Any] = []
    started = threading.Event()

    def listen() -> None:
        c = app.test_client()
        started.set()
        r = c.get(
            f"/v1/sessions/{sid}/stream?timeout=5&max_events=1",
            headers={"Last-Event-ID": str(n), **api.auth(toks[1 - seat])},
        )
        got.append(r.get_data(as_text=True))

    t = threading.Thread(target=listen)
    t.start()
    started.wait()
    threading.Event().wait(0.3)
    out = api.move(sid, toks[seat], {"type": "draw", "player": seat}, 1).get_json()
    t.join(10)
    assert not t.is_alive()
    recs = sse(got[0])
    assert len(recs) == 1 and int(recs[0]["id"]) == n + 1
    assert recs[0]["data"]["type"] == "drew" and "cards" not in recs[0]["data"]
    assert out["events"][0]["cards"]  # the mover sees the card it drew


def test_a_stream_heartbeats_while_idle(app: Flask, api: Api) -> None:
    sid, _, created = two_humans(api)
    mgr = app.extensions["sessions"]
    mgr.config = type(mgr.config)(**{**mgr.config.__dict__, "heartbeat_seconds": 0.1})
    # Heartbeats every 0.1 s for 1.5 s: two of them are due even if the process stalls for
    # a second (late in a CI run, a 0.35 s stream on Redis once ended before its first).
    r = api.c.get(f"/v1/sessions/{sid}/stream?timeout=1.5&after={created['last_event']}")
    assert r.get_data(as_text=True).count(": keep-alive") >= 2


def test_bots_move_by_themselves_so_one_person_can_play_alone(api: Api) -> None:
    r = api.create(
        "uno_classic", [{"name": "me"}, {"bot": True}, {"bot": True}], seed=11,
        options={"target": 30},
    )  # fmt: skip
    body = r.get_json()
    sid, tok = body["session_id"], body["seats"][0]["token"]
    version, rounds = body["version"], set()
    for _ in range(400):
        state = api.get(sid, tok).get_json()
        assert state["version"] == version
        view = state["view"]
        rounds.add(view["round"])
        if view["phase"] == "game_over":
            break
        # Bots never leave the game waiting for a bot.
        assert turn_seat(view) == 0 or view["phase"] == "round_over"
        moves = [m for m in state["legal_moves"] if m["type"] not in ("catch",)]
        r = api.move(sid, tok, moves[0], version)
        assert r.status_code == 200, r.get_data(as_text=True)
        version += 1
    assert view["phase"] == "game_over"
    assert view["winners"]


def test_sessions_expire_after_the_ttl_and_writes_refresh_it(
    store_kind: str, request: pytest.FixtureRequest
) -> None:
    from service.sessions.memory import MemoryStore
    from tests.sessions.conftest import make_app, store_config

    # A TTL of 2 s and steps of 1.2 s: each "still there" has 0.8 s to spare on a slow
    # machine (the Redis stores wait for real).
    now = [0.0]
    extra: dict[str, Any] = {"SESSION_TTL_SECONDS": 2.0}
    if store_kind == "memory":
        extra["SESSION_STORE"] = MemoryStore(2.0, 1000, clock=lambda: now[0])

    def wait(seconds: float) -> None:
        if store_kind == "memory":
            now[0] += seconds
        else:
            threading.Event().wait(seconds)

    app = make_app(store_config(store_kind, request, **extra))
    api = Api(app.test_client())
    sid, toks, _ = two_humans(api)
    wait(1.2)
    seat, body = mover(api, sid, toks)
    assert api.move(sid, toks[seat], first_move(body), 1).status_code == 200
    wait(1.2)  # 2.4 s after creation, 1.2 s after the write
    assert api.get(sid).status_code == 200
    wait(1.2)
    problem(api.get(sid), 404, "session_not_found")
    app.extensions["sessions"].store.close()


def test_readyz_names_the_store(app: Flask, store_kind: str) -> None:
    r = app.test_client().get("/readyz")
    assert r.status_code == 200
    assert store_kind in r.get_data(as_text=True)


def test_every_variant_can_be_played_as_a_session(api: Api) -> None:
    for v in engine.all_variants():
        r = api.create(v.id, v.min_players, seed=3)
        assert r.status_code == 201, (v.id, r.get_data(as_text=True))
