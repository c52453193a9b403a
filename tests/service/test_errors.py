"""Every class of bad input gets its status, its stable code and problem+json."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from flask import Flask
from openapi_core import OpenAPI

from service import create_app
from tests.service.harness import ApiClient, new_game, problem

POSTS = [
    "/v1/games",
    "/v1/games/legal-moves",
    "/v1/games/validate",
    "/v1/games/apply",
    "/v1/games/view",
    "/v1/games/score",
]
STATE_POSTS = POSTS[1:]


@pytest.fixture
def game(api: ApiClient) -> dict[str, Any]:
    return new_game(api, variant="uno_classic", players=2, seed=42)


def body_for(path: str, game: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A valid body for ``path`` (seat 0 is to move in the seed-42 game)."""
    bodies: dict[str, dict[str, Any]] = {
        "/v1/games": {"variant": "uno_classic", "players": 2},
        "/v1/games/legal-moves": {"state": game["state"], "player": 0},
        "/v1/games/validate": {"state": game["state"], "move": {"type": "draw", "player": 0}},
        "/v1/games/apply": {"state": game["state"], "move": {"type": "draw", "player": 0}},
        "/v1/games/view": {"state": game["state"], "player": 0},
        "/v1/games/score": {"state": game["state"]},
    }
    return {**copy.deepcopy(bodies[path]), **extra}


# ---------------------------------------------------------------- not JSON
@pytest.mark.parametrize("path", POSTS)
@pytest.mark.parametrize(
    "data",
    [
        b"{",
        b"",
        b"{'variant': 'uno_classic'}",
        b'{"variant": NaN}',
        b"\xff\xfe{}",
        b'{"a": "\\ud800"}',
        b"[1, 2]",
        b'"a string"',
        b"null",
        b"[" * 100 + b"]" * 100,
        b'{"state": ' + b'{"a": ' * 40 + b"1" + b"}" * 40 + b"}",
    ],
    ids=[
        "truncated",
        "empty",
        "single-quotes",
        "nan",
        "not-utf8",
        "lone-surrogate",
        "array",
        "string",
        "null",
        "nested-arrays",
        "nested-objects",
    ],
)
def test_a_body_that_is_not_a_json_object_is_400_invalid_json(
    api: ApiClient, path: str, data: bytes
) -> None:
    problem(
        api.request("POST", path, data=data, content_type="application/json"),
        400,
        "invalid_json",
    )


@pytest.mark.parametrize("path", POSTS)
@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/xml",
        "application/merge-patch+json",
        None,
    ],
)
def test_another_content_type_is_415(api: ApiClient, path: str, content_type: str | None) -> None:
    resp = api.request(
        "POST", path, data=b'{"variant": "uno_classic", "players": 2}', content_type=content_type
    )
    problem(resp, 415, "unsupported_media_type")


def test_json_with_a_charset_parameter_is_accepted(api: ApiClient) -> None:
    body = b'{"variant": "uno_classic", "players": 2, "seed": 1}'
    for content_type in ("application/json; charset=utf-8", "Application/JSON"):
        resp = api.request("POST", "/v1/games", data=body, content_type=content_type)
        assert resp.status_code == 201, content_type


# ---------------------------------------------------------------- shape
@pytest.mark.parametrize("path", POSTS)
def test_an_unknown_field_is_400_invalid_request_naming_it(
    api: ApiClient, game: dict[str, Any], path: str
) -> None:
    body = problem(api.post(path, json=body_for(path, game, colour="red")), 400, "invalid_request")
    assert body["errors"] == {"colour": ["Unknown field."]}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"players": 2}, "variant"),
        ({"variant": "uno_classic"}, "players"),
        ({"variant": 5, "players": 2}, "variant"),
        ({"variant": "", "players": 2}, "variant"),
        ({"variant": "uno_classic", "players": "two"}, "players"),
        ({"variant": "uno_classic", "players": True}, "players"),
        ({"variant": "uno_classic", "players": 2.5}, "players"),
        ({"variant": "uno_classic", "players": 2, "seed": -1}, "seed"),
        ({"variant": "uno_classic", "players": 2, "seed": 2**64}, "seed"),
        ({"variant": "uno_classic", "players": 2, "seed": "42"}, "seed"),
        ({"variant": "uno_classic", "players": 2, "seed": 10**30}, "seed"),
        ({"variant": "uno_classic", "players": 2, "dealer": "0"}, "dealer"),
        ({"variant": "uno_classic", "players": 2, "options": [1]}, "options"),
        (
            {"variant": "uno_classic", "players": 2, "options": {f"o{i}": 1 for i in range(40)}},
            "options",
        ),
        ({"variant": "uno_classic", "players": 2, "deck": "0,1,2"}, "deck"),
        ({"variant": "uno_classic", "players": 2, "deck": [0, "1"]}, "deck"),
        ({"variant": "uno_classic", "players": 2, "deck": [0, True]}, "deck"),
        ({"variant": "uno_classic", "players": 2, "deck": list(range(201))}, "deck"),
        ({"variant": "uno_classic", "players": 2, "sealed": "yes"}, "sealed"),
        ({"variant": "uno_classic", "players": 2, "sealed": 1}, "sealed"),
        ({"variant": "uno_classic", "players": 2, "seat": 0}, "seat"),
    ],
)
def test_create_with_a_wrong_type_is_400_naming_the_field(
    api: ApiClient, body: dict[str, Any], field: str
) -> None:
    answer = problem(api.post("/v1/games", json=body), 400, "invalid_request")
    assert field in answer["errors"], answer


