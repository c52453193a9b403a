"""POST /v1/games/replay in pages (issue 46): a record longer than ``REPLAY_PAGE_MOVES``
is verified page by page, each page carrying the ``resume`` token the page before
answered, and gives what one replay of the whole record gives; a token of another
record, tampered with or sealed with another key is refused; more than a page in one
request is 413 ``replay_page_too_long``. Every exchange is checked against the spec
(``ApiClient``)."""

from __future__ import annotations

import base64
import functools
import random
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from flask import Flask

import engine
from engine import MoveType, Phase
from engine.record_pages import pages
from service import DEFAULTS, create_app
from service.replay_limits import DEFAULT_PAGE_MOVES, replay_max_bytes
from service.sealing import Keyring
from tests.service.harness import ApiClient, cached_spec, close, problem
from tests.support import long_random_record

PAGE = DEFAULT_PAGE_MOVES
KEYS = Keyring.new_key_spec("k1")


@functools.cache
def long_record(variant: str, seats: int, moves: int, seed: int = 1) -> dict[str, Any]:
    """The record of a random game of ``moves`` moves (a target no one reaches, so many
    rounds end and the game goes on), with a seed commitment."""
    return long_random_record(variant, seats, moves, seed, game_id=f"g-{seed}")


def finished_record() -> dict[str, Any]:
    """A two-seat Classic game to 50 points played to its end, each seat playing a card
    when it can: 170 moves, 3 rounds (a result to check)."""
    rnd = random.Random(4)
    state, _ = engine.start("uno_classic", 2, 4, options={"target": 50})
    played = []
    while state.phase is not Phase.GAME_OVER:
        legal = [m for p in range(2) for m in engine.legal_moves(state, p)]
        move = rnd.choice([m for m in legal if m.type is not MoveType.DRAW] or legal)
        played.append(move)
        state, _ = engine.apply(state, move)
    return engine.record("uno_classic", 2, 4, played, options={"target": 50})


@pytest.fixture
def keyed_app() -> Iterator[Flask]:
    app = create_app({"TESTING": True, "STATE_TOKEN_KEYS": KEYS})
    yield app
    close(app)


@pytest.fixture
def client(keyed_app: Flask) -> ApiClient:
    return ApiClient(keyed_app.test_client(), cached_spec())


def replay_in_pages(client: ApiClient, rec: dict[str, Any], size: int = PAGE) -> list[Any]:
    """Each page's answer, every page sent with the token the one before answered."""
    answers: list[Any] = []
    for page in pages(rec, size):
        if answers:
            page["resume"] = answers[-1]["resume"]
        r = client.post("/v1/games/replay", json=page)
        assert r.status_code == 200, r.get_data(as_text=True)
        answers.append(r.get_json())
    return answers


@pytest.mark.parametrize("variant, seats", [("dos", 4), ("uno_all_wild", 10)])
def test_a_long_record_in_pages_gives_what_one_replay_gives(
    client: ApiClient, variant: str, seats: int
) -> None:
    rec = long_record(variant, seats, 2_100)
    assert len(rec["moves"]) == 2_100 and len(rec["rounds"]) >= 10
    whole = engine.replay(rec)  # one replay of the whole record, as the route did before
    answers = replay_in_pages(client, rec)
    assert len(answers) == 11
    last = answers[-1]
    assert last["state"] == engine.to_dict(whole.state)
    assert last["score"] == whole.score
    assert [e for a in answers for e in a["events"]] == whole.events
    assert [a["moves_verified"] for a in answers] == [*range(PAGE, 2_100, PAGE), 2_100]
    assert last["rounds_verified"] == len(rec["rounds"])


def test_a_record_of_a_page_or_less_is_one_request_as_before(client: ApiClient) -> None:
    rec = finished_record()
    assert len(rec["moves"]) <= PAGE and rec["result"] is not None
    body = client.post("/v1/games/replay", json=rec).get_json()
    whole = engine.replay(rec)
    assert body["state"] == engine.to_dict(whole.state) and body["events"] == whole.events
    assert body["moves_verified"] == len(rec["moves"]) and body["score"]["game_over"]


