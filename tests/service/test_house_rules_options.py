"""The house rules as options of ``uno_classic``: listed with their defaults, checked
(422 with a stable code, never a 500), refused for every other variant, and left out of
a state while off (rules page "House rules")."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from tests.engine.rules.house_table import ALL_ON
from tests.service.harness import ApiClient, api, api_app, new_game, openapi_spec, problem

FIXTURES = (api, api_app, openapi_spec)  # the fixtures these tests take
V = "uno_classic"

LISTED = {
    "stacking": {"default": "none", "choices": ["none", "same", "up"]},
    "seven_zero": {"default": False, "choices": [False, True]},
    "jump_in": {"default": False, "choices": [False, True]},
    "draw_to_match": {"default": False, "choices": [False, True]},
    "forced_play": {"default": False, "choices": [False, True]},
    "uno_penalty": {"default": 2, "minimum": 1, "maximum": 10},
}


def test_the_variant_lists_every_house_rule_with_its_default(api: ApiClient) -> None:
    for path in ("/v1/variants/uno_classic", "/v1/variants"):
        body = api.get(path).get_json()
        variant = body if "id" in body else next(v for v in body["variants"] if v["id"] == V)
        for name, listed in LISTED.items():
            option = variant["options"][name]
            words = {"description", "label"}
            assert {k: v for k, v in option.items() if k not in words} == listed
            assert option["description"] and option["label"]


@pytest.mark.parametrize(
    "options",
    [
        {"stacking": "all"},
        {"stacking": True},
        {"seven_zero": 1},
        {"seven_zero": "true"},
        {"jump_in": None},
        {"draw_to_match": 0},
        {"forced_play": "yes"},
        {"uno_penalty": 0},
        {"uno_penalty": 11},
        {"uno_penalty": True},
        {"uno_penalty": "2"},
    ],
)
def test_a_bad_value_is_refused(api: ApiClient, options: dict[str, Any]) -> None:
    resp = api.post("/v1/games", json={"variant": V, "players": 2, "options": options})
    assert str(next(iter(options))) in problem(resp, 422, "invalid_option")["detail"]


@pytest.mark.parametrize("variant", [v.id for v in engine.all_variants() if v.id != V])
@pytest.mark.parametrize("name", list(ALL_ON))
def test_every_other_variant_refuses_the_house_rules(
    api: ApiClient, variant: str, name: str
) -> None:
    players = engine.find_variant(variant).min_players
    body = {"variant": variant, "players": players, "options": {name: ALL_ON[name]}}
    problem(api.post("/v1/games", json=body), 422, "unknown_option")


def test_a_state_lists_only_the_house_rules_that_are_on(api: ApiClient) -> None:
    off = {"stacking": "none", "seven_zero": False, "jump_in": False, "uno_penalty": 2}
    body = new_game(api, options=off)
    assert body["state"]["options"] == {"target": 500, "challenge_rule": "active_color"}
    assert "house_rules" not in body["view"] and "draw_stack" not in body["view"]
    body = new_game(api, options={**off, "jump_in": True, "uno_penalty": 3})
    assert body["state"]["options"] == {
        "target": 500,
        "challenge_rule": "active_color",
        "jump_in": True,
        "uno_penalty": 3,
    }
    assert body["view"]["house_rules"] == {"jump_in": True, "uno_penalty": 3}


def test_every_seat_sees_the_house_rules_in_play(api: ApiClient) -> None:
    body = new_game(api, players=3, options=ALL_ON)
    for seat in (None, 0, 1, 2):
        view = api.post("/v1/games/view", json={"state": body["state"], "player": seat})
        assert view.get_json()["view"]["house_rules"] == ALL_ON
        assert view.get_json()["view"]["draw_stack"] == 0


def test_a_record_of_a_game_with_every_house_rule_replays() -> None:
    """The record carries the house rules (its options) and every move, jump-ins,
    swaps and penalties included; its replay is the game."""
    import random

    from tests.support import random_game

    moves: list[engine.Move] = []
    final = None
    for _b, move, after, _e in random_game(V, 4, 12, random.Random(4), {**ALL_ON, "target": 60}):
        if move is not None:
            moves.append(move)
        final = after
    rec = engine.record(V, 4, 12, moves, options={**ALL_ON, "target": 60})
    assert rec["options"] == {**ALL_ON, "target": 60, "challenge_rule": "active_color"}
    replayed = engine.replay(rec)
    assert replayed.state == final
    kinds = {e["type"] for e in replayed.events}
    assert {"swapped", "hands_passed", "jumped_in"} <= kinds