@pytest.mark.parametrize(
    ("path", "changes", "field"),
    [
        ("/v1/games/score", {"state": "x"}, "state"),
        ("/v1/games/score", {"state": [1]}, "state"),
        ("/v1/games/score", {"state": None}, "state"),
        ("/v1/games/legal-moves", {"player": "0"}, "player"),
        ("/v1/games/legal-moves", {"player": -1}, "player"),
        ("/v1/games/legal-moves", {"player": 1.5}, "player"),
        ("/v1/games/view", {"player": False}, "player"),
        ("/v1/games/apply", {"move": "draw"}, "move"),
        ("/v1/games/apply", {"move": None}, "move"),
        ("/v1/games/validate", {"move": [{"type": "draw"}]}, "move"),
    ],
)
def test_a_state_request_with_a_wrong_type_is_400_naming_the_field(
    api: ApiClient, game: dict[str, Any], path: str, changes: dict[str, Any], field: str
) -> None:
    answer = problem(api.post(path, json=body_for(path, game, **changes)), 400, "invalid_request")
    assert field in answer["errors"], answer


@pytest.mark.parametrize("path", ["/v1/games/apply", "/v1/games/validate", "/v1/games/view"])
def test_a_missing_required_field_is_400(api: ApiClient, game: dict[str, Any], path: str) -> None:
    body = body_for(path, game)
    body.pop("move" if "move" in body else "player")
    answer = problem(api.post(path, json=body), 400, "invalid_request")
    assert answer["errors"] == {
        "move" if "apply" in path or "validate" in path else "player": [
            "Missing data for required field."
        ]
    }


@pytest.mark.parametrize("path", STATE_POSTS)
def test_a_request_without_a_state_is_400(api: ApiClient, game: dict[str, Any], path: str) -> None:
    body = body_for(path, game)
    del body["state"]
    answer = problem(api.post(path, json=body), 400, "invalid_request")
    assert "state" in answer["errors"]


# ---------------------------------------------------------------- setup (422)
@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"variant": "chess"}, "unknown_variant"),
        ({"variant": "UNO_CLASSIC"}, "unknown_variant"),
        ({"players": 0}, "invalid_player_count"),
        ({"players": 1}, "invalid_player_count"),
        ({"players": 11}, "invalid_player_count"),
        ({"players": -3}, "invalid_player_count"),
        ({"players": 2**63}, "invalid_player_count"),
        ({"dealer": 2}, "invalid_dealer"),
        ({"dealer": -1}, "invalid_dealer"),
        ({"options": {"target": 0}}, "invalid_option"),
        ({"options": {"target": "500"}}, "invalid_option"),
        ({"options": {"target": 10**9}}, "invalid_option"),
        ({"options": {"challenge_rule": "never"}}, "invalid_option"),
        ({"options": {"house_rules": True}}, "unknown_option"),
        ({"deck": list(range(107))}, "invalid_deck"),
        ({"deck": [0, *range(107)]}, "invalid_deck"),
        ({"deck": [*range(107), 108]}, "invalid_deck"),
        ({"deck": [*range(107), -1]}, "invalid_deck"),
        ({"deck": []}, "invalid_deck"),
        ({"sealed": True, "seat": 5}, "invalid_player"),
    ],
)
def test_a_game_that_cannot_be_set_up_is_422_with_the_engines_code(
    api: ApiClient, changes: dict[str, Any], code: str
) -> None:
    body = {"variant": "uno_classic", "players": 2, "seed": 1, **changes}
    answer = problem(api.post("/v1/games", json=body), 422, code)
    assert answer["detail"]