def test_more_than_a_page_in_one_request_is_refused_with_its_code(client: ApiClient) -> None:
    rec = long_record("dos", 4, 2_100)
    # Over the bytes a page may weigh: refused before it is read.
    body = problem(client.post("/v1/games/replay", json=rec), 413, "replay_page_too_long")
    assert "in pages" in body["detail"] and body["page_moves"] == PAGE
    # Within the bytes and values, one move more than a page.
    over = {**pages(rec, PAGE + 1)[0], "rounds": []}
    assert len(orjson.dumps(over)) < DEFAULTS["REPLAY_MAX_CONTENT_LENGTH"]
    body = problem(client.post("/v1/games/replay", json=over), 413, "replay_page_too_long")
    assert body["detail"].startswith(f"the record holds {PAGE + 1} moves")


def test_more_values_than_a_page_holds_is_refused_with_its_code(client: ApiClient) -> None:
    wide = b'{"moves": [' + b",".join([b"1"] * 20_000) + b"]}"
    assert len(wide) < DEFAULTS["REPLAY_MAX_CONTENT_LENGTH"]
    answer = client.request("POST", "/v1/games/replay", data=wide, content_type="application/json")
    body = problem(answer, 413, "replay_page_too_long")
    assert "more than 8896 JSON values" in body["detail"]


