"""The stateless games API, endpoint by endpoint: the answers are the engine's."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

import engine
from tests.service.harness import ApiClient, new_game, problem, turn_seat
from tests.support import stacked_deck

V = "uno_classic"
HAND0 = ["R1", "R2", "R3", "R4", "R5", "R6", "R7"]
HAND1 = ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"]
HAND2 = ["G1", "G2", "G3", "G4", "G5", "G6", "G7"]


def stacked(api: ApiClient, hands: list[list[str]], turned: str, **body: Any) -> dict[str, Any]:
    deck = stacked_deck(V, hands, turned, body.pop("draw", ()))
    return new_game(api, variant=V, players=len(hands), deck=deck, **body)


def code_of(card_id: int) -> str:
    return engine.find_variant(V).catalog.code[0][card_id]


# ---------------------------------------------------------------- POST /v1/games
def test_create_answers_201_with_state_view_events_and_the_seed(api: ApiClient) -> None:
    resp = api.post("/v1/games", json={"variant": V, "players": 3, "seed": 7})
    assert resp.status_code == 201 and resp.mimetype == "application/json"
    body = resp.get_json()
    assert set(body) == {"state", "view", "events", "seed"}
    assert body["seed"] == 7
    expected, events = engine.start(V, 3, 7)
    assert body["state"] == engine.to_dict(expected)
    seat = turn_seat(body["view"])
    assert body["view"] == engine.view(expected, seat)
    assert body["events"] == engine.redact_all(events, seat)


def test_the_same_seed_deals_the_same_game(api: ApiClient) -> None:
    first = new_game(api, players=4, seed=123)
    again = new_game(api, players=4, seed=123)
    other = new_game(api, players=4, seed=124)
    assert first == again
    assert first["state"]["hands"] != other["state"]["hands"]


def test_an_integer_may_have_a_zero_fraction_as_the_contract_allows(api: ApiClient) -> None:
    """JSON Schema counts 3.0 as an integer: the service deals the same game for it;
    3.5 is not one (the harness holds both answers to the contract)."""
    same = api.post("/v1/games", json={"variant": V, "players": 3.0, "seed": 7.0, "dealer": 1.0})
    want = api.post("/v1/games", json={"variant": V, "players": 3, "seed": 7, "dealer": 1})
    assert same.status_code == want.status_code == 201
    assert same.get_json()["state"] == want.get_json()["state"]
    body = problem(api.post("/v1/games", json={"variant": V, "players": 3.5}), 400,
                   "invalid_request")  # fmt: skip
    assert body["errors"] == {"players": ["Not a valid integer: 3.5 has a fractional part."]}
    session = api.post("/v1/sessions", json={"variant": V, "players": 2.0, "seed": 7.0})
    assert session.status_code == 201 and len(session.get_json()["seats"]) == 2


def test_without_a_seed_the_server_chooses_one_and_returns_it(api: ApiClient) -> None:
    seeds = set()
    for _ in range(3):
        resp = api.post("/v1/games", json={"variant": V, "players": 2})
        assert resp.status_code == 201
        body = resp.get_json()
        assert 0 <= body["seed"] < 2**53 and body["state"]["seed"] == body["seed"]
        # The chosen seed replays the deal.
        assert new_game(api, players=2, seed=body["seed"])["state"] == body["state"]
        seeds.add(body["seed"])
    assert len(seeds) == 3


def test_a_stacked_deck_deals_from_the_dealers_left_with_seat_0_dealing(
    api: ApiClient,
) -> None:
    body = stacked(api, [HAND0, HAND1, HAND2], "B5")
    hands = body["state"]["hands"]
    assert [[code_of(c) for c in h] for h in hands] == [HAND0, HAND1, HAND2]
    assert body["state"]["dealer"] == 0
    assert body["view"]["current_player"] == 1  # left of the dealer
    assert body["view"]["player"] == 1
    assert body["view"]["discard_top"]["code"] == "B5"
    assert [c["code"] for c in body["view"]["hand"]] == HAND1
    assert not any(e["type"] == "dealer_cut" for e in body["events"])


def test_the_view_is_the_pending_players_when_a_decision_waits(api: ApiClient) -> None:
    body = stacked(api, [HAND0, HAND1, HAND2], "W", dealer=2)
    view = body["view"]
    assert view["pending"] == {"type": "choose_color", "player": 0}
    assert view["player"] == 0


def test_setup_events_are_redacted_for_the_viewer(api: ApiClient) -> None:
    # A turned-up Draw Two: seat 1 draws two and is skipped, so seat 2 is to play.
    body = stacked(api, [HAND0, HAND1, HAND2], "BD2", draw=["B7", "B8"])
    assert body["view"]["player"] == 2
    drew = [e for e in body["events"] if e["type"] == "drew"]
    assert drew == [{"type": "drew", "player": 1, "count": 2, "reason": "penalty"}]
    assert "secret" not in str(body["events"])


def test_options_reach_the_state_and_the_view(api: ApiClient) -> None:
    body = new_game(api, options={"target": 50, "challenge_rule": "any_playable"})
    assert body["state"]["options"] == {"target": 50, "challenge_rule": "any_playable"}
    assert body["view"]["target"] == 50


@pytest.mark.parametrize("variant", [v.id for v in engine.all_variants()])
def test_every_variant_can_be_created(api: ApiClient, variant: str) -> None:
    meta = engine.find_variant(variant)
    body = new_game(api, variant=variant, players=meta.min_players, seed=5)
    assert body["state"]["variant"] == variant
    assert body["view"]["variant"] == variant


# ---------------------------------------------------------------- legal moves
def test_legal_moves_of_one_seat_are_the_engines(api: ApiClient) -> None:
    body = new_game(api, players=3, seed=9)
    state = engine.from_dict(body["state"])
    for seat in range(3):
        resp = api.post("/v1/games/legal-moves", json={"state": body["state"], "player": seat})
        assert resp.status_code == 200
        answer = resp.get_json()
        assert answer == {
            "player": seat,
            "moves": [m.to_dict() for m in engine.legal_moves(state, seat)],
        }
    waiting = turn_seat(body["view"])
    moves = api.post(
        "/v1/games/legal-moves", json={"state": body["state"], "player": waiting}
    ).get_json()["moves"]
    assert {"type": "draw", "player": waiting} in moves


def test_legal_moves_without_a_player_are_listed_by_seat(api: ApiClient) -> None:
    body = new_game(api, players=3, seed=9)
    resp = api.post("/v1/games/legal-moves", json={"state": body["state"]})
    by_seat = resp.get_json()["by_seat"]
    assert [entry["player"] for entry in by_seat] == [0, 1, 2]
    waiting = turn_seat(body["view"])
    for entry in by_seat:
        assert bool(entry["moves"]) == (entry["player"] == waiting)
    null_player = api.post("/v1/games/legal-moves", json={"state": body["state"], "player": None})
    assert null_player.get_json() == resp.get_json()


# ---------------------------------------------------------------- validate
def test_every_legal_move_validates_as_legal(api: ApiClient) -> None:
    body = new_game(api, players=2, seed=11)
    seat = turn_seat(body["view"])
    moves = api.post(
        "/v1/games/legal-moves", json={"state": body["state"], "player": seat}
    ).get_json()["moves"]
    assert moves
    for move in moves:
        resp = api.post("/v1/games/validate", json={"state": body["state"], "move": move})
        assert resp.status_code == 200 and resp.get_json() == {"legal": True}


@pytest.mark.parametrize(
    ("move", "code"),
    [
        ({"type": "draw", "player": 0}, "not_your_turn"),
        ({"type": "play", "player": 1, "card": 0}, "card_not_in_hand"),
        ({"type": "play", "player": 1, "card": "@Y5"}, "does_not_match"),
        ({"type": "play", "player": 1, "card": "@W"}, "color_required"),
        ({"type": "play", "player": 1, "card": "@R1", "color": "red"}, "color_not_allowed"),
        ({"type": "pass", "player": 1}, "nothing_to_pass"),
        ({"type": "challenge", "player": 1}, "nothing_to_challenge"),
        ({"type": "catch", "player": 1, "target": 0}, "cannot_catch"),
        ({"type": "next_round", "player": 1}, "round_not_over"),
        ({"type": "draw", "player": 7}, "invalid_player"),
        ({"type": "draw", "player": 1, "card": 3}, "unexpected_field"),
        ({"type": "draw", "player": 1, "uno": True}, "uno_not_applicable"),
        ({"type": "give", "player": 1, "card": 3}, "unknown_move"),
    ],
)
def test_an_illegal_move_is_legal_false_with_the_rules_code(
    api: ApiClient, move: dict[str, Any], code: str
) -> None:
    # Seat 1 is to play on R9: R1 matches, Y5 does not, W needs a colour.
    body = stacked(api, [HAND0, ["R1", "Y5", "W", "G2", "G3", "G4", "G5"]], "R9")
    hand1 = body["state"]["hands"][1]
    if isinstance(move.get("card"), str):
        wanted = move["card"][1:]
        move = {**move, "card": next(c for c in hand1 if code_of(c) == wanted)}
    resp = api.post("/v1/games/validate", json={"state": body["state"], "move": move})
    assert resp.status_code == 200
    answer = resp.get_json()
    assert answer["legal"] is False and answer["code"] == code, answer
    assert answer["detail"]
    # The same move through apply is a 422 with the same code.
    problem(api.post("/v1/games/apply", json={"state": body["state"], "move": move}), 422, code)


# ---------------------------------------------------------------- apply
def test_apply_answers_the_engines_next_state_events_and_the_movers_view(
    api: ApiClient,
) -> None:
    body = new_game(api, players=3, seed=21)
    seat = turn_seat(body["view"])
    move = {"type": "draw", "player": seat}
    resp = api.post("/v1/games/apply", json={"state": body["state"], "move": move})
    assert resp.status_code == 200
    answer = resp.get_json()
    after, events = engine.apply(engine.from_dict(body["state"]), move)
    assert answer["state"] == engine.to_dict(after)
    assert answer["view"] == engine.view(after, seat)
    assert answer["events"] == engine.redact_all(events, seat)
    drew = next(e for e in answer["events"] if e["type"] == "drew")
    assert drew["player"] == seat and len(drew["cards"]) == 1  # the mover sees the card


def test_apply_hides_what_the_mover_may_not_see(api: ApiClient) -> None:
    # Seat 1 plays a Draw Two: seat 2 draws, and seat 1 must not see those cards.
    body = stacked(api, [HAND0, ["YD2", *HAND1[1:]], HAND2], "Y9", draw=["B1", "B2"])
    card = body["state"]["hands"][1][0]
    move = {"type": "play", "player": 1, "card": card}
    answer = api.post("/v1/games/apply", json={"state": body["state"], "move": move}).get_json()
    drew = next(e for e in answer["events"] if e["type"] == "drew")
    assert drew == {"type": "drew", "player": 2, "count": 2, "reason": "penalty"}
    assert answer["view"]["player"] == 1
    assert answer["state"]["move_count"] == 1


def test_apply_is_stateless_the_same_request_gives_the_same_answer(api: ApiClient) -> None:
    body = new_game(api, players=2, seed=3)
    request = {"state": body["state"], "move": {"type": "draw", "player": turn_seat(body["view"])}}
    first = api.post("/v1/games/apply", json=request).get_json()
    second = api.post("/v1/games/apply", json=request).get_json()
    assert first == second
    assert first["state"] != body["state"]


def test_a_move_and_a_state_with_integral_floats_apply_as_their_integers(api: ApiClient) -> None:
    """6.0 is the integer 6 everywhere a body holds an integer (JSON Schema's reading),
    inside the move and the state too, not only in the fields marshmallow loads."""
    body = stacked(api, [HAND0, ["YD2", *HAND1[1:]], HAND2], "Y9", draw=["B1", "B2"])
    card = body["state"]["hands"][1][0]
    exact = {"state": body["state"], "move": {"type": "play", "player": 1, "card": card}}
    floats = {
        "state": {
            **body["state"],
            "hands": [[float(c) for c in h] for h in body["state"]["hands"]],
        },
        "move": {"type": "play", "player": 1.0, "card": float(card)},
    }
    want = api.post("/v1/games/apply", json=exact)
    got = api.post("/v1/games/apply", json=floats)
    assert got.status_code == want.status_code == 200
    assert got.get_json() == want.get_json()
    half = {**exact, "move": {"type": "play", "player": 1.5, "card": card}}
    refused = api.post("/v1/games/apply", json=half)
    assert refused.status_code in (400, 422) and refused.get_json()["code"] != "internal_error"


def test_a_wild_needs_and_sets_its_colour(api: ApiClient) -> None:
    body = stacked(api, [HAND0, ["W", *HAND1[1:]], HAND2], "G9")
    wild = body["state"]["hands"][1][0]
    move = {"type": "play", "player": 1, "card": wild, "color": "blue"}
    answer = api.post("/v1/games/apply", json={"state": body["state"], "move": move}).get_json()
    assert answer["view"]["active_color"] == "blue"
    played = next(e for e in answer["events"] if e["type"] == "played")
    assert played["color"] == "blue" and played["card"]["code"] == "W"


# ---------------------------------------------------------------- view and score
def test_a_seat_sees_its_own_hand_only(api: ApiClient) -> None:
    body = new_game(api, players=3, seed=4)
    state = body["state"]
    for seat in range(3):
        resp = api.post("/v1/games/view", json={"state": state, "player": seat})
        view = resp.get_json()["view"]
        assert view["player"] == seat
        assert [c["id"] for c in view["hand"]] == state["hands"][seat]
        assert view["hand_sizes"] == [len(h) for h in state["hands"]]


def test_a_spectator_sees_no_hand(api: ApiClient) -> None:
    body = new_game(api, players=3, seed=4)
    view = api.post("/v1/games/view", json={"state": body["state"], "player": None}).get_json()
    assert view["view"]["player"] is None and view["view"]["hand"] == []
    assert view["view"] == engine.view(engine.from_dict(body["state"]), None)


def test_score_is_the_engines(api: ApiClient) -> None:
    body = new_game(api, players=2, seed=42)
    resp = api.post("/v1/games/score", json={"state": body["state"]})
    assert resp.status_code == 200
    score = resp.get_json()
    assert score == engine.score(engine.from_dict(body["state"]))
    assert score["game_over"] is False and score["winners"] == []
    assert score["scores"] == [0, 0] and score["round_scores"] is None


# ---------------------------------------------------------------- health
def test_healthz_is_ok(api: ApiClient) -> None:
    resp = api.get("/healthz")
    assert resp.status_code == 200 and resp.get_json() == {"status": "ok"}


def test_readyz_reports_the_session_store(api: ApiClient) -> None:
    resp = api.get("/readyz")
    assert resp.status_code == 200
    body = resp.get_json()
    assert body["status"] == "ok" and body["sessions"]["store"] == "memory"


def test_a_body_whose_fractions_are_only_in_strings_is_not_walked_for_them(
    monkeypatch: pytest.MonkeyPatch, api: ApiClient
) -> None:
    """A record's every timestamp (``"...24.123Z"``) looks like a fraction; only a number
    outside a string sends the parsed body through ``integral`` (a 20,000-move record:
    ~360 ms of walking for nothing, issue 46)."""
    import service.http

    walked: list[Any] = []
    real = service.http.integral

    def spy(value: Any) -> Any:
        walked.append(value)
        return real(value)

    monkeypatch.setattr(service.http, "integral", spy)
    body = new_game(api, players=2, seed=3)
    view = {"state": body["state"], "player": 0, "note": "at 10:46:24.123Z, 2e3"}
    assert api.post("/v1/games/view", json=view).status_code in (200, 400)
    assert not walked
    assert service.http.fraction_or_exponent(b'{"a":"1.5","b":[2.0]}')
    assert service.http.fraction_or_exponent(b'{"a":"x\\"1.5"}')  # escapes: judged whole
    assert not service.http.fraction_or_exponent(b'{"a.b":"3e4","c":[1,"2.5"]}')
    api.post("/v1/games/view", json={**view, "player": 0.0})
    assert walked


def test_a_wide_body_is_parsed_without_a_garbage_collection_per_few_hundred_values(
    api_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parsing builds only new containers (no cycles): the collector is paused for it,
    not started once per few hundred of them (100,000 lists: ~140 collections; issue 46).
    A replay page of 10,000 moves lets a body hold that many values (and commas)."""
    import gc

    monkeypatch.setitem(api_app.config, "REPLAY_PAGE_MOVES", 10_000)
    monkeypatch.setitem(api_app.config, "REPLAY_MAX_CONTENT_LENGTH", 1024 * 1024)
    started: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(info["generation"])

    body = b'{"wide": [' + b"[]," * 99_999 + b"[]]}"
    client = api_app.test_client()  # not the harness: it validates the request too
    gc.callbacks.append(count)
    try:
        answer = client.post("/v1/games/replay", data=body, content_type="application/json")
    finally:
        gc.callbacks.remove(count)
    assert answer.status_code == 400  # not a record, refused after the parse
    assert len(started) < 20, len(started)
