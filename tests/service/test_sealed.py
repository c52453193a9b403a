"""Sealed state tokens through the games API: ``sealed: true`` answers with a
``state_token`` instead of the state; a token bound to a ``seat`` shows and moves for
that seat only."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import orjson
import pytest
from flask import Flask
from openapi_core import OpenAPI

import engine
from engine import Phase
from service import create_app
from service.sealing import seal, unseal
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


# ---------------------------------------------------------------- whole seat-bound games
#: Keys that only a whole state holds (a seed, the shuffler's state, the state itself).
STATE_KEYS = {"seed", "rng", "state"}


def foreign_leaks(body: Any, seed: int, over: bool) -> list[str]:
    """Where ``body`` (an answer to the bound seat, token left out) shows the seed: any
    field named like a state's, or the seed's value, but ``seed_commitment.seed`` once
    the game is over."""
    found = []
    stack: list[tuple[Any, str]] = [(body, "")]
    while stack:
        node, key = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "state_token":
                    continue
                if k in STATE_KEYS:
                    if not (
                        key == "seed_commitment"
                        and k == "seed"
                        and v == (str(seed) if over else None)
                    ):
                        found.append(f"{key}.{k}={v!r}")
                    continue
                stack.append((v, k))
        elif isinstance(node, list):
            stack.extend((v, key) for v in node)
        elif node == seed or node == str(seed):
            found.append(f"{key}={node!r}")
    return found


def card_ids(value: Any) -> set[int]:
    from tests.sessions.api.test_leaks import card_ids as ids

    return set(ids(value))


def reseal(app: Flask, token: str, state: engine.State) -> str:
    """Another seat's move, made where the game is kept (the test plays the other
    seats): the token's content with the new state, sealed again."""
    ring = app.extensions["state_keys"]
    inner = orjson.loads(unseal(ring, token))
    inner["s"] = engine.to_dict(state)
    return seal(ring, orjson.dumps(inner))


def true_state(app: Flask, token: str) -> tuple[engine.State, str]:
    inner = orjson.loads(unseal(app.extensions["state_keys"], token))
    return engine.from_dict(inner["s"]), inner["gid"]


def check_bound_answer(body: dict[str, Any], seat: int, state: engine.State, where: str) -> None:
    over = state.phase is Phase.GAME_OVER
    assert not foreign_leaks(body, state.seed, over), (where, foreign_leaks(body, state.seed, over))
    view = body.get("view")
    if view is not None and state.phase is Phase.PLAY and "backs" not in view:
        # Card ids of the view (UNO Flip names cards by labels, not catalog ids; events
        # are compared with the engine's redaction by the caller: the setup's show cut
        # cards that are dealt later).
        others = {c for s, h in enumerate(state.hands) if s != seat for c in h}
        assert not others & card_ids(view), where


def bound_move(
    api: ApiClient,
    app: Flask,
    rnd: random.Random,
    token: str,
    state: engine.State,
    seat: int,
    step: int,
) -> tuple[str, engine.State]:
    """One random legal move of any seat: the bound seat's through ``/v1/games/apply``
    (its answer checked), another seat's by the test."""
    players = state.num_players
    options = [(p, m) for p in range(players) for m in engine.legal_moves(state, p)]
    turn = [(p, m) for p, m in options if m.type.value not in ("uno", "catch")]
    mover, move = rnd.choice(turn if turn and rnd.random() < 0.9 else options)
    new_state, events = engine.apply(state, move)
    if mover != seat:
        return reseal(app, token, new_state), new_state
    resp = api.post("/v1/games/apply", json={"state_token": token, "move": move.to_dict()})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    body = resp.get_json()
    check_bound_answer(body, seat, new_state, f"apply {step}")
    assert body["events"] == engine.redact_all(events, seat)
    assert true_state(app, body["state_token"])[0] == new_state
    return body["state_token"], new_state


