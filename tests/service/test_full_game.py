"""Whole games through the API only: the api holds the state, asks for legal moves,
sends one back, and carries the answer's state on, until the game is over. Every
answer is checked against openapi.yaml by the api fixture."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from tests.service.harness import ApiClient, new_game, problem, turn_seat

MAX_MOVES = 5000


def waiting_seat(view: dict[str, Any]) -> int:
    """Whom the game waits for; between rounds any seat (0) may deal the next."""
    if view["phase"] in ("round_over", "game_over"):
        return 0
    return turn_seat(view)


def choose(moves: list[dict[str, Any]], rnd: random.Random) -> dict[str, Any]:
    """A random legal move; drawing when a play is possible only now and then, and
    catching an opponent who forgot UNO whenever possible (short games)."""
    catches = [m for m in moves if m["type"] == "catch"]
    if catches:
        return catches[0]
    others = [m for m in moves if m["type"] != "draw"]
    if others and rnd.random() < 0.9:
        return rnd.choice(others)
    return rnd.choice(moves)


def play_through_the_api(
    api: ApiClient, variant: str, players: int, seed: int, max_moves: int = MAX_MOVES
) -> tuple[dict[str, Any], int, set[str]]:
    """Play to the end (or ``max_moves``); return the last answer, the move count and
    the event types seen."""
    rnd = random.Random(seed)
    game = new_game(api, variant=variant, players=players, seed=seed, options={"target": 50})
    state, view = game["state"], game["view"]
    seen = {e["type"] for e in game["events"]}
    moves_made = 0
    while view["phase"] != "game_over" and moves_made < max_moves:
        seat = waiting_seat(view)
        resp = api.post("/v1/games/legal-moves", json={"state": state, "player": seat})
        assert resp.status_code == 200, resp.get_data(as_text=True)
        moves = resp.get_json()["moves"]
        assert moves, f"nobody can move in a live game: {view}"
        move = choose(moves, rnd)
        resp = api.post("/v1/games/apply", json={"state": state, "move": move})
        assert resp.status_code == 200, (move, resp.get_data(as_text=True))
        answer = resp.get_json()
        assert answer["view"]["player"] == move["player"]
        assert answer["state"]["move_count"] == state["move_count"] + 1
        seen |= {e["type"] for e in answer["events"]}
        state, view = answer["state"], answer["view"]
        moves_made += 1
    return {"state": state, "view": view}, moves_made, seen


def test_a_classic_game_is_played_to_its_end_through_the_api(api: ApiClient) -> None:
    last, moves_made, seen = play_through_the_api(api, "uno_classic", 3, seed=2024)
    state, view = last["state"], last["view"]
    assert view["phase"] == "game_over", f"not over after {moves_made} moves"
    assert {"played", "drew", "round_over", "game_over"} <= seen

    score = api.post("/v1/games/score", json={"state": state}).get_json()
    assert score["game_over"] is True
    assert score["winners"] and all(score["scores"][w] >= 50 for w in score["winners"])
    assert score["winners"] == view["winners"]
    assert max(score["scores"]) == score["scores"][score["winners"][0]]

    # After the game nobody has a move, and any move is refused with game_over.
    by_seat = api.post("/v1/games/legal-moves", json={"state": state}).get_json()["by_seat"]
    assert all(entry["moves"] == [] for entry in by_seat)
    move = {"type": "next_round", "player": 0}
    problem(api.post("/v1/games/apply", json={"state": state, "move": move}), 422, "game_over")
    verdict = api.post("/v1/games/validate", json={"state": state, "move": move}).get_json()
    assert verdict["legal"] is False and verdict["code"] == "game_over"


def test_the_api_game_replays_exactly_in_the_engine(api: ApiClient) -> None:
    """The same seed and the same moves give the same final state in the engine."""
    rnd = random.Random(77)
    game = new_game(api, variant="uno_classic", players=2, seed=77, options={"target": 50})
    state = game["state"]
    local, _ = engine.start("uno_classic", 2, 77, options={"target": 50})
    for _ in range(60):
        view = engine.view(engine.from_dict(state), None)
        if view["phase"] == "game_over":
            break
        seat = waiting_seat(view)
        moves = api.post("/v1/games/legal-moves", json={"state": state, "player": seat}).get_json()[
            "moves"
        ]
        move = choose(moves, rnd)
        state = api.post("/v1/games/apply", json={"state": state, "move": move}).get_json()["state"]
        local, _ = engine.apply(local, move)
    assert state == engine.to_dict(local)


@pytest.mark.parametrize("variant", [v.id for v in engine.all_variants()])
def test_every_variant_plays_through_the_api_within_the_spec(api: ApiClient, variant: str) -> None:
    """Variant extras (center row, flip sides, draw stacks, ...) in views and events
    fit openapi.yaml: 150 moves of each variant, every answer validated."""
    meta = engine.find_variant(variant)
    players = min(meta.max_players, max(meta.min_players, 3))
    last, moves_made, seen = play_through_the_api(api, variant, players, seed=5, max_moves=150)
    assert moves_made == 150 or last["view"]["phase"] == "game_over"
    assert "played" in seen or "matched" in seen
    for seat in [None, *range(players)]:
        resp = api.post("/v1/games/view", json={"state": last["state"], "player": seat})
        assert resp.status_code == 200
