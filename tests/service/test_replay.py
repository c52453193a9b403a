"""GET /v1/sessions/{id}/record and POST /v1/games/replay against openapi.yaml (every answer
validated by the harness): a session's record, a seat's copy of a running game, the
refusals (400, 422) and the replay route's own body limit (413)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from flask import Flask

import engine
from service import DEFAULTS
from tests.service.harness import ApiClient, problem, turn_seat

RECORD_MOVES = 20_000  # SESSION_MAX_MOVES


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def play_session(api: ApiClient, variant: str, players: list[dict[str, Any]], moves: int) -> Any:
    """A session whose people play their first legal move (not UNO or catch) ``moves``
    times or to the end; answers the session id and the tokens."""
    body = api.post("/v1/sessions", json={"variant": variant, "players": players, "seed": 5,
                                          "options": {"target": 50}}).get_json()  # fmt: skip
    sid, tokens = body["session_id"], [s.get("token") for s in body["seats"]]
    for _ in range(moves):
        view = api.get(f"/v1/sessions/{sid}").get_json()
        if view["view"]["phase"] == "game_over":
            break
        token = tokens[turn_seat(view["view"])]
        mine = api.get(f"/v1/sessions/{sid}", headers=auth(token)).get_json()
        move = next(m for m in mine["legal_moves"] if m["type"] not in ("uno", "catch"))
        headers = {**auth(token), "If-Match": f'"{mine["version"]}"'}
        r = api.post(f"/v1/sessions/{sid}/moves", json={"move": move}, headers=headers)
        assert r.status_code == 200, r.get_data(as_text=True)
    return sid, tokens


@pytest.mark.parametrize("variant", [v.id for v in engine.all_variants()])
def test_a_finished_sessions_record_replays(api: ApiClient, variant: str) -> None:
    """The record and the replay's answer (every event with its secrets) fit the spec."""
    sid, _ = play_session(api, variant, [{"name": "Ann"}, {"bot": True}], 2000)
    r = api.get(f"/v1/sessions/{sid}/record")
    assert r.status_code == 200 and r.headers["ETag"]
    text = r.get_data(as_text=True)
    rec = orjson.loads(text)
    assert text.count("\n") >= len(rec["moves"])  # one move per line
    done = api.post("/v1/games/replay", json=rec)
    assert done.status_code == 200, done.get_data(as_text=True)
    final = api.get(f"/v1/sessions/{sid}").get_json()
    assert final["view"]["phase"] == "game_over"
    assert done.get_json()["score"]["scores"] == final["view"]["scores"]
    assert done.get_json()["state"]["move_count"] == len(rec["moves"])


def test_a_running_pocket_pizza_record_hides_a_give_from_a_third_seat(api: ApiClient) -> None:
    """Three people play until a Wild Dip give has been made; the third seat's copy leaves
    its card out, the giver's and the receiver's show it."""
    players = [{"name": n} for n in ("Ann", "Bo", "Cy")]
    sid, tokens = play_session(api, "uno_pocket_pizza", players, 0)
    for _ in range(400):
        rec = api.get(f"/v1/sessions/{sid}/record", headers=auth(tokens[0])).get_json()
        gives = [m for m in rec["moves"] if m["move"]["type"] == "give"]
        if gives or rec["result"] is not None:
            break
        play_session_step(api, sid, tokens)
    assert gives, "no give in 400 moves"
    giver = gives[0]["move"]["player"]
    copies = {s: api.get(f"/v1/sessions/{sid}/record", headers=auth(tokens[s])).get_json()
              for s in range(3)}  # fmt: skip
    i = next(i for i, m in enumerate(copies[giver]["moves"]) if m["move"]["type"] == "give")
    card = copies[giver]["moves"][i]["move"]["card"]
    shown = [s for s in range(3) if copies[s]["moves"][i]["move"].get("card") == card]
    assert len(shown) == 2 and giver in shown  # the giver and the seat given to
    (third,) = {0, 1, 2} - set(shown)
    assert "card" not in copies[third]["moves"][i]["move"]
    assert copies[third]["moves"][i]["hidden"] == ["card"]
    assert all(c["seed"] is None for c in copies.values())
    problem(api.get(f"/v1/sessions/{sid}/record"), 401, "missing_token")