def test_a_deck_that_is_not_a_permutation_names_what_is_wrong(api: ApiClient) -> None:
    deck = [0, 0, *range(2, 108)]
    answer = problem(
        api.post("/v1/games", json={"variant": "uno_classic", "players": 2, "deck": deck}),
        422,
        "invalid_deck",
    )
    assert "repeated ids [0]" in answer["detail"] and "missing ids [1]" in answer["detail"]


def test_the_player_count_range_is_the_variants(api: ApiClient) -> None:
    duo = api.get("/v1/variants/uno_duo")
    assert duo.status_code == 200, duo.get_data(as_text=True)
    top = duo.get_json()["players"]["max"]
    body = {"variant": "uno_duo", "players": top + 1}
    problem(api.post("/v1/games", json=body), 422, "invalid_player_count")


# ---------------------------------------------------------------- invalid states (422)
def mutate(state: dict[str, Any], how: str) -> dict[str, Any]:
    s = copy.deepcopy(state)
    if how == "duplicated_card":
        s["hands"][1][0] = s["hands"][0][0]
    elif how == "missing_card":
        s["draw_pile"].pop()
    elif how == "card_added":
        s["hands"][0].append(s["hands"][0][0] + 1000)
    elif how == "hands_for_another_player_count":
        s["players"] = 3
    elif how == "a_hand_missing":
        s["draw_pile"].extend(s["hands"].pop())
    elif how == "current_out_of_range":
        s["current"] = 2
    elif how == "dealer_negative":
        s["dealer"] = -1
    elif how == "pending_player_out_of_range":
        s["pending"] = {"type": "choose_color", "player": 5, "card": None, "data": {}}
    elif how == "exposed_out_of_range":
        s["exposed"] = [3]
    elif how == "winners_while_playing":
        s["winners"] = [0]
    elif how == "schema_2":
        s["schema"] = 2
    elif how == "unknown_variant":
        s["variant"] = "chess"
    elif how == "unknown_field":
        s["colour"] = "red"
    elif how == "missing_field":
        del s["rng"]
    elif how == "bad_rng":
        s["rng"] = {"state": "zz", "inc": "1"}
    elif how == "bad_phase":
        s["phase"] = "halftime"
    elif how == "bad_colour":
        s["active_color"] = "mauve"
    elif how == "card_as_string":
        s["hands"][0][0] = "R7"
    elif how == "scores_too_short":
        s["scores"] = [0]
    elif how == "float_round":
        s["round"] = 1.5
    elif how == "huge_seed":
        s["seed"] = 2**64  # beyond 64 bits: the service parses it as a float
    elif how == "empty_hand_in_play":
        s["draw_pile"].extend(s["hands"][0])
        s["hands"][0] = []
    else:  # pragma: no cover
        raise AssertionError(how)
    return s


STATE_DEFECTS = [
    "duplicated_card", "missing_card", "card_added", "hands_for_another_player_count",
    "a_hand_missing", "current_out_of_range", "dealer_negative", "pending_player_out_of_range",
    "exposed_out_of_range", "winners_while_playing", "schema_2", "unknown_variant",
    "unknown_field", "missing_field", "bad_rng", "bad_phase", "bad_colour", "card_as_string",
    "scores_too_short", "float_round", "huge_seed", "empty_hand_in_play",
]  # fmt: skip


@pytest.mark.parametrize("how", STATE_DEFECTS)
@pytest.mark.parametrize("path", STATE_POSTS)
def test_a_broken_state_is_422_invalid_state(
    api: ApiClient, game: dict[str, Any], path: str, how: str
) -> None:
    body = body_for(path, game, state=mutate(game["state"], how))
    answer = problem(api.post(path, json=body), 422, "invalid_state")
    assert answer["detail"]


@pytest.mark.parametrize(
    ("how", "field", "words"),
    [
        ("duplicated_card", "cards", "more than one place"),
        ("missing_card", "cards", "missing"),
        ("hands_for_another_player_count", "hands", "3 hands"),
        ("current_out_of_range", "current", "between 0 and 1"),
        ("unknown_field", "colour", "unknown field"),
        ("schema_2", "schema", "unsupported schema"),
    ],
)
def test_an_invalid_state_keeps_the_engines_detail_and_field(
    api: ApiClient, game: dict[str, Any], how: str, field: str, words: str
) -> None:
    body = {"state": mutate(game["state"], how)}
    answer = problem(api.post("/v1/games/score", json=body), 422, "invalid_state")
    assert answer["field"] == field and words in answer["detail"], answer