def tampered(token: str) -> str:
    prefix, kid, data = token.split(".")
    raw = bytearray(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
    raw[20] ^= 1
    return f"{prefix}.{kid}.{base64.urlsafe_b64encode(bytes(raw)).decode().rstrip('=')}"


def test_a_token_that_cannot_continue_the_record_is_refused(client: ApiClient) -> None:
    rec = long_record("dos", 4, 2_100)
    first, second = pages(rec, PAGE)[:2]
    token = client.post("/v1/games/replay", json=first).get_json()["resume"]
    assert client.post("/v1/games/replay", json={**second, "resume": token}).status_code == 200
    # Another record's token: another seed, then another game id (the same moves).
    other = long_record("dos", 4, 2_100, seed=2)
    foreign = client.post("/v1/games/replay", json=pages(other, PAGE)[0]).get_json()["resume"]
    problem(client.post("/v1/games/replay", json={**second, "resume": foreign}), 422,
            "resume_token_mismatch")  # fmt: skip
    renamed = {**second, "seed_commitment": {**rec["seed_commitment"], "game_id": "g-9"}}
    problem(client.post("/v1/games/replay", json={**renamed, "resume": token}), 422,
            "resume_token_mismatch")  # fmt: skip
    # Tampered with, cut short, not a token, a state token, another key's.
    state_token = client.post("/v1/games", json={"variant": "dos", "players": 2, "seed": 1,
                                                 "sealed": True}).get_json()["state_token"]  # fmt: skip
    for bad in (tampered(token), token[:-10], "rp1.k1.AAAA", 7, state_token):
        body = problem(client.post("/v1/games/replay", json={**second, "resume": bad}), 422,
                       "invalid_resume_token")  # fmt: skip
        assert "resume" in body["detail"]
    other_keys = create_app({"TESTING": True, "STATE_TOKEN_KEYS": Keyring.new_key_spec("k1")})
    try:
        answer = other_keys.test_client().post("/v1/games/replay", json={**second, "resume": token})
        body = problem(answer, 422, "invalid_resume_token")
        assert "failed authentication" in body["detail"]
    finally:
        close(other_keys)


def test_a_bad_move_on_a_later_page_is_named_by_its_index_in_the_record(
    client: ApiClient,
) -> None:
    rec = long_record("dos", 4, 2_100)
    first, second = pages(rec, PAGE)[:2]
    token = client.post("/v1/games/replay", json=first).get_json()["resume"]
    moves = list(second["moves"])
    moves[5] = {**moves[5], "move": {"type": "next_round", "player": 0}}
    body = problem(client.post("/v1/games/replay", json={**second, "moves": moves,
                   "resume": token}), 422, "record_move_illegal")  # fmt: skip
    assert body["index"] == PAGE + 5 and body["detail"].startswith(f"move {PAGE + 5} is illegal")


def test_rounds_and_the_result_are_checked_across_pages(client: ApiClient) -> None:
    rec = long_record("dos", 4, 2_100)
    first, second = pages(rec, PAGE)[:2]
    token = client.post("/v1/games/replay", json=first).get_json()["resume"]
    assert second["rounds"], "no round ends in the second page"
    # A round stated with other scores, or on the wrong page, or left out.
    wrong = [{**second["rounds"][0], "scores": [0, 0, 0, 0]}, *second["rounds"][1:]]
    body = problem(client.post("/v1/games/replay", json={**second, "rounds": wrong,
                   "resume": token}), 422, "record_result_differs")  # fmt: skip
    assert PAGE <= body["index"] < 2 * PAGE and body["stated"] == wrong[0]
    early = {**first, "rounds": first["rounds"] + second["rounds"][:1]}
    body = problem(client.post("/v1/games/replay", json=early), 422, "record_result_differs")
    assert body["index"] == PAGE - 1 and body["replayed"] is None
    fewer = {**second, "rounds": second["rounds"][1:], "resume": token}
    problem(client.post("/v1/games/replay", json=fewer), 422, "record_result_differs")
    # A result is checked on the page that states it: the game is not over here.
    result = {"winners": [0], "scores": [500, 0, 0, 0]}
    body = problem(client.post("/v1/games/replay", json={**second, "result": result,
                   "resume": token}), 422, "record_result_differs")  # fmt: skip
    assert body["index"] == 2 * PAGE - 1 and body["replayed"] is None


def test_a_finished_games_result_is_checked_on_its_last_page(client: ApiClient) -> None:
    rec = finished_record()
    size = len(rec["moves"]) // 3 + 1
    answers = replay_in_pages(client, rec, size)
    assert len(answers) == 3 and answers[-1]["score"]["winners"] == rec["result"]["winners"]
    *head, last = pages(rec, size)
    token = client.post("/v1/games/replay", json=head[0]).get_json()["resume"]
    token = client.post("/v1/games/replay", json={**head[1], "resume": token}).get_json()["resume"]
    wrong = {**last, "result": {**rec["result"], "winners": [1 - rec["result"]["winners"][0]]}}
    problem(client.post("/v1/games/replay", json={**wrong, "resume": token}), 422,
            "record_result_differs")  # fmt: skip


def test_the_pages_of_a_record_hold_at_most_the_session_move_limit() -> None:
    app = create_app({"TESTING": True, "SESSION_MAX_MOVES": 300})
    try:
        c = app.test_client()
        first, second = pages(long_record("dos", 4, 2_100), PAGE)[:2]
        token = c.post("/v1/games/replay", json=first).get_json()["resume"]
        body = problem(c.post("/v1/games/replay", json={**second, "resume": token}), 422,
                       "move_limit_reached")  # fmt: skip
        assert "at most 300 moves" in body["detail"]
    finally:
        close(app)


def test_the_page_and_the_body_limit_come_from_the_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("REPLAY_PAGE_MOVES", "50")
    app = create_app({"TESTING": True})
    try:
        assert app.config["REPLAY_MAX_CONTENT_LENGTH"] == replay_max_bytes(50)
        rec = long_record("dos", 4, 2_100)
        body = problem(app.test_client().post("/v1/games/replay", json=pages(rec, 51)[0]),
                       413, "replay_page_too_long")  # fmt: skip
        assert body["page_moves"] == 50
    finally:
        close(app)
    explicit = create_app({"TESTING": True, "REPLAY_MAX_CONTENT_LENGTH": 99_999})
    assert explicit.config["REPLAY_MAX_CONTENT_LENGTH"] == 99_999
    close(explicit)


def test_the_pages_settings_are_stated_as_the_code_holds_them() -> None:
    from service.ratelimit import DEFAULT_REPLAY_RATE_LIMIT
    from tests.ops.support import ROOT

    operations = (ROOT / "docs" / "operations.md").read_text()
    assert f"| `REPLAY_PAGE_MOVES` | {PAGE} |" in operations
    derived = f"| `REPLAY_MAX_CONTENT_LENGTH` | derived from the page: {replay_max_bytes(PAGE)} |"
    assert derived in operations
    assert (
        f"| `REPLAY_RATE_LIMIT` | {DEFAULT_REPLAY_RATE_LIMIT} while `RATE_LIMIT` is on"
        in operations
    )
    records = " ".join((ROOT / "docs" / "records.md").read_text().split())
    assert f"`REPLAY_PAGE_MOVES` moves ({PAGE} by default" in records
    assert f"{replay_max_bytes(PAGE):,} bytes at {PAGE} moves" in records
    per_minute = DEFAULT_REPLAY_RATE_LIMIT.removesuffix("/minute")
    assert f"`REPLAY_RATE_LIMIT` ({per_minute} requests a minute per client" in records


def test_the_record_schema_holds_the_replay_routes_field_beside_the_formats() -> None:
    from engine.records import FIELDS
    from service.replay_resume import RESUME_FIELD
    from tests.support import spec_document

    properties = spec_document()["components"]["schemas"]["GameRecord"]["properties"]
    assert list(properties) == [*FIELDS, RESUME_FIELD]
