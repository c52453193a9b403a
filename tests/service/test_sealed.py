"""Sealed state tokens through the games API: ``sealed: true`` answers with a
``state_token`` instead of the state; a token bound to a ``seat`` shows and moves for
that seat only."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from openapi_core import OpenAPI

from service import create_app
from tests.service.harness import ApiClient, new_game, problem, turn_seat


def sealed_game(api: ApiClient, **body: Any) -> dict[str, Any]:
    return new_game(api, sealed=True, **body)


def test_a_sealed_game_answers_a_token_and_no_state(api: ApiClient) -> None:
    body = sealed_game(api, players=2, seed=42)
    assert "state" not in body
    assert body["state_token"].startswith("st1.")
    plain = new_game(api, players=2, seed=42)
    assert body["view"] == plain["view"] and body["events"] == plain["events"]
    # The token hides the hands.
    assert str(plain["state"]["draw_pile"][:5])[1:-1] not in body["state_token"]


def test_a_token_plays_like_the_state_it_seals(api: ApiClient) -> None:
    sealed = sealed_game(api, players=2, seed=42)
    plain = new_game(api, players=2, seed=42)
    move = {"type": "draw", "player": turn_seat(plain["view"])}
    a = api.post("/v1/games/apply", json={"state_token": sealed["state_token"], "move": move})
    b = api.post("/v1/games/apply", json={"state": plain["state"], "move": move})
    assert a.status_code == b.status_code == 200
    assert a.get_json()["view"] == b.get_json()["view"]
    assert a.get_json()["state_token"] != sealed["state_token"]
    token = a.get_json()["state_token"]
    cases: list[tuple[str, dict[str, Any]]] = [
        ("/v1/games/legal-moves", {"player": 0}),
        ("/v1/games/view", {"player": None}),
        ("/v1/games/score", {}),
        ("/v1/games/validate", {"move": {"type": "draw", "player": 1}}),
    ]
    for path, extra in cases:
        resp = api.post(path, json={"state_token": token, **extra})
        assert resp.status_code == 200, (path, resp.get_data(as_text=True))


def test_a_seat_bound_token_shows_and_moves_for_its_seat_only(api: ApiClient) -> None:
    body = sealed_game(api, players=2, seed=42, seat=1)
    token = body["state_token"]
    assert body["view"]["player"] == 1  # not the seat to move (0)
    moves = api.post("/v1/games/legal-moves", json={"state_token": token}).get_json()
    assert moves == {"player": 1, "moves": []}
    problem(
        api.post("/v1/games/view", json={"state_token": token, "player": 0}),
        403,
        "seat_not_allowed",
    )
    problem(
        api.post("/v1/games/legal-moves", json={"state_token": token, "player": 0}),
        403,
        "seat_not_allowed",
    )
    for path in ("/v1/games/apply", "/v1/games/validate"):
        move = {"type": "draw", "player": 0}
        problem(api.post(path, json={"state_token": token, "move": move}), 403, "seat_not_allowed")
    # Its own seat, out of turn: an ordinary rules answer.
    move = {"type": "draw", "player": 1}
    problem(
        api.post("/v1/games/apply", json={"state_token": token, "move": move}),
        422,
        "not_your_turn",
    )


@pytest.mark.parametrize(
    "mangle",
    [
        lambda t: t[:-4] + ("AAAA" if not t.endswith("AAAA") else "BBBB"),
        lambda t: t[: len(t) // 2],
        lambda t: "st1.other." + t.split(".", 2)[2],
        lambda t: "st2." + t[4:],
        lambda t: "not a token",
    ],
    ids=["tampered", "truncated", "foreign-key-id", "wrong-version", "garbage"],
)
def test_a_token_that_is_not_genuine_is_422(api: ApiClient, mangle: Any) -> None:
    token = mangle(sealed_game(api, players=2, seed=42)["state_token"])
    problem(api.post("/v1/games/score", json={"state_token": token}), 422, "invalid_state_token")


def test_a_token_from_another_key_is_refused(api: ApiClient, openapi_spec: OpenAPI) -> None:
    other: Flask = create_app({"TESTING": True})
    token = sealed_game(ApiClient(other.test_client(), openapi_spec), players=2)["state_token"]
    other.extensions["sessions"].store.close()
    problem(api.post("/v1/games/score", json={"state_token": token}), 422, "invalid_state_token")


def test_configured_keys_open_each_others_tokens(openapi_spec: OpenAPI) -> None:
    keys = "k1:" + "A" * 43
    apps = [create_app({"TESTING": True, "STATE_TOKEN_KEYS": keys}) for _ in range(2)]
    a, b = (ApiClient(app.test_client(), openapi_spec) for app in apps)
    token = sealed_game(a, players=2, seed=1)["state_token"]
    assert b.post("/v1/games/score", json={"state_token": token}).status_code == 200
    for app in apps:
        app.extensions["sessions"].store.close()


@pytest.mark.parametrize(
    "body",
    [
        {"state": None, "state_token": None},
        {},
        {"state_token": 5},
        {"state_token": ""},
    ],
)
def test_a_state_or_a_token_is_required_and_not_both(api: ApiClient, body: dict[str, Any]) -> None:
    problem(api.post("/v1/games/score", json=body), 400, "invalid_request")


def test_sending_both_a_state_and_a_token_is_400(api: ApiClient) -> None:
    plain = new_game(api, players=2, seed=42)
    token = sealed_game(api, players=2, seed=42)["state_token"]
    body = {"state": plain["state"], "state_token": token}
    answer = problem(api.post("/v1/games/score", json=body), 400, "invalid_request")
    assert "state" in answer["errors"]