@pytest.mark.parametrize("path", ["/v1/games/apply", "/v1/games/score", "/v1/games/view"])
def test_counters_beyond_64_bits_are_refused_not_crashed_on(
    api: ApiClient, game: dict[str, Any], path: str
) -> None:
    state = copy.deepcopy(game["state"])
    state["move_count"] = 2**64 - 1
    state["scores"] = [2**64 - 1, 0]
    resp = api.post(path, json=body_for(path, game, state=state))
    if path == "/v1/games/apply":  # move_count + 1 no longer fits in the answer's JSON
        body = problem(resp, 422, "invalid_state")
        assert "out of range" in body["detail"]
    else:
        assert resp.status_code == 200


# ---------------------------------------------------------------- moves
@pytest.mark.parametrize("path", ["/v1/games/apply", "/v1/games/validate"])
@pytest.mark.parametrize(
    ("move", "code", "field"),
    [
        ({"type": "flap", "player": 0}, "unknown_move_type", "type"),
        ({"player": 0}, "unknown_move_type", "type"),
        ({"type": "draw"}, "invalid_move", "player"),
        ({"type": "draw", "player": "0"}, "invalid_move", "player"),
        ({"type": "draw", "player": True}, "invalid_move", "player"),
        ({"type": "draw", "player": -1}, "invalid_move", "player"),
        ({"type": "play", "player": 0, "card": -1}, "invalid_move", "card"),
        ({"type": "catch", "player": 0, "target": -2}, "invalid_move", "target"),
        ({"type": "play", "player": 0, "card": "R7"}, "invalid_move", "card"),
        ({"type": "play", "player": 0, "card": 14.5}, "invalid_move", "card"),
        ({"type": "play", "player": 0, "card": 14, "color": "mauve"}, "invalid_color", "color"),
        ({"type": "play", "player": 0, "card": 14, "uno": "yes"}, "invalid_move", "uno"),
        ({"type": "play", "player": 0, "card": 14, "chain": "1,2"}, "invalid_move", "chain"),
        ({"type": "match", "player": 0, "cards": {"card": 1}}, "invalid_move", "cards"),
        ({"type": "match", "player": 0, "cards": [{"card": 1, "x": 2}]}, "invalid_move", "cards"),
        ({"type": "draw", "player": 0, "colour": "red"}, "invalid_move", "colour"),
    ],
)
def test_a_move_that_cannot_be_read_is_400_with_its_code(
    api: ApiClient,
    game: dict[str, Any],
    path: str,
    move: dict[str, Any],
    code: str,
    field: str,
) -> None:
    answer = problem(api.post(path, json={"state": game["state"], "move": move}), 400, code)
    assert field in answer["errors"]["move"], answer


@pytest.mark.parametrize(
    ("move", "code"),
    [
        ({"type": "draw", "player": 1}, "not_your_turn"),
        ({"type": "play", "player": 1, "card": 39}, "not_your_turn"),
        ({"type": "play", "player": 0, "card": 39}, "card_not_in_hand"),
        ({"type": "play", "player": 0, "card": 92}, "does_not_match"),
        ({"type": "choose_color", "player": 0, "color": "red"}, "no_color_to_choose"),
        ({"type": "play", "player": 0, "card": 14, "target": 1}, "unexpected_field"),
        ({"type": "draw", "player": 2}, "invalid_player"),
    ],
)
def test_a_move_against_the_rules_is_422_with_the_rules_code(
    api: ApiClient, game: dict[str, Any], move: dict[str, Any], code: str
) -> None:
    answer = problem(
        api.post("/v1/games/apply", json={"state": game["state"], "move": move}), 422, code
    )
    assert answer["title"] == "Illegal move"
    verdict = api.post("/v1/games/validate", json={"state": game["state"], "move": move})
    assert verdict.status_code == 200
    assert verdict.get_json() == {"legal": False, "code": code, "detail": answer["detail"]}


@pytest.mark.parametrize("path", ["/v1/games/legal-moves", "/v1/games/view"])
@pytest.mark.parametrize("player", [2, 9, 99])
def test_a_player_who_is_not_a_seat_is_422_invalid_player(
    api: ApiClient, game: dict[str, Any], path: str, player: int
) -> None:
    problem(api.post(path, json=body_for(path, game, player=player)), 422, "invalid_player")


