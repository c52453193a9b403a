"""``/v1/games``: the stateless rules API. Parse, call the engine, dump the answer."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import orjson
from flask import Blueprint, Response, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

import engine
from engine import Move, Phase, State
from service import schemas
from service.fairness import new_game_id, seed_commitment
from service.http import json_body, json_response, read_json
from service.jsonscan import Refused, TooManyValues
from service.observability import count_moves
from service.problems import ApiProblem
from service.replay_limits import replay_bounds, replay_max_values
from service.replay_resume import RESUME_FIELD, ResumeError, open_resume, resume_token
from service.sealing import Keyring, seal, unseal

bp = Blueprint("games", __name__, url_prefix="/v1/games")


@dataclass(frozen=True)
class Loaded:
    """A state from a request, and how it came: raw JSON or a sealed token (bound to
    a seat or not; a seat-bound token made since seed commitments also names its
    game id)."""

    state: State
    sealed: bool
    seat: int | None
    game_id: str | None = None


def keyring() -> Keyring:
    return current_app.extensions["state_keys"]  # type: ignore[no-any-return]


def load_state(data: dict[str, Any]) -> Loaded:
    if data.get("state_token") is not None:
        try:
            inner = orjson.loads(unseal(keyring(), data["state_token"]))
            raw, seat, game_id = inner["s"], inner.get("seat"), inner.get("gid")
        except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
            raise ApiProblem(
                422, "invalid_state_token", "state_token does not hold a state"
            ) from None
        return Loaded(engine.from_dict(raw), True, seat, game_id)
    return Loaded(engine.from_dict(data["state"]), False, None)


def state_fields(loaded: Loaded, state: State) -> dict[str, Any]:
    """The new state as the caller sent the old one: raw JSON, or a new sealed token."""
    if loaded.sealed:
        inner: dict[str, Any] = {"s": engine.to_dict(state), "seat": loaded.seat}
        if loaded.game_id is not None:
            inner["gid"] = loaded.game_id
        return {"state_token": seal(keyring(), orjson.dumps(inner))}
    return {"state": engine.to_dict(state)}


def fairness_fields(loaded: Loaded, state: State) -> dict[str, Any]:
    """A seat-bound token's ``seed_commitment`` (the seed itself once the game is over);
    nothing for a state or an unbound token, whose holder can read the seed anyway."""
    if loaded.seat is None or loaded.game_id is None:
        return {}
    return {"seed_commitment": seed_commitment(loaded.game_id, state)}


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


def moves_json(state: State, player: int) -> list[dict[str, Any]]:
    return [m.to_dict() for m in engine.legal_moves(state, player)]


@bp.post("")
def create_game() -> Response:
    data = json_body(schemas.create_game)
    # A seed the client will see fits a JavaScript number (53 bits); a hidden one (a
    # seat-bound game's, behind a commitment) gets 64 random bits, too many to search.
    hidden = data["seat"] is not None
    seed = data["seed"]
    if seed is None:
        seed = secrets.randbits(64) if hidden else secrets.randbelow(2**53)
    state, events = engine.start(
        data["variant"], data["players"], seed, data["dealer"], data["options"], data["deck"]
    )
    seat = data["seat"]
    check_player(state, seat)
    # Else the seat the new game waits for (the engine's ``waiting_for``: never None
    # after the deal).
    viewer = seat if seat is not None else engine.waiting_for(state)
    # A seat-bound token hides the state from its holder: the seed, which would show
    # every hand, is then hidden too until the game is over (a commitment instead).
    loaded = Loaded(state, bool(data["sealed"]), seat, new_game_id() if seat is not None else None)
    body = {
        **state_fields(loaded, state),
        **({"seed": seed} if seat is None else fairness_fields(loaded, state)),
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
        **fairness_fields(loaded, state),
        "events": engine.redact_all(events, viewer),
        "view": engine.view(state, viewer),
    }
    answer = json_response(body)
    count_moves(state.variant, 1, "stateless")
    return answer


@bp.post("/view")
def view() -> Response:
    data = json_body(schemas.view_body)
    loaded = load_state(data)
    check_seat(loaded, data["player"])
    check_player(loaded.state, data["player"])
    body = {"view": engine.view(loaded.state, data["player"])}
    body.update(fairness_fields(loaded, loaded.state))
    return json_response(body)


@bp.post("/score")
def score() -> Response:
    data = json_body(schemas.score_body)
    loaded = load_state(data)
    state = loaded.state
    body = engine.score(state)
    if loaded.seat is not None:
        # Until the round is scored, a seat-bound token shows only its own hand's
        # points; of the other seats, how many cards they hold.
        body["hand_sizes"] = [len(h) for h in state.hands]
        if state.phase in (Phase.PLAY, Phase.DRAFT):
            points = body["hand_points"]
            body["hand_points"] = [p if s == loaded.seat else None for s, p in enumerate(points)]
        body.update(fairness_fields(loaded, state))
    return json_response(body)


def too_long(page: int, limit: int, what: str) -> ApiProblem:
    """413 ``replay_page_too_long``: more than a page in one replay request."""
    return ApiProblem(
        413,
        "replay_page_too_long",
        f"{what}: one replay request takes a page of at most {page} moves ({limit} bytes); "
        "send a longer record in pages, each with the resume token the page before "
        "answered (docs/records.md)",
        page_moves=page,
    )


@bp.post("/replay")
def replay() -> Response:
    """Verify a game record, or a page of one (``engine.replay``): the state after it,
    its score and its events, with ``resume`` (``service.replay_pages``) for the next
    page. 400 for a malformed record (``invalid_json`` for one nested too deep or past
    ``replay_bounds``), 413 ``replay_page_too_long`` for more than a page, 422 for one
    that does not verify or a ``resume`` that cannot continue it."""
    config = current_app.config
    page, limit = config["REPLAY_PAGE_MOVES"], config["REPLAY_MAX_CONTENT_LENGTH"]
    request.max_content_length = limit
    max_moves = current_app.extensions["sessions"].config.max_moves

    def refused(exc: Refused) -> ApiProblem | None:
        if isinstance(exc, TooManyValues):  # the caps a page's moves set
            return too_long(page, limit, f"the request body {exc}")
        return None

    try:
        data = read_json(replay_max_values(page), replay_bounds(page), refused)
    except RequestEntityTooLarge:
        raise too_long(page, limit, f"the request body is larger than {limit} bytes") from None
    start = None
    if isinstance(data, dict):
        moves = data.get("moves")
        if isinstance(moves, list) and len(moves) > page:
            raise too_long(page, limit, f"the record holds {len(moves)} moves")
        token = data.pop(RESUME_FIELD, None)
        if token is not None:
            try:
                start = open_resume(keyring(), token, data)
            except ResumeError as e:
                raise ApiProblem(422, e.code, e.detail) from None
        verified = start.moves if start is not None else 0
        if isinstance(moves, list) and verified + len(moves) > max_moves:
            raise ApiProblem(
                422,
                "move_limit_reached",
                f"a record holds at most {max_moves} moves (SESSION_MAX_MOVES); "
                f"{verified} are verified and this page holds {len(moves)} more",
            )
    try:
        done = engine.replay(data, page, start)
    except engine.InvalidRecord as e:
        field = str(e.context.get("field", "record"))
        raise ApiProblem(
            400,
            "invalid_request",
            f"the record is not valid ({field}): {e.detail}",
            errors={field: [e.detail]},
        ) from None
    except engine.RecordError as e:
        extra: dict[str, Any] = dict(e.context)
        raise ApiProblem(422, e.code, e.detail, None, title="Record refused", **extra) from None
    body = {
        "state": engine.to_dict(done.state),
        "score": done.score,
        "events": done.events,
        "moves_verified": done.progress.moves,
        "rounds_verified": done.progress.rounds,
        RESUME_FIELD: resume_token(keyring(), data, done.progress),
    }
    return json_response(body)
