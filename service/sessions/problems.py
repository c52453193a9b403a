"""Every problem a session answers, built here once: the service's ``ApiProblem`` (its
error table renders problem+json, ``{type, title, status, detail, code}``), one function
per code. A session part raises what these return; nothing else spells a session code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from engine import EngineError
from service.problems import ApiProblem

SessionProblem = ApiProblem
P = ParamSpec("P")
R = TypeVar("R")

#: The challenge of every 401 (RFC 6750).
REALM = 'Bearer realm="sessions"'


# ---------------------------------------------------------------- the request's shape (400)
def invalid_request(detail: str, errors: dict[str, Any]) -> ApiProblem:
    return ApiProblem(400, "invalid_request", detail, errors=errors)


def unreadable(name: str, detail: str) -> ApiProblem:
    """A header or query parameter that cannot be read (If-Match, Idempotency-Key, the
    lobby's cursor)."""
    return invalid_request(detail, {name: ["invalid"]})


# ---------------------------------------------------------------- the session
def not_found(sid: str) -> ApiProblem:
    return ApiProblem(404, "session_not_found", f"no session {sid!r} (it may have expired)")


def unavailable(retry_after: int) -> ApiProblem:
    return ApiProblem(
        503,
        "store_unavailable",
        "the session store cannot be reached; try again shortly",
        headers={"Retry-After": str(retry_after)},
    )


def session_waiting(open_seats: int) -> ApiProblem:
    return ApiProblem(
        409,
        "session_waiting",
        f"this session waits for {open_seats} more seat(s) to be taken; nothing is dealt yet",
    )


def client_seed_refused() -> ApiProblem:
    return ApiProblem(
        422,
        "client_seed_not_allowed",
        "this service chooses every session's seed (ALLOW_CLIENT_SEED is off): leave seed out",
        errors={"seed": ["not allowed here"]},
    )


def rules(code: str, detail: str) -> ApiProblem:
    """An engine's rules error (``EngineError``) with its own code: 422."""
    return ApiProblem(422, code, detail)


def judged(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(...)`` of the engine, its ``EngineError`` (a rules error) answered as 422."""
    try:
        return fn(*args, **kwargs)
    except EngineError as e:
        raise rules(e.code, e.detail) from None


# ---------------------------------------------------------------- tokens and codes (401, 403)
def missing_token(detail: str) -> ApiProblem:
    return ApiProblem(401, "missing_token", detail, headers={"WWW-Authenticate": REALM})


def invalid_token() -> ApiProblem:
    return ApiProblem(
        401,
        "invalid_token",
        "the token is not a seat token of this session",
        headers={"WWW-Authenticate": f'{REALM}, error="invalid_token"'},
    )


def seat_lost(seat: int, at: str, reason: str, replaced_by: str) -> ApiProblem:
    """A former token of ``seat``: 401 ``seat_taken_by_bot`` (after its timeouts) or
    ``seat_left`` (it left), with when (``at``, RFC 3339), why and what holds it now."""
    headers = {"WWW-Authenticate": f'{REALM}, error="invalid_token"'}
    extra = {"seat": seat, "at": at, "reason": reason, "replaced_by": replaced_by}
    if reason == "timeouts":
        return ApiProblem(
            401, "seat_taken_by_bot",
            f"a bot took seat {seat} at {at}: it ran out of time too often in a row",
            headers, **extra,
        )  # fmt: skip
    now = "a bot plays it now" if replaced_by == "bot" else "it is open again"
    return ApiProblem(
        401, "seat_left", f"seat {seat} left the session at {at}; {now}", headers, **extra
    )


def invalid_invitation() -> ApiProblem:
    return ApiProblem(403, "invalid_invitation", "this is not the invitation code of this session")


def not_your_seat(seat: int, named: int) -> ApiProblem:
    return ApiProblem(403, "not_your_seat", f"your token is seat {seat}'s; the move names {named}")


# ---------------------------------------------------------------- versions (412, 428)
def if_match_required(current: int) -> ApiProblem:
    return ApiProblem(
        428,
        "if_match_required",
        'a move needs If-Match: "<version>" (the ETag of the state it answers)',
        current_version=current,
        headers={"ETag": f'"{current}"'},
    )


def version_mismatch(current: int) -> ApiProblem:
    return ApiProblem(
        412,
        "version_mismatch",
        f"the session is at version {current}; reload it and try again",
        current_version=current,
        headers={"ETag": f'"{current}"'},
    )


def idempotency_key_reused() -> ApiProblem:
    return ApiProblem(
        422,
        "idempotency_key_reused",
        "this Idempotency-Key was used for another move or version",
    )


# ---------------------------------------------------------------- the session's stage (409)
def move_limit_reached(moves: int) -> ApiProblem:
    return ApiProblem(
        409,
        "move_limit_reached",
        f"this session has made {moves} moves, its limit; start a new one",
    )


def session_started() -> ApiProblem:
    return ApiProblem(409, "session_started", "this session has started: its seats are taken")


def session_full(wanted: int | None) -> ApiProblem:
    return ApiProblem(
        409,
        "session_full",
        "no open seat here" + ("" if wanted is None else f" (seat {wanted})"),
    )


def game_not_over() -> ApiProblem:
    return ApiProblem(409, "game_not_over", "a rematch is made when the game is over")
