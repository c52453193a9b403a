"""GET /v1/sessions/{id}/record and POST /v1/games/replay against openapi.yaml (every answer
validated by the harness): a session's record, a seat's copy of a running game, the
refusals (400, 422) and the replay route's own body limit (413)."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
import yaml
from flask import Flask

import engine
from engine.record_pages import pages
from service import DEFAULTS, create_app
from service.http import MAX_BODY_VALUES
from service.jsonscan import JsonScan
from service.replay_limits import (
    DEFAULT_PAGE_MOVES,
    REPLAY_VALUES_PER_MOVE,
    RESUME_MAX_CHARS,
    replay_max_bytes,
    replay_max_values,
)
from tests.service.harness import ApiClient, close, problem, turn_seat

PAGE_MOVES = DEFAULT_PAGE_MOVES  # REPLAY_PAGE_MOVES: what one replay request plays


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
    resume = None
    for page in pages(rec, PAGE_MOVES):  # one page, or more for a long game
        done = api.post("/v1/games/replay", json={**page, "resume": resume})
        assert done.status_code == 200, done.get_data(as_text=True)
        resume = done.get_json()["resume"]
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


#: The heaviest move entry a record holds: a DOS double match, its target and its cards
#: with their colors and numbers (and, in a seat's copy, a hidden field).
HEAVIEST_ENTRY = {"by": "player", "at": "2026-12-03T10:46:24.123Z",
                  "move": {"type": "match", "player": 5, "target": {"card": 107, "color": "yellow",
                           "number": 10}, "cards": [{"card": 105, "color": "yellow", "number": 5},
                           {"card": 106, "color": "yellow", "number": 5}]}, "hidden": ["x"]}  # fmt: skip


def heaviest_page(moves: int = PAGE_MOVES) -> dict[str, Any]:
    """A page of ``moves`` heaviest entries, a round of ten seats ending every 7 moves, a
    deck of 200 cards and the longest resume token (it does not replay)."""
    return {**small_record(), "moves": [HEAVIEST_ENTRY] * moves,
            "rounds": [{"round": 1, "winner": 9, "scores": list(range(10))}] * (moves // 7),
            "players": [{"name": "\U0001f600" * 40, "bot": False} for i in range(10)],
            "deck": list(range(1000, 1200)), "resume": "x" * RESUME_MAX_CHARS}  # fmt: skip


def test_a_page_fits_the_replay_body_limit_pretty_printed() -> None:
    """A page of the heaviest entries weighs under ``REPLAY_MAX_CONTENT_LENGTH`` as the
    service writes records (``dumps``) and indented by 2 (a client's pretty-print),
    and a record of the session move limit does not."""
    page = heaviest_page()
    limit = DEFAULTS["REPLAY_MAX_CONTENT_LENGTH"]
    assert limit == replay_max_bytes(PAGE_MOVES)
    assert len(engine.records.dumps(page).encode()) < limit
    assert len(json.dumps(page, indent=2).encode()) < limit
    assert len(orjson.dumps({**small_record(), "moves": [HEAVIEST_ENTRY] * 20_000})) > limit


def test_a_page_fits_the_replay_value_cap() -> None:
    """The heaviest page, rounds and result included, holds fewer JSON values than the
    replay route takes (``replay_max_values``)."""

    def values(body: dict[str, Any]) -> int:
        scan = JsonScan(32)
        raw = orjson.dumps(body)
        for i in range(0, len(raw), 65536):
            scan.feed(raw[i : i + 65536])
        return scan.values

    page = heaviest_page()
    assert values(page) < replay_max_values(PAGE_MOVES)
    per_move = (values(page) - values({**page, "moves": [], "rounds": []})) / PAGE_MOVES
    assert per_move < REPLAY_VALUES_PER_MOVE, per_move


def test_a_replay_body_holding_more_values_than_a_record_is_refused_while_read() -> None:
    app = create_app({"TESTING": True, "REPLAY_PAGE_MOVES": 10})
    try:
        client = app.test_client()
        cap = replay_max_values(10)
        rec = small_record()
        assert client.post("/v1/games/replay", json=rec).status_code == 200
        wide = orjson.dumps({**rec, "moves": [[]] * cap})  # far under the byte limit
        body = problem(client.post("/v1/games/replay", data=wide,
                                   content_type="application/json"), 413, "replay_page_too_long")  # fmt: skip
        assert body["detail"].startswith(f"the request body holds more than {cap} JSON values")
        # Other routes have their own, tighter cap (issue 46).
        other = client.post("/v1/games/score", data=wide, content_type="application/json")
        body = problem(other, 400, "invalid_json")
        assert body["detail"] == f"the request body holds more than {MAX_BODY_VALUES} JSON values"
    finally:
        close(app)


@pytest.mark.parametrize("limit", [DEFAULTS["REPLAY_MAX_CONTENT_LENGTH"], 3 * 1024 * 1024])
def test_the_replay_route_takes_bodies_up_to_its_own_limit(
    api: ApiClient, api_app: Flask, limit: int
) -> None:
    api_app.config["REPLAY_MAX_CONTENT_LENGTH"] = limit
    raw = orjson.dumps(small_record())
    padded = raw[:-1] + b" " * (limit - len(raw)) + b"}"  # JSON whitespace: the same record
    assert len(padded) == limit
    ok = api.request("POST", "/v1/games/replay", data=padded, content_type="application/json")
    assert ok.status_code == 200, ok.get_data(as_text=True)
    over = padded[:-1] + b" }"
    body = problem(api.request("POST", "/v1/games/replay", data=over,
                               content_type="application/json"), 413, "replay_page_too_long")  # fmt: skip
    assert str(limit) in body["detail"] and "in pages" in body["detail"]
    # Other routes keep the general limit (1 MiB): what is over it there is 413 as before.
    general = DEFAULTS["MAX_CONTENT_LENGTH"]
    if len(over) > general:
        problem(api.request("POST", "/v1/games/score", data=over,
                            content_type="application/json"), 413, "payload_too_large")  # fmt: skip
    else:
        problem(api.request("POST", "/v1/games/score", data=over,
                            content_type="application/json"), 400, "invalid_request")  # fmt: skip


def test_the_spec_and_the_security_page_state_the_replay_bounds() -> None:
    """The replay route's bounds are stated, as the code holds them, in the operation's
    description (openapi.yaml) and in docs/security.md; the resume token's longest in
    the spec's schemas."""
    from service.replay_limits import (
        REPLAY_BOUNDS,
        REPLAY_BYTES_PER_MOVE,
        REPLAY_KEYS_PER_MOVE,
        REPLAY_SPARE_BYTES,
        REPLAY_SPARE_KEYS,
        REPLAY_SPARE_VALUES,
        replay_bounds,
    )
    from tests.ops.support import ROOT

    page = PAGE_MOVES
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    described = " ".join(spec["paths"]["/v1/games/replay"]["post"]["description"].split())
    text = " ".join((ROOT / "docs" / "security.md").read_text().split())
    for where in (described, text):
        for figure in (
            f"`REPLAY_PAGE_MOVES` moves ({page} by default)",
            f"{REPLAY_BYTES_PER_MOVE} bytes a move plus {REPLAY_SPARE_BYTES:,}, "
            f"{replay_max_bytes(page):,} bytes at {page} moves",
            f"{REPLAY_VALUES_PER_MOVE} JSON values a move plus {REPLAY_SPARE_VALUES:,}",
            f"{REPLAY_KEYS_PER_MOVE} keys a move plus {REPLAY_SPARE_KEYS:,}",
            f"strings of {REPLAY_BOUNDS['string']} bytes",
            f"{REPLAY_BOUNDS['digits']} digits in a row",
            f"{replay_max_values(page):,} values and {replay_bounds(page).keys:,} keys "
            f"at the default {page} moves",
        ):
            assert figure in where, figure
    schemas = spec["components"]["schemas"]
    assert schemas["GameRecord"]["properties"]["resume"]["maxLength"] == RESUME_MAX_CHARS
    assert schemas["Replayed"]["properties"]["resume"]["maxLength"] == RESUME_MAX_CHARS


@pytest.mark.parametrize(
    "body, refusal",
    [
        # Within the caps of round two (644,096 values): parsed, 300-400 ms and +64 MB a
        # request; of round three (484,096 values): 25 ms and +6.4 MB.
        (b'{"moves": [' + b'"ab",' * 589_999 + b'"ab"]}', "larger than 160768 bytes"),
        (b'{"moves": [' + b'"ab",' * 8_999 + b'"ab"]}', "more than 8896 JSON values"),
        (b'{"moves": [' + b"1," * 8_999 + b"1]}", "more than 8896 JSON values"),
    ],
    ids=["590k short strings", "9,000 short strings", "9,000 integers"],
)
def test_a_replay_body_past_what_a_page_needs_is_refused_while_read(
    api_app: Flask, body: bytes, refusal: str
) -> None:
    answer = api_app.test_client().post(
        "/v1/games/replay", data=body, content_type="application/json"
    )
    assert answer.status_code == 413
    assert answer.get_json()["code"] == "replay_page_too_long"
    assert refusal in answer.get_json()["detail"]


def test_a_string_longer_than_a_resume_token_is_refused_while_read(api_app: Flask) -> None:
    body = b'{"moves": [' + b",".join([b'"' + b"a" * (RESUME_MAX_CHARS + 1) + b'"'] * 2) + b"]}"
    answer = api_app.test_client().post(
        "/v1/games/replay", data=body, content_type="application/json"
    )
    assert answer.status_code == 400 and answer.get_json()["code"] == "invalid_json"
    assert f"longer than {RESUME_MAX_CHARS} bytes" in answer.get_json()["detail"]