def play_bound_game(api: ApiClient, app: Flask, variant: engine.Variant, game: int) -> None:
    rnd = random.Random(game)
    players = min(variant.max_players, 2 + game % 2)
    seat = game % players
    created = sealed_game(
        api,
        variant=variant.id,
        players=players,
        seat=seat,
        seed=1000 + game,
        options={"target": 30},
    )
    assert "seed" not in created
    token = created["state_token"]
    state, gid = true_state(app, token)
    check_bound_answer(created, seat, state, "create")
    _, setup = engine.start(variant.id, players, state.seed, options={"target": 30})
    assert created["events"] == engine.redact_all(setup, seat)
    first = created["seed_commitment"]
    assert first["game_id"] == gid and first["seed"] is None
    for step in range(MAX_MOVES):
        over = state.phase is Phase.GAME_OVER
        if step % 4 and not over and state.phase is Phase.PLAY:
            # The seat's other answers every 4th move (and between rounds): they cost.
            token, state = bound_move(api, app, rnd, token, state, seat, step)
            continue
        answers = {
            "view": api.post("/v1/games/view", json={"state_token": token, "player": seat}),
            "legal-moves": api.post("/v1/games/legal-moves", json={"state_token": token}),
            "score": api.post("/v1/games/score", json={"state_token": token}),
        }
        for where, resp in answers.items():
            assert resp.status_code == 200, (where, resp.get_data(as_text=True))
            check_bound_answer(resp.get_json(), seat, state, where)
        view, score = answers["view"].get_json(), answers["score"].get_json()
        assert view["view"] == engine.view(state, seat)
        assert answers["legal-moves"].get_json()["moves"] == [
            m.to_dict() for m in engine.legal_moves(state, seat)
        ]
        points = engine.score(state)["hand_points"]
        if state.phase in (Phase.PLAY, Phase.DRAFT):
            assert score["hand_points"] == [p if s == seat else None for s, p in enumerate(points)]
        else:
            assert score["hand_points"] == points
        assert score["hand_sizes"] == [len(h) for h in state.hands]
        for body in (view, score):
            c = body["seed_commitment"]
            assert (c["game_id"], c["sha256"]) == (first["game_id"], first["sha256"])
            assert c["seed"] == (str(state.seed) if over else None)
        if over:
            # What a player does with the revealed seed (the bytes spelled out here).
            expected = hashlib.sha256(f"uno-rules-seed-v1:{gid}:{state.seed}".encode())
            assert first["sha256"] == expected.hexdigest()
            return
        token, state = bound_move(api, app, rnd, token, state, seat, step)
    pytest.fail(f"{variant.id}: no game over after {MAX_MOVES} moves")


MAX_MOVES = 3000


@pytest.mark.parametrize("variant", engine.all_variants(), ids=lambda v: v.id)
def test_a_seat_bound_game_never_shows_the_seed_or_a_hidden_card(
    api: ApiClient, api_app: Flask, variant: engine.Variant
) -> None:
    """A whole game of every variant on a seat-bound token: no answer to the seat holds
    the seed, another seat's card or another seat's hand points before the round is
    scored; the commitment made at create checks out against the seed revealed at the
    end."""
    play_bound_game(api, api_app, variant, 3)


def test_an_unbound_sealed_game_and_a_plain_game_keep_answering_the_seed(api: ApiClient) -> None:
    assert sealed_game(api, players=2, seed=42)["seed"] == 42
    assert new_game(api, players=2, seed=42)["seed"] == 42
    assert "seed_commitment" not in sealed_game(api, players=2, seed=42)


def test_a_fault_on_a_seat_bound_state_does_not_quote_it(
    api: ApiClient, api_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine fault (injected: a bug naming card 57) is a 500 internal_error whose
    detail quotes nothing of the failure, which could name a hidden card."""
    sealed = sealed_game(api, players=2, seed=42, seat=0)
    plain = new_game(api, players=2, seed=42)

    def broken(state: engine.State, move: Any) -> Any:
        raise KeyError(57)

    monkeypatch.setattr(engine, "apply", broken)
    move = {"type": "draw", "player": 0}
    raw = api_app.test_client()  # not ``api``: it fails on any 500 by design
    hidden = raw.post("/v1/games/apply", json={"state_token": sealed["state_token"], "move": move})
    shown = raw.post("/v1/games/apply", json={"state": plain["state"], "move": move})
    for resp in (hidden, shown):
        assert "57" not in problem(resp, 500, "internal_error")["detail"]


def test_a_hidden_seed_has_64_random_bits(api: ApiClient, api_app: Flask) -> None:
    """A seat-bound game's server-chosen seed is drawn from 2**64 values (a 53-bit seed
    could be found from its commitment by brute force); the revealed seed is a string,
    which a JavaScript client reads exactly."""
    seeds = []
    for _ in range(6):
        resp = api.post(
            "/v1/games", json={"variant": "uno_classic", "players": 2, "sealed": True, "seat": 0}
        )
        assert resp.status_code == 201, resp.get_data(as_text=True)
        created = resp.get_json()
        state, _ = true_state(api_app, created["state_token"])
        seeds.append(state.seed)
    assert all(0 <= s < 2**64 for s in seeds)
    # Each seed is below 2**53 with probability 2**-11: all six only once in 2**66.
    assert any(s >= 2**53 for s in seeds), seeds