def play_session_step(api: ApiClient, sid: str, tokens: list[str]) -> None:
    view = api.get(f"/v1/sessions/{sid}").get_json()
    token = tokens[turn_seat(view["view"])]
    mine = api.get(f"/v1/sessions/{sid}", headers=auth(token)).get_json()
    move = next(m for m in mine["legal_moves"] if m["type"] not in ("uno", "catch"))
    headers = {**auth(token), "If-Match": f'"{mine["version"]}"'}
    r = api.post(f"/v1/sessions/{sid}/moves", json={"move": move}, headers=headers)
    assert r.status_code == 200, r.get_data(as_text=True)


def small_record() -> dict[str, Any]:
    state, _ = engine.start("uno_classic", 2, 42)
    seat = state.pending.player if state.pending else state.current
    move = engine.legal_moves(state, seat)[0]
    return engine.record("uno_classic", 2, 42, [move], game_id="g-1")


def test_refusals_name_the_move_and_the_field(api: ApiClient) -> None:
    rec = small_record()
    bad = {**rec, "moves": [{"by": "player", "move": {"type": "next_round", "player": 0}}]}
    body = problem(api.post("/v1/games/replay", json=bad), 422, "record_move_illegal")
    assert body["index"] == 0 and body["reason"]["code"] == "round_not_over"
    body = problem(api.post("/v1/games/replay", json={**rec, "result": {"winners": [0],
                   "scores": [0, 0]}}), 422, "record_result_differs")  # fmt: skip
    assert body["stated"] == {"winners": [0], "scores": [0, 0]} and body["replayed"] is None
    problem(api.post("/v1/games/replay", json={**rec, "seed": "43"}), 422,
            "seed_commitment_mismatch")  # fmt: skip
    problem(api.post("/v1/games/replay", json={**rec, "variant": "uno_nope"}), 422,
            "unknown_variant")  # fmt: skip
    body = problem(api.post("/v1/games/replay", json={**rec, "moves": [{"move": {}}]}), 400,
                   "invalid_request")  # fmt: skip
    assert body["errors"] == {"moves.0.by": ["moves.0.by is required"]}
    problem(api.post("/v1/games/replay", json=[rec]), 400, "invalid_request")


def test_a_record_of_the_session_move_limit_fits_the_replay_body_limit() -> None:
    """A 20,000-move record weighs about 94 bytes a move (DOS: 112), 1.8 to 2.2 MiB: more
    than the 1 MiB other bodies may weigh, well within the replay route's 8 MiB."""
    rec = small_record()
    entry = {"by": "player", "at": "2026-12-03T10:46:24.123Z",
             "move": {"type": "match", "player": 5, "target": {"card": 107, "color": "yellow",
                      "number": 10}, "cards": [{"card": 105, "color": "yellow", "number": 5},
                      {"card": 106, "color": "yellow", "number": 5}]}}  # fmt: skip
    heaviest = len(engine.records.dumps({**rec, "moves": [entry] * RECORD_MOVES}).encode())
    assert DEFAULTS["MAX_CONTENT_LENGTH"] < heaviest < DEFAULTS["REPLAY_MAX_CONTENT_LENGTH"]


@pytest.mark.parametrize("limit", [DEFAULTS["REPLAY_MAX_CONTENT_LENGTH"], 3 * 1024 * 1024])
def test_the_replay_route_takes_bodies_up_to_its_own_limit(
    api: ApiClient, api_app: Flask, limit: int
) -> None:
    api_app.config["REPLAY_MAX_CONTENT_LENGTH"] = limit
    raw = orjson.dumps(small_record())
    padded = raw[:-1] + b" " * (limit - len(raw)) + b"}"  # JSON whitespace: the same record
    assert len(padded) == limit > DEFAULTS["MAX_CONTENT_LENGTH"]
    ok = api.request("POST", "/v1/games/replay", data=padded, content_type="application/json")
    assert ok.status_code == 200, ok.get_data(as_text=True)
    over = padded[:-1] + b" }"
    body = problem(api.request("POST", "/v1/games/replay", data=over,
                               content_type="application/json"), 413, "payload_too_large")  # fmt: skip
    assert str(limit) in body["detail"]
    # Other routes keep the general limit.
    problem(api.request("POST", "/v1/games/score", data=over, content_type="application/json"),
            413, "payload_too_large")  # fmt: skip