# ---------------------------------------------------------------- Flask's own errors
@pytest.mark.parametrize(
    "path", ["/", "/v1", "/v1/game", "/v1/games/undo", "/v2/variants", "/v1/variants/"]
)
def test_an_unknown_path_is_a_404_problem(api: ApiClient, path: str) -> None:
    problem(api.get(path), 404, "not_found")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/games"),
        ("PUT", "/v1/games/apply"),
        ("DELETE", "/v1/variants"),
        ("POST", "/v1/variants/uno_classic"),
        ("POST", "/healthz"),
        ("PATCH", "/v1/games/score"),
    ],
)
def test_a_wrong_method_is_a_405_problem_with_allow(api: ApiClient, method: str, path: str) -> None:
    resp = api.request(method, path)
    body = problem(resp, 405, "method_not_allowed")
    allowed = resp.headers["Allow"]
    assert allowed and all(m in body["detail"] for m in allowed.split(", "))


def test_a_body_over_the_limit_is_a_413_problem(api: ApiClient) -> None:
    big = b'{"variant": "uno_classic", "players": 2, "x": "' + b"a" * (1024 * 1024) + b'"}'
    body = problem(
        api.request("POST", "/v1/games", data=big, content_type="application/json"),
        413,
        "payload_too_large",
    )
    assert "1048576" in body["detail"]


def test_the_body_limit_is_configurable(openapi_spec: OpenAPI, game: dict[str, Any]) -> None:
    app: Flask = create_app({"TESTING": True, "MAX_CONTENT_LENGTH": 500})
    small = ApiClient(app.test_client(), openapi_spec)
    assert small.post("/v1/games", json={"variant": "uno_classic", "players": 2}).status_code == 201
    problem(small.post("/v1/games/score", json={"state": game["state"]}), 413, "payload_too_large")
    app.extensions["sessions"].store.close()


def test_the_depth_limit_is_configurable(openapi_spec: OpenAPI, game: dict[str, Any]) -> None:
    app: Flask = create_app({"TESTING": True, "MAX_JSON_DEPTH": 2})
    shallow = ApiClient(app.test_client(), openapi_spec)
    problem(shallow.post("/v1/games/score", json={"state": game["state"]}), 400, "invalid_json")
    app.extensions["sessions"].store.close()


def test_the_limits_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAX_CONTENT_LENGTH", "4096")
    monkeypatch.setenv("MAX_JSON_DEPTH", "8")
    app = create_app({"TESTING": True})
    assert app.config["MAX_CONTENT_LENGTH"] == 4096 and app.config["MAX_JSON_DEPTH"] == 8
    app.extensions["sessions"].store.close()
    monkeypatch.setenv("MAX_JSON_DEPTH", "deep")
    with pytest.raises(ValueError, match="MAX_JSON_DEPTH"):
        create_app({"TESTING": True})


def test_over_the_rate_limit_is_a_429_problem_with_retry_after(openapi_spec: OpenAPI) -> None:
    app: Flask = create_app({"TESTING": True, "RATE_LIMIT": "2/minute"})
    limited = ApiClient(app.test_client(), openapi_spec)
    assert limited.get("/v1/variants").status_code == 200
    assert limited.get("/v1/variants/uno_classic").status_code == 200
    resp = limited.get("/v1/variants")
    problem(resp, 429, "rate_limited")
    assert int(resp.headers["Retry-After"]) >= 1
    assert limited.get("/healthz").status_code == 200  # never limited
    app.extensions["sessions"].store.close()


@pytest.mark.parametrize(
    ("pending", "move"),
    [
        ({"type": "challenge", "player": 0, "card": None, "data": {}}, "accept"),
        ({"type": "challenge", "player": 0, "card": None, "data": {}}, "challenge"),
        ({"type": "challenge", "player": 0, "card": 92, "data": {"offender": 1}}, "accept"),
        ({"type": "challenge", "player": 0, "card": 107, "data": {"then": 1}}, "challenge"),
    ],
    ids=["no-card-accept", "no-card-challenge", "number-card", "no-offender"],
)
def test_a_pending_decision_that_contradicts_the_state_is_422_not_500(
    api: ApiClient, game: dict[str, Any], pending: dict[str, Any], move: str
) -> None:
    """States that pass the engine's checks but cannot be played (found by fuzzing):
    the service answers invalid_state; the engine should refuse them in from_dict."""
    state = copy.deepcopy(game["state"])
    state["pending"] = pending
    if pending["card"] == 107:  # a Wild Draw Four on the discard pile, as after a play
        state["draw_pile"].remove(107)
        state["discard"].append(107)
    body = {"state": state, "move": {"type": move, "player": 0}}
    answer = problem(api.post("/v1/games/apply", json=body), 422, "invalid_state")
    assert answer["detail"]
    verdict = api.post("/v1/games/validate", json=body)
    problem(verdict, 422, "invalid_state")
