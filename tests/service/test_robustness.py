"""No input reaches a 500, and no input is changed: arbitrary JSON bodies, real states
with random damage, random moves (hypothesis). The api fixture fails any 500 and
checks every answer against openapi.yaml."""

from __future__ import annotations

import copy
import os
import random
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
import service.http
from engine import Color, MoveType, Phase
from tests.service.harness import ApiClient, new_game

#: SERVICE_FUZZ_EXAMPLES=5000 for a long hunt.
EXAMPLES = int(os.environ.get("SERVICE_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
STATE_POSTS = [
    "/v1/games/legal-moves",
    "/v1/games/validate",
    "/v1/games/apply",
    "/v1/games/view",
    "/v1/games/score",
]
ERROR_STATUSES = {400, 403, 413, 415, 422}

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)


def assert_sane(resp: Any) -> None:
    assert resp.status_code in {200, 201} | ERROR_STATUSES, resp.get_data(as_text=True)
    if resp.status_code >= 400:
        assert resp.mimetype == "application/problem+json"
        body = resp.get_json()
        assert body["status"] == resp.status_code and body["code"]


# ---------------------------------------------------------------- arbitrary bodies
@FUZZ
@given(path=st.sampled_from(["/v1/games", *STATE_POSTS]), body=json_values)
def test_any_json_body_is_answered_without_a_500(api: ApiClient, path: str, body: Any) -> None:
    assert_sane(api.post(path, json=body))


@FUZZ
@given(
    path=st.sampled_from(["/v1/games", *STATE_POSTS]),
    data=st.binary(max_size=64),
    content_type=st.sampled_from(["application/json", "text/plain", None]),
)
def test_any_bytes_are_answered_without_a_500(
    api: ApiClient, path: str, data: bytes, content_type: str | None
) -> None:
    assert_sane(api.request("POST", path, data=data, content_type=content_type))


@FUZZ
@given(
    body=st.fixed_dictionaries(
        {"variant": st.sampled_from([v.id for v in engine.all_variants()]) | st.text(max_size=5)},
        optional={
            "players": st.integers(min_value=-3, max_value=14) | json_values,
            "seed": st.integers(min_value=-1, max_value=2**64) | json_values,
            "dealer": st.integers(min_value=-2, max_value=12) | json_values,
            "options": st.dictionaries(
                st.sampled_from(["target", "challenge_rule", "scoring", "x"]), json_values
            )
            | json_values,
            "deck": st.lists(st.integers(min_value=-1, max_value=120), max_size=120) | json_values,
            "sealed": st.booleans(),
        },
    )
)
def test_any_setup_is_answered_without_a_500(api: ApiClient, body: dict[str, Any]) -> None:
    assert_sane(api.post("/v1/games", json=body))


# ---------------------------------------------------------------- damaged states
@cache
def sample_states() -> tuple[dict[str, Any], ...]:
    """Real states of every variant at random points of random games."""
    rnd = random.Random(99)
    out = []
    for variant in engine.all_variants():
        for _game in range(2):
            n = rnd.randint(variant.min_players, min(variant.max_players, 4))
            state, _ = engine.start(variant.id, n, rnd.randrange(2**32), options={"target": 60})
            for _ in range(rnd.randint(0, 120)):
                if state.phase is Phase.GAME_OVER:
                    break
                moves = [m for p in range(n) for m in engine.legal_moves(state, p)]
                state, _ = engine.apply(state, rnd.choice(moves))
            out.append(engine.to_dict(state))
    return tuple(out)


def paths_of(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += paths_of(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += paths_of(v, (*prefix, i))
    return out


def damage(state: dict[str, Any], rnd: random.Random, value: Any) -> dict[str, Any]:
    """One random change: a value replaced, a key dropped, two cards swapped between
    places, or a card duplicated."""
    s = copy.deepcopy(state)
    kind = rnd.choice(["replace", "replace", "drop", "swap", "duplicate"])
    paths = [p for p in paths_of(s) if p]
    if kind in ("replace", "drop"):
        path = rnd.choice(paths)
        parent = s
        for step in path[:-1]:
            parent = parent[step]
        if kind == "drop" and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = value
        return s
    piles = [h for h in s["hands"] if h] + [p for p in (s["draw_pile"], s["discard"]) if p]
    a, b = rnd.choice(piles), rnd.choice(piles)
    i, j = rnd.randrange(len(a)), rnd.randrange(len(b))
    if kind == "swap":
        a[i], b[j] = b[j], a[i]
    else:
        b[j] = a[i]
    return s


def random_move(rnd: random.Random, players: int) -> dict[str, Any]:
    move: dict[str, Any] = {
        "type": rnd.choice(list(MoveType)).value,
        "player": rnd.randint(-1, players),
    }
    if rnd.random() < 0.6:
        move["card"] = rnd.randint(-1, 115)
    if rnd.random() < 0.3:
        move["color"] = rnd.choice(list(Color)).value
    if rnd.random() < 0.3:
        move["target"] = (
            rnd.randint(-1, players)
            if rnd.random() < 0.6
            else {"card": rnd.randint(0, 110), "number": rnd.randint(0, 12)}
        )
    if rnd.random() < 0.2:
        move["chain"] = [rnd.randint(0, 111) for _ in range(rnd.randint(0, 3))]
    if rnd.random() < 0.2:
        move["uno"] = rnd.random() < 0.5
    if rnd.random() < 0.2:
        move["cards"] = [
            {"card": rnd.randint(0, 110), **({"color": "red"} if rnd.random() < 0.3 else {})}
            for _ in range(rnd.randint(1, 2))
        ]
    return move


def body_for(path: str, state: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    n = state["players"] if isinstance(state.get("players"), int) else 2
    if path in ("/v1/games/apply", "/v1/games/validate"):
        return {"state": state, "move": random_move(rnd, n)}
    if path == "/v1/games/score":
        return {"state": state}
    return {"state": state, "player": rnd.choice([None, 0, 1, n - 1])}


@FUZZ
@given(
    index=st.integers(min_value=0, max_value=11),
    path=st.sampled_from(STATE_POSTS),
    seed=st.integers(min_value=0, max_value=2**32),
    value=json_values,
)
def test_a_damaged_state_is_answered_without_a_500(
    api: ApiClient, index: int, path: str, seed: int, value: Any
) -> None:
    states = sample_states()
    rnd = random.Random(seed)
    state = damage(states[index % len(states)], rnd, value)
    assert_sane(api.post(path, json=body_for(path, state, rnd)))


@settings(
    max_examples=EXAMPLES * 3,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(index=st.integers(min_value=0, max_value=11), seed=st.integers(min_value=0, max_value=2**32))
def test_a_random_move_on_a_real_state_is_answered_without_a_500(
    api: ApiClient, index: int, seed: int
) -> None:
    states = sample_states()
    state = states[index % len(states)]
    rnd = random.Random(seed)
    for path in ("/v1/games/apply", "/v1/games/validate"):
        resp = api.post(path, json={"state": state, "move": random_move(rnd, state["players"])})
        assert_sane(resp)


# ---------------------------------------------------------------- nothing is changed
@pytest.fixture
def parsed_bodies(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any]]:
    """Every request body as the service parsed it, with a copy taken at parse time."""
    seen: list[tuple[Any, Any]] = []
    read: Callable[[], Any] = service.http.read_json

    def spy() -> Any:
        data = read()
        seen.append((data, copy.deepcopy(data)))
        return data

    monkeypatch.setattr(service.http, "read_json", spy)
    return seen


def test_no_request_body_is_changed_by_the_service(
    api: ApiClient, parsed_bodies: list[tuple[Any, Any]]
) -> None:
    rnd = random.Random(5)
    for state in sample_states():
        n = state["players"]
        seat = 0
        view = engine.view(engine.from_dict(state), None)
        if view["phase"] == "play" or view["phase"] == "draft":
            seat = view["pending"]["player"] if view["pending"] else view["current_player"]
        legal = [m.to_dict() for m in engine.legal_moves(engine.from_dict(state), seat)]
        moves = [*legal[:2], random_move(rnd, n)]
        for move in moves:
            api.post("/v1/games/apply", json={"state": state, "move": move})
            api.post("/v1/games/validate", json={"state": state, "move": move})
        api.post("/v1/games/legal-moves", json={"state": state})
        api.post("/v1/games/view", json={"state": state, "player": seat})
        api.post("/v1/games/score", json={"state": state})
    new_game(api, variant="uno_classic", players=3, options={"target": 50}, deck=list(range(108)))
    assert len(parsed_bodies) > 50
    for after, before in parsed_bodies:
        assert after == before


def test_the_engine_state_of_a_request_is_not_changed_by_apply(api: ApiClient) -> None:
    """The answer is a new state; replaying the request gives the same answer."""
    for state in sample_states():
        parsed = engine.from_dict(state)
        if parsed.phase is Phase.GAME_OVER:
            continue
        seat = (
            0
            if parsed.phase is Phase.ROUND_OVER
            else (parsed.pending.player if parsed.pending is not None else parsed.current)
        )
        move = engine.legal_moves(parsed, seat)[0].to_dict()
        first = api.post("/v1/games/apply", json={"state": state, "move": move}).get_json()
        again = api.post("/v1/games/apply", json={"state": state, "move": move}).get_json()
        assert first == again
        assert first["state"]["move_count"] == state["move_count"] + 1
        assert engine.from_dict(state) == parsed
