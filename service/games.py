"""``/v1/games``: the stateless rules API. Parse, call the engine, dump the answer."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import orjson
from flask import Blueprint, Response, current_app

import engine
from engine import Move, State
from service import schemas
from service.http import json_body, json_response
from service.problems import ApiProblem
from service.sealing import Keyring, seal, unseal

bp = Blueprint("games", __name__, url_prefix="/v1/games")

@dataclass(frozen=True)
class Loaded:
    """A state from a request, and how it came: raw JSON or a sealed token (bound to
    a seat or not)."""

    state: State
    sealed: bool
    seat: int | None


def keyring() -> Keyring:
    return current_app.extensions["state_keys"]  # type: ignore[no-any-return]


def load_state(data: dict[str, Any]) -> Loaded:
    if data.get("state_token") is not None:
        try:
            inner = orjson.loads(unseal(keyring(), data["state_token"]))
            raw, seat = inner["s"], inner.get("seat")
        except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
            raise ApiProblem(
                422, "invalid_state_token", "state_token does not hold a state"
            ) from None
        return Loaded(engine.from_dict(raw), True, seat)
    return Loaded(engine.from_dict(data["state"]), False, None)


def state_fields(loaded: Loaded, state: State) -> dict[str, Any]:
    """The new state as the caller sent the old one: raw JSON, or a new sealed token."""
    if loaded.sealed:
        payload = orjson.dumps({"s": engine.to_dict(state), "seat": loaded.seat})
        return {"state_token": seal(keyring(), payload)}
    return {"state": engine.to_dict(state)}


def check_seat(loaded: Loaded, player: int | None) -> None:
    if loaded.seat is not None and player != loaded.seat:
        raise ApiProblem(
            403,
            "seat_not_allowed",
            f"this state_token is bound to seat {loaded.seat}; it shows no other seat",
        )


def check_player(state: State, player: int | None) -> None:
    if player is not None and not 0 <= player < state.num_players:
        raise ApiProblem(
            422, "invalid_player", f"player {player} is not a seat (0..{state.num_players - 1})"
        )


def waiting_seat(state: State) -> int:
    """The seat the game waits for: a pending decision's, else the current player."""
    return state.pending.player if state.pending is not None else state.current


def moves_json(state: State, player: int) -> list[dict[str, Any]]:
    return [m.to_dict() for m in engine.legal_moves(state, player)]


@bp.post("")
def create_game() -> Response:
    data = json_body(schemas.create_game)
    seed = data["seed"] if data["seed"] is not None else secrets.randbelow(2**53)
    state, events = engine.start(
        data["variant"], data["players"], seed, data["dealer"], data["options"], data["deck"]
    )
    seat = data["seat"]
    check_player(state, seat)
    viewer = seat if seat is not None else waiting_seat(state)
    loaded = Loaded(state, bool(data["sealed"]), seat)
    body = {
        **state_fields(loaded, state),
        "seed": seed,
        "view": engine.view(state, viewer),
        "events": engine.redact_all(events, viewer),
    }
    return json_response(body, 201)


@bp.post("/legal-moves")
def legal_moves() -> Response:
    data = json_body(schemas.legal_moves_body)
    loaded = load_state(data)
    state, player = loaded.state, data["player"]
    if player is None and loaded.seat is not None:
        player = loaded.seat
    check_seat(loaded, player)
    check_player(state, player)
    if player is not None:
        body: dict[str, Any] = {"player": player, "moves": moves_json(state, player)}
    else:
        seats = range(state.num_players)
        body = {"by_seat": [{"player": p, "moves": moves_json(state, p)} for p in seats]}
    return json_response(body)


@bp.post("/validate")
def validate() -> Response:
    data = json_body(schemas.validate_body)
    loaded = load_state(data)
    move = Move.from_dict(data["move"])
    check_seat(loaded, move.player)
    try:
        engine.validate(loaded.state, move)
    except engine.RulesError as exc:
        return json_response({"legal": False, "code": exc.code, "detail": exc.detail})
    return json_response({"legal": True})


@bp.post("/apply")
def apply() -> Response:
    data = json_body(schemas.apply_body)
    loaded = load_state(data)
    move = Move.from_dict(data["move"])
    check_seat(loaded, move.player)
    viewer = loaded.seat if loaded.seat is not None else move.player
    state, events = engine.apply(loaded.state, move)
    body = {
        **state_fields(loaded, state),
        "events": engine.redact_all(events, viewer),
        "view": engine.view(state, viewer),
    }
    return json_response(body)


@bp.post("/view")
def view() -> Response:
    data = json_body(schemas.view_body)
    loaded = load_state(data)
    check_seat(loaded, data["player"])
    check_player(loaded.state, data["player"])
    body = {"view": engine.view(loaded.state, data["player"])}
    return json_response(body)


@bp.post("/score")
def score() -> Response:
    data = json_body(schemas.score_body)
    loaded = load_state(data)
    body = engine.score(loaded.state)
    return json_response(body)
